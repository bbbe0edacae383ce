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

#[test]
fn memprotect_page_bits_alone_raise_the_memory_fault() {
    // MEMPROTECT = 0x7f as Adapteva's labs/mem_protect writes it: no
    // EXC_EN (bit 15), and the store to the read-only page still raises
    // the interrupt.
    for mode in [Mode::Timed, Mode::Functional] {
        let (m, stop) = run("irq_memprotect", mode);
        assert_eq!(status(&stop), 11, "{mode:?}: the word at 0x1000 is still 0");
        let s = &m.cores[0].state;
        assert_eq!(s.r[4], 1 << 11 | 1 << 2, "{mode:?}: MEMSTATUS write breach");
        assert_eq!(s.ipend, 1 << 2, "{mode:?}: in the memory-fault handler");
    }
}

#[test]
fn no_interrupt_between_a_gie_at_an_8_byte_boundary_and_the_idle_after_it() {
    // The user interrupt is latched under GID. With GIE at 8n the IDLE
    // takes it at once (IRET after the IDLE: the handler returns past
    // it); with GIE at 8n+2 it is taken before the IDLE (IRET at it).
    for mode in [Mode::Timed, Mode::Functional] {
        let (m, stop) = run("irq_gie_idle", mode);
        assert_eq!(status(&stop), 7, "{mode:?}");
        let s = &m.cores[0].state;
        assert_eq!(s.r[4], s.r[6], "{mode:?}: aligned GIE: IRET after the IDLE");
        assert_eq!(s.r[1], s.r[7], "{mode:?}: GIE at 8n+2: IRET at the IDLE");
    }
}

#[test]
fn the_core_timers_count_every_stall_event_true_in_a_cycle() {
    // Blocking loads from DRAM of 535 stall cycles each (TIMING.md: 536
    // cycles from core (32,8)): each wait is an external-load stall and an
    // RA stall (the instruction behind the load waits in RA, as the
    // board's cpu/ctimer counts), not an E1 stall. Stores waiting for the
    // store queue are E1 stalls.
    let (m, stop) = run("ctimer_events", Mode::Timed);
    assert_eq!(status(&stop), 0);
    let s = &m.cores[0].state;
    let (ra, ext_load) = (u32::MAX - s.r[6], u32::MAX - s.r[7]);
    assert_eq!(ext_load, 2 * 535, "external-load stalls");
    assert_eq!(ra, 2 * 535, "RA stalls");
    assert_eq!(u32::MAX - s.r[8], 0, "E1 stalls over a load");
    let e1 = u64::from(s.r[8] - s.r[9]);
    let ext_store = m.cores[0].stats.stalls[5];
    assert!(
        e1 > 0 && e1 == ext_store,
        "E1 {e1}, ext-store stalls {ext_store}"
    );
    // Functional mode has no stalls.
    let (m, stop) = run("ctimer_events", Mode::Functional);
    assert_eq!(status(&stop), 0);
    let s = &m.cores[0].state;
    assert_eq!(
        (s.r[6], s.r[7], s.r[8], s.r[9]),
        (u32::MAX, u32::MAX, u32::MAX, u32::MAX)
    );
}

#[test]
fn a_word_written_to_autodma0_reads_back_from_autodma0_and_autodma1() {
    // (Not an interrupt: the DMA registers' mirror, as Adapteva's
    // cpu/register_test expects it on the board.)
    for mode in [Mode::Timed, Mode::Functional] {
        let (m, stop) = run("regs_autodma", mode);
        assert_eq!(status(&stop), 0, "{mode:?}");
        let r = &m.cores[0].state.r;
        assert_eq!((r[10], r[11]), (u32::MAX, u32::MAX), "{mode:?}: DMA0 set");
        assert_eq!((r[12], r[13]), (0, 0), "{mode:?}: DMA0 cleared");
        assert_eq!(
            (r[14], r[15]),
            (u32::MAX, 0x1234),
            "{mode:?}: DMA1 AUTODMA1 written alone"
        );
        assert_eq!((r[16], r[17]), (0, 0), "{mode:?}: DMA1 cleared");
    }
}
