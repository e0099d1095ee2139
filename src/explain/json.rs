//! The JSON report of `accshare explain` (schema: docs/explain-json.md): the report value
//! (`value::Report`) as serde_json writes it.

use super::value::Report;

/// The whole report, on one line.
pub(super) fn json(report: &Report) -> String {
    // Serializing plain structs of strings and numbers to a String cannot fail.
    let mut s = serde_json::to_string(report).unwrap_or_default();
    s.push('\n');
    s
}
