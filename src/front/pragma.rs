//! The pragma parser (pest grammar `grammar/pragma.pest`).
