//! End-to-end tests of epsim (in `tests/`), and the bodies of the fuzz
//! targets ([`fuzzing`]), shared by `fuzz/` and the corpus replay test.

pub mod fuzzing;
