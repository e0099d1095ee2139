//! Execution tests of the baseline (`--opt naive`): every example and corpus program is compiled
//! twice — as written by `cc` (the sequential reference) and through accshare (OpenCL, run on
//! PoCL) — at its default sizes and at sizes that are not multiples of any block size; every
//! output array must match.

mod exec_support;

use accshare::driver;

#[test]
fn programs_match_sequential_on_opencl() {
    let naive = driver::OptOptions {
        opt: driver::OptLevel::Naive,
        platform: None,
        ilp: None,
    };
    exec_support::programs::all_match_sequential(&naive, "naive");
}
