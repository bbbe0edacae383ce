//! `epsim disasm` against `epiphany-elf-objdump -d` (goldens made with the
//! toolchain by `scripts/regen-objdump-goldens.sh`): every instruction line
//! objdump prints must appear in our listing with the same halfwords, text
//! and symbol annotation.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

/// Instruction lines of a listing, by address: (halfwords, text).
fn instruction_lines(listing: &str) -> BTreeMap<u32, (String, String)> {
    listing
        .lines()
        .filter_map(|l| {
            let (addr, rest) = l.split_once(":\t")?;
            let addr = u32::from_str_radix(addr.trim(), 16).ok()?;
            let (bytes, text) = rest.split_once('\t')?;
            Some((addr, (bytes.trim().to_string(), text.to_string())))
        })
        .collect()
}

fn check(name: &str) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let golden = std::fs::read_to_string(root.join(format!("tests/golden/{name}.objdump")))
        .expect("golden exists");
    let elf = root.join(format!("../firmware/small/{name}.elf"));
    let out = Command::new(env!("CARGO_BIN_EXE_epsim"))
        .args(["disasm", elf.to_str().expect("utf-8")])
        .output()
        .expect("epsim runs");
    assert!(out.status.success());
    let ours = instruction_lines(&String::from_utf8_lossy(&out.stdout));
    let theirs = instruction_lines(&golden);
    assert!(theirs.len() > 50, "golden has {} lines", theirs.len());
    for (addr, want) in &theirs {
        assert_eq!(ours.get(addr), Some(want), "{name}: at {addr:#x}");
    }
}

#[test]
fn listing_matches_objdump_for_a_small_program() {
    check("unmapped_store");
}

#[test]
fn listing_matches_objdump_for_a_looping_program() {
    check("spin");
}
