//! Attaches pragmas to the statements they annotate and validates the OpenACC regions.
