//! System instructions, special-register moves, hardware loops and
//! interrupts (isa.md §2.4, §2.8, §2.9, §6).

mod semantics_util;

use epsim_isa::exec::{enter_interrupt, exec, fallthrough, pending_interrupt};
use epsim_isa::op::{Cond, Sreg};
use epsim_isa::state::{irq, sreg, status};
use epsim_isa::{ArchState, Excause, Op, Step};
use semantics_util::{flags, Machine};

// ---------------------------------------------------------------------------
// Hardware loops

/// Runs a straight-line body of `n_insns` instructions of `len` bytes from
/// `ls`, with LE at the last one, until the PC leaves the body. Each body
/// instruction increments its own counter register (r10 + i). Returns the
/// exit PC.
fn run_loop(m: &mut Machine, ls: u32, n_insns: u32, len: u32) -> u32 {
    m.s.ls = ls;
    m.s.le = ls + (n_insns - 1) * len;
    let mut pc = ls;
    let mut guard = 0;
    while pc >= ls && pc <= m.s.le {
        let i = ((pc - ls) / len) as u8;
        let op = Op::AddImm {
            rd: 10 + i,
            rn: 10 + i,
            imm: 1,
        };
        assert_eq!(exec(&mut m.s, &mut m.bus, op, pc, len), Step::Next);
        pc = fallthrough(&mut m.s, pc, len);
        guard += 1;
        assert!(guard < 10_000, "runaway loop");
    }
    pc
}

#[test]
fn hardware_loop_runs_lc_iterations() {
    for (lc, n_insns, len) in [
        (1u32, 3u32, 4u32),
        (2, 3, 4),
        (5, 8, 4),
        (16, 1, 4),
        (3, 4, 2),
        (100, 2, 2),
    ] {
        let mut m = Machine::new();
        m.s.lc = lc;
        let exit = run_loop(&mut m, 0x200, n_insns, len);
        assert_eq!(exit, 0x200 + n_insns * len, "lc {lc}");
        assert_eq!(m.s.lc, 0, "LC = 0 at exit");
        for i in 0..n_insns as u8 {
            assert_eq!(m.r(10 + i), lc, "lc {lc}: instruction {i} ran LC times");
        }
    }
}

#[test]
fn hardware_loop_with_lc_zero_runs_once() {
    let mut m = Machine::new();
    m.s.lc = 0;
    let exit = run_loop(&mut m, 0x200, 4, 4);
    assert_eq!(exit, 0x210);
    assert_eq!((m.r(10), m.r(13), m.s.lc), (1, 1, 0));
}

#[test]
fn fallthrough_outside_loop_end() {
    let mut s = ArchState::new();
    s.lc = 7;
    s.ls = 0x100;
    s.le = 0x120;
    assert_eq!(fallthrough(&mut s, 0x110, 4), 0x114);
    assert_eq!(fallthrough(&mut s, 0x11C, 4), 0x120);
    assert_eq!(
        fallthrough(&mut s, 0x122, 2),
        0x124,
        "only the exact LE address counts"
    );
    assert_eq!(s.lc, 7);
    assert_eq!(fallthrough(&mut s, 0x120, 4), 0x100);
    assert_eq!(s.lc, 6);
    s.lc = 1;
    assert_eq!(fallthrough(&mut s, 0x120, 4), 0x124);
    assert_eq!(s.lc, 0);
    assert_eq!(fallthrough(&mut s, 0x120, 4), 0x124, "LC = 0: no loop");
    assert_eq!(s.lc, 0);
    assert_eq!(fallthrough(&mut s, 0xFFFF_FFFE, 2), 0, "wraps");
}

#[test]
fn loop_registers_through_movts() {
    let mut m = Machine::new();
    m.set(1, 3).set(2, 0x400).set(3, 0x40C);
    for (idx, rn) in [(sreg::LC, 1u8), (sreg::LS, 2), (sreg::LE, 3)] {
        assert_eq!(
            m.run(Op::Movts {
                sreg: Sreg::new(0, idx),
                rn
            }),
            Step::Next
        );
    }
    assert_eq!((m.s.lc, m.s.ls, m.s.le), (3, 0x400, 0x40C));
    let exit = run_loop(&mut m, 0x400, 4, 4);
    assert_eq!((exit, m.r(10), m.s.lc), (0x410, 3, 0));
}

// ---------------------------------------------------------------------------
// Interrupts

fn irq_state(ilat: u32, imask: u32, ipend: u32, gid: bool) -> ArchState {
    let mut s = ArchState::new();
    s.ilat = ilat;
    s.imask = imask;
    s.ipend = ipend;
    s.set_bit(status::GID, gid);
    s
}

/// (ILAT, IMASK, IPEND, GID, interrupt taken).
#[rustfmt::skip]
const PENDING: &[(u32, u32, u32, bool, Option<u32>)] = &[
    (0,       0,     0,      false, None),
    (1 << 9,  0,     0,      false, Some(9)),
    (1 << 9,  0,     0,      true,  None),          // GID blocks everything
    (1 << 0,  0,     0,      true,  None),
    (1 << 9,  1 << 9, 0,     false, None),          // masked
    (0x3FF,   0x3FE, 0,      false, Some(0)),
    (0x3FF,   0x3FF, 0,      false, None),
    (0x3F0,   0x010, 0,      false, Some(5)),       // lowest unmasked wins
    (0b1010_1000, 0, 0,      false, Some(3)),
    (1 << 3,  0,     1 << 3, false, None),          // same level cannot nest
    (1 << 5,  0,     1 << 3, false, None),          // lower priority waits
    (1 << 2,  0,     1 << 3, false, Some(2)),       // higher priority nests
    (1 << 2 | 1 << 1, 0, 1 << 3 | 1 << 2, false, Some(1)), // below the lowest IPEND bit
    (1 << 1,  0,     1 << 3 | 1 << 1, false, None),
    (0x3FF,   0,     1,      false, None),          // SYNC in service blocks all
    (0x3FF,   0,     1 << 9, false, Some(0)),
    (1 << 10, 0,     0,      false, None),          // only 10 interrupt bits exist
    (1 << 1,  0,     1 << 12, false, Some(1)),      // IPEND bits above 9 ignored
];

#[test]
fn pending_interrupt_priorities() {
    for (i, &(ilat, imask, ipend, gid, want)) in PENDING.iter().enumerate() {
        let s = irq_state(ilat, imask, ipend, gid);
        assert_eq!(
            pending_interrupt(&s),
            want,
            "row {i}: ilat {ilat:#x} imask {imask:#x} ipend {ipend:#x} gid {gid}"
        );
    }
}

#[test]
fn enter_interrupt_effects() {
    let mut s = irq_state(1 << 3 | 1 << 9, 0, 0, false);
    s.flags = flags("az bn");
    s.pc = 0x1234;
    enter_interrupt(&mut s, 3, 0x1236);
    assert_eq!(s.iret, 0x1236);
    assert_eq!(s.pc, 0x0C);
    assert_eq!(s.ipend, 1 << 3);
    assert_eq!(s.ilat, 1 << 9, "only ILAT[n] cleared");
    let st = s.status();
    assert_ne!(st & status::GID, 0);
    assert_ne!(st & status::KM, 0);
    assert_ne!(st & status::ACTIVE, 0);
    assert_eq!(s.flags, flags("az bn"), "flags preserved");
    assert_eq!(pending_interrupt(&s), None, "GID now set");
}

#[test]
fn rti_returns_and_pops_lowest_ipend_bit() {
    let mut m = Machine::new();
    m.s.iret = 0x4444;
    m.s.ipend = 1 << 3 | 1 << 7;
    m.s.set_bit(status::GID, true);
    m.s.set_bit(status::KM, true);
    m.s.set_bit(status::ACTIVE, true);
    assert_eq!(m.run(Op::Rti), Step::Jump { target: 0x4444 });
    assert_eq!(m.s.ipend, 1 << 7);
    assert!(!m.s.gid());
    assert_eq!(m.s.status() & status::KM, 0);
    assert_ne!(m.s.status() & status::ACTIVE, 0, "ACTIVE untouched");
    // With nothing in service, RTI still returns and leaves IPEND at 0.
    m.s.ipend = 0;
    assert_eq!(m.run(Op::Rti), Step::Jump { target: 0x4444 });
    assert_eq!(m.s.ipend, 0);
}

/// Timer interrupt (3) taken; the handler saves IRET and re-enables
/// interrupts; a more urgent memory fault (2) nests, a less urgent DMA (6)
/// waits; RTIs unwind in order; then DMA is taken.
#[test]
fn nested_interrupts_scenario() {
    let mut m = Machine::new();
    m.s.imask = 0;
    m.s.ilat = 1 << irq::TIMER0;
    let n = pending_interrupt(&m.s).expect("timer pending");
    assert_eq!(n, irq::TIMER0);
    enter_interrupt(&mut m.s, n, 0x1000);
    assert_eq!(m.s.pc, 0x0C);
    // Handler: save IRET, GIE.
    let saved_iret = m.s.iret;
    m.run(Op::Gie);
    m.s.ilat |= 1 << irq::DMA0;
    assert_eq!(
        pending_interrupt(&m.s),
        None,
        "DMA0 (6) is less urgent than TIMER0 (3)"
    );
    m.s.ilat |= 1 << irq::MEMFAULT;
    assert_eq!(pending_interrupt(&m.s), Some(irq::MEMFAULT));
    enter_interrupt(&mut m.s, irq::MEMFAULT, 0x0E);
    assert_eq!(m.s.ipend, 1 << 3 | 1 << 2);
    assert_eq!(pending_interrupt(&m.s), None, "GID set on entry");
    // Inner handler returns.
    assert_eq!(m.run(Op::Rti), Step::Jump { target: 0x0E });
    assert_eq!(m.s.ipend, 1 << 3);
    assert_eq!(
        pending_interrupt(&m.s),
        None,
        "DMA0 still waits for TIMER0's RTI"
    );
    // Outer handler restores IRET and returns.
    m.s.iret = saved_iret;
    m.run(Op::Gid);
    assert_eq!(m.run(Op::Rti), Step::Jump { target: 0x1000 });
    assert_eq!(m.s.ipend, 0);
    assert_eq!(pending_interrupt(&m.s), Some(irq::DMA0));
}

#[test]
fn gie_gid_idle() {
    let mut m = Machine::new();
    assert_eq!(m.run(Op::Gid), Step::Next);
    assert!(m.s.gid());
    assert_eq!(m.run(Op::Gie), Step::Next);
    assert!(!m.s.gid());
    m.s.set_bit(status::ACTIVE, true);
    assert_eq!(m.run(Op::Idle), Step::Idle);
    assert_eq!(m.s.status() & status::ACTIVE, 0);
    // IDLE then an interrupt: IRET is what the system passes (after IDLE).
    m.s.imask = 0;
    m.s.ilat = 1 << irq::USER;
    let n = pending_interrupt(&m.s).expect("user interrupt");
    enter_interrupt(&mut m.s, n, 0x102);
    assert_ne!(m.s.status() & status::ACTIVE, 0, "woken");
    assert_eq!((m.s.pc, m.s.iret), (0x24, 0x102));
}

// ---------------------------------------------------------------------------
// Instructions that only report to the system

#[test]
fn steps_without_state_change() {
    let rows = [
        (Op::Nop, Step::Next),
        (Op::Swi { num: 0 }, Step::Exception(Excause::Swi)),
        (Op::Swi { num: 5 }, Step::Exception(Excause::Swi)),
        (Op::Unimpl, Step::Exception(Excause::Unimplemented)),
        (Op::Trap { num: 7 }, Step::Trap { num: 7 }),
        (Op::Trap { num: 0 }, Step::Trap { num: 0 }),
        (Op::Trap { num: 63 }, Step::Trap { num: 63 }),
        (Op::Bkpt, Step::Bkpt),
        (Op::Mbkpt, Step::Mbkpt),
        (Op::Sync, Step::Sync),
    ];
    for (op, want) in rows {
        let mut m = Machine::new();
        m.s.flags = flags("az ac bn bis");
        m.s.set_reg(0, 11);
        let (s0, b0) = (m.s.clone(), m.bus.clone());
        assert_eq!(m.run(op), want, "{op:?}");
        assert_eq!(
            m.s, s0,
            "{op:?}: no state change (exceptions are not latched here)"
        );
        assert_eq!(m.bus, b0);
    }
}

#[test]
fn wand_sets_status_bit() {
    let mut m = Machine::new();
    assert_eq!(m.run(Op::Wand), Step::Wand { rose: true });
    assert_ne!(m.s.status() & status::WAND, 0);
    assert_eq!(
        m.run(Op::Wand),
        Step::Wand { rose: false },
        "idempotent: the flag was already set"
    );
}

#[test]
fn system_applies_exception_policy() {
    // exec reports; the system latches with raise_exception.
    let mut m = Machine::new();
    let Step::Exception(cause) = m.run(Op::Swi { num: 0 }) else {
        panic!("SWI must raise");
    };
    m.s.raise_exception(cause);
    assert_eq!((m.s.status() >> 16) & 0xF, 1);
    assert_eq!(m.s.ilat & (1 << irq::SWEXC), 1 << irq::SWEXC);
}

// ---------------------------------------------------------------------------
// MOVTS / MOVFS

#[test]
fn movfs_pc_reads_the_address_of_the_movfs_itself() {
    // Not `s.pc`, which a system running a block of several instructions
    // updates only at its end (the reference simulator gives the MOVFS's
    // own address: `movfs r1,pc` at 0x2cc after two NOPs from 0x2c8).
    let mut m = Machine::new();
    m.s.pc = 0x2c4;
    let pc = Sreg::new(0, sreg::PC);
    assert_eq!(
        m.run_at(Op::Movfs { rd: 1, sreg: pc }, 0x2cc, 2),
        Step::Next
    );
    assert_eq!(m.r(1), 0x2cc);
    assert_eq!(m.s.pc, 0x2c4, "the system owns the PC");
}

#[test]
fn movts_movfs_core_registers() {
    let mut m = Machine::new();
    let config = Sreg::new(0, sreg::CONFIG);
    let stat = Sreg::new(0, sreg::STATUS);
    m.set(1, 0x0008_0001);
    assert_eq!(
        m.run(Op::Movts {
            sreg: config,
            rn: 1
        }),
        Step::Next
    );
    assert_eq!(m.s.config, 0x0008_0001);
    assert_eq!(
        m.run(Op::Movfs {
            rd: 2,
            sreg: config
        }),
        Step::Next
    );
    assert_eq!(m.r(2), 0x0008_0001);
    // STATUS: flags readable; writes cannot change ACTIVE/GID/KM.
    m.s.set_bit(status::ACTIVE, true);
    m.s.flags = flags("az ac bis");
    m.run(Op::Movfs { rd: 3, sreg: stat });
    assert_eq!(
        m.r(3),
        status::ACTIVE | status::AZ | status::AC | status::BIS
    );
    m.set(
        4,
        status::GID | status::KM | status::AN | status::BUS | status::WAND,
    );
    m.run(Op::Movts { sreg: stat, rn: 4 });
    assert_eq!(m.s.flags, flags("an bus"));
    assert_eq!(
        m.s.status(),
        status::ACTIVE | status::AN | status::BUS | status::WAND
    );
    // FSTATUS writes everything.
    m.set(5, status::GID);
    m.run(Op::Movts {
        sreg: Sreg::new(0, sreg::FSTATUS),
        rn: 5,
    });
    assert_eq!(m.s.status(), status::GID);
    // ILATST / ILATCL / IMASK.
    m.set(6, 0b101);
    m.run(Op::Movts {
        sreg: Sreg::new(0, sreg::ILATST),
        rn: 6,
    });
    m.set(6, 0b100_0000_0000_0010);
    m.run(Op::Movts {
        sreg: Sreg::new(0, sreg::ILATST),
        rn: 6,
    });
    assert_eq!(m.s.ilat, 0b111);
    m.set(6, 0b001);
    m.run(Op::Movts {
        sreg: Sreg::new(0, sreg::ILATCL),
        rn: 6,
    });
    assert_eq!(m.s.ilat, 0b110);
    m.run(Op::Movfs {
        rd: 7,
        sreg: Sreg::new(0, sreg::ILAT),
    });
    assert_eq!(m.r(7), 0b110);
    // Registers MOVFS reads as plain values.
    m.s.iret = 0x808;
    m.s.ctimer1 = 99;
    m.run(Op::Movfs {
        rd: 8,
        sreg: Sreg::new(0, sreg::IRET),
    });
    m.run(Op::Movfs {
        rd: 9,
        sreg: Sreg::new(0, sreg::CTIMER1),
    });
    assert_eq!((m.r(8), m.r(9)), (0x808, 99));
    // MOVTS/MOVFS set no flags.
    let f = m.s.flags;
    m.run(Op::Movfs {
        rd: 9,
        sreg: Sreg::new(0, sreg::LC),
    });
    assert_eq!(m.s.flags, f);
}

#[test]
fn movts_movfs_other_groups_go_to_the_bus() {
    let mut m = Machine::new();
    for (g, i, v) in [
        (1u32, 0u32, 0x11u32),
        (1, 15, 0x22),
        (2, 2, 0x33),
        (3, 1, 0x808),
    ] {
        m.set(1, v);
        assert_eq!(
            m.run(Op::Movts {
                sreg: Sreg::new(g, i),
                rn: 1
            }),
            Step::Next
        );
        assert_eq!(m.bus.sreg(Sreg::new(g, i)), v);
        m.run(Op::Movfs {
            rd: 2,
            sreg: Sreg::new(g, i),
        });
        assert_eq!(m.r(2), v);
    }
    // Group 0 index 1 is STATUS, not group 1 index 1.
    assert_eq!(m.bus.sreg(Sreg::new(1, 1)), 0);
}

#[test]
fn movts_config_switches_fpu_mode_for_next_instruction() {
    use epsim_isa::op::FpuOp;
    let mut m = Machine::new();
    m.set(1, 3).set(2, 4);
    m.set(10, 0x0008_0000);
    m.run(Op::Movts {
        sreg: Sreg::new(0, sreg::CONFIG),
        rn: 10,
    });
    m.run(Op::Fpu {
        op: FpuOp::Fmul,
        rd: 3,
        rn: 1,
        rm: 2,
    });
    assert_eq!(m.r(3), 12, "IMUL after switching to integer mode");
    m.set(10, 0);
    m.run(Op::Movts {
        sreg: Sreg::new(0, sreg::CONFIG),
        rn: 10,
    });
    m.set(1, 3.0f32.to_bits()).set(2, 4.0f32.to_bits());
    m.run(Op::Fpu {
        op: FpuOp::Fmul,
        rd: 3,
        rn: 1,
        rm: 2,
    });
    assert_eq!(m.r(3), 12.0f32.to_bits());
}

#[test]
fn unconditional_branch_at_loop_end_does_not_count() {
    // A taken branch at LE goes where it says; only a fall-through loops.
    let mut m = Machine::new();
    m.s.lc = 4;
    m.s.ls = 0x200;
    m.s.le = 0x20C;
    let step = m.run_at(
        Op::Bcond {
            cond: Cond::Always,
            disp: 0x40,
        },
        0x20C,
        4,
    );
    assert_eq!(step, Step::Jump { target: 0x24C });
    assert_eq!(m.s.lc, 4);
    // A not-taken one falls through and counts.
    m.s.flags = flags("-");
    let step = m.run_at(
        Op::Bcond {
            cond: Cond::Eq,
            disp: 0x40,
        },
        0x20C,
        4,
    );
    assert_eq!(step, Step::Next);
    assert_eq!(fallthrough(&mut m.s, 0x20C, 4), 0x200);
    assert_eq!(m.s.lc, 3);
}
