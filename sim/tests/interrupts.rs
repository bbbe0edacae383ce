//! Interrupts and the core timers on small bare programs
//! (`firmware/timing/irq_*.S`): timer expiry, nesting by priority, masking,
//! IDLE wake-up, in timed and functional mode. Cycle counts follow from
//! `sim/TIMING.md`: an interrupt is taken after the instruction during
//! which it was latched, and its vector issues `interrupt_entry` = 3
//! cycles later.

mod common;

use epsim_sim::{Config, Machine, Mode, StopReason};

fn run(name: &str, mode: Mode) -> (Machine, StopReason) {
    let mut config = Config::parallella16();
    config.mode = mode;
    let mut m = common::machine_with_elf(&format!("timing/{name}.elf"), config);
    let stop = m.run(Some(1_000_000));
    (m, stop)
}

fn status(stop: &StopReason) -> i32 {
    match stop {
        StopReason::Exit { status, .. } => *status,
        other => panic!("did not exit: {other:?}"),
    }
}

#[test]
fn ctimer0_expiry_interrupts_a_spinning_loop() {
    // Timed: the timer starts with the instruction after `movts config`
    // (cycle 14) and reaches zero during the `add` at cycle 114 (100 cycles
    // counted: 14..=113 and that add's own); the vector issues at 118. Each
    // iteration is `add` + taken `b` = 5 cycles: 21 adds ran.
    let (m, stop) = run("irq_timer", Mode::Timed);
    assert_eq!(status(&stop), 42);
    let s = &m.cores[0].state;
    assert_eq!(s.r[2], 21);
    assert_eq!(s.r[3], 0x5a, "IRET: the `b` after the add");
    assert_eq!(s.ctimer0, 0);
    assert_eq!(s.ipend, 1 << 3);
    assert_eq!(m.now, 125);
    // Functional: one cycle per instruction, 2 per iteration: 50 adds.
    let (m, stop) = run("irq_timer", Mode::Functional);
    assert_eq!(status(&stop), 42);
    assert_eq!(m.cores[0].state.r[2], 50);
    assert_eq!(m.now, 115);
}

#[test]
fn a_higher_priority_interrupt_nests_in_a_lower_one() {
    for mode in [Mode::Timed, Mode::Functional] {
        let (m, stop) = run("irq_nested", mode);
        assert_eq!(status(&stop), 0x208, "{mode:?}");
        assert_eq!(m.cores[0].state.r[4], 1 << 9 | 1 << 3, "{mode:?}: IPEND");
    }
}

#[test]
fn a_masked_interrupt_waits_latched_until_unmasked() {
    for mode in [Mode::Timed, Mode::Functional] {
        let (m, stop) = run("irq_masked", mode);
        assert_eq!(status(&stop), 7, "{mode:?}");
        let s = &m.cores[0].state;
        assert_eq!(s.r[5], 1 << 9, "{mode:?}: ILAT while masked");
        assert_eq!(s.r[6], 1, "{mode:?}: the program went on");
        assert_eq!(s.ilat, 0, "{mode:?}: taken");
    }
}

#[test]
fn the_timer_wakes_an_idle_core() {
    // Timed: IDLE issues at cycle 13 (the timer counts it: 999 left), the
    // core sleeps 999 cycles and the vector issues 3 cycles after.
    let (m, stop) = run("irq_idle", Mode::Timed);
    assert_eq!(status(&stop), 5);
    assert_eq!(m.now, 1022);
    assert_eq!(m.cores[0].stats.idle, 999);
    let (m, stop) = run("irq_idle", Mode::Functional);
    assert_eq!(status(&stop), 5);
    assert_eq!(m.now, 1013);
}

#[test]
fn a_store_to_a_protected_page_is_dropped_and_raises_the_memory_fault() {
    for mode in [Mode::Timed, Mode::Functional] {
        let (m, stop) = run("irq_memfault", mode);
        assert_eq!(status(&stop), 11, "{mode:?}: the word at 0x1000 is still 0");
        let s = &m.cores[0].state;
        assert_eq!(s.r[4], 1 << 11 | 1 << 2, "{mode:?}: MEMSTATUS write breach");
        assert_eq!(s.ipend, 1 << 2, "{mode:?}: in the memory-fault handler");
        assert_eq!(s.iret, 0x58, "{mode:?}: after the store");
    }
}
