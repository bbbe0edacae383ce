//! The ELF loader, the listing, loading and a short run: [`epsim_tests::fuzzing::elf`].

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| epsim_tests::fuzzing::elf(data));
