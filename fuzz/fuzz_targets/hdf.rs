//! The HDF parser of e_init: [`epsim_tests::fuzzing::hdf`].

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| epsim_tests::fuzzing::hdf(data));
