//! Golden tests: our decoder and disassembler against `epiphany-elf-objdump`.
//!
//! The reference text lives in `isa/tests/golden/*.txt`, made once with the
//! Epiphany toolchain by `scripts/regen-objdump-goldens.sh` and committed, so
//! these tests need no toolchain. For every word in a golden file they check
//! that `decode(word).disasm(addr, word)` is byte-for-byte objdump's text,
//! and that a word objdump calls `*unknown*` decodes to `Op::Unimpl` with
//! `EncId::NoRow` (and any other word to a real row).
//!
//! # The golden files
//!
//! * `objdump16.txt`: every first halfword `h0`, all 65,536 of them, in
//!   order. When `h0[3:0]` selects a 16-bit form, the second halfword is
//!   `0x01a2` (`nop`) as padding, so this is the exhaustive test of the
//!   16-bit forms. When it selects a 32-bit form, the second halfword is
//!   seeded-random: those halfwords are covered as the first half of 32-bit
//!   words here, and the 32-bit forms properly by `objdump32.txt`.
//! * `objdump32.txt`: a seeded sample of 32-bit words: for each 32-bit row,
//!   every value of its free bits if there are at most 2^11, else 1,300
//!   random ones; for each 32-bit row, 300 "near misses" (a random instance
//!   with one fixed bit above op4 flipped, which exercises the strict
//!   reserved-bit checks); and 45,000 random words with a 32-bit op4.
//!
//! Format: lines starting with `#` are comments, except `# base 0x…` which
//! gives the address of the first word (each word sits 4 bytes after the
//! previous one). Every other line is `wwwwwwww text`: the 32-bit window
//! (first halfword low) in hex, one space, and objdump's text.
//!
//! The two `#[ignore]`d tests at the end are the generator's halves, run by
//! the regeneration script; they are not tests.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use epsim_isa::decode::decode;
use epsim_isa::encoding::{EncId, TABLE};
use epsim_isa::{insn_len, Op};

/// One golden entry: address, word, objdump's text.
struct Entry {
    addr: u32,
    word: u32,
    text: String,
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn parse_golden(name: &str) -> Vec<Entry> {
    let path = golden_dir().join(name);
    let text =
        fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut base: Option<u32> = None;
    let mut out = Vec::new();
    for (k, line) in text.lines().enumerate() {
        if let Some(b) = line.strip_prefix("# base ") {
            let b = b.trim().trim_start_matches("0x");
            base = Some(u32::from_str_radix(b, 16).expect("hex base address"));
            continue;
        }
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let base = base.unwrap_or_else(|| panic!("{name}:{}: data before `# base`", k + 1));
        let (w, t) = line
            .split_once(' ')
            .unwrap_or_else(|| panic!("{name}:{}: bad line {line:?}", k + 1));
        let word = u32::from_str_radix(w, 16)
            .unwrap_or_else(|_| panic!("{name}:{}: bad word {w:?}", k + 1));
        let addr = base.wrapping_add(4 * out.len() as u32);
        out.push(Entry {
            addr,
            word,
            text: t.to_string(),
        });
    }
    out
}

/// Compares every entry, reporting the first mismatches with enough context
/// to reproduce them.
fn check(name: &str, entries: &[Entry]) {
    const SHOW: usize = 25;
    let mut bad = 0usize;
    let mut report = String::new();
    for e in entries {
        let d = decode(e.word);
        let got = d.disasm(e.addr, e.word);
        let unknown_ok = if e.text == "*unknown*" {
            d.op == Op::Unimpl && d.enc == EncId::NoRow
        } else {
            d.enc != EncId::NoRow
        };
        if got != e.text || !unknown_ok {
            bad += 1;
            if bad <= SHOW {
                let _ = writeln!(
                    report,
                    "  addr {:#010x} word {:#010x}: objdump {:?}, ours {:?} (row {:?}, op {:?})",
                    e.addr, e.word, e.text, got, d.enc, d.op
                );
            }
        }
    }
    assert!(
        bad == 0,
        "{name}: {bad} of {} words disassemble differently from objdump; first {}:\n{report}",
        entries.len(),
        bad.min(SHOW)
    );
}

#[test]
fn every_16bit_halfword_matches_objdump() {
    let entries = parse_golden("objdump16.txt");
    assert_eq!(entries.len(), 0x10000, "one entry per first halfword");
    for (h0, e) in entries.iter().enumerate() {
        assert_eq!(e.word & 0xffff, h0 as u32, "entries are in halfword order");
    }
    check("objdump16.txt", &entries);
}

#[test]
fn sampled_32bit_words_match_objdump() {
    let entries = parse_golden("objdump32.txt");
    assert!(entries.len() >= 200_000, "only {} words", entries.len());
    // Every 32-bit row is well covered.
    let mut per_row: HashMap<EncId, usize> = HashMap::new();
    for e in &entries {
        assert_eq!(
            insn_len(e.word as u16),
            4,
            "{:#010x} is not a 32-bit word",
            e.word
        );
        *per_row.entry(decode(e.word).enc).or_default() += 1;
    }
    for row in TABLE.iter().filter(|r| r.len == 4) {
        let n = per_row.get(&row.id).copied().unwrap_or(0);
        let free = (!row.mask).count_ones();
        let want = if free == 0 { 1 } else { 64.min(1 << free) };
        assert!(n >= want, "row {:?} has only {n} samples", row.id);
    }
    check("objdump32.txt", &entries);
}

// ---------------------------------------------------------------------------
// Generator halves, driven by scripts/regen-objdump-goldens.sh. Not tests.

/// Seeded generator (splitmix64), so regeneration is reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn word(&mut self) -> u32 {
        (self.next() >> 32) as u32
    }
    fn below(&mut self, n: u32) -> u32 {
        (((self.next() >> 32) * n as u64) >> 32) as u32
    }
}

const NOP: u32 = 0x01a2;

fn words16() -> Vec<u32> {
    let mut rng = Rng(0x1600_e916_0000_0016);
    (0..=0xffffu32)
        .map(|h0| {
            let h1 = if insn_len(h0 as u16) == 2 {
                NOP
            } else {
                rng.word() >> 16
            };
            h0 | h1 << 16
        })
        .collect()
}

fn words32() -> Vec<u32> {
    let mut rng = Rng(0x3200_e932_0000_0032);
    let mut out = Vec::new();
    let rows32 = || TABLE.iter().filter(|r| r.len == 4);
    // Each row's free bits: all values when few, else a random sample.
    for r in rows32() {
        let free = !r.mask;
        if free.count_ones() <= 11 {
            // Enumerate the free bits in order: x = ((x | mask) + 1) & !mask.
            let mut x = 0u32;
            loop {
                out.push(r.bits | x);
                x = (x | r.mask).wrapping_add(1) & free;
                if x == 0 {
                    break;
                }
            }
        } else {
            out.push(r.bits);
            out.push(r.bits | free);
            for _ in 0..1298 {
                out.push(r.bits | rng.word() & free);
            }
        }
    }
    // Near misses: one fixed bit above op4 flipped.
    for r in rows32() {
        let fixed: Vec<u32> = (4..32).filter(|b| r.mask >> b & 1 == 1).collect();
        if fixed.is_empty() {
            continue;
        }
        for _ in 0..300 {
            let b = fixed[rng.below(fixed.len() as u32) as usize];
            out.push((r.bits | rng.word() & !r.mask) ^ 1 << b);
        }
    }
    // Anything with a 32-bit op4.
    const OP4_32: [u32; 6] = [0x8, 0x9, 0xb, 0xc, 0xd, 0xf];
    for _ in 0..45_000 {
        out.push(rng.word() & !0xf | OP4_32[rng.below(6) as usize]);
    }
    out
}

/// The scratch directory the regeneration script made, or `None` (with a
/// note) when these are run by hand, e.g. by `cargo test -- --ignored`.
fn work_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("EPSIM_GOLDEN_WORK").map(PathBuf::from);
    if dir.is_none() {
        eprintln!("EPSIM_GOLDEN_WORK is not set: run scripts/regen-objdump-goldens.sh");
    }
    dir
}

/// A golden file's name and the generator of its words.
type GoldenFile = (&'static str, fn() -> Vec<u32>);

const FILES: [GoldenFile; 2] = [("objdump16", words16), ("objdump32", words32)];

/// Step 1 of regeneration: writes `<name>.bin` (each word as 4
/// little-endian bytes at address 4*i, then `nop` padding so the last word
/// is read whole) and `<name>.words` (hex, one per line) into
/// `$EPSIM_GOLDEN_WORK`.
#[test]
#[ignore = "generator, run by scripts/regen-objdump-goldens.sh"]
fn regen_step1_write_inputs() {
    let Some(dir) = work_dir() else { return };
    for (name, gen) in FILES {
        let words = gen();
        let mut bin = Vec::with_capacity(words.len() * 4 + 8);
        let mut list = String::with_capacity(words.len() * 9);
        for w in words.iter().copied().chain([NOP | NOP << 16; 2]) {
            bin.extend_from_slice(&w.to_le_bytes());
        }
        for w in &words {
            let _ = writeln!(list, "{w:08x}");
        }
        fs::write(dir.join(format!("{name}.bin")), bin).expect("write .bin");
        fs::write(dir.join(format!("{name}.words")), list).expect("write .words");
    }
}

/// Step 2 of regeneration: joins `<name>.words` with objdump's listing
/// `<name>.dis` into `isa/tests/golden/<name>.txt`, checking on the way that
/// objdump consumed exactly the bytes we expect (2 or 4 for a known word as
/// op4 says; 4 for `*unknown*`) and that every padding halfword is a `nop`.
#[test]
#[ignore = "generator, run by scripts/regen-objdump-goldens.sh"]
fn regen_step2_import_objdump() {
    let Some(dir) = work_dir() else { return };
    let version = fs::read_to_string(dir.join("objdump.version")).expect("objdump.version");
    let version = version.lines().next().unwrap_or("").trim().to_string();
    for (name, _) in FILES {
        let words: Vec<u32> = fs::read_to_string(dir.join(format!("{name}.words")))
            .expect("read .words")
            .lines()
            .map(|l| u32::from_str_radix(l, 16).expect("hex word"))
            .collect();
        let dis = fs::read_to_string(dir.join(format!("{name}.dis"))).expect("read .dis");
        // Listing lines look like " 1c4:\t0f0f 0f0f \t*unknown*".
        let mut text: Vec<Option<String>> = vec![None; words.len()];
        for line in dis.lines() {
            let mut cols = line.splitn(3, '\t');
            let (Some(a), Some(raw), Some(t)) = (cols.next(), cols.next(), cols.next()) else {
                continue;
            };
            let Some(a) = a.trim().strip_suffix(':') else {
                continue;
            };
            let addr = u32::from_str_radix(a, 16).expect("hex address");
            let t = t.trim_end();
            let consumed = 2 * raw.split_whitespace().count();
            let slot = (addr / 4) as usize;
            if addr % 4 == 2 || slot >= words.len() {
                assert_eq!(t, "nop", "{name}: padding at {addr:#x} is not a nop");
                continue;
            }
            let w = words[slot];
            let want_len = if t == "*unknown*" {
                4
            } else {
                insn_len(w as u16) as usize
            };
            assert_eq!(
                consumed, want_len,
                "{name}: objdump length at {addr:#x} ({w:#010x}: {t})"
            );
            assert!(
                text[slot].replace(t.to_string()).is_none(),
                "{name}: {addr:#x} twice"
            );
        }
        let mut out = String::with_capacity(words.len() * 28);
        let _ = writeln!(
            out,
            "# Golden disassembly: {version}, -D -b binary -m epiphany -EL -z"
        );
        let _ = writeln!(
            out,
            "# Generated by scripts/regen-objdump-goldens.sh; do not edit."
        );
        let _ = writeln!(
            out,
            "# Format and sampling: see isa/tests/decode_golden.rs."
        );
        let _ = writeln!(out, "# base 0x0");
        for (k, (w, t)) in words.iter().zip(&text).enumerate() {
            let t = t
                .as_deref()
                .unwrap_or_else(|| panic!("{name}: no line at {:#x}", 4 * k));
            let _ = writeln!(out, "{w:08x} {t}");
        }
        fs::write(golden_dir().join(format!("{name}.txt")), out).expect("write golden");
    }
}
