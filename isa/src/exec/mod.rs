//! PLACEHOLDER (being written): functional semantics.
use crate::{ArchState, Bus, Op, Step};

/// Executes `op`, the instruction at `pc` of length `len` bytes.
pub fn exec<B: Bus>(s: &mut ArchState, bus: &mut B, op: Op, pc: u32, len: u32) -> Step {
    let _ = (s, bus, op, pc, len);
    Step::Next
}

/// Next PC after an instruction at `pc` of `len` bytes fell through,
/// applying the hardware-loop rule.
pub fn fallthrough(s: &mut ArchState, pc: u32, len: u32) -> u32 {
    let _ = s;
    pc.wrapping_add(len)
}
