//! Conditions, branches, jumps and calls (isa.md §2.2, §2.5).
//!
//! Model decisions owned here: branch offsets are relative to the branch's
//! own address; the link value is `pc + len`; a register jump target has
//! bit 0 cleared (instructions are halfword aligned).

use super::stop;
use crate::op::Cond;
use crate::state::Flags;
use crate::{ArchState, Step};

/// Link register (LR) number.
const LR: u8 = 14;

/// Whether `cond` holds for `f` (isa.md §2.2). `Always` and `Link` are
/// unconditional. Shared by `B<cond>` and `MOV<cond>`.
///
/// One lookup: bit `i` of `COND_TABLE[cond]` says whether `cond` holds
/// when the flags read `i` (AZ, AN, AC, AV, BZ, BN from bit 0 up). A
/// `match` on `cond` compiles to a jump table, an indirect branch on every
/// conditional instruction, which costs the host more than this. The flags
/// are the first eight bytes of [`Flags`] (`repr(C)`), read as one word;
/// one multiplication gathers the six that conditions test (bytes 0-3, 5
/// and 6, each 0 or 1) into the top byte, and carries AVS and BV (bytes 4
/// and 7) out of it (`semantics_branch` checks every combination of the
/// eleven flags).
#[inline(always)]
pub fn cond_holds(f: &Flags, cond: Cond) -> bool {
    let w = u64::from_le_bytes([
        f.az as u8,
        f.an as u8,
        f.ac as u8,
        f.av as u8,
        f.avs as u8,
        f.bz as u8,
        f.bn as u8,
        f.bv as u8,
    ]);
    let i = w.wrapping_mul(0x0102_0408_0010_2000) >> 56;
    COND_TABLE[cond as usize] >> i & 1 != 0
}

/// The definition of each condition, from which `COND_TABLE` is built.
const fn holds(cond: Cond, az: bool, an: bool, ac: bool, av: bool, bz: bool, bn: bool) -> bool {
    match cond {
        Cond::Eq => az,
        Cond::Ne => !az,
        Cond::Gtu => !az & ac,
        Cond::Gteu => ac,
        Cond::Lteu => az | !ac,
        Cond::Ltu => !ac,
        Cond::Gt => !az & (av == an),
        Cond::Gte => av == an,
        Cond::Lt => av != an,
        Cond::Lte => az | (av != an),
        Cond::Beq => bz,
        Cond::Bne => !bz,
        Cond::Blt => bn & !bz,
        Cond::Blte => bn | bz,
        Cond::Always | Cond::Link => true,
    }
}

/// Per condition, the flag values (as in [`cond_holds`]) it holds for.
const COND_TABLE: [u64; 16] = {
    let mut t = [0u64; 16];
    let mut c = 0;
    while c < 16 {
        let mut i = 0;
        while i < 64 {
            let (az, an, ac) = (i & 1 != 0, i & 2 != 0, i & 4 != 0);
            let (av, bz, bn) = (i & 8 != 0, i & 16 != 0, i & 32 != 0);
            if holds(Cond::from_bits(c), az, an, ac, av, bz, bn) {
                t[c as usize] |= 1 << i;
            }
            i += 1;
        }
        c += 1;
    }
    t
};

/// `B<cond> simm8/simm24`: if the condition holds, jump to `pc + disp`
/// (false, with the jump in `out`). No flags. isa.md §2.5. `B` and `BL`
/// are [`b`] and [`bl`].
#[inline(always)]
pub(super) fn bcond(s: &ArchState, cond: Cond, disp: i32, pc: u32, out: &mut Step) -> bool {
    if !cond_holds(&s.flags, cond) {
        return true;
    }
    b(disp, pc, out)
}

/// `B simm`: jump to `pc + disp`. No flags. isa.md §2.5.
#[inline(always)]
pub(super) fn b(disp: i32, pc: u32, out: &mut Step) -> bool {
    stop(
        out,
        Step::Jump {
            target: pc.wrapping_add(disp as u32),
        },
    )
}

/// `BL simm`: LR = `pc + len`, jump to `pc + disp`. No flags. isa.md §2.5.
#[inline(always)]
pub(super) fn bl(s: &mut ArchState, disp: i32, pc: u32, len: u32, out: &mut Step) -> bool {
    s.set_reg(LR, pc.wrapping_add(len));
    b(disp, pc, out)
}

/// `JR rn` (and `RTS` = `JR r14`): jump to `rn` (bit 0 cleared). No flags.
/// isa.md §2.5.
#[inline(always)]
pub(super) fn jr(s: &mut ArchState, rn: u8, out: &mut Step) -> bool {
    stop(
        out,
        Step::Jump {
            target: s.reg(rn) & !1,
        },
    )
}

/// `JALR rn`: LR = `pc + len`, jump to the old `rn` (bit 0 cleared), so
/// `JALR r14` jumps to the previous LR. No flags. isa.md §2.5.
#[inline(always)]
pub(super) fn jalr(s: &mut ArchState, rn: u8, pc: u32, len: u32, out: &mut Step) -> bool {
    let target = s.reg(rn) & !1;
    s.set_reg(LR, pc.wrapping_add(len));
    stop(out, Step::Jump { target })
}
