//! Helpers shared by the loader's integration tests: the committed sample
//! ELFs and byte patches that break them.

#![allow(dead_code)]

use std::path::PathBuf;

/// Path of a file in `tests/data/`.
pub fn data_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// The bytes of a committed sample ELF.
pub fn sample(name: &str) -> Vec<u8> {
    let path = data_path(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The sample ELFs (see `tests/data/build.sh`).
pub const SAMPLES: [&str; 3] = ["local.elf", "external.elf", "onchip.elf"];

pub fn get_u16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

pub fn get_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

pub fn put_u16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_le_bytes());
}

pub fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// ELF32 header field offsets.
pub const E_TYPE: usize = 16;
pub const E_MACHINE: usize = 18;
pub const E_PHOFF: usize = 28;
pub const E_SHOFF: usize = 32;
pub const E_PHENTSIZE: usize = 42;
pub const E_PHNUM: usize = 44;
pub const E_SHENTSIZE: usize = 46;
pub const E_SHNUM: usize = 48;

/// ELF32 program header field offsets.
pub const P_TYPE: usize = 0;
pub const P_OFFSET: usize = 4;
pub const P_VADDR: usize = 8;
pub const P_FILESZ: usize = 16;
pub const P_MEMSZ: usize = 20;

/// ELF32 section header field offsets.
pub const SH_TYPE: usize = 4;
pub const SH_LINK: usize = 24;

/// File offset of program header `i`.
pub fn phdr(b: &[u8], i: usize) -> usize {
    get_u32(b, E_PHOFF) as usize + 32 * i
}

/// File offset of section header `i`.
pub fn shdr(b: &[u8], i: usize) -> usize {
    get_u32(b, E_SHOFF) as usize + 40 * i
}
