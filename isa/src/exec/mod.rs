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

use crate::{ArchState, Bus, Op, Size, Step};

/// `$e` with `$z` bound to `$size` as a constant in each arm, so that the
/// always-inlined access code is specialised for each size.
macro_rules! by_size {
    ($size:expr, $z:ident => $e:expr) => {
        match $size {
            Size::Word => {
                let $z = Size::Word;
                $e
            }
            Size::Double => {
                let $z = Size::Double;
                $e
            }
            Size::Byte => {
                let $z = Size::Byte;
                $e
            }
            Size::Half => {
                let $z = Size::Half;
                $e
            }
        }
    };
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

/// [`exec`] of an `Op` in place: the fast path of an execution loop that
/// keeps decoded instructions in memory (each arm loads only the operand
/// fields it uses).
#[inline(always)]
pub fn exec_ref<B: Bus>(s: &mut ArchState, bus: &mut B, op: &Op, pc: u32, len: u32) -> Step {
    match *op {
        // ---- control flow ----
        Op::Bcond { cond, disp } => branch::bcond(s, cond, disp, pc, len),
        Op::Jr { rn } => branch::jr(s, rn),
        Op::Jalr { rn } => branch::jalr(s, rn, pc, len),

        // ---- integer ALU ----
        Op::Add { rd, rn, rm } => alu::add(s, rd, rn, rm),
        Op::Sub { rd, rn, rm } => alu::sub(s, rd, rn, rm),
        Op::And { rd, rn, rm } => alu::and(s, rd, rn, rm),
        Op::Orr { rd, rn, rm } => alu::orr(s, rd, rn, rm),
        Op::Eor { rd, rn, rm } => alu::eor(s, rd, rn, rm),
        Op::Asr { rd, rn, rm } => alu::asr(s, rd, rn, rm),
        Op::Lsr { rd, rn, rm } => alu::lsr(s, rd, rn, rm),
        Op::Lsl { rd, rn, rm } => alu::lsl(s, rd, rn, rm),
        Op::AddImm { rd, rn, imm } => alu::add_imm(s, rd, rn, imm),
        Op::SubImm { rd, rn, imm } => alu::sub_imm(s, rd, rn, imm),
        Op::LsrImm { rd, rn, amount } => alu::lsr_imm(s, rd, rn, amount),
        Op::LslImm { rd, rn, amount } => alu::lsl_imm(s, rd, rn, amount),
        Op::AsrImm { rd, rn, amount } => alu::asr_imm(s, rd, rn, amount),
        Op::Bitr { rd, rn } => alu::bitr(s, rd, rn),
        Op::MovImm { rd, imm } => alu::mov_imm(s, rd, imm),
        Op::Movt { rd, imm } => alu::movt(s, rd, imm),
        Op::MovCond { cond, rd, rn } => alu::mov_cond(s, cond, rd, rn),
        Op::Movts { sreg, rn } => control::movts(s, bus, sreg, rn),
        Op::Movfs { rd, sreg } => control::movfs(s, bus, rd, sreg),

        // ---- loads and stores ----
        // Loads and stores dispatch on the size here, so that each size's
        // code is specialised (no size tests inside).
        Op::Ld { size, rd, rn, off } => {
            by_size!(size, z => loadstore::ld_disp(s, bus, z, rd, rn, off))
        }
        Op::LdX {
            size,
            rd,
            rn,
            rm,
            sub,
        } => by_size!(size, z => loadstore::ld_index(s, bus, z, rd, rn, rm, sub)),
        Op::LdP {
            size,
            rd,
            rn,
            rm,
            sub,
        } => by_size!(size, z => loadstore::ld_post_reg(s, bus, z, rd, rn, rm, sub)),
        Op::LdPi { size, rd, rn, off } => {
            by_size!(size, z => loadstore::ld_post_disp(s, bus, z, rd, rn, off))
        }
        Op::St { size, rd, rn, off } => {
            by_size!(size, z => loadstore::st_disp(s, bus, z, rd, rn, off))
        }
        Op::StX {
            size,
            rd,
            rn,
            rm,
            sub,
        } => by_size!(size, z => loadstore::st_index(s, bus, z, rd, rn, rm, sub)),
        Op::StP {
            size,
            rd,
            rn,
            rm,
            sub,
        } => by_size!(size, z => loadstore::st_post_reg(s, bus, z, rd, rn, rm, sub)),
        Op::StPi { size, rd, rn, off } => {
            by_size!(size, z => loadstore::st_post_disp(s, bus, z, rd, rn, off))
        }
        Op::TestSet { rd, rn, rm, sub } => loadstore::testset(s, bus, rd, rn, rm, sub),

        // ---- FPU / IALU2 ----
        Op::Fpu { op, rd, rn, rm } => fpu::fpu(s, op, rd, rn, rm),

        // ---- system ----
        Op::Nop => Step::Next,
        Op::Idle => control::idle(s),
        Op::Gie => control::gie(s),
        Op::Gid => control::gid(s),
        Op::Rti => control::rti(s),
        Op::Swi { .. } => control::swi(),
        Op::Trap { num } => Step::Trap { num },
        Op::Bkpt => Step::Bkpt,
        Op::Mbkpt => Step::Mbkpt,
        Op::Wand => control::wand(s),
        Op::Sync => Step::Sync,
        Op::Unimpl => control::unimpl(),
    }
}
