//! The epsim command line, checked as `epsim run` checks it: [`epsim_tests::fuzzing::cli`].

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| epsim_tests::fuzzing::cli(data));
