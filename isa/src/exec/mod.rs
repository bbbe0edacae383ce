//! Functional semantics of every Epiphany-III/IV instruction.
//!
//! [`exec`] executes one pre-decoded [`Op`]: it mutates [`ArchState`], talks
//! to memory through a [`Bus`], and tells the system what to do next with a
//! [`Step`]. No timing, no memory map, no allocation, no panics.
//!
//! Model decisions owned here (each one argued in `isa/SEMANTICS.md`):
//! * the contract with the system: exceptions are *returned*
//!   ([`Step::Exception`], [`Step::Fault`]), never latched here; a faulting or
//!   stalled access changes nothing; a split (remote) load applies its
//!   post-modify at issue;
//! * the hardware-loop rule ([`fallthrough`]) and the interrupt rules
//!   ([`pending_interrupt`], [`enter_interrupt`], RTI);
//! * alignment and odd-register checks of loads/stores, done before the bus
//!   is touched.
//!
//! The families live in `alu` (integer ALU, moves), `branch` (conditions,
//! branches, jumps), `loadstore`, `fpu` (FPU and integer-mode glue over
//! [`crate::fpu`]) and `control` (system instructions, interrupts, loops).

mod alu;
mod branch;
mod control;
mod fpu;
mod loadstore;

pub use branch::cond_holds;
pub use control::{enter_interrupt, fallthrough, pending_interrupt};
pub use loadstore::complete_load;

use crate::op::Cond;
use crate::{ArchState, Bus, Op, Size, Step};

/// `$e` with `$z` bound to `$size` as a constant in each arm, so that the
/// always-inlined access code is specialised for each size. Two bit tests,
/// words and doubles in line: a `match` compiles to a jump table, an
/// indirect branch on every load and store, which costs the host more than
/// two predictable conditional ones.
macro_rules! by_size {
    ($size:expr, $z:ident => $e:expr) => {{
        let bits = $size as u8;
        if bits & 2 == 0 {
            // Bytes and halves: laid out of the way of words and doubles.
            std::hint::cold_path();
            if bits & 1 == 0 {
                let $z = Size::Byte;
                $e
            } else {
                let $z = Size::Half;
                $e
            }
        } else if bits & 1 == 0 {
            let $z = Size::Word;
            $e
        } else {
            let $z = Size::Double;
            $e
        }
    }};
}

/// Leaves `step` in `out` and returns false: the instruction did not fall
/// through (the result convention of [`exec_next`]).
#[inline(always)]
fn stop(out: &mut Step, step: Step) -> bool {
    *out = step;
    false
}

/// [`stop`] for an outcome that is rare (a fault, a stall, a split load):
/// the compiler lays its code out of the way of the common one.
#[inline(always)]
fn rare(out: &mut Step, step: Step) -> bool {
    std::hint::cold_path();
    stop(out, step)
}

/// `step` in the result convention of [`exec_next`].
#[inline(always)]
fn next(step: Step, out: &mut Step) -> bool {
    match step {
        Step::Next => true,
        other => stop(out, other),
    }
}

/// Executes `op`, the instruction at address `pc` of `len` bytes (2 or 4).
///
/// Reads and writes `s` (never `s.pc`: the system owns the PC and applies
/// [`Step::Next`] through [`fallthrough`]) and performs memory accesses on
/// `bus`. See [`Step`] for what each outcome asks of the system.
#[inline]
pub fn exec<B: Bus>(s: &mut ArchState, bus: &mut B, op: Op, pc: u32, len: u32) -> Step {
    exec_ref(s, bus, &op, pc, len)
}

/// [`exec`] of an `Op` in place (each arm loads only the operand fields it
/// uses).
#[inline(always)]
pub fn exec_ref<B: Bus>(s: &mut ArchState, bus: &mut B, op: &Op, pc: u32, len: u32) -> Step {
    let mut out = Step::Next;
    exec_next(s, bus, op, pc, len, &mut out);
    out
}

/// [`exec_ref`] for an execution loop: true when the instruction fell
/// through ([`Step::Next`]); otherwise false, with the step in `out`.
///
/// The fast path of an execution loop that keeps decoded instructions in
/// memory. A `bool` lets the compiler branch back to the loop straight from
/// each instruction's code; a returned `Step` (8 bytes, carried as one
/// packed integer) would first be merged from every arm and then tested.
#[inline(always)]
pub fn exec_next<B: Bus>(
    s: &mut ArchState,
    bus: &mut B,
    op: &Op,
    pc: u32,
    len: u32,
    out: &mut Step,
) -> bool {
    match *op {
        // ---- control flow ----
        // (Unconditional forms skip the condition lookup.)
        Op::Bcond {
            cond: Cond::Always,
            disp,
        } => branch::b(disp, pc, out),
        Op::Bcond {
            cond: Cond::Link,
            disp,
        } => branch::bl(s, disp, pc, len, out),
        Op::Bcond { cond, disp } => branch::bcond(s, cond, disp, pc, out),
        Op::Jr { rn } => branch::jr(s, rn, out),
        Op::Jalr { rn } => branch::jalr(s, rn, pc, len, out),

        // ---- integer ALU ----
        Op::Add { rd, rn, rm } => next(alu::add(s, rd, rn, rm), out),
        Op::Sub { rd, rn, rm } => next(alu::sub(s, rd, rn, rm), out),
        Op::And { rd, rn, rm } => next(alu::and(s, rd, rn, rm), out),
        Op::Orr { rd, rn, rm } => next(alu::orr(s, rd, rn, rm), out),
        Op::Eor { rd, rn, rm } => next(alu::eor(s, rd, rn, rm), out),
        Op::Asr { rd, rn, rm } => next(alu::asr(s, rd, rn, rm), out),
        Op::Lsr { rd, rn, rm } => next(alu::lsr(s, rd, rn, rm), out),
        Op::Lsl { rd, rn, rm } => next(alu::lsl(s, rd, rn, rm), out),
        Op::AddImm { rd, rn, imm } => next(alu::add_imm(s, rd, rn, imm), out),
        Op::SubImm { rd, rn, imm } => next(alu::sub_imm(s, rd, rn, imm), out),
        Op::LsrImm { rd, rn, amount } => next(alu::lsr_imm(s, rd, rn, amount), out),
        Op::LslImm { rd, rn, amount } => next(alu::lsl_imm(s, rd, rn, amount), out),
        Op::AsrImm { rd, rn, amount } => next(alu::asr_imm(s, rd, rn, amount), out),
        Op::Bitr { rd, rn } => next(alu::bitr(s, rd, rn), out),
        Op::MovImm { rd, imm } => next(alu::mov_imm(s, rd, imm), out),
        Op::Movt { rd, imm } => next(alu::movt(s, rd, imm), out),
        Op::MovCond {
            cond: Cond::Always,
            rd,
            rn,
        } => next(alu::mov(s, rd, rn), out),
        Op::MovCond { cond, rd, rn } => next(alu::mov_cond(s, cond, rd, rn), out),
        Op::Movts { sreg, rn } => next(control::movts(s, bus, sreg, rn), out),
        Op::Movfs { rd, sreg } => next(control::movfs(s, bus, rd, sreg, pc), out),

        // ---- loads and stores ----
        // Loads and stores dispatch on the size here, so that each size's
        // code is specialised (no size tests inside).
        Op::Ld { size, rd, rn, off } => {
            by_size!(size, z => loadstore::ld_disp(s, bus, z, rd, rn, off, out))
        }
        Op::LdX {
            size,
            rd,
            rn,
            rm,
            sub,
        } => by_size!(size, z => loadstore::ld_index(s, bus, z, rd, rn, rm, sub, out)),
        Op::LdP {
            size,
            rd,
            rn,
            rm,
            sub,
        } => by_size!(size, z => loadstore::ld_post_reg(s, bus, z, rd, rn, rm, sub, out)),
        Op::LdPi { size, rd, rn, off } => {
            by_size!(size, z => loadstore::ld_post_disp(s, bus, z, rd, rn, off, out))
        }
        Op::St { size, rd, rn, off } => {
            by_size!(size, z => loadstore::st_disp(s, bus, z, rd, rn, off, out))
        }
        Op::StX {
            size,
            rd,
            rn,
            rm,
            sub,
        } => by_size!(size, z => loadstore::st_index(s, bus, z, rd, rn, rm, sub, out)),
        Op::StP {
            size,
            rd,
            rn,
            rm,
            sub,
        } => by_size!(size, z => loadstore::st_post_reg(s, bus, z, rd, rn, rm, sub, out)),
        Op::StPi { size, rd, rn, off } => {
            by_size!(size, z => loadstore::st_post_disp(s, bus, z, rd, rn, off, out))
        }
        Op::TestSet { rd, rn, rm, sub } => loadstore::testset(s, bus, rd, rn, rm, sub, out),

        // ---- FPU / IALU2 ----
        Op::Fpu { op, rd, rn, rm } => next(fpu::fpu(s, op, rd, rn, rm), out),

        // ---- system ----
        Op::Nop => true,
        Op::Idle => next(control::idle(s), out),
        Op::Gie => next(control::gie(s), out),
        Op::Gid => next(control::gid(s), out),
        Op::Rti => next(control::rti(s), out),
        Op::Swi { .. } => next(control::swi(), out),
        Op::Trap { num } => stop(out, Step::Trap { num }),
        Op::Bkpt => stop(out, Step::Bkpt),
        Op::Mbkpt => stop(out, Step::Mbkpt),
        Op::Wand => next(control::wand(s), out),
        Op::Sync => stop(out, Step::Sync),
        Op::Unimpl => next(control::unimpl(), out),
    }
}
