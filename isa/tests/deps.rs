//! `Op::deps` against the semantics: for every 16-bit word and a seeded
//! sample of 32-bit words, on random register files,
//! * executing the instruction changes no register it does not declare as
//!   written, and no flag group it does not declare;
//! * changing a register it does not declare as read changes nothing else
//!   in the result (registers, flags, memory, outcome);
//! * changing the flags when it declares none read changes nothing.

mod semantics_util;

use epsim_isa::deps::{AFLAGS, BFLAGS};
use epsim_isa::exec::exec;
use epsim_isa::flat::FlatBus;
use epsim_isa::{decode, ArchState, Flags, Op, Step};
use semantics_util::Rng;

const PC: u32 = 0x100;

/// A state whose registers are small, 8-byte aligned addresses into the
/// mapped memory (so most accesses succeed) or small numbers.
fn random_state(rng: &mut Rng) -> ArchState {
    let mut s = ArchState::new();
    for r in 0..64 {
        s.r[r] = if rng.one_in(2) {
            rng.range(0x1000, 0x3000) & !7
        } else {
            rng.range(0, 40)
        };
    }
    s.flags = Flags {
        az: rng.one_in(2),
        an: rng.one_in(2),
        ac: rng.one_in(2),
        av: rng.one_in(2),
        bz: rng.one_in(2),
        bn: rng.one_in(2),
        ..Flags::default()
    };
    s
}

fn run(s: &ArchState, op: Op, len: u32) -> (ArchState, FlatBus, Step) {
    let mut s = s.clone();
    let mut bus = FlatBus::new(0, 0x10000);
    let step = exec(&mut s, &mut bus, op, PC, len);
    (s, bus, step)
}

fn aflags(f: &Flags) -> [bool; 5] {
    [f.az, f.an, f.ac, f.av, f.avs]
}

fn bflags(f: &Flags) -> [bool; 6] {
    [f.bz, f.bn, f.bv, f.bis, f.bus, f.bvs]
}

fn check(word: u32, rng: &mut Rng) {
    let d = decode(word);
    let op = d.op;
    let deps = op.deps();
    let len = d.len as u32;
    assert_eq!(deps.data & !deps.reads, 0, "{op:?}: store data is read");
    let s0 = random_state(rng);
    let (s1, bus1, step1) = run(&s0, op, len);
    if matches!(step1, Step::Fault { .. }) {
        return;
    }
    for r in 0..64u8 {
        if s0.r[r as usize] != s1.r[r as usize] {
            assert!(
                deps.writes() & 1 << r != 0,
                "{word:#010x} `{}` wrote r{r}, not declared ({deps:?})",
                d.disasm(PC, word)
            );
        }
    }
    if aflags(&s0.flags) != aflags(&s1.flags) {
        assert!(
            deps.flags_written & AFLAGS != 0,
            "{word:#010x} {op:?} wrote A flags"
        );
    }
    if bflags(&s0.flags) != bflags(&s1.flags) {
        assert!(
            deps.flags_written & BFLAGS != 0,
            "{word:#010x} {op:?} wrote B flags"
        );
    }
    // A register not read: give it another value, the rest must not move.
    let unread: Vec<u8> = (0..64u8).filter(|r| deps.reads & 1 << r == 0).collect();
    for _ in 0..4 {
        let r = unread[rng.range(0, unread.len() as u32 - 1) as usize];
        let mut s = s0.clone();
        s.r[r as usize] ^= 0x0101_0808;
        let (s2, bus2, step2) = run(&s, op, len);
        assert_eq!(step1, step2, "{word:#010x} {op:?}: outcome depends on r{r}");
        assert_eq!(
            bus1.bytes(0, 0x10000),
            bus2.bytes(0, 0x10000),
            "{word:#010x} {op:?}: memory depends on r{r}"
        );
        assert_eq!(
            s1.flags, s2.flags,
            "{word:#010x} {op:?}: flags depend on r{r}"
        );
        for q in 0..64usize {
            if q != r as usize || deps.writes() & 1 << r != 0 {
                assert_eq!(
                    s1.r[q],
                    s2.r[q],
                    "{word:#010x} `{}`: r{q} depends on r{r}, not declared read",
                    d.disasm(PC, word)
                );
            }
        }
    }
    if deps.flags_read == 0 {
        let mut s = s0.clone();
        s.flags.az = !s.flags.az;
        s.flags.ac = !s.flags.ac;
        s.flags.bz = !s.flags.bz;
        let (s2, _, step2) = run(&s, op, len);
        assert_eq!(
            step1, step2,
            "{word:#010x} {op:?}: outcome depends on flags"
        );
        assert_eq!(s1.r, s2.r, "{word:#010x} {op:?}: registers depend on flags");
    }
}

#[test]
fn every_16_bit_instruction_declares_what_it_reads_and_writes() {
    let mut rng = Rng(0x5eed_0016);
    for h in 0..=0xffffu32 {
        if decode(h).len == 2 {
            check(h, &mut rng);
        }
    }
}

#[test]
fn sampled_32_bit_instructions_declare_what_they_read_and_write() {
    let mut rng = Rng(0x5eed_0032);
    let mut n = 0;
    while n < 100_000 {
        let w = rng.u32();
        if decode(w).len == 4 {
            check(w, &mut rng);
            n += 1;
        }
    }
}
