//! The pragma parser (pest grammar `grammar/pragma.pest`).

use crate::diag::{Diags, SourceMap};
use crate::front::pragma_ast::Pragma;
use crate::front::preprocess::PragmaLine;

/// Placeholder until the pest grammar lands.
pub fn parse_pragma(
    line: &PragmaLine,
    sources: &SourceMap,
    int_macros: &[(String, i64)],
    diags: &mut Diags,
) -> Pragma {
    let _ = (line, sources, int_macros, diags);
    Pragma::Foreign
}
