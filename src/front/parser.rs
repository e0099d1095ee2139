//! The C parser: splits the preprocessed tokens into top-level items and parses each with the
//! LALRPOP grammar `grammar/c.lalrpop`.
