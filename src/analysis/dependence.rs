//! Data dependences of a compute region.

// Placeholder interface until the analysis lands.
use crate::front::pragma_ast::RedOp;
use crate::ir::{LoopId, Marking, Region};

#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Independent,
    Carried(Vec<()>),
    Unknown(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct LoopDeps {
    pub verdict: Verdict,
    pub privatized: Vec<String>,
    pub reductions: Vec<(RedOp, String)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DepInfo {
    pub loops: Vec<LoopDeps>,
}

pub fn analyze(region: &Region) -> DepInfo {
    DepInfo {
        loops: region
            .loops
            .iter()
            .map(|l| LoopDeps {
                verdict: Verdict::Unknown("not analyzed".into()),
                privatized: Vec::new(),
                reductions: l.reductions.clone(),
            })
            .collect(),
    }
}

pub fn is_parallel(deps: &DepInfo, region: &Region, l: LoopId) -> bool {
    let _ = deps;
    region.loops[l].marking == Marking::Independent
}

pub fn check_claims(
    region: &Region,
    deps: &DepInfo,
    sources: Option<&crate::diag::SourceMap>,
) -> Vec<crate::diag::Diag> {
    let _ = (region, deps, sources);
    Vec::new()
}
