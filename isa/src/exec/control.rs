//! System instructions, special-register moves, interrupts and hardware
//! loops (isa.md §2.4, §2.8, §2.9, §6).
//!
//! Model decisions owned here:
//! * hardware loops: after an instruction at `LE` falls through with
//!   `LC != 0`, LC is decremented and, if still non-zero, execution continues
//!   at `LS` (N iterations for LC = N, LC = 0 at exit; a taken branch at LE
//!   does not count an iteration; LE is compared with the PC as given);
//! * interrupt priority and nesting (§6.2): the lowest-numbered latched,
//!   unmasked interrupt wins when GID is clear and it is strictly more urgent
//!   than every interrupt in service;
//! * MOVTS/MOVFS always go through the bus, which owns every group.

use crate::op::Sreg;
use crate::state::{irq, status, Excause};
use crate::{Access, ArchState, Bus, Step};

/// Next PC after the instruction at `pc` (`len` bytes) completed with
/// [`Step::Next`], applying the hardware-loop rule (isa.md §2.9): if
/// `pc == LE` and `LC != 0`, `LC -= 1` and, if the new LC is non-zero, the
/// next PC is `LS`; otherwise `pc + len`.
#[inline(always)]
pub fn fallthrough(s: &mut ArchState, pc: u32, len: u32) -> u32 {
    if pc == s.le && s.lc != 0 {
        loop_end(s, pc, len)
    } else {
        pc.wrapping_add(len)
    }
}

#[cold]
#[inline(never)]
fn loop_end(s: &mut ArchState, pc: u32, len: u32) -> u32 {
    s.lc -= 1;
    if s.lc != 0 {
        s.ls
    } else {
        pc.wrapping_add(len)
    }
}

/// The interrupt the core should take now, if any (isa.md §6.2): the lowest
/// `n` with `ILAT[n]` set and `IMASK[n]` clear, provided STATUS.GID is clear
/// and `n` is lower (more urgent) than the lowest set bit of IPEND.
#[inline]
pub fn pending_interrupt(s: &ArchState) -> Option<u32> {
    let ready = s.ilat & !s.imask & irq::MASK;
    if ready == 0 || s.gid() {
        return None;
    }
    // Bits strictly below the most urgent interrupt in service (all of
    // them when nothing is in service).
    let ipend = s.ipend & irq::MASK;
    let allowed = if ipend == 0 {
        irq::MASK
    } else {
        (ipend & ipend.wrapping_neg()) - 1
    };
    let cand = ready & allowed;
    if cand == 0 {
        None
    } else {
        Some(cand.trailing_zeros())
    }
}

/// Takes interrupt `n` (isa.md §6.2): IRET ← `return_pc`, `IPEND[n]` ← 1,
/// `ILAT[n]` ← 0, STATUS.GID, KM and ACTIVE ← 1, PC ← 4n.
#[inline]
pub fn enter_interrupt(s: &mut ArchState, n: u32, return_pc: u32) {
    let bit = 1u32 << (n & 31);
    s.iret = return_pc;
    s.ipend |= bit;
    s.ilat &= !bit;
    s.status_rest |= status::GID | status::KM | status::ACTIVE;
    s.pc = n.wrapping_mul(4);
}

/// `MOVTS sreg, rn`: special register ← rn, through [`Bus::write_sreg`]
/// (the bus defers to [`ArchState::write_core_sreg`] for group 0). No flags
/// beyond what a STATUS/FSTATUS write implies. isa.md §2.4.
#[inline]
pub(super) fn movts<B: Bus>(s: &mut ArchState, bus: &mut B, sreg: Sreg, rn: u8) -> Step {
    let v = s.reg(rn);
    match bus.write_sreg(s, sreg, v) {
        Access::Ready(()) => Step::Next,
        _ => Step::Stall,
    }
}

/// `MOVFS rd, sreg`: rd ← special register, through [`Bus::read_sreg`]; the
/// PC reads as this instruction's address.
/// No flags. isa.md §2.4.
#[inline]
pub(super) fn movfs<B: Bus>(s: &mut ArchState, bus: &mut B, rd: u8, sreg: Sreg, pc: u32) -> Step {
    if sreg == Sreg::new(0, crate::state::sreg::PC) {
        // The PC reads as the address of the MOVFS itself (as the
        // reference simulator gives it), wherever the system keeps `s.pc`
        // while it runs a block.
        s.set_reg(rd, pc);
        return Step::Next;
    }
    match bus.read_sreg(s, sreg) {
        Access::Ready(v) => {
            s.set_reg(rd, v);
            Step::Next
        }
        _ => Step::Stall,
    }
}

/// `IDLE`: STATUS.ACTIVE ← 0; the core sleeps until an interrupt. isa.md §2.8.
#[inline]
pub(super) fn idle(s: &mut ArchState) -> Step {
    s.set_bit(status::ACTIVE, false);
    Step::Idle
}

/// `GIE`: STATUS.GID ← 0. isa.md §2.8.
#[inline]
pub(super) fn gie(s: &mut ArchState) -> Step {
    s.set_bit(status::GID, false);
    Step::Next
}

/// `GID`: STATUS.GID ← 1. isa.md §2.8.
#[inline]
pub(super) fn gid(s: &mut ArchState) -> Step {
    s.set_bit(status::GID, true);
    Step::Next
}

/// `RTI`: clear the lowest set bit of IPEND, STATUS.GID ← 0, KM ← 0, jump to
/// IRET (bit 0 cleared). isa.md §2.8, §6.2.
#[inline]
pub(super) fn rti(s: &mut ArchState) -> Step {
    s.ipend &= s.ipend.wrapping_sub(1);
    s.status_rest &= !(status::GID | status::KM);
    Step::Jump {
        target: s.iret & !1,
    }
}

/// `SWI`: raises the software exception (EXCAUSE = SWI); no other effect.
/// isa.md §2.8.
#[inline]
pub(super) fn swi() -> Step {
    Step::Exception(Excause::Swi)
}

/// `WAND`: STATUS.WAND ← 1; the system checks the barrier. isa.md §2.8.
#[inline]
pub(super) fn wand(s: &mut ArchState) -> Step {
    let rose = s.status() & status::WAND == 0;
    s.set_bit(status::WAND, true);
    Step::Wand { rose }
}

/// An unimplemented instruction: raises the unimplemented-instruction
/// exception with no other effect. isa.md §2.8.
#[inline]
pub(super) fn unimpl() -> Step {
    Step::Exception(Excause::Unimplemented)
}
