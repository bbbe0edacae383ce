//! `epsim disasm` against `epiphany-elf-objdump -d` (binutils 2.40): the
//! listing of every ELF committed to the repository is byte for byte what
//! objdump printed for it. objdump's outputs are committed, compressed, in
//! `tests/objdump/` (made by `scripts/regen-disasm-goldens.sh`, which needs
//! the toolchain; this test does not). Besides the programs, the fixtures
//! in `tests/objdump/fixtures/` cover objdump's odd corners: instructions
//! cut by labels, objects in code, a branch below address 0, a stripped
//! file, relocatable objects, code at `0x80000000`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use epsim_sim::disasm::{objdump, read_elf};

const REGEN: &str = "PATH=/opt/epiphany/bin:$PATH scripts/regen-disasm-goldens.sh";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// objdump's output for each ELF, by path from the repository root: the
/// golden files hold the outputs one after another, each starting with
/// `\nPATH:     file format elf32-epiphany\n`.
fn goldens() -> BTreeMap<String, Vec<u8>> {
    const MARK: &[u8] = b":     file format elf32-epiphany\n";
    let dir = repo().join("sim/tests/objdump");
    let mut out = BTreeMap::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("sim/tests/objdump exists")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".objdump.xz"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no goldens in {}", dir.display());
    for file in files {
        let packed = std::fs::read(&file).expect("golden readable");
        let mut text = Vec::new();
        lzma_rs::xz_decompress(&mut &packed[..], &mut text)
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        // Split at each header line (a blank line, then `PATH: file format`).
        let mut starts = Vec::new();
        let mut at: usize = 0;
        for line in text.split_inclusive(|&b| b == b'\n') {
            let after_blank = at == 1 || (at >= 2 && text[at - 2] == b'\n');
            if line.ends_with(MARK) && after_blank {
                starts.push(at - 1);
            }
            at += line.len();
        }
        assert!(!starts.is_empty(), "{}: no listing in it", file.display());
        assert_eq!(starts[0], 0, "{}: starts with a listing", file.display());
        starts.push(text.len());
        for w in starts.windows(2) {
            let listing = &text[w[0]..w[1]];
            let header = listing[1..]
                .split(|&b| b == b'\n')
                .next()
                .unwrap_or_default();
            let path = &header[..header.len() - (MARK.len() - 1)];
            out.insert(
                String::from_utf8(path.to_vec()).expect("utf-8 path"),
                listing.to_vec(),
            );
        }
    }
    out
}

/// The ELF files the repository tracks (`git ls-files '*.elf'`).
fn committed_elfs() -> Vec<String> {
    let out = Command::new("git")
        .args(["ls-files", "--", "*.elf"])
        .current_dir(repo())
        .output()
        .expect("git runs (the test lists the repository's ELFs with it)");
    assert!(out.status.success(), "git ls-files failed: {out:?}");
    String::from_utf8(out.stdout)
        .expect("utf-8 paths")
        .lines()
        .filter(|p| repo().join(p).is_file())
        .map(str::to_string)
        .collect()
}

/// Where two listings first differ, for the failure message.
fn first_difference(want: &[u8], got: &[u8]) -> String {
    let (w, g) = (String::from_utf8_lossy(want), String::from_utf8_lossy(got));
    for (i, (a, b)) in w.lines().zip(g.lines()).enumerate() {
        if a != b {
            return format!("line {}: objdump `{a}`, epsim `{b}`", i + 1);
        }
    }
    format!(
        "objdump has {} lines, epsim {}",
        w.lines().count(),
        g.lines().count()
    )
}

#[test]
fn every_committed_elf_lists_exactly_as_objdump_does() {
    let goldens = goldens();
    let elfs = committed_elfs();
    assert!(elfs.len() > 100, "only {} ELFs found", elfs.len());
    let mut failures = Vec::new();
    let mut lines = 0;
    for path in &elfs {
        let Some(want) = goldens.get(path) else {
            failures.push(format!("{path}: no objdump listing; run {REGEN}"));
            continue;
        };
        let got = read_elf(&repo().join(path)).and_then(|elf| objdump(path.as_bytes(), &elf));
        match got {
            Ok(got) if &got == want => lines += got.iter().filter(|&&b| b == b'\n').count(),
            Ok(got) => failures.push(format!(
                "{path}: {} (if the ELF was rebuilt, run {REGEN})",
                first_difference(want, &got)
            )),
            Err(e) => failures.push(format!("{path}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} ELFs list differently:\n{}",
        failures.len(),
        elfs.len(),
        failures.join("\n")
    );
    assert!(lines > 1_000_000, "only {lines} lines compared");
}

fn epsim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_epsim"))
        .args(args)
        .current_dir(repo())
        .output()
        .expect("epsim runs")
}

#[test]
fn the_command_prints_objdumps_text_for_a_program_linked_at_the_default_address() {
    // Linked by the toolchain's default script at 0x80000000, which no
    // chip maps: `epsim run` refuses it, `epsim disasm` needs no map.
    let path = "firmware/small/default_link.elf";
    let out = epsim(&["disasm", path]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(Some(&out.stdout), goldens().get(path));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\n80000000 <init>:\n"), "{}", &text[..400]);
}

#[test]
fn the_command_lists_a_relocatable_object() {
    let path = "sim/tests/objdump/fixtures/multi_obj.elf";
    let out = epsim(&["disasm", path]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(Some(&out.stdout), goldens().get(path));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Disassembly of section .text.main:"));
}

#[test]
fn the_command_refuses_what_is_not_an_epiphany_elf() {
    let dir = std::env::temp_dir().join(format!("epsim-disasm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let cases: [(&str, Vec<u8>, &str); 4] = [
        ("text.elf", b"hello, world\n".to_vec(), "not an ELF file"),
        ("elf64.elf", elf64(), "not a 32-bit little-endian ELF"),
        (
            "arm.elf",
            with_machine(40),
            "e_machine is 0x28, not the Epiphany's 0x1223",
        ),
        ("cut.elf", cut_section(), "section 1 (.text): bytes"),
    ];
    for (name, bytes, want) in cases {
        let path = dir.join(name);
        std::fs::write(&path, bytes).expect("write");
        let out = epsim(&["disasm", path.to_str().expect("utf-8")]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(126), "{name}: {err}");
        assert!(out.stdout.is_empty(), "{name}");
        assert!(
            err.starts_with("epsim: ") && err.contains(name),
            "{name}: {err}"
        );
        assert!(err.contains(want), "{name}: {err}");
    }
    let missing = dir.join("missing.elf");
    let out = epsim(&["disasm", missing.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(126));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.elf"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A committed Epiphany ELF (the smallest fixture) to damage.
fn fixture() -> Vec<u8> {
    std::fs::read(repo().join("sim/tests/objdump/fixtures/edges.elf")).expect("fixture")
}

fn elf64() -> Vec<u8> {
    let mut b = fixture();
    b[4] = 2;
    b
}

fn with_machine(machine: u16) -> Vec<u8> {
    let mut b = fixture();
    b[18..20].copy_from_slice(&machine.to_le_bytes());
    b
}

/// The fixture with its `.text` (section 1) said to lie past the file's end.
fn cut_section() -> Vec<u8> {
    let mut b = fixture();
    let shoff = u32::from_le_bytes(b[32..36].try_into().expect("4 bytes")) as usize;
    let text = shoff + 40;
    b[text + 16..text + 20].copy_from_slice(&0x00ff_0000u32.to_le_bytes());
    b
}

#[test]
fn reading_stops_at_what_the_headers_name() {
    // A file padded far beyond its sections is read only up to them.
    let dir = std::env::temp_dir().join(format!("epsim-disasm-read-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("padded.elf");
    let mut bytes = fixture();
    let len = bytes.len();
    bytes.resize(len + (1 << 20), 0xa5);
    std::fs::write(&path, &bytes).expect("write");
    let read = read_elf(Path::new(&path)).expect("readable");
    assert!(read.len() <= len, "read {} of a {len}-byte ELF", read.len());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn damaged_files_are_listed_or_refused_without_a_panic() {
    let good = fixture();
    for len in 0..good.len() {
        let _ = objdump(b"cut.elf", &good[..len]);
    }
    for at in 0..good.len() {
        for value in [0x00, 0x01, 0x7f, 0x80, 0xff] {
            let mut bad = good.clone();
            bad[at] = value;
            if let Err(e) = objdump(b"bad.elf", &bad) {
                assert!(!e.to_string().is_empty());
            }
        }
    }
}

#[test]
fn a_load_plan_lists_its_executable_segments() {
    use epsim_loader::{Binding, Flags, LoadPlan, Region, Segment, Symbol, SymbolKind};
    // `b 4 <_b>` at 0, `nop`, a zero halfword, then `_b: rts`.
    let code = [0x20, 0x00, 0xa2, 0x01, 0x00, 0x00, 0x4f, 0x19, 0x02, 0x04];
    let seg = Segment {
        index: 0,
        vaddr: 0x100,
        region: Region::Local { offset: 0x100 },
        flags: Flags {
            read: true,
            write: false,
            exec: true,
        },
        data: code.to_vec(),
        zero_fill: 0,
    };
    let sym = |name: &str, addr| Symbol {
        name: name.into(),
        addr,
        size: 0,
        kind: SymbolKind::Func,
        binding: Binding::Global,
    };
    let plan = LoadPlan::new(0x100, vec![seg], vec![sym("_a", 0x100), sym("_b", 0x106)]);
    let text = epsim_sim::disasm::listing(&plan);
    assert!(text.contains("\n00000100 <_a>:\n"), "{text}");
    assert!(text.contains("\n00000106 <_b>:\n"), "{text}");
    assert!(text.contains(" 106:\t194f 0402 \trts\n"), "{text}");
}
