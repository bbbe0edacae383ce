//! No input makes the loader panic: every truncation of the samples, and
//! many seeded random corruptions of their bytes and header fields, give
//! either a plan that respects the target or a one-line error.

mod common;

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use common::*;
use epsim_loader::{plan, Target};

/// xorshift64*: a small seeded generator, so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Runs the loader on `bytes` and checks what comes out; `what` names the
/// input in a failure message.
/// Returns the error's variant name, or "ok".
fn check(bytes: &[u8], target: &Target, what: &dyn Fn() -> String) -> String {
    let result = catch_unwind(AssertUnwindSafe(|| plan(bytes, target)));
    match result {
        Err(_) => panic!("plan panicked on {}", what()),
        Ok(Err(e)) => {
            let msg = e.to_string();
            assert!(
                !msg.is_empty() && !msg.contains('\n'),
                "{}: {msg:?}",
                what()
            );
            let debug = format!("{e:?}");
            debug
                .split(|c: char| !c.is_alphanumeric())
                .next()
                .unwrap_or_default()
                .to_string()
        }
        Ok(Ok(p)) => {
            assert!(!p.segments.is_empty(), "{}", what());
            for s in &p.segments {
                assert!(s.data.len() <= bytes.len(), "{}", what());
                let mem = u32::try_from(s.mem_size()).expect("p_memsz is a u32");
                assert_eq!(target.place(s.vaddr, mem), Ok(s.region), "{}", what());
            }
            // The helpers must not panic either.
            for a in [0, 0x24, 0x7ff0, 0x8e00_0000, u32::MAX] {
                let _ = (p.symbol_at(a), p.symbol_before(a));
            }
            "ok".into()
        }
    }
}

/// Checks that a corruption run reached deep into the loader: some inputs
/// still load and the errors are of many kinds.
fn assert_variety(outcomes: &BTreeMap<String, usize>) {
    assert!(outcomes.get("ok").is_some_and(|&n| n > 0), "{outcomes:?}");
    assert!(outcomes.len() >= 8, "{outcomes:?}");
}

#[test]
fn every_truncation() {
    let target = Target::default();
    for name in SAMPLES {
        let bytes = sample(name);
        for len in 0..bytes.len() {
            check(&bytes[..len], &target, &|| {
                format!("{name} cut to {len} bytes")
            });
        }
    }
}

#[test]
fn random_byte_flips() {
    let target = Target::default();
    let mut rng = Rng(0x5eed_1223);
    let mut outcomes = BTreeMap::new();
    for name in SAMPLES {
        let original = sample(name);
        // Most of what matters is in the ELF header, the program headers
        // and the section headers; aim half of the flips there.
        let phend = phdr(&original, get_u16(&original, E_PHNUM) as usize);
        let shoff = get_u32(&original, E_SHOFF) as usize;
        for round in 0..20_000 {
            let mut bytes = original.clone();
            let flips = 1 + rng.below(4);
            for _ in 0..flips {
                let at = match rng.below(4) {
                    0 => rng.below(phend),
                    1 => shoff + rng.below(bytes.len() - shoff),
                    _ => rng.below(bytes.len()),
                };
                bytes[at] ^= 1 << rng.below(8);
            }
            let kind = check(&bytes, &target, &|| format!("{name} round {round}"));
            *outcomes.entry(kind).or_insert(0) += 1;
        }
    }
    assert_variety(&outcomes);
}

#[test]
fn extreme_header_fields() {
    const VALUES: [u32; 9] = [
        0,
        1,
        0x20,
        0x7fff,
        0x8000,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_fff0,
        0xffff_ffff,
    ];
    let target = Target::default();
    let mut rng = Rng(0xe16_6301);
    let mut outcomes = BTreeMap::new();
    for name in SAMPLES {
        let original = sample(name);
        let len = original.len() as u32;
        let phnum = get_u16(&original, E_PHNUM) as usize;
        let shnum = get_u16(&original, E_SHNUM) as usize;
        // (offset, width) of every ELF header and program/section header field.
        // e_type .. e_shstrndx as (offset, width).
        #[rustfmt::skip]
        let header_fields = [
            (16, 2), (18, 2), (20, 4), (24, 4), (28, 4), (32, 4), (36, 4),
            (40, 2), (42, 2), (44, 2), (46, 2), (48, 2), (50, 2),
        ];
        let mut fields: Vec<(usize, usize)> = header_fields.to_vec();
        for i in 0..phnum {
            fields.extend((0..8).map(|f| (phdr(&original, i) + 4 * f, 4)));
        }
        for i in 0..shnum {
            fields.extend((0..10).map(|f| (shdr(&original, i) + 4 * f, 4)));
        }
        for round in 0..20_000 {
            let mut bytes = original.clone();
            for _ in 0..1 + rng.below(3) {
                let (at, width) = fields[rng.below(fields.len())];
                let v = match rng.below(3) {
                    0 => VALUES[rng.below(VALUES.len())],
                    1 => len.wrapping_add(rng.below(9) as u32).wrapping_sub(4),
                    _ => rng.next() as u32,
                };
                if width == 2 {
                    put_u16(&mut bytes, at, v as u16);
                } else {
                    put_u32(&mut bytes, at, v);
                }
            }
            let kind = check(&bytes, &target, &|| format!("{name} field round {round}"));
            *outcomes.entry(kind).or_insert(0) += 1;
        }
    }
    assert_variety(&outcomes);
}
