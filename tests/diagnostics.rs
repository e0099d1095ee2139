//! Every bad input in `tests/errors/` gives the diagnostics recorded in `tests/snapshots/` (the
//! whole rendered text, as a user sees it), and `accshare check` on every example prints the
//! region summaries recorded there.

use std::path::Path;

use accshare::back::Target;
use accshare::diag::{self, Diags, SourceMap};
use accshare::driver;

/// Compiles a file and renders its diagnostics with paths relative to the crate.
fn diagnose(rel: &str) -> (bool, String) {
    diagnose_with(rel, &driver::OptOptions::default())
}

/// [`diagnose`] at an optimization level.
fn diagnose_with(rel: &str, opt: &driver::OptOptions) -> (bool, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::env::set_current_dir(root).expect("cd");
    let mut sources = SourceMap::new();
    let mut diags = Diags::new();
    let opts = driver::Options {
        target: Target::OpenCl,
        pp: Default::default(),
    };
    let ok = driver::compile_with(Path::new(rel), &opts, opt, &mut sources, &mut diags).is_some();
    (ok, diag::render(&sources, &diags.0))
}

macro_rules! error_case {
    ($name:ident, $file:literal, $ok:expr) => {
        #[test]
        fn $name() {
            let (ok, text) = diagnose(concat!("tests/errors/", $file));
            assert_eq!(ok, $ok, "unexpected outcome for {}:\n{}", $file, text);
            assert!(!text.is_empty(), "no diagnostic for {}", $file);
            insta::assert_snapshot!(text);
        }
    };
}

error_case!(wrong_independent, "wrong_independent.c", false);
error_case!(coalesce_typo, "coalesce_typo.c", false);
error_case!(share_dims, "share_dims.c", false);
error_case!(share_unknown_array, "share_unknown_array.c", false);
error_case!(unknown_clause, "unknown_clause.c", true);
error_case!(malformed_clause, "malformed_clause.c", false);
error_case!(goto_in_kernel, "goto_in_kernel.c", false);
error_case!(struct_in_kernel, "struct_in_kernel.c", false);
error_case!(unterminated_comment, "unterminated_comment.c", false);
error_case!(
    unterminated_pragma_paren,
    "unterminated_pragma_paren.c",
    false
);
error_case!(macro_error, "macro_error.c", false);
error_case!(missing_endif, "missing_endif.c", false);
error_case!(include_missing, "include_missing.c", false);
error_case!(share_bad_expr, "share_bad_expr.c", false);
error_case!(implicit_dependence, "implicit_dependence.c", true);
error_case!(scalar_after_region, "scalar_after_region.c", false);
error_case!(vendor_clauses, "vendor_clauses.c", true);
error_case!(routine_early_return, "routine_early_return.c", false);
error_case!(loop_interchange, "loop_interchange.c", true);
error_case!(update_partial_rows, "update_partial_rows.c", false);
error_case!(reduction_span, "reduction_span.c", true);
error_case!(reduction_span_unnamed, "reduction_span_unnamed.c", false);
error_case!(reduction_span_operator, "reduction_span_operator.c", false);
error_case!(data_if, "data_if.c", false);
error_case!(reduction_array, "reduction_array.c", true);
error_case!(data_zero, "data_zero.c", false);
error_case!(data_clauses_twice, "data_clauses_twice.c", false);
error_case!(data_array_of_pointers, "data_array_of_pointers.c", false);
error_case!(rows_as_pointers, "rows_as_pointers.c", false);
error_case!(declare_return, "declare_return.c", false);
error_case!(stale_host_read, "stale_host_read.c", true);
error_case!(stale_device_read, "stale_device_read.c", true);
error_case!(uninit_copyout, "uninit_copyout.c", true);
error_case!(gang_scalar_two_loops, "gang_scalar_two_loops.c", false);
error_case!(struct_member_assigned, "struct_member_assigned.c", false);
error_case!(struct_member_unknown, "struct_member_unknown.c", false);

/// A `share` pragma whose kernel cannot be staged warns with the reason (`--opt share`, on the
/// `a100` file, which stages the pragma's partitions: the default `h100`'s L1 model keeps this
/// kernel unstaged anyway).
#[test]
fn share_not_staged() {
    let share = driver::OptOptions::share()
        .for_platform(accshare::model::Platform::load("a100").expect("a100"));
    let (ok, text) = diagnose_with("tests/errors/share_not_staged.c", &share);
    assert!(ok, "{}", text);
    insta::assert_snapshot!(text);
}
/// A `share` pragma whose tiles the model declines on the default `h100` (its L1 serves the
/// stencil's neighbours): a warning at the pragma says so and where to look.
#[test]
fn share_declined_by_the_l1_model() {
    let share = driver::OptOptions::share()
        .for_platform(accshare::model::Platform::load("h100").expect("h100"));
    let (ok, text) = diagnose_with("tests/errors/share_l1_model.c", &share);
    assert!(ok, "{}", text);
    insta::assert_snapshot!(text);
}
error_case!(atomic_max, "atomic_max.c", false);
error_case!(atomic_capture_mismatch, "atomic_capture_mismatch.c", false);
error_case!(atomic_bool, "atomic_bool.c", false);

#[test]
fn check_summaries_of_examples() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<_> = std::fs::read_dir(root.join("examples"))
        .expect("examples")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".c"))
        .collect();
    names.sort();
    let mut out = String::new();
    for n in names {
        let rel = format!("examples/{}", n);
        std::env::set_current_dir(root).expect("cd");
        let mut sources = SourceMap::new();
        let mut diags = Diags::new();
        let parsed = accshare::front::load(
            Path::new(&rel),
            &Default::default(),
            &mut sources,
            &mut diags,
        )
        .expect("readable");
        assert!(
            !diags.has_errors(),
            "{}:\n{}",
            rel,
            diag::render(&sources, &diags.0)
        );
        for r in accshare::front::region::summarize(&parsed.tu, &sources) {
            out.push_str(&format!("{}\n", r));
        }
    }
    insta::assert_snapshot!(out);
}
