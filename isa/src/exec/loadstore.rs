//! Loads, stores and TESTSET (isa.md §2.6).
//!
//! Model decisions owned here:
//! * alignment (half: ea[0] = 0, word: ea[1:0] = 0, double: ea[2:0] = 0) is
//!   checked before the bus is touched; a misaligned access returns
//!   `Step::Fault { fault: Unaligned }` and changes nothing;
//! * a double with an odd RD faults the same way (CGEN-ADAPTEVA raises the
//!   unaligned exception; GAS rejects it);
//! * post-modify: the access uses the old base; the base is updated only
//!   once the access is accepted (Ready or Pending), after the loaded value
//!   is written, so with RD == RN (undefined, rejected by GAS) a completed
//!   load leaves the updated base in RN;
//! * sub-word loads zero-extend; stores answered `Pending` are posted and
//!   complete like `Ready`.

// Each form takes its operand fields one by one, plus the state, the bus
// and the result slot.
#![allow(clippy::too_many_arguments)]

use super::rare;
use crate::bus::{Access, MemFault};
use crate::op::Size;
use crate::{ArchState, Bus, Step};

/// Writes the value of a completed load into `rd` (and `rd + 1` for a
/// double: RD ← bits 31:0, RD+1 ← bits 63:32). Sub-word values are
/// zero-extended (bits above the access size are ignored). The system calls
/// this when the data of a [`Step::LoadPending`] arrives. A double always
/// targets the even register `rd & !1` (exec never issues one with an odd RD).
#[inline(always)]
pub fn complete_load(s: &mut ArchState, rd: u8, size: Size, value: u64) {
    match size {
        Size::Byte => s.set_reg(rd, value as u32 & 0xFF),
        Size::Half => s.set_reg(rd, value as u32 & 0xFFFF),
        Size::Word => s.set_reg(rd, value as u32),
        Size::Double => {
            let rd = rd & !1;
            s.set_reg(rd, value as u32);
            s.set_reg(rd | 1, (value >> 32) as u32);
        }
    }
}

/// The fault for an access whose address or register pair is misaligned.
#[inline(always)]
fn check(size: Size, rd: u8, ea: u32) -> Option<Step> {
    let odd_pair = size == Size::Double && rd & 1 != 0;
    if ea & (size.bytes() - 1) != 0 || odd_pair {
        Some(Step::Fault {
            addr: ea,
            fault: MemFault::Unaligned,
        })
    } else {
        None
    }
}

#[inline(always)]
fn index(base: u32, idx: u32, sub: bool) -> u32 {
    if sub {
        base.wrapping_sub(idx)
    } else {
        base.wrapping_add(idx)
    }
}

/// A load from `ea` into `rd`; `wb = Some((rn, new_base))` for post-modify.
/// True when it completed (the instruction falls through); otherwise the
/// step is in `out`.
#[inline(always)]
fn load<B: Bus>(
    s: &mut ArchState,
    bus: &mut B,
    size: Size,
    rd: u8,
    ea: u32,
    wb: Option<(u8, u32)>,
    out: &mut Step,
) -> bool {
    if let Some(fault) = check(size, rd, ea) {
        return rare(out, fault);
    }
    match bus.load(s, ea, size) {
        Access::Ready(v) => {
            complete_load(s, rd, size, v);
            if let Some((rn, base)) = wb {
                s.set_reg(rn, base);
            }
            true
        }
        Access::Pending => {
            if let Some((rn, base)) = wb {
                s.set_reg(rn, base);
            }
            rare(out, Step::LoadPending { rd, size })
        }
        Access::Busy => rare(out, Step::Stall),
        Access::Fault(fault) => rare(out, Step::Fault { addr: ea, fault }),
    }
}

/// A store of `rd` (or the pair `rd`, `rd + 1`) to `ea`; `wb` and the
/// result as for [`load`].
#[inline(always)]
fn store<B: Bus>(
    s: &mut ArchState,
    bus: &mut B,
    size: Size,
    rd: u8,
    ea: u32,
    wb: Option<(u8, u32)>,
    out: &mut Step,
) -> bool {
    if let Some(fault) = check(size, rd, ea) {
        return rare(out, fault);
    }
    let value = if size == Size::Double {
        u64::from(s.reg(rd)) | (u64::from(s.reg(rd | 1)) << 32)
    } else {
        u64::from(s.reg(rd))
    };
    match bus.store(s, ea, size, value) {
        Access::Ready(()) | Access::Pending => {
            if let Some((rn, base)) = wb {
                s.set_reg(rn, base);
            }
            true
        }
        Access::Busy => rare(out, Step::Stall),
        Access::Fault(fault) => rare(out, Step::Fault { addr: ea, fault }),
    }
}

/// `LDR{B,H,,D} rd, [rn, #±disp]`: ea = rn + off. No flags. isa.md §2.6.
#[inline(always)]
pub(super) fn ld_disp<B: Bus>(
    s: &mut ArchState,
    bus: &mut B,
    size: Size,
    rd: u8,
    rn: u8,
    off: i32,
    out: &mut Step,
) -> bool {
    let ea = s.reg(rn).wrapping_add(off as u32);
    load(s, bus, size, rd, ea, None, out)
}

/// `LDR{B,H,,D} rd, [rn, ±rm]`: ea = rn ± rm. No flags. isa.md §2.6.
#[inline(always)]
pub(super) fn ld_index<B: Bus>(
    s: &mut ArchState,
    bus: &mut B,
    size: Size,
    rd: u8,
    rn: u8,
    rm: u8,
    sub: bool,
    out: &mut Step,
) -> bool {
    let ea = index(s.reg(rn), s.reg(rm), sub);
    load(s, bus, size, rd, ea, None, out)
}

/// `LDR{B,H,,D} rd, [rn], ±rm`: ea = rn, then rn ← rn ± rm (rm unscaled).
/// No flags. isa.md §2.6.
#[inline(always)]
pub(super) fn ld_post_reg<B: Bus>(
    s: &mut ArchState,
    bus: &mut B,
    size: Size,
    rd: u8,
    rn: u8,
    rm: u8,
    sub: bool,
    out: &mut Step,
) -> bool {
    let ea = s.reg(rn);
    let base = index(ea, s.reg(rm), sub);
    load(s, bus, size, rd, ea, Some((rn, base)), out)
}

/// `LDR{B,H,,D} rd, [rn], #±disp`: ea = rn, then rn ← rn + off. No flags.
/// isa.md §2.6.
#[inline(always)]
pub(super) fn ld_post_disp<B: Bus>(
    s: &mut ArchState,
    bus: &mut B,
    size: Size,
    rd: u8,
    rn: u8,
    off: i32,
    out: &mut Step,
) -> bool {
    let ea = s.reg(rn);
    load(
        s,
        bus,
        size,
        rd,
        ea,
        Some((rn, ea.wrapping_add(off as u32))),
        out,
    )
}

/// `STR{B,H,,D} rd, [rn, #±disp]`: mem[rn + off] ← rd. No flags. isa.md §2.6.
#[inline(always)]
pub(super) fn st_disp<B: Bus>(
    s: &mut ArchState,
    bus: &mut B,
    size: Size,
    rd: u8,
    rn: u8,
    off: i32,
    out: &mut Step,
) -> bool {
    let ea = s.reg(rn).wrapping_add(off as u32);
    store(s, bus, size, rd, ea, None, out)
}

/// `STR{B,H,,D} rd, [rn, ±rm]`: mem[rn ± rm] ← rd. No flags. isa.md §2.6.
#[inline(always)]
pub(super) fn st_index<B: Bus>(
    s: &mut ArchState,
    bus: &mut B,
    size: Size,
    rd: u8,
    rn: u8,
    rm: u8,
    sub: bool,
    out: &mut Step,
) -> bool {
    let ea = index(s.reg(rn), s.reg(rm), sub);
    store(s, bus, size, rd, ea, None, out)
}

/// `STR{B,H,,D} rd, [rn], ±rm`: mem[rn] ← rd, then rn ← rn ± rm. No flags.
/// isa.md §2.6.
#[inline(always)]
pub(super) fn st_post_reg<B: Bus>(
    s: &mut ArchState,
    bus: &mut B,
    size: Size,
    rd: u8,
    rn: u8,
    rm: u8,
    sub: bool,
    out: &mut Step,
) -> bool {
    let ea = s.reg(rn);
    let base = index(ea, s.reg(rm), sub);
    store(s, bus, size, rd, ea, Some((rn, base)), out)
}

/// `STR{B,H,,D} rd, [rn], #±disp`: mem[rn] ← rd, then rn ← rn + off.
/// No flags. isa.md §2.6.
#[inline(always)]
pub(super) fn st_post_disp<B: Bus>(
    s: &mut ArchState,
    bus: &mut B,
    size: Size,
    rd: u8,
    rn: u8,
    off: i32,
    out: &mut Step,
) -> bool {
    let ea = s.reg(rn);
    store(
        s,
        bus,
        size,
        rd,
        ea,
        Some((rn, ea.wrapping_add(off as u32))),
        out,
    )
}

/// `TESTSET rd, [rn, ±rm]`: atomically at ea = rn ± rm (word):
/// `old = mem[ea]; if old == 0 { mem[ea] = rd }; rd = old`, through
/// [`Bus::testset`]. No flags. isa.md §2.6.
#[inline(always)]
pub(super) fn testset<B: Bus>(
    s: &mut ArchState,
    bus: &mut B,
    rd: u8,
    rn: u8,
    rm: u8,
    sub: bool,
    out: &mut Step,
) -> bool {
    let ea = index(s.reg(rn), s.reg(rm), sub);
    if let Some(fault) = check(Size::Word, rd, ea) {
        return rare(out, fault);
    }
    let value = s.reg(rd);
    match bus.testset(s, ea, value) {
        Access::Ready(old) => {
            s.set_reg(rd, old);
            true
        }
        Access::Pending => rare(
            out,
            Step::LoadPending {
                rd,
                size: Size::Word,
            },
        ),
        Access::Busy => rare(out, Step::Stall),
        Access::Fault(fault) => rare(out, Step::Fault { addr: ea, fault }),
    }
}
