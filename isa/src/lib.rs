//! The Epiphany-III/IV instruction set: one declarative encoding table from
//! which the decoder and the disassembler are derived, the architectural
//! state, and the functional semantics of every instruction.
//!
//! No timing lives here, and no memory map: the semantics talk to memory
//! through the [`Bus`] trait, and report what the system must do next as a
//! [`Step`]. The cycle model (`sim`) is a layer on top.

#![forbid(unsafe_code)]

pub mod bus;
pub mod decode;
pub mod deps;
pub mod disasm;
pub mod encoding;
pub mod exec;
pub mod flat;
pub mod fpu;
pub mod op;
pub mod state;

pub use bus::{Access, Bus, MemFault, Step};
pub use decode::{decode, Decoded};
pub use deps::Deps;
pub use op::{AluOp, Cond, FpuOp, Op, OpClass, ShiftOp, Size, Sreg};
pub use state::{ArchState, Excause, Flags};

/// Length in bytes of the instruction whose first halfword is `h0`: 2 when
/// `h0[3:0]` is 0-7, 0xA or 0xE, else 4 (isa.md §1.1).
#[inline(always)]
pub const fn insn_len(h0: u16) -> u32 {
    // bit n set = op4 n is a 16-bit family
    const SHORT: u16 = 0b0100_0100_1111_1111;
    if SHORT & (1 << (h0 & 0xf)) != 0 {
        2
    } else {
        4
    }
}
