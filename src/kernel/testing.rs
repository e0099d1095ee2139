//! Test support: kernels written with their arrays named by string, as the hand-built kernels
//! of the tests are. [`array`] hands out the handle of an array by name and space from a table
//! of the current thread (made on first use), [`take`] moves that table into the kernel being
//! built. Nothing outside tests calls these: lowering makes its arrays in the kernel's own
//! table ([`super::Kernel::arrays`]).

use std::cell::RefCell;

use super::{Arena, ArrayKind, Handle, KArray, KParam, KParamKind, Kernel, Space};
use crate::diag::Span;
use crate::vocab::Scalar;

thread_local! {
    static ARRAYS: RefCell<Arena<KArray>> = RefCell::new(Arena::new());
}

fn find_or_add(arrays: &mut Arena<KArray>, name: &str, space: Space) -> Handle<KArray> {
    if let Some((h, _)) = arrays
        .iter()
        .find(|(_, a)| a.name == name && a.space() == space)
    {
        return h;
    }
    let kind = match space {
        Space::Global => ArrayKind::Buffer,
        Space::Local => ArrayKind::Local { len: 0 },
        Space::Private => ArrayKind::Private { len: 0 },
    };
    arrays.append(
        KArray {
            name: name.to_string(),
            elem: Scalar::Int,
            kind,
        },
        Span::default(),
    )
}

/// The array `name` in `space` of the thread's table (element type and length set by
/// [`buffer`], [`local_in`] or [`private`]).
pub fn array(name: &str, space: Space) -> Handle<KArray> {
    ARRAYS.with(|a| find_or_add(&mut a.borrow_mut(), name, space))
}

/// The thread's table of arrays, emptied: the arrays of the kernel written since the last call.
pub fn take() -> Arena<KArray> {
    ARRAYS.with(|a| std::mem::take(&mut *a.borrow_mut()))
}

/// A buffer parameter of `elem` (of `record`'s structs where it has one), its array in the
/// thread's table.
pub fn buffer(name: &str, elem: Scalar, read_only: bool, record: Option<super::Record>) -> KParam {
    let h = array(name, Space::Global);
    ARRAYS.with(|a| a.borrow_mut()[h].elem = elem);
    KParam {
        name: name.to_string(),
        kind: KParamKind::Buffer {
            array: h,
            elem,
            read_only,
            record,
        },
    }
}

/// A private array of `len` elements of `elem` in the thread's table.
pub fn private(name: &str, elem: Scalar, len: u32) -> Handle<KArray> {
    let h = array(name, Space::Private);
    ARRAYS.with(|a| {
        let mut a = a.borrow_mut();
        a[h].elem = elem;
        a[h].kind = ArrayKind::Private { len };
    });
    h
}

/// The local array `name` of `k` (the one its code names, else a new one), of `len` elements of
/// `elem`, added to its local arrays.
pub fn local_in(k: &mut Kernel, name: &str, elem: Scalar, len: u32) -> Handle<KArray> {
    let h = find_or_add(&mut k.arrays, name, Space::Local);
    k.arrays[h].elem = elem;
    k.arrays[h].kind = ArrayKind::Local { len };
    k.locals.push(h);
    h
}

/// A copy of the thread's table of arrays (left as it is).
pub fn snapshot() -> Arena<KArray> {
    ARRAYS.with(|a| a.borrow().clone())
}

/// An element of the array `name` in `space` of the thread's table.
pub fn elem(name: &str, space: Space, index: super::KExpr) -> super::ArrayRef {
    super::ArrayRef::elem(array(name, space), space, index)
}

/// A load of [`elem`].
pub fn load(name: &str, space: Space, index: super::KExpr) -> super::KExpr {
    super::KExpr::Load(elem(name, space, index))
}
