//! One core running arbitrary words from an arbitrary entry point, functional and timed: [`epsim_tests::fuzzing::core`].

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| epsim_tests::fuzzing::core(data));
