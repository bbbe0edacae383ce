//! Shared helpers for the `semantics_*` integration tests: a machine made of
//! an `ArchState` and a `FlatBus`, flag sets written as short strings, and a
//! seeded random source.
#![allow(dead_code)]

use epsim_isa::exec::exec;
use epsim_isa::flat::FlatBus;
use epsim_isa::{ArchState, Flags, Op, Step};

/// Address the instruction under test sits at.
pub const PC: u32 = 0x100;
/// Base and size of the test memory.
pub const MEM: u32 = 0x2000;
pub const MEM_SIZE: u32 = 0x2000;

pub struct Machine {
    pub s: ArchState,
    pub bus: FlatBus,
}

impl Machine {
    pub fn new() -> Machine {
        Machine {
            s: ArchState::new(),
            bus: FlatBus::new(MEM, MEM_SIZE),
        }
    }

    /// Executes `op` as a 32-bit instruction at `PC`.
    pub fn run(&mut self, op: Op) -> Step {
        exec(&mut self.s, &mut self.bus, op, PC, 4)
    }

    /// Executes `op` as an instruction of `len` bytes at `pc`.
    pub fn run_at(&mut self, op: Op, pc: u32, len: u32) -> Step {
        exec(&mut self.s, &mut self.bus, op, pc, len)
    }

    pub fn r(&self, n: u8) -> u32 {
        self.s.reg(n)
    }

    pub fn set(&mut self, n: u8, v: u32) -> &mut Machine {
        self.s.set_reg(n, v);
        self
    }
}

/// Flags from a space-separated list of names (`az an ac av avs bz bn bv
/// bis bvs bus`); `-` or an empty string is no flag set.
pub fn flags(list: &str) -> Flags {
    let mut f = Flags::default();
    for name in list.split_whitespace() {
        match name {
            "-" => {}
            "az" => f.az = true,
            "an" => f.an = true,
            "ac" => f.ac = true,
            "av" => f.av = true,
            "avs" => f.avs = true,
            "bz" => f.bz = true,
            "bn" => f.bn = true,
            "bv" => f.bv = true,
            "bis" => f.bis = true,
            "bvs" => f.bvs = true,
            "bus" => f.bus = true,
            other => panic!("unknown flag {other:?}"),
        }
    }
    f
}

/// Every flag, as `(name, getter)`, for readable assertion messages.
pub fn flag_names(f: &Flags) -> String {
    let all = [
        ("az", f.az),
        ("an", f.an),
        ("ac", f.ac),
        ("av", f.av),
        ("avs", f.avs),
        ("bz", f.bz),
        ("bn", f.bn),
        ("bv", f.bv),
        ("bis", f.bis),
        ("bvs", f.bvs),
        ("bus", f.bus),
    ];
    let v: Vec<&str> = all.iter().filter(|(_, on)| *on).map(|(n, _)| *n).collect();
    if v.is_empty() {
        "-".to_string()
    } else {
        v.join(" ")
    }
}

/// SplitMix64: a tiny, seeded, reproducible random source.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn u32(&mut self) -> u32 {
        (self.next() >> 32) as u32
    }

    /// True with probability 1/n.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.next() % n < 1
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + (self.next() % u64::from(hi - lo + 1)) as u32
    }
}
