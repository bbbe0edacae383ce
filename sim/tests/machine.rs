//! The machine on hand-assembled programs: how each kind of stop is
//! reported, the fault policies, system calls and interrupts.

mod common;

use epsim_isa::state::{irq, status};
use epsim_sim::core::FaultKind;
use epsim_sim::{FaultPolicy, Machine, Mode, StopReason};

/// A machine with `halfwords` loaded at local address 0 (entry 0).
fn machine(halfwords: &[u16], policy: FaultPolicy) -> Machine {
    common::machine_with_code(
        halfwords.iter().flat_map(|h| h.to_le_bytes()).collect(),
        policy,
    )
}

// Encodings (checked against epiphany-elf-objdump in the isa goldens).
const NOP: u16 = 0x01a2;
const IDLE: u16 = 0x01b2;
const BKPT: u16 = 0x01c2;
const TRAP3: u16 = 0x0fe2;
const TRAP4: u16 = 0x13e2;
const TRAP5: u16 = 0x17e2;
const SWI: u16 = 0x01e2;
const GIE: u16 = 0x0192;
/// `mov r0,#imm8`
const fn mov_r0(imm: u8) -> u16 {
    0x0003 | (imm as u16) << 5
}
/// `mov r1,#imm8`
const fn mov_r1(imm: u8) -> u16 {
    0x2003 | (imm as u16) << 5
}
/// `ldr r0,[r1]` (16-bit, disp 0)
const LDR_R0_R1: u16 = 0x0444;
/// `b .` (branch to itself)
const B_SELF: u16 = 0x00e0;

#[test]
fn trap3_exit_reports_status_from_r0() {
    let mut m = machine(&[mov_r0(42), TRAP3], FaultPolicy::Stop);
    let stop = m.run(None);
    assert!(
        matches!(stop, StopReason::Exit { status: 42, .. }),
        "{stop:?}"
    );
    assert_eq!(m.instret(), 2);
    // The core halts at the trap, as on hardware.
    assert_eq!(m.cores[0].state.pc, 2);
}

#[test]
fn trap4_and_trap5_are_pass_and_fail() {
    let stop = machine(&[TRAP4], FaultPolicy::Stop).run(None);
    assert!(
        matches!(stop, StopReason::Exit { status: 0, .. }),
        "{stop:?}"
    );
    let stop = machine(&[TRAP5], FaultPolicy::Stop).run(None);
    assert!(
        matches!(stop, StopReason::Exit { status: 1, .. }),
        "{stop:?}"
    );
}

#[test]
fn idle_with_nothing_to_wake_it_stops_the_run() {
    let stop = machine(&[NOP, IDLE, NOP], FaultPolicy::Stop).run(None);
    assert_eq!(stop, StopReason::AllIdle);
}

#[test]
fn bkpt_halts_the_core_and_names_the_pc() {
    let mut m = machine(&[NOP, BKPT], FaultPolicy::Stop);
    let stop = m.run(None);
    assert!(
        matches!(stop, StopReason::Breakpoint { pc: 2, .. }),
        "{stop:?}"
    );
    assert_eq!(m.cores[0].state.debugstatus & 1, 1);
}

#[test]
fn cycle_limit_is_exact() {
    let mut m = machine(&[B_SELF], FaultPolicy::Stop);
    m.config.mode = Mode::Functional;
    assert_eq!(m.run(Some(1000)), StopReason::CycleLimit { cycles: 1000 });
    assert_eq!(m.instret(), 1000);
    // A second run continues where the first stopped.
    assert_eq!(m.run(Some(1500)), StopReason::CycleLimit { cycles: 1500 });
    assert_eq!(m.instret(), 1500);
}

#[test]
fn cycle_limit_is_exact_in_timed_mode() {
    // `b .` issues every 4 cycles (1 + the taken-branch penalty of 3), from
    // cycle 0: 250 of them in 1000 cycles.
    let mut m = machine(&[B_SELF], FaultPolicy::Stop);
    assert_eq!(m.run(Some(1000)), StopReason::CycleLimit { cycles: 1000 });
    assert_eq!(m.instret(), 250);
    assert_eq!(m.run(Some(1002)), StopReason::CycleLimit { cycles: 1002 });
    assert_eq!(m.instret(), 251);
}

#[test]
fn stop_policy_reports_a_misaligned_load_with_its_address() {
    let mut m = machine(&[mov_r1(3), LDR_R0_R1], FaultPolicy::Stop);
    match m.run(None) {
        StopReason::Fault(f) => {
            assert_eq!(f.pc, 2);
            assert_eq!(f.word & 0xffff, LDR_R0_R1 as u32);
            assert!(matches!(f.kind, FaultKind::Access { addr: 3, .. }), "{f:?}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn raise_policy_latches_the_exception_and_the_handler_runs() {
    // Vector 1 (software exception, at 0x4) is `trap 5`; the program
    // unmasks everything, enables interrupts and does a misaligned load.
    let mut prog = vec![NOP; 32];
    prog[2] = TRAP5; // 0x4: the software-exception vector
    let start = 0x20 / 2;
    prog[0] = 0x10e0; // b 0x20
                      // movts imask,r0 with r0 = 0: 32-bit `movts imask,r0` = 0x0402050f
    prog[start] = mov_r0(0);
    prog[start + 1] = 0x050f;
    prog[start + 2] = 0x0402;
    prog[start + 3] = GIE;
    prog[start + 4] = mov_r1(3);
    prog[start + 5] = LDR_R0_R1;
    prog[start + 6] = TRAP3;
    let mut m = machine(&prog, FaultPolicy::Raise);
    let stop = m.run(Some(10_000));
    // The handler's `trap 5` ends the run as a failure: the exception was
    // taken, not the `trap 3` after the load.
    assert!(
        matches!(stop, StopReason::Exit { status: 1, .. }),
        "{stop:?}"
    );
    let s = &m.cores[0].state;
    assert_eq!(
        (s.status() & status::EXCAUSE_MASK) >> status::EXCAUSE_SHIFT,
        2,
        "EXCAUSE = unaligned"
    );
    assert_eq!(s.ipend, 1 << irq::SWEXC);
    // IRET points after the faulting load (at 0x2a).
    assert_eq!(s.iret, 0x2c);
}

#[test]
fn swi_raises_the_software_exception_whatever_the_policy() {
    let mut m = machine(&[SWI, TRAP3], FaultPolicy::Stop);
    let stop = m.run(None);
    // IMASK from reset masks it: the program carries on to its exit.
    assert!(matches!(stop, StopReason::Exit { .. }), "{stop:?}");
    let s = &m.cores[0].state;
    assert_eq!(s.ilat & (1 << irq::SWEXC), 1 << irq::SWEXC);
    assert_eq!(
        (s.status() & status::EXCAUSE_MASK) >> status::EXCAUSE_SHIFT,
        1,
        "EXCAUSE = SWI"
    );
}

#[test]
fn a_hardware_loop_ending_inside_a_block_jumps_back_at_its_last_instruction() {
    // mov r0,0; LC = 5, LS = 0x10, LE = 0x12; then one block runs
    // `mov r2,7` (0xe), the loop body `add r0,r0,1` (0x10) and
    // `add r0,r0,2` (0x12, LE), and goes on with `add r0,r0,r2; trap 3`.
    // The body runs five times: r0 = 5 * 3 + 7.
    let prog = [
        0x0003, 0x20a3, 0x3502, 0x2203, 0x3902, 0x2243, 0x3d02, 0x40e3, 0x0093, 0x0113, 0x011a,
        TRAP3,
    ];
    let mut m = machine(&prog, FaultPolicy::Stop);
    let stop = m.run(Some(1000));
    assert!(
        matches!(stop, StopReason::Exit { status: 22, .. }),
        "{stop:?}"
    );
    assert_eq!(m.cores[0].state.lc, 0);
}

#[test]
fn a_store_to_ilatst_interrupts_before_the_next_instruction() {
    // Vector 9 (user interrupt, 0x24) is `trap 5`. From 0x40: unmask
    // everything, GIE, then in one block: r1 = 0xf042c (ILATST), r2 = 1 << 9,
    // `str r2,[r1]`, `mov r0,7`, `trap 3`. The interrupt is taken right
    // after the store: `mov r0,7` never runs and IRET points at it.
    let mut prog = vec![NOP; 0x30];
    prog[0] = 0x20e0; // b 0x40
    prog[0x24 / 2] = TRAP5;
    let code = [
        mov_r0(0),
        0x050f, // movts imask,r0
        0x0402,
        GIE,
        0x258b, // mov r1,0x42c
        0x0042,
        0x21eb, // movt r1,0xf
        0x1002,
        0x400b, // mov r2,0x200
        0x0022,
        0x4454, // str r2,[r1]
        0x00e3, // mov r0,7 (at 0x56)
        TRAP3,
    ];
    prog[0x20..0x20 + code.len()].copy_from_slice(&code);
    let mut m = machine(&prog, FaultPolicy::Stop);
    let stop = m.run(Some(1000));
    assert!(
        matches!(stop, StopReason::Exit { status: 1, .. }),
        "{stop:?}"
    );
    let s = &m.cores[0].state;
    assert_eq!(s.r[0], 0);
    assert_eq!(s.iret, 0x56);
    assert_eq!(s.ipend, 1 << 9);
}
