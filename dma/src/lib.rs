//! The Epiphany DMA engine of one core: two channels (DMA0 with priority
//! over DMA1), the sixteen registers at 0xF0500..0xF053C, six-word
//! descriptors, 2-D transfers with inner and outer strides, chaining, slave
//! mode, completion and message interrupts (isa.md §8, e-lib `e_dma_*`).
//!
//! This crate is a state machine only. It owns no memory, no mesh and no
//! clock: the simulator performs each element [`Move`] the engine asks for
//! (local access, mesh write or remote read, with whatever latency and
//! back-pressure it models) and tells the engine what happened. The engine
//! keeps its own small latencies ([`Params`]: reaction to a trigger,
//! descriptor fetch, one move per cycle) as "earliest cycle of the next
//! move". Numbers and sources: `dma/DMA.md`.
//!
//! # Contract with the simulator
//!
//! Time is the simulator's cycle count ([`Cycle`]); every call that can
//! change the timing takes `now`.
//!
//! 1. **Register accesses.** A core load, MOVFS, mesh read or host read of
//!    an address in `0xF0500..0xF0540` is [`Dma::read_reg`]`(addr - 0xF0500)`.
//!    A store/MOVTS/mesh write/host write is [`Dma::write_reg`]`(now, off,
//!    value, &mem)`, where `mem` reads this core's SRAM ([`LocalMem`]).
//!    Writing CONFIG with STARTUP reads the descriptor then and there
//!    (e-lib's `e_dma_start` writes `desc << 16 | 8`). A 64-bit store to
//!    AUTO0 is two calls: AUTO0 (low word) then AUTO1.
//! 2. **Moves.** In its DMA phase of each cycle, the simulator asks
//!    [`Dma::peek`]`(now)`. For a returned [`Move`] it either
//!    * performs it and calls [`Dma::commit`]`(now, move.channel as usize,
//!      outcome, &mem)`: [`MoveOutcome::Written`] when the data has been
//!      written locally or handed to the network as a posted write,
//!      [`MoveOutcome::ReadIssued`] when the source is remote and a read
//!      request went out (the response will be written at `dst` later), or
//!    * refuses it this cycle (bank or network busy) and calls nothing: the
//!      same move is offered again next cycle (gem5's retry contract).
//!
//!    After a commit the simulator may call `peek` again in the same cycle;
//!    it returns `None` once [`Params::moves_per_cycle`] moves were
//!    committed at `now` (default 1 for the whole engine). Stop asking
//!    after a refused move.
//!    A [`Source::Data`] move (slave mode) writes the given bytes at `dst`.
//!    Addresses are as the program wrote them (local if `[31:20] == 0`,
//!    else global); the simulator classifies them. `src`/`dst` are always
//!    multiples of `size`.
//! 3. **Remote reads.** When the data of a `ReadIssued` move has been
//!    written at its destination, call [`Dma::read_returned`]`(now, ch,
//!    &mem)`. Any number of reads may be in flight (the simulator limits
//!    them by refusing moves); the engine only counts them.
//! 4. **Faults.** If the simulator's policy for an unmapped address is to
//!    stop the DMA, it calls [`Dma::fault`]`(ch, addr)` instead of
//!    committing; the channel enters state 0xD.
//! 5. **Pause and reset.** The core CONFIG\[24\] drives
//!    [`Dma::set_paused`]; RESETCORE calls [`Dma::reset`].
//! 6. **Idle skipping.** [`Dma::next_ready`] is the earliest cycle a move
//!    may be offered (`None`: nothing will happen until a register write,
//!    a read return or un-pausing).
//!
//! Every mutating call returns an [`Effect`]; the simulator acts on it:
//!
//! * `done: Some(Done { channel, irq })`: a descriptor (or a transfer
//!   started from the registers) completed. If `irq` is `Some(n)`, latch
//!   ILAT bit `n` (6 for DMA0, 7 for DMA1) on this core.
//! * `fetch: Some(Fetch { channel, addr })`: the 24-byte descriptor at local
//!   `addr` was read. The engine has already delayed the channel's next
//!   move by [`Params::desc_fetch_cycles`]; use it for traces or bank use.
//! * `error: Some(DmaError)`: the channel entered the configuration-error
//!   state 0xD. `Display` names channel, descriptor and bad address, e.g.
//!   `DMA1 (descriptor at 0x0100): source address 0x00002002 is not
//!   aligned to the 4-byte element size`. The channel stays in 0xD until
//!   software writes 0 to its STATUS.
//!
//! **Message interrupt.** A move with `message: true` is the last of a
//! descriptor with MSGMODE. If its destination is another core (a global
//! address), the simulator delivers ILAT bit 5 ([`regs::IRQ_MESSAGE`]) at
//! the destination core together with (after) that write. If the transfer
//! reads remotely, MSGMODE instead makes the channel wait in state 0xA
//! until the last read has returned, so that a completed channel means the
//! data has arrived (e-lib's `e_dma_copy` sets MSGMODE for a local
//! destination for exactly this).
//!
//! **Arbitration.** At most [`Params::moves_per_cycle`] moves per cycle for
//! the whole engine and at most one per [`Params::move_interval_cycles`] per
//! channel; when both channels are ready, DMA0 goes first (fixed priority,
//! isa.md §8.1), so a continuously ready DMA0 holds DMA1 off.
//! [`Dma::peek_channel`] lets a simulator offer the port to DMA1 when
//! DMA0's move was refused, if it prefers that.
//!
//! **Guest errors never panic**: zero counts, misaligned element addresses,
//! bad descriptor pointers, descriptors with DMAEN clear, CONFIG written
//! while busy all become state 0xD with a [`DmaError`].
#![forbid(unsafe_code)]

mod engine;
mod error;
mod params;
pub mod regs;

pub use engine::{
    ChannelStats, Dma, Done, Effect, Event, Fetch, LocalMem, Move, MoveOutcome, Source, Stretch,
};
pub use error::{DmaError, ErrorKind};
pub use params::{Cycle, Params};
pub use regs::{Descriptor, DmaState};

#[cfg(test)]
mod tests;
