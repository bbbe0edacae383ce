//! One snapshot of the error message per kind of broken file. The broken
//! files are made here by patching the committed samples, so that only
//! valid ELFs are committed.

mod common;

use common::*;
use epsim_loader::{load_file, plan, LoadError, Part, Target, Unmapped};

/// The error for `bytes`, checked to be a one-line message.
fn error_of(bytes: &[u8]) -> LoadError {
    let err = match plan(bytes, &Target::parallella16()) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    };
    let msg = err.to_string();
    assert!(!msg.contains('\n'), "one line: {msg}");
    err
}

fn patched(name: &str, patch: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut b = sample(name);
    patch(&mut b);
    b
}

/// Sets program header `i`'s u32 field at `field`.
fn set_phdr(b: &mut [u8], i: usize, field: usize, v: u32) {
    let at = phdr(b, i) + field;
    put_u32(b, at, v);
}

#[test]
fn not_elf_names_the_file() {
    let err = load_file(data_path("local.ld"), &Target::default()).expect_err("not ELF");
    assert!(matches!(err.cause(), LoadError::NotElf { .. }));
    assert_eq!(err.path(), Some(data_path("local.ld").as_path()));
    // The snapshot holds the path relative to the crate, for portability.
    let msg = err
        .to_string()
        .replace(env!("CARGO_MANIFEST_DIR"), "<loader>");
    insta::assert_snapshot!("not_elf", msg);
}

#[test]
fn missing_file_names_the_file() {
    let err = load_file(data_path("missing.elf"), &Target::default()).expect_err("no file");
    assert!(matches!(err.cause(), LoadError::Read(_)));
    let msg = err
        .to_string()
        .replace(env!("CARGO_MANIFEST_DIR"), "<loader>");
    assert!(msg.starts_with("<loader>/tests/data/missing.elf: cannot read the file: "));
}

#[test]
fn empty_file() {
    insta::assert_snapshot!("empty", error_of(&[]));
}

#[test]
fn elf64() {
    let b = patched("local.elf", |b| b[4] = 2);
    let err = error_of(&b);
    assert!(matches!(err, LoadError::NotElf32 { class: 2 }));
    insta::assert_snapshot!("elf64", err);
}

#[test]
fn big_endian() {
    let b = patched("local.elf", |b| b[5] = 2);
    let err = error_of(&b);
    assert!(matches!(err, LoadError::NotLittleEndian { data: 2 }));
    insta::assert_snapshot!("big_endian", err);
}

#[test]
fn wrong_machine() {
    let b = patched("local.elf", |b| put_u16(b, E_MACHINE, 3));
    let err = error_of(&b);
    assert!(matches!(err, LoadError::WrongMachine { machine: 3 }));
    insta::assert_snapshot!("wrong_machine_x86", err);
    let b = patched("local.elf", |b| put_u16(b, E_MACHINE, 62));
    insta::assert_snapshot!("wrong_machine_x86_64", error_of(&b));
    let b = patched("local.elf", |b| put_u16(b, E_MACHINE, 0x7777));
    insta::assert_snapshot!("wrong_machine_unknown", error_of(&b));
}

#[test]
fn relocatable_object() {
    let b = patched("local.elf", |b| put_u16(b, E_TYPE, 1));
    let err = error_of(&b);
    assert!(matches!(err, LoadError::NotExecutable { e_type: 1 }));
    insta::assert_snapshot!("not_executable", err);
}

#[test]
fn truncated_header() {
    let b = patched("local.elf", |b| b.truncate(30));
    let err = error_of(&b);
    assert!(matches!(
        err,
        LoadError::Truncated {
            part: Part::Header,
            ..
        }
    ));
    insta::assert_snapshot!("truncated_header", err);
}

#[test]
fn truncated_program_headers() {
    let b = patched("local.elf", |b| b.truncate(phdr(b, 1) + 8));
    insta::assert_snapshot!("truncated_program_headers", error_of(&b));
}

#[test]
fn truncated_segment() {
    // Cut the file two bytes into segment 1's data.
    let b = patched("local.elf", |b| {
        let off = get_u32(b, phdr(b, 1) + P_OFFSET) as usize;
        b.truncate(off + 2);
    });
    let err = error_of(&b);
    assert!(matches!(
        err,
        LoadError::Truncated {
            part: Part::Segment(1),
            ..
        }
    ));
    insta::assert_snapshot!("truncated_segment", err);
}

#[test]
fn segment_data_past_the_end() {
    // A p_offset beyond the file, as a corrupt header would give.
    let b = patched("local.elf", |b| set_phdr(b, 0, P_OFFSET, 0xffff_fff0));
    insta::assert_snapshot!("segment_offset_past_end", error_of(&b));
}

#[test]
fn truncated_section_headers() {
    let b = patched("local.elf", |b| b.truncate(b.len() - 10));
    let err = error_of(&b);
    assert!(matches!(
        err,
        LoadError::Truncated {
            part: Part::SectionHeaders,
            ..
        }
    ));
    insta::assert_snapshot!("truncated_section_headers", err);
}

#[test]
fn segment_outside_any_memory() {
    // Segment 0 of local.elf is 0x98 bytes at 0: move it around.
    let moved = |vaddr| patched("local.elf", |b| set_phdr(b, 0, P_VADDR, vaddr));

    let err = error_of(&moved(0x7ff0));
    assert!(matches!(
        err,
        LoadError::OutsideMemory {
            index: 0,
            start: 0x7ff0,
            end: 0x8088,
            reason: Unmapped::LocalPastSram { sram_size: 0x8000 }
        }
    ));
    insta::assert_snapshot!("outside_local_sram", err);
    insta::assert_snapshot!("outside_local_registers", error_of(&moved(0xf0000)));
    insta::assert_snapshot!("outside_core_sram", error_of(&moved(0x8090_7ff0)));
    insta::assert_snapshot!("outside_core_registers", error_of(&moved(0x808f_0400)));
    insta::assert_snapshot!("outside_no_such_core", error_of(&moved(0x9080_0000)));
    insta::assert_snapshot!("outside_past_external", error_of(&moved(0x8fff_fff0)));
    insta::assert_snapshot!("outside_wraps", error_of(&moved(0xffff_fff0)));
}

#[test]
fn overlapping_segments() {
    // Move local.elf's data segment (0x4 + 0x44 zero fill) into the code.
    let b = patched("local.elf", |b| set_phdr(b, 1, P_VADDR, 0x40));
    let err = error_of(&b);
    assert!(matches!(
        err,
        LoadError::Overlap {
            first: 0,
            second: 1,
            ..
        }
    ));
    insta::assert_snapshot!("overlap", err);
}

#[test]
fn overlapping_global_segments() {
    // external.elf: move the DRAM data segment onto the DRAM code.
    let b = patched("external.elf", |b| set_phdr(b, 2, P_VADDR, 0x8e00_0010));
    insta::assert_snapshot!("overlap_external", error_of(&b));
}

#[test]
fn local_and_global_segments_do_not_collide() {
    // 0x0 (local) and 0x80800000 (core (32,8)) meet only if the program is
    // loaded on core (32,8), which the loader cannot know.
    let b = patched("onchip.elf", |b| set_phdr(b, 1, P_VADDR, 0x8080_0000));
    assert!(plan(&b, &Target::default()).is_ok());
}

#[test]
fn file_size_larger_than_memory_size() {
    let b = patched("local.elf", |b| set_phdr(b, 1, P_FILESZ, 0x100));
    insta::assert_snapshot!("filesz_exceeds_memsz", error_of(&b));
}

#[test]
fn no_loadable_segments() {
    let b = patched("local.elf", |b| {
        set_phdr(b, 0, P_TYPE, 0);
        set_phdr(b, 1, P_MEMSZ, 0);
        set_phdr(b, 1, P_FILESZ, 0);
    });
    let err = error_of(&b);
    assert!(matches!(err, LoadError::NoLoadableSegments));
    insta::assert_snapshot!("no_loadable_segments", err);
    let b = patched("local.elf", |b| put_u16(b, E_PHNUM, 0));
    assert!(matches!(error_of(&b), LoadError::NoLoadableSegments));
}

#[test]
fn bad_entry_sizes() {
    let b = patched("local.elf", |b| put_u16(b, E_PHENTSIZE, 56));
    insta::assert_snapshot!("bad_phentsize", error_of(&b));
    let b = patched("local.elf", |b| put_u16(b, E_SHENTSIZE, 64));
    insta::assert_snapshot!("bad_shentsize", error_of(&b));
}

#[test]
fn bad_symbol_table() {
    // Find the symbol table and point its sh_link (string table) nowhere.
    let b = patched("local.elf", |b| {
        let shnum = get_u16(b, E_SHNUM) as usize;
        let symtab = (0..shnum)
            .find(|&i| get_u32(b, shdr(b, i) + SH_TYPE) == 2)
            .expect("local.elf has a symbol table");
        let at = shdr(b, symtab) + SH_LINK;
        put_u32(b, at, 99);
    });
    let err = error_of(&b);
    assert!(matches!(err, LoadError::BadSymbolTable { .. }));
    insta::assert_snapshot!("bad_symbol_table", err);
}

#[test]
fn bad_section_name_table() {
    // e_shstrndx past the section headers.
    let b = patched("local.elf", |b| {
        let shnum = get_u16(b, E_SHNUM);
        b[E_SHNUM + 2..E_SHNUM + 4].copy_from_slice(&(shnum + 3).to_le_bytes());
    });
    let err = error_of(&b);
    assert!(matches!(err, LoadError::BadSectionNames { .. }), "{err}");
    assert!(err.to_string().contains("e_shstrndx"), "{err}");
    // SHN_UNDEF: no section names, so no configuration sections, and the
    // file loads.
    let b = patched("local.elf", |b| {
        b[E_SHNUM + 2..E_SHNUM + 4].copy_from_slice(&0u16.to_le_bytes());
    });
    let p = plan(&b, &Target::parallella16()).unwrap();
    assert_eq!(p.config_sections, [None; 3]);
}
