//! A host raising a core's interrupt while the core waits on DRAM: the
//! host writes ILATST of core (0,0) (`e_write` of a register) now and then
//! while the core runs `firmware/multi/dram_repeat.elf`'s byte loops from
//! DRAM, its user interrupt unmasked, each write after a run of a
//! different length. The interrupt must be taken in the same cycles as in
//! strict cycle order: the handler counts the interrupts and the compare
//! resumes mid-loop, so the output, the cycles and every register at the
//! end match only if each was taken at the same point (session 32 found
//! two ways the fast order took such an interrupt late when a second core
//! raised it; this is the host's way in).
//!
//! At the 7th write (host cycle 392,475) the core waits for a line of its
//! code from DRAM (a fetch sent at 392,457, `Wait::Response`), its own
//! cycle still 392,454: before session 33's mend it took the interrupt
//! from there once the line was back, 21 cycles before the write, and
//! ended with 21 more ext-fetch stall cycles than strict order
//! (`Machine::interrupt_before_emit` now brings such a core to the
//! write's cycle, for the host's writes too: `Machine::host_wrote_regs`).

// Tests unwrap freely (clippy.toml's allow-unwrap-in-tests does not reach
// integration tests, rust-clippy#13981).
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use e_hal::Workgroup;

mod common;
use common::{core_state, det_host};

/// ILATST, and the user interrupt's bit in it.
const ILATST: u32 = 0xF042C;
const USER_BIT: u32 = 1 << 9;

/// The host's writes: after how many cycles of running each comes.
fn gaps() -> impl Iterator<Item = u64> {
    (0..24u64).map(|k| 20_000 + (k * 7_919) % 45_000)
}

/// The session: the core's output, its state at the end, and the host's
/// cycle at each write.
fn session(strict: bool) -> (String, String, Vec<u64>) {
    let h = det_host(strict);
    let elf = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../firmware/multi/dram_repeat.elf");
    let group = Workgroup {
        row: 0,
        col: 0,
        rows: 1,
        cols: 1,
    };
    h.load(&elf, group, &[(0, 0)], false).unwrap();
    h.start(&[(0, 0)]).unwrap();
    let mut at = Vec::new();
    for gap in gaps() {
        h.run(gap);
        h.write_reg(0, 0, ILATST, USER_BIT).unwrap();
        at.push(h.now());
    }
    assert!(h.run_until_idle(1 << 26), "the core did not end");
    h.with_machine(|m| {
        let out = String::from_utf8_lossy(m.sys.stdout.captured()).into_owned();
        (out, core_state(&m.cores[0]), at)
    })
}

#[test]
fn a_host_raising_an_interrupt_while_a_core_waits_on_dram_gives_strict_order() {
    let (want_out, want_state, want_at) = session(true);
    let (out, state, at) = session(false);
    assert_eq!(at, want_at, "the host's cycles at its writes");
    assert_eq!(out, want_out);
    assert_eq!(state, want_state);
    // The interrupts were taken, while the loops ran (not all after).
    let irqs: u32 = out
        .lines()
        .find_map(|l| l.strip_prefix("dram_repeat: irqs "))
        .unwrap_or_else(|| panic!("no count of interrupts in {out:?}"))
        .parse()
        .unwrap();
    assert!(irqs >= 10, "interrupts taken: {irqs}\n{out}");
    assert!(out.contains("dram_repeat: far 509\n"), "{out}");
}
