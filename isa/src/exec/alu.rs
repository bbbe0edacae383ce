//! Integer ALU and moves (isa.md §2.3, §2.4).
//!
//! Model decisions owned here: register shift counts use `rm & 31` (CGEN);
//! SUB's AC is NOT borrow; logic, shift and BITR clear AC and AV and leave
//! AVS alone; moves set no flags.

use super::branch::cond_holds;
use crate::op::Cond;
use crate::{ArchState, Step};

/// AZ/AN from `r`, AC and AV as given, `AVS |= AV`.
#[inline(always)]
fn set_arith(s: &mut ArchState, r: u32, c: bool, v: bool) {
    let f = &mut s.flags;
    f.az = r == 0;
    f.an = r >> 31 != 0;
    f.ac = c;
    f.av = v;
    // A store only on overflow, not `avs |= v`: that read-modify-write
    // would chain every ADD and SUB through memory.
    if v {
        f.avs = true;
    }
}

/// AZ/AN from `r`, AC = AV = 0, AVS unchanged.
#[inline(always)]
fn set_logic(s: &mut ArchState, r: u32) {
    let f = &mut s.flags;
    f.az = r == 0;
    f.an = r >> 31 != 0;
    f.ac = false;
    f.av = false;
}

/// `rd = a + b` with ADD flags.
#[inline(always)]
fn do_add(s: &mut ArchState, rd: u8, a: u32, b: u32) -> Step {
    let (r, c) = a.overflowing_add(b);
    // Signed overflow (the host's own flag: one add sets both).
    let v = (a as i32).overflowing_add(b as i32).1;
    s.set_reg(rd, r);
    set_arith(s, r, c, v);
    Step::Next
}

/// `rd = a - b` with SUB flags (AC = NOT borrow = `a >= b` unsigned).
#[inline(always)]
fn do_sub(s: &mut ArchState, rd: u8, a: u32, b: u32) -> Step {
    let (r, borrow) = a.overflowing_sub(b);
    // Signed overflow (the host's own flag: one subtract sets both).
    let v = (a as i32).overflowing_sub(b as i32).1;
    s.set_reg(rd, r);
    set_arith(s, r, !borrow, v);
    Step::Next
}

#[inline(always)]
fn do_logic(s: &mut ArchState, rd: u8, r: u32) -> Step {
    s.set_reg(rd, r);
    set_logic(s, r);
    Step::Next
}

/// `ADD rd, rn, rm` (16/32). Flags: AZ AN AC(carry) AV AVS. isa.md §2.3.
#[inline(always)]
pub(super) fn add(s: &mut ArchState, rd: u8, rn: u8, rm: u8) -> Step {
    let (a, b) = (s.reg(rn), s.reg(rm));
    do_add(s, rd, a, b)
}

/// `SUB rd, rn, rm` (16/32). Flags: AZ AN AC(NOT borrow) AV AVS. isa.md §2.3.
#[inline(always)]
pub(super) fn sub(s: &mut ArchState, rd: u8, rn: u8, rm: u8) -> Step {
    let (a, b) = (s.reg(rn), s.reg(rm));
    do_sub(s, rd, a, b)
}

/// `ADD rd, rn, #simm3/#simm11`. Flags as ADD. isa.md §2.3.
#[inline(always)]
pub(super) fn add_imm(s: &mut ArchState, rd: u8, rn: u8, imm: i32) -> Step {
    let (a, b) = (s.reg(rn), imm as u32);
    do_add(s, rd, a, b)
}

/// `SUB rd, rn, #simm3/#simm11`. Flags as SUB. isa.md §2.3.
#[inline(always)]
pub(super) fn sub_imm(s: &mut ArchState, rd: u8, rn: u8, imm: i32) -> Step {
    let (a, b) = (s.reg(rn), imm as u32);
    do_sub(s, rd, a, b)
}

/// `AND rd, rn, rm`. Flags: AZ AN; AC = AV = 0. isa.md §2.3.
#[inline(always)]
pub(super) fn and(s: &mut ArchState, rd: u8, rn: u8, rm: u8) -> Step {
    let r = s.reg(rn) & s.reg(rm);
    do_logic(s, rd, r)
}

/// `ORR rd, rn, rm`. Flags: AZ AN; AC = AV = 0. isa.md §2.3.
#[inline(always)]
pub(super) fn orr(s: &mut ArchState, rd: u8, rn: u8, rm: u8) -> Step {
    let r = s.reg(rn) | s.reg(rm);
    do_logic(s, rd, r)
}

/// `EOR rd, rn, rm`. Flags: AZ AN; AC = AV = 0. isa.md §2.3.
#[inline(always)]
pub(super) fn eor(s: &mut ArchState, rd: u8, rn: u8, rm: u8) -> Step {
    let r = s.reg(rn) ^ s.reg(rm);
    do_logic(s, rd, r)
}

/// `ASR rd, rn, rm`: arithmetic shift right by `rm & 31`. Flags: AZ AN;
/// AC = AV = 0. isa.md §2.3.
#[inline(always)]
pub(super) fn asr(s: &mut ArchState, rd: u8, rn: u8, rm: u8) -> Step {
    let r = ((s.reg(rn) as i32) >> (s.reg(rm) & 31)) as u32;
    do_logic(s, rd, r)
}

/// `LSR rd, rn, rm`: logical shift right by `rm & 31`. Flags: AZ AN;
/// AC = AV = 0. isa.md §2.3.
#[inline(always)]
pub(super) fn lsr(s: &mut ArchState, rd: u8, rn: u8, rm: u8) -> Step {
    let r = s.reg(rn) >> (s.reg(rm) & 31);
    do_logic(s, rd, r)
}

/// `LSL rd, rn, rm`: shift left by `rm & 31`. Flags: AZ AN; AC = AV = 0.
/// isa.md §2.3.
#[inline(always)]
pub(super) fn lsl(s: &mut ArchState, rd: u8, rn: u8, rm: u8) -> Step {
    let r = s.reg(rn) << (s.reg(rm) & 31);
    do_logic(s, rd, r)
}

/// `ASR rd, rn, #imm5`. Flags: AZ AN; AC = AV = 0. isa.md §2.3.
#[inline(always)]
pub(super) fn asr_imm(s: &mut ArchState, rd: u8, rn: u8, amount: u8) -> Step {
    let r = ((s.reg(rn) as i32) >> (amount & 31)) as u32;
    do_logic(s, rd, r)
}

/// `LSR rd, rn, #imm5`. Flags: AZ AN; AC = AV = 0. isa.md §2.3.
#[inline(always)]
pub(super) fn lsr_imm(s: &mut ArchState, rd: u8, rn: u8, amount: u8) -> Step {
    let r = s.reg(rn) >> (amount & 31);
    do_logic(s, rd, r)
}

/// `LSL rd, rn, #imm5`. Flags: AZ AN; AC = AV = 0. isa.md §2.3.
#[inline(always)]
pub(super) fn lsl_imm(s: &mut ArchState, rd: u8, rn: u8, amount: u8) -> Step {
    let r = s.reg(rn) << (amount & 31);
    do_logic(s, rd, r)
}

/// `BITR rd, rn`: reverse the 32 bits. Flags: AZ AN; AC = AV = 0. isa.md §2.3.
#[inline(always)]
pub(super) fn bitr(s: &mut ArchState, rd: u8, rn: u8) -> Step {
    let r = s.reg(rn).reverse_bits();
    do_logic(s, rd, r)
}

/// `MOV rd, #imm8/#imm16`: zero-extended immediate. No flags. isa.md §2.4.
#[inline(always)]
pub(super) fn mov_imm(s: &mut ArchState, rd: u8, imm: u32) -> Step {
    s.set_reg(rd, imm);
    Step::Next
}

/// `MOVT rd, #imm16`: `rd = rd[15:0] | imm16 << 16`. No flags. isa.md §2.4.
#[inline(always)]
pub(super) fn movt(s: &mut ArchState, rd: u8, imm: u32) -> Step {
    let r = (s.reg(rd) & 0xFFFF) | (imm << 16);
    s.set_reg(rd, r);
    Step::Next
}

/// `MOV rd, rn` (`MOV<cond>` with cond `Always`). No flags. isa.md §2.4.
#[inline(always)]
pub(super) fn mov(s: &mut ArchState, rd: u8, rn: u8) -> Step {
    let v = s.reg(rn);
    s.set_reg(rd, v);
    Step::Next
}

/// `MOV<cond> rd, rn` (cond `Always` = `MOV rd, rn`). No flags. isa.md §2.2, §2.4.
#[inline(always)]
pub(super) fn mov_cond(s: &mut ArchState, cond: Cond, rd: u8, rn: u8) -> Step {
    if cond_holds(&s.flags, cond) {
        return mov(s, rd, rn);
    }
    Step::Next
}
