//! AST → loop-nest IR.
