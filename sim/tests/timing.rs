//! The timing table: snippets measured inside a program with CTIMER0, as
//! Epiphany programmers measure (`firmware/timing/timing.S`), against the
//! cost the model's parameters give (`sim/TIMING.md`).

mod common;

use epsim_sim::{Config, StopReason};

/// The measured costs: results[i] - results[0] for each snippet i >= 1.
fn measured() -> Vec<u64> {
    let mut m = common::machine_with_elf("timing/timing.elf", Config::parallella16());
    let stop = m.run(Some(100_000));
    assert!(
        matches!(stop, StopReason::Exit { status: 0, .. }),
        "{stop:?}"
    );
    let sram = m.cores[0].sram.bytes();
    let word = |i: usize| {
        let o = 0x6000 + 4 * i;
        u32::from_le_bytes([sram[o], sram[o + 1], sram[o + 2], sram[o + 3]]) as u64
    };
    let base = word(0);
    (0..TABLE.len() + 1).map(|i| word(i) - base).collect()
}

/// (snippet, expected cost in cycles, why). The cost runs from the first
/// MOVFS issuing (cycle c0) to the snippet's last instruction issuing, plus
/// any cycles the closing MOVFS itself waits (a MOVFS reads the timer in
/// the cycle it issues).
const TABLE: &[(&str, u64, &str)] = &[
    (
        "IALU -> IALU",
        2,
        "add at c0+1, dependent add at c0+2: no stall",
    ),
    ("IALU, IALU", 2, "two IALU instructions never pair"),
    ("IALU -> FPU", 3, "ialu_to_fpu = 2: fadd at c0+3"),
    ("IALU + FPU", 1, "independent IALU then FPU pair in c0+1"),
    ("FPU + IALU", 1, "pair"),
    ("FPU + load", 1, "pair"),
    ("load + FPU", 1, "pair"),
    ("load, load", 2, "load/store never pairs with load/store"),
    ("IALU, load", 2, "IALU never pairs with load/store"),
    ("LDR -> IALU", 3, "load_to_int = 2"),
    ("LDR -> FPU", 4, "load_to_fpu = 3"),
    ("LDRB -> IALU", 4, "load_sub_word = 3"),
    ("LDR -> address", 3, "load_to_int = 2"),
    ("LDR -> store data", 3, "load_to_int = 2"),
    ("FPU -> FPU (round)", 6, "fpu_to_any 4 + round 1 = 5"),
    ("FPU -> IALU", 6, "5"),
    ("FPU -> store data", 5, "fpu_to_store 3 + round 1 = 4"),
    (
        "FPU flags -> BBEQ",
        6,
        "B flags ready 5 after the FPU op; not taken",
    ),
    (
        "IALU flags -> BEQ",
        2,
        "A flags ready the next cycle; not taken",
    ),
    ("B taken", 5, "b at c0+1, target at c0+1+1+3"),
    ("B to 32-bit at 8n", 5, "target line fetched in time"),
    (
        "B to 32-bit at 8n+6",
        6,
        "its second line arrives a cycle later",
    ),
    ("hardware loop 4x2", 8, "8 instructions, no loop overhead"),
    (
        "JALR into DRAM, RTS",
        544,
        "jalr c0+1, rts after 3 + a DRAM line read, 536 from (32,8) (as a \
         blocking load), and the closing MOVFS is the return's target: it \
         reads the timer after branch_taken 3",
    ),
    ("LDR from DRAM, IALU", 537, "the core waits ext_load = 536"),
    (
        "6 STR to DRAM, IALU",
        7,
        "back to back: the node's queue (4), the router input (2), the eLink \
         port (2) and the link hold 9 stores before the core waits \
         (mesh/MESH.md)",
    ),
    ("FPU -> FPU (truncate)", 5, "fpu_to_any = 4"),
    (
        "LD+FPU pairs, code bank",
        13,
        "5 pairs, one line each, from c0+5; loads use bank 0 two cycles after \
         issue, the fetch of line 4 (2 cycles before it can issue) loses to \
         each of the 4 loads before it: pair 5 at c0+9+4",
    ),
    (
        "LD+FPU pairs, other bank",
        9,
        "the same with loads from bank 1: one pair per cycle, c0+5..c0+9",
    ),
    ("IALU -> address", 2, "ialu_to_int = 1: no stall"),
    (
        "post-modify base -> address",
        3,
        "mov, ldr (post-modify), ldr: the base is an IALU-timed result, no stall",
    ),
    ("FPU -> IALU (truncate)", 5, "fpu_to_any = 4"),
];

#[test]
fn every_snippet_costs_what_the_model_says() {
    let got = measured();
    let mut wrong = Vec::new();
    for (i, (name, want, why)) in TABLE.iter().enumerate() {
        if got[i + 1] != *want {
            wrong.push(format!(
                "{name}: {} cycles, expected {want} ({why})",
                got[i + 1]
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn recorded_schedules_are_dropped_when_the_code_changes() {
    // firmware/timing/selfmod_timing.S rewrites a block between two runs
    // from the same pipeline state (an add becomes an fadd): replaying the
    // old record would make the run 4 cycles shorter.
    let run = |memoise: bool| {
        let mut config = Config::parallella16();
        config.memoise = memoise;
        let mut m = common::machine_with_elf("timing/selfmod_timing.elf", config);
        let stop = m.run(Some(100_000));
        assert!(matches!(stop, StopReason::Exit { .. }), "{stop:?}");
        (m.now, m.instret())
    };
    assert_eq!(run(true), run(false));
    assert_eq!(run(false), (65, 31));
}
