//! The macros of the standard headers that compute code uses (`FLT_MAX` in a min-search,
//! `INT_MAX`, `M_PI`), for a `#include <…>` that no `-I` directory holds. accshare does not read
//! the system's headers; these values are the ones every target it compiles for shares (IEEE-754
//! `float`/`double`, 32-bit `int`, LP64 `long`), so the kernels mean what `cc` compiles.
//! Headers not listed here stay unread, as before.

/// The `#define` lines accshare knows for system header `name`.
pub(super) fn header_macros(name: &str) -> Option<&'static str> {
    Some(match name {
        "float.h" => {
            "#define FLT_MAX 3.40282347e+38F\n#define FLT_MIN 1.17549435e-38F\n\
             #define FLT_EPSILON 1.19209290e-07F\n#define FLT_DIG 6\n\
             #define DBL_MAX 1.7976931348623157e+308\n#define DBL_MIN 2.2250738585072014e-308\n\
             #define DBL_EPSILON 2.2204460492503131e-16\n#define DBL_DIG 15\n"
        }
        "limits.h" => {
            "#define CHAR_BIT 8\n#define SCHAR_MIN (-128)\n#define SCHAR_MAX 127\n\
             #define UCHAR_MAX 255\n#define SHRT_MIN (-32768)\n#define SHRT_MAX 32767\n\
             #define USHRT_MAX 65535\n#define INT_MIN (-2147483647 - 1)\n\
             #define INT_MAX 2147483647\n#define UINT_MAX 4294967295U\n\
             #define LONG_MIN (-9223372036854775807L - 1)\n#define LONG_MAX 9223372036854775807L\n\
             #define ULONG_MAX 18446744073709551615UL\n"
        }
        "math.h" => {
            "#define M_E 2.7182818284590452354\n#define M_LOG2E 1.4426950408889634074\n\
             #define M_LOG10E 0.43429448190325182765\n#define M_LN2 0.69314718055994530942\n\
             #define M_LN10 2.30258509299404568402\n#define M_PI 3.14159265358979323846\n\
             #define M_PI_2 1.57079632679489661923\n#define M_PI_4 0.78539816339744830962\n\
             #define M_1_PI 0.31830988618379067154\n#define M_2_PI 0.63661977236758134308\n\
             #define M_SQRT2 1.41421356237309504880\n#define M_SQRT1_2 0.70710678118654752440\n"
        }
        _ => return None,
    })
}
