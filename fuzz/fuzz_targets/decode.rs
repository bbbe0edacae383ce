//! The decoder and disassembler: [`epsim_tests::fuzzing::decode_disasm`].

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| epsim_tests::fuzzing::decode_disasm(data));
