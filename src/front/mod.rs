//! The front end: preprocessor, lexer, parser, pragmas.
//!
//! Invariant: the front end never panics; every problem in the input is a diagnostic with a span.

pub mod ast;
pub mod lexer;
pub mod parser;
pub mod pragma;
pub mod pragma_ast;
pub mod preprocess;
pub mod region;
pub mod token;
