use super::*;
use crate::diag::render;
use std::path::PathBuf;

/// Parses `#pragma <text>` in a file `t.c`; returns the pragma and the rendered diagnostics.
fn run_with(text: &str, macros: &[(String, i64)]) -> (Pragma, String) {
    let src = format!("#pragma {text}\n");
    let mut sm = SourceMap::new();
    let f = sm.add("t.c", PathBuf::from("t.c"), src.clone());
    let line = PragmaLine {
        span: Span::new(f, 8, 8 + text.len()),
        tokens: Vec::new(),
        line_span: Span::new(f, 0, src.len() - 1),
    };
    let mut diags = Diags::new();
    let p = parse_pragma(&line, &sm, macros, &mut diags);
    (p, render(&sm, &diags.0))
}

fn run(text: &str) -> (Pragma, String) {
    run_with(text, &[])
}

#[test]
fn scratch() {
    for t in [
        "acc parallel loop copyin(A[0:n copyin(B[0:n]) copyout(C[0:n])",
        "acc share(A[TB_Y+2][TB_X+2]",
        "acc share(in[TB_X][TB_Y]:colaesce)",
        "acc share(A[TB_Q][*])",
        "acc parallel loop fancy(3) copy(x[0:n])",
        "acc frobnicate",
        "acc kernels loop independent copyin(A[0:n][0:m])",
        "acc share(B[*][TB_X], A[TB_Y][*]:coalesce)",
        "acc share()",
        "acc kernels )",
        "acc",
        "acc loop reduction(foo:x)",
        "acc share(A[4/0])",
        "acc share(A[2-4])",
        "acc loop collapse(0)",
    ] {
        let (p, d) = run(t);
        println!("{t}\n  => {p}\n{d}");
    }
}
