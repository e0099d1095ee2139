//! Attaches pragmas to the statements they annotate and validates the OpenACC regions.

use crate::diag::{Diags, SourceMap};
use crate::front::ast::TranslationUnit;
use crate::front::pragma_ast::Pragma;

/// Placeholder.
pub fn attach(tu: &mut TranslationUnit, pragmas: &[Pragma], diags: &mut Diags) {
    let _ = (tu, pragmas, diags);
}

/// Placeholder.
pub fn validate(tu: &TranslationUnit, sources: &SourceMap, diags: &mut Diags) {
    let _ = (tu, sources, diags);
}
