//! FPU instructions and their integer mode (IALU2) — the glue between the
//! register file/flags and the pure arithmetic of [`crate::fpu`]
//! (isa.md §2.1, §2.7).
//!
//! Model decisions owned here:
//! * CONFIG is read at execution, so a MOVTS to CONFIG affects the next FPU
//!   instruction; only ARITHMODE = 100 selects integer mode, every other
//!   value behaves as float mode;
//! * float mode: BZ = result is ±0 (FIX: integer result is 0), BN = result
//!   bit 31, BV = this operation overflowed; BIS/BVS/BUS are the sticky ORs
//!   of invalid/overflow/underflow; AZ/AN/AC/AV untouched;
//! * FPU exceptions are raised per operation: `Step::Exception(Fpu)` after
//!   the result and flags are written when *this* operation's condition is
//!   enabled in CONFIG[3:1] (not when a sticky bit is merely set);
//! * integer mode: IADD/ISUB/IMUL/IMADD/IMSUB on the low 32 bits, BZ = the
//!   32-bit result is 0, BN = bit 31, BV ← 0, the sticky bits untouched;
//!   FLOAT/FIX/FABS raise the unimplemented-instruction exception with no
//!   effects.

use crate::fpu::{self as fp, Rmode, EXC_INVALID, EXC_OVERFLOW, EXC_UNDERFLOW};
use crate::op::FpuOp;
use crate::state::config;
use crate::{ArchState, Excause, Step};

/// `FADD/FSUB/FMUL rd, rn, rm`, `FMADD/FMSUB rd, rn, rm` (rd ± rn·rm, fused),
/// `FLOAT/FIX/FABS rd, rn` — or, with CONFIG.ARITHMODE = 100,
/// `IADD/ISUB/IMUL/IMADD/IMSUB`. Flags: BZ BN BV BIS BVS BUS (float),
/// BZ BN BV (integer). isa.md §2.7.
#[inline]
pub(super) fn fpu(s: &mut ArchState, op: FpuOp, rd: u8, rn: u8, rm: u8) -> Step {
    if s.int_mode() {
        return ialu2(s, op, rd, rn, rm);
    }
    let mode = Rmode::from_config(s.config);
    let (a, b) = (s.reg(rn), s.reg(rm));
    let r = match op {
        FpuOp::Fadd => fp::fadd(a, b, mode),
        FpuOp::Fsub => fp::fsub(a, b, mode),
        FpuOp::Fmul => fp::fmul(a, b, mode),
        FpuOp::Fmadd => fp::fmadd(s.reg(rd), a, b, mode),
        FpuOp::Fmsub => fp::fmsub(s.reg(rd), a, b, mode),
        FpuOp::Float => fp::float(a, mode),
        FpuOp::Fix => fp::fix(a, mode),
        FpuOp::Fabs => fp::fabs(a),
    };
    s.set_reg(rd, r.bits);
    let f = &mut s.flags;
    f.bz = if op == FpuOp::Fix {
        r.bits == 0
    } else {
        r.bits << 1 == 0
    };
    f.bn = r.bits >> 31 != 0;
    f.bv = r.exc & EXC_OVERFLOW != 0;
    // The sticky flags are stored only when they rise (a read-modify-write
    // would chain every FPU instruction through memory).
    if r.exc != 0 {
        f.bvs |= f.bv;
        f.bis |= r.exc & EXC_INVALID != 0;
        f.bus |= r.exc & EXC_UNDERFLOW != 0;
    }
    if r.exc & s.config & (config::IEN | config::OEN | config::UEN) != 0 {
        Step::Exception(Excause::Fpu)
    } else {
        Step::Next
    }
}

/// Integer mode (IALU2): `IADD/ISUB/IMUL rd, rn, rm`, `IMADD/IMSUB rd, rn, rm`
/// (rd ± rn·rm), low 32 bits. Flags: BZ (32-bit zero), BN, BV ← 0.
/// isa.md §2.7.
#[inline]
fn ialu2(s: &mut ArchState, op: FpuOp, rd: u8, rn: u8, rm: u8) -> Step {
    let (a, b, acc) = (s.reg(rn), s.reg(rm), s.reg(rd));
    let r = match op {
        FpuOp::Fadd => a.wrapping_add(b),
        FpuOp::Fsub => a.wrapping_sub(b),
        FpuOp::Fmul => a.wrapping_mul(b),
        FpuOp::Fmadd => acc.wrapping_add(a.wrapping_mul(b)),
        FpuOp::Fmsub => acc.wrapping_sub(a.wrapping_mul(b)),
        FpuOp::Float | FpuOp::Fix | FpuOp::Fabs => return Step::Exception(Excause::Unimplemented),
    };
    s.set_reg(rd, r);
    let f = &mut s.flags;
    f.bz = r == 0;
    f.bn = r >> 31 != 0;
    f.bv = false;
    Step::Next
}
