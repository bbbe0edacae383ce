//! Conditions, branches, jumps and calls (isa.md §2.2, §2.5).
//!
//! Model decisions owned here: branch offsets are relative to the branch's
//! own address; the link value is `pc + len`; a register jump target has
//! bit 0 cleared (instructions are halfword aligned).

use crate::op::Cond;
use crate::state::Flags;
use crate::{ArchState, Step};

/// Link register (LR) number.
const LR: u8 = 14;

/// Whether `cond` holds for `f` (isa.md §2.2). `Always` and `Link` are
/// unconditional. Shared by `B<cond>` and `MOV<cond>`.
#[inline(always)]
pub fn cond_holds(f: &Flags, cond: Cond) -> bool {
    match cond {
        Cond::Eq => f.az,
        Cond::Ne => !f.az,
        Cond::Gtu => !f.az & f.ac,
        Cond::Gteu => f.ac,
        Cond::Lteu => f.az | !f.ac,
        Cond::Ltu => !f.ac,
        Cond::Gt => !f.az & (f.av == f.an),
        Cond::Gte => f.av == f.an,
        Cond::Lt => f.av != f.an,
        Cond::Lte => f.az | (f.av != f.an),
        Cond::Beq => f.bz,
        Cond::Bne => !f.bz,
        Cond::Blt => f.bn & !f.bz,
        Cond::Blte => f.bn | f.bz,
        Cond::Always | Cond::Link => true,
    }
}

/// `B<cond> simm8/simm24`, `B`, `BL`: if the condition holds, jump to
/// `pc + disp`; `BL` first sets LR = `pc + len`. No flags. isa.md §2.5.
#[inline(always)]
pub(super) fn bcond(s: &mut ArchState, cond: Cond, disp: i32, pc: u32, len: u32) -> Step {
    if !cond_holds(&s.flags, cond) {
        return Step::Next;
    }
    if cond == Cond::Link {
        s.set_reg(LR, pc.wrapping_add(len));
    }
    Step::Jump {
        target: pc.wrapping_add(disp as u32),
    }
}

/// `JR rn` (and `RTS` = `JR r14`): jump to `rn` (bit 0 cleared). No flags.
/// isa.md §2.5.
#[inline(always)]
pub(super) fn jr(s: &mut ArchState, rn: u8) -> Step {
    Step::Jump {
        target: s.reg(rn) & !1,
    }
}

/// `JALR rn`: LR = `pc + len`, jump to the old `rn` (bit 0 cleared), so
/// `JALR r14` jumps to the previous LR. No flags. isa.md §2.5.
#[inline(always)]
pub(super) fn jalr(s: &mut ArchState, rn: u8, pc: u32, len: u32) -> Step {
    let target = s.reg(rn) & !1;
    s.set_reg(LR, pc.wrapping_add(len));
    Step::Jump { target }
}
