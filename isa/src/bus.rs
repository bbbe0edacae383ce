//! The contract between the semantics and the memory system.
//!
//! `isa` knows nothing about the memory map: every load, store, TESTSET and
//! non-core special-register access goes through a [`Bus`] that the system
//! (`sim`) implements. Semantics are generic over it, so the hot path is
//! monomorphised; never pass `&mut dyn Bus` there.

use crate::op::{Size, Sreg};
use crate::state::ArchState;

/// Why a memory access could not be performed. The semantics turn it into
/// the architectural response (a software exception or a halt, decided by
/// the system through [`Step::Fault`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum MemFault {
    /// No memory or device answers at this address.
    Unmapped,
    /// The address is not naturally aligned for the access size.
    Unaligned,
    /// The access is not allowed (write to a read-only register, TESTSET on
    /// a local address, a MEMPROTECT violation).
    Protected,
}

/// Outcome of one memory access attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access<T> {
    /// The access completed; for loads, the value (zero-extended; a double
    /// is `lo | hi << 32`).
    Ready(T),
    /// A split transaction was issued (remote read); the value arrives later
    /// and the system completes the instruction. No state was changed by the
    /// semantics except what the access itself implies (post-modify).
    Pending,
    /// The port is busy; the instruction must be retried next cycle with no
    /// architectural state changed.
    Busy,
    /// The access faulted; nothing was written.
    Fault(MemFault),
}

/// The memory system as the semantics see it.
///
/// Every method receives the executing core's state so that accesses to the
/// core's own memory-mapped registers (0xF0000-0xF0FFF, local or through its
/// global address) can read and write it.
pub trait Bus {
    /// Loads `size` bytes from `addr`.
    fn load(&mut self, s: &mut ArchState, addr: u32, size: Size) -> Access<u64>;
    /// Stores the low `size` bytes of `value` at `addr`. Stores to memory
    /// other than the core's own are posted.
    fn store(&mut self, s: &mut ArchState, addr: u32, size: Size, value: u64) -> Access<()>;
    /// TESTSET: atomically `old = mem[addr]; if old == 0 { mem[addr] = value }`,
    /// returning `old`.
    fn testset(&mut self, s: &mut ArchState, addr: u32, value: u32) -> Access<u32>;
    /// MOVFS from a special register (any group). The bus decides what the
    /// non-core groups (DMA, memory protection, mesh) hold; for group 0 it
    /// normally defers to [`ArchState::read_core_sreg`]. `Busy` retries the
    /// instruction (a register the system must read at the right time);
    /// `Pending` and `Fault` are treated as `Busy`.
    fn read_sreg(&mut self, s: &mut ArchState, sreg: Sreg) -> Access<u32>;
    /// MOVTS to a special register (any group); `Busy` as for
    /// [`Bus::read_sreg`].
    fn write_sreg(&mut self, s: &mut ArchState, sreg: Sreg, value: u32) -> Access<()>;
}

/// What happened when one instruction executed; the system acts on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Fall through to the next instruction (the system adds the length and
    /// applies the hardware-loop rule).
    Next,
    /// Control transfers to `target` (taken branch, jump, call, RTI).
    Jump { target: u32 },
    /// A load was issued as a split transaction into `rd` (and `rd + 1` for a
    /// double); the instruction retires when the data arrives.
    LoadPending { rd: u8, size: Size },
    /// The bus was busy: retry the same instruction next cycle.
    Stall,
    /// IDLE: STATUS.ACTIVE was cleared; the core sleeps until an interrupt.
    Idle,
    /// TRAP n: the system services it (system call or halt) and continues at
    /// the next instruction.
    Trap { num: u8 },
    /// The instruction completed its architectural effects and now raises a
    /// software exception with this cause (SWI, enabled FPU exception,
    /// unimplemented instruction). The semantics do not latch it themselves:
    /// the system applies its fault policy (model the exception with
    /// [`ArchState::raise_exception`], or stop with a diagnostic).
    Exception(crate::state::Excause),
    /// A memory access faulted at `addr` (misaligned, unmapped, protected);
    /// no register or memory was changed. The system decides how the
    /// hardware would respond (exception or stop with a diagnostic).
    Fault { addr: u32, fault: MemFault },
    /// BKPT: the core halts (DEBUGSTATUS.HALT).
    Bkpt,
    /// MBKPT: halt every core of the group.
    Mbkpt,
    /// WAND executed (STATUS.WAND set); the system checks the barrier.
    /// `rose`: the flag was clear before (the wired AND of the group's
    /// flags can rise only then).
    Wand { rose: bool },
    /// SYNC executed: raise `ILAT[0]` in every core of the group.
    Sync,
}
