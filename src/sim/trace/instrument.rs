//! The instrumented sequential build of a program ([`super::instrument`]): the user's main file
//! with trace writes around every compute region and data construct, built and run by the C
//! compiler ([`super::build_and_trace`]).

use super::*;
use crate::kernel::HostExpr;

const PRELUDE: &str = r#"#include <stdio.h>
#include <string.h>
static FILE *accshare_tf;
static void accshare_w(const char *tag, const void *p, long bytes)
{
    long n = (long)strlen(tag);
    if (!accshare_tf)
        accshare_tf = fopen(ACCSHARE_TRACE, "wb");
    if (!accshare_tf)
        return;
    fwrite(&n, sizeof n, 1, accshare_tf);
    fwrite(tag, 1, (size_t)n, accshare_tf);
    fwrite(&bytes, sizeof bytes, 1, accshare_tf);
    if (bytes > 0)
        fwrite(p, 1, (size_t)bytes, accshare_tf);
    fflush(accshare_tf);
}
/* An array of pointers to rows (`double **a`), written as the rows one after another (the
   device copy's layout): `nrows` rows of `row_bytes` from `rows[0]`; a null row is zeros. */
static void accshare_w_rows(const char *tag, void *const *rows, long nrows, long row_bytes)
{
    long n = (long)strlen(tag), bytes = nrows > 0 && row_bytes > 0 ? nrows * row_bytes : 0, k, z;
    if (!accshare_tf)
        accshare_tf = fopen(ACCSHARE_TRACE, "wb");
    if (!accshare_tf)
        return;
    fwrite(&n, sizeof n, 1, accshare_tf);
    fwrite(tag, 1, (size_t)n, accshare_tf);
    fwrite(&bytes, sizeof bytes, 1, accshare_tf);
    for (k = 0; bytes > 0 && k < nrows; k++) {
        if (rows[k])
            fwrite(rows[k], 1, (size_t)row_bytes, accshare_tf);
        else
            for (z = 0; z < row_bytes; z++)
                fputc(0, accshare_tf);
    }
    fflush(accshare_tf);
}
/* The host blocks the program's data clauses name, and its heap blocks (where `deviceptr` names
   `acc_malloc` memory, the sequential build has `malloc`), newest last: a `present` array whose
   length the clause does not give is traced to the end of the block holding it, the newest
   first. An address has one entry at most, found through `accshare_ix` (open addressing, an
   address to its entry's index, rebuilt when the table is compacted). `free` empties a
   block's entry (null, 0 bytes: no address is in it); a full table drops its empty entries and
   then its oldest live ones down to three quarters, at once, so that a program allocating in
   a loop pays O(1) a block and still finds its newest blocks. */
#include <stdlib.h>
#include <string.h>
#define ACCSHARE_PT 4096
#define ACCSHARE_IX (2 * ACCSHARE_PT)
static struct { const char *p; long n; } accshare_pt[ACCSHARE_PT];
static int accshare_np;
static struct { const char *p; int i; } accshare_ix[ACCSHARE_IX];
static int accshare_slot(const char *p)
{
    size_t h = ((size_t)p >> 4) * (size_t)0x9E3779B97F4A7C15ull;
    int s = (int)((h >> 17) & (ACCSHARE_IX - 1));
    while (accshare_ix[s].p && accshare_ix[s].p != p)
        s = (s + 1) & (ACCSHARE_IX - 1);
    return s;
}
/* The index of `p`'s entry, or -1. */
static int accshare_find(const void *p)
{
    int s = accshare_slot((const char *)p);
    int i = accshare_ix[s].i;
    return accshare_ix[s].p && i < accshare_np && accshare_pt[i].p == (const char *)p ? i : -1;
}
static void accshare_push(const void *p, long bytes)
{
    int s, i, k, live = 0, skip;
    if (accshare_np == ACCSHARE_PT) {
        for (i = 0; i < accshare_np; i++)
            live += accshare_pt[i].p != 0;
        skip = live > ACCSHARE_PT / 4 * 3 ? live - ACCSHARE_PT / 4 * 3 : 0;
        for (i = k = 0; i < accshare_np; i++)
            if (accshare_pt[i].p && skip-- <= 0)
                accshare_pt[k++] = accshare_pt[i];
        accshare_np = k;
        memset(accshare_ix, 0, sizeof accshare_ix);
        for (i = 0; i < accshare_np; i++) {
            s = accshare_slot(accshare_pt[i].p);
            accshare_ix[s].p = accshare_pt[i].p;
            accshare_ix[s].i = i;
        }
    }
    s = accshare_slot((const char *)p);
    accshare_ix[s].p = (const char *)p;
    accshare_ix[s].i = accshare_np;
    accshare_pt[accshare_np].p = (const char *)p;
    accshare_pt[accshare_np].n = bytes;
    accshare_np++;
}
static void accshare_reg(const void *p, long bytes)
{
    int i;
    if (!p || bytes <= 0)
        return;
    i = accshare_find(p);
    if (i >= 0)
        accshare_pt[i].n = bytes;
    else
        accshare_push(p, bytes);
}
static long accshare_len(const void *p)
{
    const char *q = (const char *)p;
    int i;
    for (i = accshare_np - 1; i >= 0; i--)
        if (q >= accshare_pt[i].p && q < accshare_pt[i].p + accshare_pt[i].n)
            return (long)(accshare_pt[i].p + accshare_pt[i].n - q);
    return 0;
}
static void accshare_unheap(const void *p)
{
    int i = p ? accshare_find(p) : -1;
    if (i >= 0) {
        accshare_pt[i].p = 0;
        accshare_pt[i].n = 0;
    }
}
static void *accshare_heap(void *p, size_t bytes)
{
    if (!p)
        return p;
    accshare_unheap(p);
    accshare_push(p, (long)bytes);
    return p;
}
static void accshare_free(void *p)
{
    accshare_unheap(p);
    free(p);
}
#define malloc(n) ({ size_t accshare_b = (n); accshare_heap(malloc(accshare_b), accshare_b); })
#define calloc(k, n) ({ size_t accshare_k = (k), accshare_b = (n); \
    accshare_heap(calloc(accshare_k, accshare_b), accshare_k * accshare_b); })
#define free(p) accshare_free(p)
"#;

/// The user's main file with trace writes around every compute region.
pub fn instrument(text: &str, m: &Module) -> Result<String, TraceError> {
    instrument_variants(text, &[m])
}

/// [`instrument`] for several compilations of one file that differ only in their schedules
/// (`accshare tune`'s variants): the arrays are written once, each variant's launch arguments
/// and extents under its index, so that one run of the sequential program serves them all
/// ([`Select::variant`]).
pub fn instrument_variants(text: &str, modules: &[&Module]) -> Result<String, TraceError> {
    instrument_resolved(text, modules, &[])
}

/// [`instrument_variants`] leaving out the ranges `cuts` of `text`
/// ([`crate::back::output::sequential_cuts`]: the conditional groups the regions cut, resolved
/// as accshare's preprocessor took them, so that the code inserted at a region's ends is not
/// in a branch the C compiler skips).
pub fn instrument_resolved(
    text: &str,
    modules: &[&Module],
    cuts: &[std::ops::Range<usize>],
) -> Result<String, TraceError> {
    let Some(m) = modules.first() else {
        return Err(TraceError::NoModule);
    };
    if modules.iter().any(|v| v.host.len() != m.host.len()) {
        return Err(TraceError::VariantsDiffer);
    }
    // (position, nesting order at one position, text): at one position, the end of an
    // enclosing data construct is inserted first, so that it ends up after what follows.
    let mut inserts: Vec<(usize, u8, String)> = Vec::new();
    for (ri, r) in m.host.iter().enumerate() {
        if r.keep_body.is_some() {
            // A data construct's lifetime, for the device copies its clauses create
            // (`undefined::DeviceCopies`), and the blocks they name.
            inserts.push((
                r.replace.start,
                1,
                format!(
                    "{{ accshare_w(\"data:{}\", 0, 0);\n{}{}",
                    ri,
                    aliases(r),
                    registrations(r)
                ),
            ));
            inserts.push((
                r.replace.end,
                0,
                format!("\naccshare_w(\"dend:{}\", 0, 0); }}\n", ri),
            ));
            continue;
        }
        let mut dump_arrays = String::new();
        let mut pointers = String::new();
        for a in region_arrays(r) {
            let b = buffer_info(m, r, &a).ok_or_else(|| TraceError::NoBuffer(a.clone()))?;
            if let Some(rows) = &b.rows {
                // An array of pointers to rows: its rows from row 0, one after another.
                let t = b.elem.c_name();
                dump_arrays.push_str(&format!(
                    "accshare_w_rows(\"A:{a}\", (void *const *)({a}), {n}, (long)({l}) * (long)sizeof({t}));\n",
                    n = rows_from_zero(&b.array, b.start.as_ref(), &b.count, &rows.len),
                    l = host_expr(&rows.len),
                ));
                // No `P:` record: the pointers' block is not the rows' bytes, which the
                // check for arrays that are one host array compares.
                continue;
            }
            // A section that starts past 0 (`copyin(u[lo:n])`) is traced from element 0 to its
            // end: the replay's buffers start at the array's start, and kernels index with the
            // host's indices. An array of unknown length (`present` or `deviceptr` in a
            // callee): to the end of the block a data clause named before.
            let count = match &b.start {
                Some(st) => format!("({}) + ({})", host_expr(st), host_expr(&b.count)),
                None if b.count == HostExpr::Int(0) => format!(
                    "accshare_len({}) / (long)sizeof({})",
                    crate::back::host::host_ptr(b.elem.c_name(), &b.array),
                    b.elem.c_name()
                ),
                None => host_expr(&b.count),
            };
            dump_arrays.push_str(&format!(
                "accshare_w(\"A:{}\", {}, (long)({}) * (long)sizeof({}));\n",
                a,
                crate::back::host::host_ptr(b.elem.c_name(), &b.array),
                count,
                b.elem.c_name()
            ));
            // Its host address: arrays that are one host array (MG's `resid(u, r, r)`) are one
            // device copy, which the replay's separate buffers are not.
            pointers.push_str(&format!(
                "{{ const void *accshare_p = {}; accshare_w(\"P:{}\", &accshare_p, (long)sizeof accshare_p); }}\n",
                crate::back::host::host_ptr(b.elem.c_name(), &b.array),
                a
            ));
        }
        let mut vars = String::new();
        for l in &r.launches {
            for red in &l.reductions {
                vars.push_str(&format!(
                    "accshare_w(\"V:{}\", &{}, (long)sizeof {});\n",
                    red.var, red.var, red.var
                ));
            }
        }
        let mut before = format!(
            "{{ accshare_w(\"begin:{}\", 0, 0);\n{}{}{}{}{}",
            ri,
            aliases(r),
            registrations(r),
            pointers,
            dump_arrays,
            vars
        );
        for (vi, v) in modules.iter().enumerate() {
            for (li, l) in v.host[ri].launches.iter().enumerate() {
                for (ai, a) in l.args.iter().enumerate() {
                    let (e, ty) = match a {
                        HostArg::Scalar { expr, ty } => (host_expr(expr), ty),
                        HostArg::LastValue { var, ty } => (var.clone(), ty),
                        _ => continue,
                    };
                    before.push_str(&format!(
                        "{{ {t} accshare_v = ({t})({e}); accshare_w(\"S:{vi}:{li}:{ai}\", &accshare_v, (long)sizeof accshare_v); }}\n",
                        t = ty.c_name(),
                    ));
                }
                for (d, e) in l.extent.iter().enumerate() {
                    before.push_str(&format!(
                        "{{ long accshare_v = (long)({}); accshare_w(\"E:{}:{}:{}\", &accshare_v, 8); }}\n",
                        host_expr(e),
                        vi,
                        li,
                        d
                    ));
                }
            }
        }
        before.push_str("accshare_w(\"mid\", 0, 0);\n");
        let after = format!("\n{}{}accshare_w(\"end\", 0, 0); }}\n", dump_arrays, vars);
        inserts.push((r.replace.start, 1, before));
        inserts.push((r.replace.end, 1, after));
    }
    // A cut is applied before an insertion at its start (it does not take the inserted text).
    for c in cuts {
        if inserts.iter().any(|(p, _, _)| c.start < *p && *p < c.end) {
            return Err(TraceError::BoundaryOutside(c.start));
        }
        inserts.push((c.start, 0, String::new()));
    }
    inserts.sort_by_key(|(p, order, s)| (std::cmp::Reverse(*p), !s.is_empty(), *order));
    let mut out = text.to_string();
    for (p, _, s) in inserts {
        if p > out.len() || !out.is_char_boundary(p) {
            return Err(TraceError::BoundaryOutside(p));
        }
        if s.is_empty() {
            if let Some(c) = cuts.iter().find(|c| c.start == p) {
                if c.end > out.len() || !out.is_char_boundary(c.end) {
                    return Err(TraceError::BoundaryOutside(c.end));
                }
                out.replace_range(c.clone(), "");
            }
            continue;
        }
        out.insert_str(p, &s);
    }
    Ok(format!("{}{}", PRELUDE, out))
}

/// The variables region `r` names struct members through, declared as the host code declares
/// them (`back::host::alias_lines`), for the traced build's code that names them.
fn aliases(r: &HostRegion) -> String {
    crate::back::host::alias_lines(r)
        .into_iter()
        .map(|l| l + "\n")
        .collect()
}

/// The traced build's registrations of the host blocks region `r`'s data clauses (of known
/// length, `present` ones too) and `enter data` actions name (`accshare_reg`), for the arrays
/// of unknown length later.
fn registrations(r: &HostRegion) -> String {
    let reg = |array: &str, elem: Scalar, start: &Option<HostExpr>, count: &HostExpr| {
        let n = match start {
            Some(st) => format!("({}) + ({})", host_expr(st), host_expr(count)),
            None => host_expr(count),
        };
        format!(
            "accshare_reg({}, (long)({}) * (long)sizeof({}));\n",
            crate::back::host::host_ptr(elem.c_name(), array),
            n,
            elem.c_name()
        )
    };
    // An array of pointers to rows: its pointers, from row 0.
    let reg_rows = |array: &str, start: &Option<HostExpr>, count: &HostExpr, len: &HostExpr| {
        format!(
            "accshare_reg((const void *)({array}), (long)({}) * (long)sizeof(void *));\n",
            rows_from_zero(array, start.as_ref(), count, len)
        )
    };
    let mut s = String::new();
    for b in (r.buffers.iter()).filter(|b| !b.scalar && b.count != HostExpr::Int(0)) {
        match &b.rows {
            Some(rows) => s.push_str(&reg_rows(&b.array, &b.start, &b.count, &rows.len)),
            None => s.push_str(&reg(&b.array, b.elem, &b.start, &b.count)),
        }
    }
    for op in r.data_ops.iter().filter(|op| !op.scalar) {
        if matches!(op.kind, crate::kernel::DataOpKind::Enter { .. }) {
            match &op.rows {
                Some(rows) => s.push_str(&reg_rows(&op.array, &op.start, &op.count, &rows.len)),
                None => s.push_str(&reg(&op.array, op.elem, &op.start, &op.count)),
            }
        }
    }
    s
}

/// The rows of an array of pointers to rows of `len` elements from row 0 to the end of a
/// clause's part (`start` and `count` in elements); where the count is unknown (`present`
/// without bounds), to the end of the block of pointers a data clause named before.
fn rows_from_zero(
    array: &str,
    start: Option<&HostExpr>,
    count: &HostExpr,
    len: &HostExpr,
) -> String {
    if *count == HostExpr::Int(0) {
        return format!("accshare_len((const void *)({array})) / (long)sizeof(void *)");
    }
    let elems = match start {
        Some(st) => format!("({}) + ({})", host_expr(st), host_expr(count)),
        None => host_expr(count),
    };
    let l = host_expr(len);
    format!("(({l}) > 0 ? (long)({elems}) / (long)({l}) : 0L)")
}
/// The ranges of the main file `text` its instrumented copy leaves out: the conditional groups
/// `m`'s regions cut, resolved as accshare's preprocessor took them (run again here with the
/// compilation's `defines` and `include_dirs`; its diagnostics were the compilation's).
fn sequential_cuts(
    src: &std::path::Path,
    text: &str,
    m: &Module,
    defines: &[(String, Option<String>)],
    include_dirs: &[std::path::PathBuf],
) -> Vec<std::ops::Range<usize>> {
    let mut sources = crate::diag::SourceMap::new();
    let mut diags = crate::diag::Diags::new();
    let main = sources.add(
        src.display().to_string(),
        src.to_path_buf(),
        text.to_string(),
    );
    let opts = crate::front::preprocess::PpOptions {
        defines: defines.to_vec(),
        include_dirs: include_dirs.to_vec(),
    };
    let pp = crate::front::preprocess::preprocess(&mut sources, main, &opts, &mut diags);
    let groups = crate::back::output::main_conditionals(&pp, main);
    crate::back::output::sequential_cuts(text, &m.host, &groups)
}

/// Builds the instrumented program with the C compiler (`$CC`, default `cc`) in `work_dir`, runs
/// it, and returns the trace. `defines` are the `-D` options the program was compiled with by
/// accshare; the source's folder and `include_dirs` are on the include path.
pub fn build_and_trace(
    src: &std::path::Path,
    module: &Module,
    defines: &[(String, Option<String>)],
    include_dirs: &[std::path::PathBuf],
    work_dir: &std::path::Path,
) -> Result<Vec<u8>, TraceError> {
    build_and_trace_variants(src, &[module], defines, include_dirs, &[], work_dir)
}

/// [`build_and_trace`] for the variants of [`instrument_variants`]: one run of the sequential
/// program records the launches of them all. `link`: the program's other translation units
/// (`run --link`), compiled as they are into the traced program (their regions run
/// sequentially; only the main file's are traced).
pub fn build_and_trace_variants(
    src: &std::path::Path,
    modules: &[&Module],
    defines: &[(String, Option<String>)],
    include_dirs: &[std::path::PathBuf],
    link: &[std::path::PathBuf],
    work_dir: &std::path::Path,
) -> Result<Vec<u8>, TraceError> {
    use std::process::{Command, Stdio};
    let text = std::fs::read_to_string(src).map_err(|error| TraceError::Read {
        path: src.to_path_buf(),
        error,
    })?;
    std::fs::create_dir_all(work_dir).map_err(TraceError::Io)?;
    let c = work_dir.join("accshare_traced.c");
    let exe = work_dir.join("accshare_traced");
    let trace = work_dir.join("accshare_trace.bin");
    let _ = std::fs::remove_file(&trace);
    let cuts = match modules.first() {
        Some(m) => sequential_cuts(src, &text, m, defines, include_dirs),
        None => Vec::new(),
    };
    std::fs::write(&c, instrument_resolved(&text, modules, &cuts)?).map_err(TraceError::Io)?;
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let mut cmd = Command::new(&cc);
    cmd.args(["-std=gnu99", "-O1", "-ffp-contract=off", "-w"])
        .arg(format!("-DACCSHARE_TRACE=\"{}\"", trace.display()));
    if let Some(dir) = src.parent() {
        cmd.arg("-I").arg(if dir.as_os_str().is_empty() {
            std::path::Path::new(".")
        } else {
            dir
        });
    }
    for d in include_dirs {
        cmd.arg("-I").arg(d);
    }
    for (n, v) in defines {
        match v {
            Some(v) => cmd.arg(format!("-D{}={}", n, v)),
            None => cmd.arg(format!("-D{}", n)),
        };
    }
    let out = cmd
        .arg(&c)
        .args(link)
        .arg("-o")
        .arg(&exe)
        .arg("-lm")
        .output()
        .map_err(|error| TraceError::CannotRun {
            cc: cc.clone(),
            error,
        })?;
    if !out.status.success() {
        return Err(TraceError::CompileFailed {
            cc,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    let st = Command::new(&exe)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(TraceError::Io)?;
    if !st.success() {
        return Err(TraceError::Exited(st));
    }
    std::fs::read(&trace).map_err(TraceError::NoTrace)
}

#[cfg(test)]
mod tests {
    use super::PRELUDE;
    use std::process::Command;

    /// The traced build's table of blocks under many allocations and frees in random order
    /// (the table fills and is compacted many times over): the newest 200 live blocks are
    /// found, from their start and from their middle; an address registered twice keeps one
    /// entry, the newest length.
    #[test]
    fn the_table_of_blocks_finds_the_newest_live_blocks() {
        if Command::new("cc").arg("--version").output().is_err() {
            eprintln!("no C compiler: skipped");
            return;
        }
        let dir = std::env::temp_dir().join(format!("accshare-heap-table-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let src = dir.join("t.c");
        let exe = dir.join("t");
        let main = r#"
#define M 6000
static void *live[M];
static long sz[M];
static int nl;
int main(void)
{
    unsigned r = 1;
    long step;
    int j, k;
    for (step = 0; step < 300000; step++) {
        r = r * 1103515245u + 12345u;
        if ((((r >> 16) % 10) < 6 || nl == 0) && nl < M) {
            long n = 1 + (long)((r >> 8) % 200);
            live[nl] = malloc((size_t)n);
            sz[nl++] = n;
        } else {
            k = (r >> 16) % 10 == 9 ? nl - 1 : (int)((r >> 4) % (unsigned)nl);
            free(live[k]);
            memmove(&live[k], &live[k + 1], (size_t)(nl - k - 1) * sizeof live[0]);
            memmove(&sz[k], &sz[k + 1], (size_t)(nl - k - 1) * sizeof sz[0]);
            nl--;
        }
        if (step % 97 == 0)
            for (j = nl - 1; j >= 0 && j >= nl - 200; j--)
                if (accshare_len(live[j]) != sz[j]
                    || accshare_len((char *)live[j] + sz[j] / 2) != sz[j] - sz[j] / 2) {
                    printf("step %ld: block %d of %d, %ld bytes, found %ld\n", step, j, nl,
                           sz[j], accshare_len(live[j]));
                    return 1;
                }
    }
    {
        static double d[8];
        accshare_reg(d, 8 * sizeof(double));
        accshare_reg(d, 4 * sizeof(double));
        if (accshare_len(&d[1]) != 3 * (long)sizeof(double)) {
            printf("registered twice: %ld\n", accshare_len(&d[1]));
            return 1;
        }
    }
    printf("ok\n");
    return 0;
}
"#;
        std::fs::write(
            &src,
            format!("#define ACCSHARE_TRACE \"/dev/null\"\n{PRELUDE}{main}"),
        )
        .expect("write");
        let cc = Command::new("cc")
            .arg("-O1")
            .arg(&src)
            .arg("-o")
            .arg(&exe)
            .output()
            .expect("cc");
        assert!(
            cc.status.success(),
            "{}",
            String::from_utf8_lossy(&cc.stderr)
        );
        let run = Command::new(&exe).output().expect("run");
        let text = String::from_utf8_lossy(&run.stdout);
        assert!(run.status.success(), "{text}");
        assert_eq!(text, "ok\n");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
