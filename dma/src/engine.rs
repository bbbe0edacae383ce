//! The two-channel DMA state machine of one core.
//!
//! Owns: register semantics (what a write to each DMA register does), the
//! 2-D address sequence of isa.md §8.4, descriptor loading and chaining,
//! slave mode, completion interrupts, the MSGMODE rules, channel
//! arbitration (DMA0 before DMA1, [`Params::moves_per_cycle`] per cycle) and
//! the engine's own latencies. It does not own memory, the mesh or the
//! clock: the simulator performs each [`Move`] and reports back.

use crate::error::{DmaError, ErrorKind};
use crate::params::{Cycle, Params};
use crate::regs::{
    self, datasize_bytes, next_ptr, stride_step, Descriptor, DmaState, CHAINMODE, CHANNEL_STRIDE,
    DESCRIPTOR_ALIGN, DMAEN, IRQEN, IRQ_DMA0, MASTER, MSGMODE, SHIFT_DST_IN, SHIFT_DST_OUT,
    SHIFT_SRC_IN, SHIFT_SRC_OUT, STARTUP, WINDOW_BYTES,
};

/// The core's local memory as the engine sees it: descriptors only.
///
/// Implemented by the simulator over the core's SRAM. The engine reads the
/// six words of a descriptor through it, at 8-byte-aligned local addresses
/// (`addr`, `addr + 4`, ... `addr + 20`).
pub trait LocalMem {
    /// The aligned 32-bit word at local address `addr` (little-endian, as a
    /// core load would see it), or `None` when `addr` is not backed by
    /// local SRAM (for example 0x8000 and above on a 32 KB core).
    fn read_word(&self, addr: u32) -> Option<u32>;
}

/// Where the data of a move comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// Master mode: read `size` bytes at this address (local or global,
    /// exactly as the program wrote it; the simulator classifies it).
    Mem(u32),
    /// Slave mode: the data item written into AUTO0 (and AUTO1 for a
    /// doubleword), already masked to `size` bytes.
    Data(u64),
}

/// One element transfer the engine wants to make.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// 0 or 1.
    pub channel: u8,
    /// The source address, or the data itself in slave mode.
    pub src: Source,
    /// Destination address, local (`[31:20] == 0`) or global, as written.
    pub dst: u32,
    /// Element size in bytes: 1, 2, 4 or 8. `src` and `dst` are multiples
    /// of it (the engine stops with an error before a misaligned move).
    pub size: u8,
    /// The last element of the current descriptor.
    pub last: bool,
    /// `last` and MSGMODE: if this is a remote write, it carries the message
    /// interrupt (ILAT bit 5 at the destination core).
    pub message: bool,
}

/// What happened to a committed move, as far as the engine cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveOutcome {
    /// The data has been written (local write) or handed to the network
    /// (posted remote write). Nothing will come back.
    Written,
    /// The source was remote: a read request is in flight and its data will
    /// be written at `dst` later. Call [`Dma::read_returned`] when it has.
    ReadIssued,
}

/// A channel finished a descriptor (or a register-started transfer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Done {
    /// 0 or 1.
    pub channel: u8,
    /// `Some(6 + channel)` when IRQEN was set: latch this ILAT bit on this core.
    pub irq: Option<u8>,
}

/// A descriptor was read from local memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fetch {
    /// 0 or 1.
    pub channel: u8,
    /// Local address of the 24-byte descriptor that was read.
    pub addr: u32,
}

/// What a call into the engine caused, besides register changes. Every
/// call concerns one channel, so each kind happens at most once; when
/// several are present they happened in the order `done`, `fetch`, `error`
/// (a chained completion: done, then the next descriptor is fetched, then
/// perhaps found to be bad). Copy, no allocation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Effect {
    /// A descriptor (or register-started transfer) completed.
    pub done: Option<Done>,
    /// A descriptor was read from local memory (the engine has already
    /// added [`Params::desc_fetch_cycles`] to the channel's next move).
    pub fetch: Option<Fetch>,
    /// The channel entered the error state (0xD).
    pub error: Option<DmaError>,
}

/// One entry of [`Effect::events`], in the order the things happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Event {
    /// See [`Done`].
    Done {
        /// 0 or 1.
        channel: u8,
        /// ILAT bit to latch on this core, if IRQEN.
        irq: Option<u8>,
    },
    /// See [`Fetch`].
    DescriptorFetch {
        /// 0 or 1.
        channel: u8,
        /// Local address of the descriptor.
        addr: u32,
    },
    /// See [`DmaError`].
    Error(DmaError),
}

impl Effect {
    /// Nothing happened.
    pub const NONE: Effect = Effect {
        done: None,
        fetch: None,
        error: None,
    };

    /// True when nothing happened.
    pub fn is_none(&self) -> bool {
        self.done.is_none() && self.fetch.is_none() && self.error.is_none()
    }

    /// The ILAT bit to latch on this core, if any.
    pub fn irq(&self) -> Option<u8> {
        self.done.and_then(|d| d.irq)
    }

    /// The effects as events, in the order they happened.
    pub fn events(&self) -> impl Iterator<Item = Event> {
        let done = self.done.map(|d| Event::Done {
            channel: d.channel,
            irq: d.irq,
        });
        let fetch = self.fetch.map(|f| Event::DescriptorFetch {
            channel: f.channel,
            addr: f.addr,
        });
        let error = self.error.map(Event::Error);
        [done, fetch, error].into_iter().flatten()
    }
}

/// What channel's moves ahead are, as far as [`Dma::stretch`] sees
/// them without anything else happening to the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stretch {
    /// The first move is ready at this cycle (perhaps in the past).
    pub ready: Cycle,
    /// The first `plain` moves (perhaps none) read memory (master mode)
    /// and only step the channel's counters and addresses: none is the
    /// last of its row, none completes the descriptor, raises an
    /// interrupt or finds the next element misaligned. The move after
    /// them may do any of that.
    pub plain: u32,
    /// The bytes the plain moves read and write: the lowest and the
    /// highest byte address of each (both `(1, 0)` when there are none).
    pub src: (u32, u32),
    pub dst: (u32, u32),
}

/// Per-channel counters (for profiles and tests).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ChannelStats {
    /// Element moves committed.
    pub moves: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// Descriptors read from memory.
    pub descriptors: u64,
    /// Descriptors or register-started transfers completed.
    pub completions: u64,
}

/// The internal run state (never [`DmaState::Paused`], which is an overlay).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Run {
    Idle,
    Active,
    Slave,
    Wait,
    Error,
}

#[derive(Clone, Debug)]
struct Channel {
    id: u8,
    // Architectural registers.
    config: u32,
    stride: u32,
    count: u32,
    src: u32,
    dst: u32,
    auto0: u32,
    auto1: u32,
    /// STATUS\[31:16\], kept in place.
    status_hi: u32,
    // Engine-internal state.
    run: Run,
    /// COUNT\[15:0\] at the start: reloaded at the end of each row.
    inner_init: u32,
    /// The outer stride of the last descriptor loaded (0 after reset).
    outer_stride: u32,
    /// Earliest cycle of the next move.
    ready_at: Cycle,
    /// Slave mode: a data item is waiting in AUTO0/AUTO1.
    item: bool,
    /// Remote reads committed whose data has not returned yet.
    reads: u32,
    /// The descriptor the current transfer came from.
    descriptor: Option<u32>,
    error: Option<DmaError>,
    stats: ChannelStats,
}

impl Channel {
    const fn new(id: u8) -> Self {
        Channel {
            id,
            config: 0,
            stride: 0,
            count: 0,
            src: 0,
            dst: 0,
            auto0: 0,
            auto1: 0,
            status_hi: 0,
            run: Run::Idle,
            inner_init: 0,
            outer_stride: 0,
            ready_at: 0,
            item: false,
            reads: 0,
            descriptor: None,
            error: None,
            stats: ChannelStats {
                moves: 0,
                bytes: 0,
                descriptors: 0,
                completions: 0,
            },
        }
    }

    fn size(&self) -> u8 {
        datasize_bytes(self.config)
    }

    fn master(&self) -> bool {
        self.config & MASTER != 0
    }

    fn state(&self, paused: bool) -> DmaState {
        match self.run {
            Run::Idle => DmaState::Idle,
            Run::Error => DmaState::Error,
            _ if paused => DmaState::Paused,
            Run::Active => DmaState::Active,
            Run::Slave => DmaState::Slave,
            Run::Wait => DmaState::Wait,
        }
    }

    fn busy(&self) -> bool {
        self.run != Run::Idle
    }

    /// Whether a transfer is under way whose element addresses matter.
    fn moving(&self) -> bool {
        matches!(self.run, Run::Active | Run::Slave)
    }

    /// The move this channel would make at `now`, ignoring pause and the
    /// engine-wide budget.
    fn ready_move(&self, now: Cycle) -> Option<Move> {
        if now < self.ready_at {
            return None;
        }
        let src = match self.run {
            Run::Active => Source::Mem(self.src),
            Run::Slave if self.item => Source::Data(self.auto_data()),
            _ => return None,
        };
        let last = self.count & 0xFFFF == 1 && self.count >> 16 == 1;
        Some(Move {
            channel: self.id,
            src,
            dst: self.dst,
            size: self.size(),
            last,
            message: last && self.config & MSGMODE != 0,
        })
    }

    fn auto_data(&self) -> u64 {
        match self.size() {
            1 => u64::from(self.auto0 & 0xFF),
            2 => u64::from(self.auto0 & 0xFFFF),
            4 => u64::from(self.auto0),
            _ => u64::from(self.auto1) << 32 | u64::from(self.auto0),
        }
    }

    /// Alignment of the next element's addresses.
    fn check_addrs(&self) -> Result<(), ErrorKind> {
        let size = self.size();
        let mask = u32::from(size) - 1;
        if self.master() && self.src & mask != 0 {
            return Err(ErrorKind::MisalignedSource {
                addr: self.src,
                size,
            });
        }
        if self.dst & mask != 0 {
            return Err(ErrorKind::MisalignedDestination {
                addr: self.dst,
                size,
            });
        }
        Ok(())
    }

    fn check_count(&self) -> Result<(), ErrorKind> {
        if self.count & 0xFFFF == 0 || self.count >> 16 == 0 {
            return Err(ErrorKind::ZeroCount { count: self.count });
        }
        Ok(())
    }

    /// Start a transfer from the registers as they are; the first move can
    /// happen at `ready_at`.
    fn start(&mut self, ready_at: Cycle) -> Result<(), ErrorKind> {
        self.check_count()?;
        self.inner_init = self.count & 0xFFFF;
        self.run = if self.master() {
            Run::Active
        } else {
            Run::Slave
        };
        self.item = false;
        self.ready_at = ready_at;
        self.check_addrs()
    }

    /// Read the descriptor at `ptr` and copy it into the registers
    /// (isa.md §8.3). On success the returned [`Fetch`] records the read.
    fn load<M: LocalMem + ?Sized>(&mut self, ptr: u32, mem: &M) -> Result<Fetch, ErrorKind> {
        self.descriptor = Some(ptr);
        self.status_hi = ptr << 16;
        if ptr & (DESCRIPTOR_ALIGN - 1) != 0 {
            return Err(ErrorKind::DescriptorMisaligned { ptr });
        }
        let mut words = [0u32; 6];
        for (i, w) in words.iter_mut().enumerate() {
            let addr = ptr + 4 * i as u32;
            *w = mem
                .read_word(addr)
                .ok_or(ErrorKind::DescriptorOutOfRange { ptr, word: addr })?;
        }
        let d = Descriptor::from_words(words);
        self.config = d.config;
        self.stride = d.inner_stride;
        self.count = d.count;
        self.outer_stride = d.outer_stride;
        self.src = d.src;
        self.dst = d.dst;
        self.stats.descriptors += 1;
        Ok(Fetch {
            channel: self.id,
            addr: ptr,
        })
    }

    /// Load the descriptor at `ptr` and start it; `react` is the trigger's
    /// reaction time, to which the fetch cost is added.
    fn load_and_start<M: LocalMem + ?Sized>(
        &mut self,
        now: Cycle,
        ptr: u32,
        p: &Params,
        mem: &M,
        eff: &mut Effect,
    ) {
        match self.load(ptr, mem) {
            Err(kind) => eff.error = Some(self.fail(kind)),
            Ok(fetch) => {
                eff.fetch = Some(fetch);
                let result = if self.config & DMAEN == 0 {
                    Err(ErrorKind::DescriptorNotEnabled {
                        config: self.config,
                    })
                } else {
                    self.start(now + p.start_cycles + p.desc_fetch_cycles)
                };
                if let Err(kind) = result {
                    eff.error = Some(self.fail(kind));
                }
            }
        }
    }

    fn fail(&mut self, kind: ErrorKind) -> DmaError {
        let err = DmaError {
            channel: self.id,
            descriptor: self.descriptor,
            kind,
        };
        self.run = Run::Error;
        self.item = false;
        self.reads = 0;
        self.error = Some(err);
        err
    }

    /// Step the counters and addresses after one element (isa.md §8.4).
    /// Returns true when that was the last element.
    fn advance(&mut self) -> bool {
        let master = self.master();
        let inner = (self.count & 0xFFFF).wrapping_sub(1) & 0xFFFF;
        let mut outer = self.count >> 16;
        let (stride, src_shift, dst_shift) = if inner != 0 {
            (self.stride, SHIFT_SRC_IN, SHIFT_DST_IN)
        } else {
            outer = outer.wrapping_sub(1) & 0xFFFF;
            (self.outer_stride, SHIFT_SRC_OUT, SHIFT_DST_OUT)
        };
        if master {
            let step = stride_step(stride, false, self.config & src_shift != 0);
            self.src = self.src.wrapping_add(step);
        }
        let step = stride_step(stride, true, self.config & dst_shift != 0);
        self.dst = self.dst.wrapping_add(step);
        let inner = if inner == 0 { self.inner_init } else { inner };
        self.count = outer << 16 | inner;
        outer == 0
    }

    /// The current descriptor is complete: interrupt, then chain or idle.
    fn finish<M: LocalMem + ?Sized>(&mut self, now: Cycle, p: &Params, mem: &M) -> Effect {
        self.stats.completions += 1;
        let irq = (self.config & IRQEN != 0).then_some(IRQ_DMA0 + self.id);
        let mut eff = Effect {
            done: Some(Done {
                channel: self.id,
                irq,
            }),
            ..Effect::NONE
        };
        if self.config & CHAINMODE != 0 {
            self.load_and_start(now, next_ptr(self.config), p, mem, &mut eff);
        } else {
            self.run = Run::Idle;
        }
        eff
    }
}

/// The DMA engine of one core: two channels, DMA0 with priority.
///
/// See the crate documentation for the calling contract.
#[derive(Clone, Debug)]
pub struct Dma {
    params: Params,
    ch: [Channel; 2],
    paused: bool,
    /// Cycle of the most recent commit and how many moves it saw.
    budget_cycle: Cycle,
    budget_used: u32,
}

impl Default for Dma {
    fn default() -> Self {
        Dma::new(Params::DEFAULT)
    }
}

impl Dma {
    /// An idle engine with all registers zero.
    pub fn new(params: Params) -> Self {
        Dma {
            params,
            ch: [Channel::new(0), Channel::new(1)],
            paused: false,
            budget_cycle: 0,
            budget_used: 0,
        }
    }

    /// The timing table in use.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Core reset (RESETCORE): CONFIG, COUNT and STATUS of both channels
    /// are cleared and any transfer is dropped; STRIDE, SRCADDR, DSTADDR and
    /// AUTO0/1 keep their values (SIM's reset, isa.md §3.8). The pause
    /// input is the core CONFIG's and is left to the caller.
    pub fn reset(&mut self) {
        for c in &mut self.ch {
            let keep = (c.stride, c.src, c.dst, c.auto0, c.auto1, c.stats);
            *c = Channel::new(c.id);
            (c.stride, c.src, c.dst, c.auto0, c.auto1, c.stats) = keep;
        }
        self.budget_used = 0;
    }

    /// Read the register at byte offset `off` from [`regs::BASE`]
    /// (0x00..0x3C; DMA1 at +0x20). Offsets outside the window or not a
    /// multiple of 4 read as 0.
    pub fn read_reg(&self, off: u32) -> u32 {
        let Some((c, reg)) = self.locate(off) else {
            return 0;
        };
        let c = &self.ch[c];
        match reg {
            regs::CONFIG => c.config,
            regs::STRIDE => c.stride,
            regs::COUNT => c.count,
            regs::SRCADDR => c.src,
            regs::DSTADDR => c.dst,
            regs::AUTO0 => c.auto0,
            regs::AUTO1 => c.auto1,
            _ => c.status_hi | c.state(self.paused).code(),
        }
    }

    /// Write `value` to the register at byte offset `off` from
    /// [`regs::BASE`], at cycle `now`. Offsets outside the window or not a
    /// multiple of 4 are ignored.
    ///
    /// * CONFIG while the channel is idle: stored; STARTUP loads the
    ///   descriptor at `value[31:16]` from `mem` and starts it, else DMAEN
    ///   starts the channel from the registers. While not idle: the value is
    ///   not stored and the channel enters the error state (SIM); a channel
    ///   already in error stays there silently.
    /// * STRIDE, COUNT, SRCADDR, DSTADDR: stored (they are the live
    ///   registers). During a transfer a zero count or a misaligned address
    ///   written here stops the channel with an error.
    /// * AUTO0 / AUTO1: stored; a write to AUTO0 is mirrored into AUTO1
    ///   (the board reads the value back from both: Adapteva's
    ///   `cpu/register_test`). A channel waiting in slave mode takes the
    ///   data item on the AUTO0 write (element sizes 1, 2, 4) or on the AUTO1
    ///   write (doubleword: write AUTO0 first).
    /// * STATUS: `[31:16]` stored; if `value[3:0] == 0` the channel stops
    ///   and goes idle, clearing an error (how e-hal resets the DMA).
    pub fn write_reg<M: LocalMem + ?Sized>(
        &mut self,
        now: Cycle,
        off: u32,
        value: u32,
        mem: &M,
    ) -> Effect {
        let Some((i, reg)) = self.locate(off) else {
            return Effect::NONE;
        };
        let paused = self.paused;
        let p = self.params;
        let c = &mut self.ch[i];
        let mut eff = Effect::NONE;
        match reg {
            regs::CONFIG => {
                if c.run == Run::Error {
                    return Effect::NONE;
                }
                if c.busy() {
                    let state = c.state(paused).code() as u8;
                    eff.error = Some(c.fail(ErrorKind::ConfigWhileBusy { value, state }));
                    return eff;
                }
                c.config = value;
                c.error = None;
                if value & STARTUP != 0 {
                    c.load_and_start(now, next_ptr(value), &p, mem, &mut eff);
                } else if value & DMAEN != 0 {
                    c.descriptor = None;
                    if let Err(kind) = c.start(now + p.start_cycles) {
                        eff.error = Some(c.fail(kind));
                    }
                }
            }
            regs::STRIDE => c.stride = value,
            regs::COUNT => {
                c.count = value;
                if c.moving() {
                    if let Err(kind) = c.check_count() {
                        eff.error = Some(c.fail(kind));
                    }
                }
            }
            regs::SRCADDR | regs::DSTADDR => {
                if reg == regs::SRCADDR {
                    c.src = value;
                } else {
                    c.dst = value;
                }
                if c.moving() {
                    if let Err(kind) = c.check_addrs() {
                        eff.error = Some(c.fail(kind));
                    }
                }
            }
            regs::AUTO0 | regs::AUTO1 => {
                let high = reg == regs::AUTO1;
                if high {
                    c.auto1 = value;
                } else {
                    // A write to AUTO0 shows in AUTO1 too, as Adapteva's
                    // cpu/register_test reads both back on the board.
                    c.auto0 = value;
                    c.auto1 = value;
                }
                if c.run == Run::Slave && high == (c.size() == 8) {
                    c.item = true;
                }
            }
            _ => {
                c.status_hi = value & 0xFFFF_0000;
                if value & 0xF == 0 {
                    c.run = Run::Idle;
                    c.item = false;
                    c.reads = 0;
                    c.error = None;
                }
            }
        }
        eff
    }

    /// The next move the engine wants to make at cycle `now`, after
    /// arbitration: DMA0's if it has one ready, else DMA1's. `None` while
    /// paused, when neither channel is ready, or when this cycle's budget
    /// ([`Params::moves_per_cycle`]) is used up. Does not change anything.
    pub fn peek(&self, now: Cycle) -> Option<Move> {
        if self.paused || self.budget_spent(now) {
            return None;
        }
        self.ch.iter().find_map(|c| c.ready_move(now))
    }

    /// The move channel `ch` alone would make at `now` (no arbitration,
    /// but pause and the per-cycle budget apply). For simulators that want
    /// to offer the port to DMA1 when DMA0's move was refused.
    pub fn peek_channel(&self, now: Cycle, ch: usize) -> Option<Move> {
        if self.paused || self.budget_spent(now) {
            return None;
        }
        self.ch.get(ch).and_then(|c| c.ready_move(now))
    }

    /// The simulator performed the move [`Dma::peek`] (or
    /// [`Dma::peek_channel`]) returned for channel `ch` at `now`. The
    /// engine steps its counters and addresses (isa.md §8.4) and returns
    /// what that caused: completion (with its interrupt), the next
    /// descriptor's fetch in CHAINMODE, or an error (misaligned next
    /// element, bad chained descriptor). With MSGMODE, a completion is held
    /// back (state 0xA) until every remote read of the channel has
    /// returned. Ignored (no effect) if the channel had no move ready.
    pub fn commit<M: LocalMem + ?Sized>(
        &mut self,
        now: Cycle,
        ch: usize,
        outcome: MoveOutcome,
        mem: &M,
    ) -> Effect {
        if self.paused || self.budget_spent(now) {
            return Effect::NONE;
        }
        let p = self.params;
        let Some(c) = self.ch.get_mut(ch) else {
            return Effect::NONE;
        };
        if c.ready_move(now).is_none() {
            return Effect::NONE;
        }
        if self.budget_cycle != now {
            self.budget_cycle = now;
            self.budget_used = 0;
        }
        self.budget_used += 1;

        c.stats.moves += 1;
        c.stats.bytes += u64::from(c.size());
        if outcome == MoveOutcome::ReadIssued {
            c.reads += 1;
        }
        c.item = false;
        let last = c.advance();
        c.ready_at = now + p.move_interval_cycles;
        if last {
            if c.config & MSGMODE != 0 && c.reads > 0 {
                c.run = Run::Wait;
                return Effect::NONE;
            }
            return c.finish(now, &p, mem);
        }
        match c.check_addrs() {
            Ok(()) => Effect::NONE,
            Err(kind) => Effect {
                error: Some(c.fail(kind)),
                ..Effect::NONE
            },
        }
    }

    /// The data of one remote read committed as
    /// [`MoveOutcome::ReadIssued`] by channel `ch` has been written at its
    /// destination. Reads return in issue order, so only their number is
    /// kept. If the channel was waiting for it (state 0xA) it completes
    /// now, exactly as [`Dma::commit`] would have. Extra calls are ignored.
    pub fn read_returned<M: LocalMem + ?Sized>(
        &mut self,
        now: Cycle,
        ch: usize,
        mem: &M,
    ) -> Effect {
        let p = self.params;
        let Some(c) = self.ch.get_mut(ch) else {
            return Effect::NONE;
        };
        c.reads = c.reads.saturating_sub(1);
        if c.run == Run::Wait && c.reads == 0 {
            return c.finish(now, &p, mem);
        }
        Effect::NONE
    }

    /// The simulator could not perform channel `ch`'s move because nothing
    /// answers at `addr` (its policy for unmapped addresses). The channel
    /// enters the error state; the returned effect names channel,
    /// descriptor and address. Ignored if the channel is idle or already in
    /// error.
    pub fn fault(&mut self, ch: usize, addr: u32) -> Effect {
        let Some(c) = self.ch.get_mut(ch) else {
            return Effect::NONE;
        };
        if matches!(c.run, Run::Idle | Run::Error) {
            return Effect::NONE;
        }
        Effect {
            error: Some(c.fail(ErrorKind::AccessFault { addr })),
            ..Effect::NONE
        }
    }

    /// Set the pause input: the core's CONFIG\[24\] (e-hal's
    /// `ee_soft_reset_dma`). While paused no channel moves and busy
    /// channels read state 0xB; registers stay writable, remote reads may
    /// still return.
    pub fn set_paused(&mut self, paused: bool) {
        self.paused = paused;
    }

    /// The pause input.
    pub fn paused(&self) -> bool {
        self.paused
    }

    /// STATUS\[3:0\] of channel `ch` as a state (Idle for a channel number
    /// other than 0 or 1).
    pub fn state(&self, ch: usize) -> DmaState {
        self.ch
            .get(ch)
            .map_or(DmaState::Idle, |c| c.state(self.paused))
    }

    /// The error that put channel `ch` into state 0xD, while it is there.
    pub fn error(&self, ch: usize) -> Option<DmaError> {
        self.ch.get(ch).and_then(|c| c.error)
    }

    /// Whether either channel is doing anything (not idle, not in error).
    pub fn is_busy(&self) -> bool {
        self.ch
            .iter()
            .any(|c| !matches!(c.run, Run::Idle | Run::Error))
    }

    /// The earliest cycle at which a move may become ready, for skipping
    /// idle time: `None` when paused or when no channel has a move pending
    /// (idle, error, waiting for reads, or slave without data). The value
    /// may lie in the past (ready now).
    pub fn next_ready(&self) -> Option<Cycle> {
        if self.paused {
            return None;
        }
        let ready = self
            .ch
            .iter()
            .filter(|c| c.run == Run::Active || (c.run == Run::Slave && c.item))
            .map(|c| c.ready_at)
            .min()?;
        // The cycle's moves are used up: nothing more before the next one.
        if self.budget_used >= self.params.moves_per_cycle && ready <= self.budget_cycle {
            return Some(self.budget_cycle + 1);
        }
        Some(ready)
    }

    /// Channel `ch`'s moves ahead, if it has any to make: `None` while
    /// the engine is paused or the channel idle, in error, waiting for
    /// remote reads or in slave mode without an item (only a register
    /// write, a returning read or the pause input gives it one). The plain
    /// moves are those of the current row but its last, when the inner
    /// strides are not shifted and keep both addresses aligned (a shifted
    /// stride could wrap the addresses around).
    pub fn stretch(&self, ch: usize) -> Option<Stretch> {
        if self.paused {
            return None;
        }
        let c = self.ch.get(ch)?;
        let none = Stretch {
            ready: c.ready_at,
            plain: 0,
            src: (1, 0),
            dst: (1, 0),
        };
        match c.run {
            Run::Active => {}
            Run::Slave if c.item => return Some(none),
            _ => return None,
        }
        let size = u32::from(c.size());
        let shifted = c.config & (SHIFT_SRC_IN | SHIFT_DST_IN) != 0;
        let src_step = stride_step(c.stride, false, false) as i32 as i64;
        let dst_step = stride_step(c.stride, true, false) as i32 as i64;
        let aligned = |step: i64| step.rem_euclid(i64::from(size)) == 0;
        let plain = (c.count & 0xFFFF).saturating_sub(1);
        if shifted || !aligned(src_step) || !aligned(dst_step) || plain == 0 {
            return Some(none);
        }
        // (At most 65534 steps of at most 32 KB: no wrap-around in i64.)
        let span = |at: u32, step: i64| {
            let first = i64::from(at);
            let last = first + step * i64::from(plain - 1);
            let (lo, hi) = (first.min(last), first.max(last) + i64::from(size) - 1);
            if lo < 0 || hi > i64::from(u32::MAX) {
                None
            } else {
                Some((lo as u32, hi as u32))
            }
        };
        match (span(c.src, src_step), span(c.dst, dst_step)) {
            (Some(src), Some(dst)) => Some(Stretch {
                plain,
                src,
                dst,
                ..none
            }),
            _ => Some(none),
        }
    }

    /// Whether channel `ch` would take a slave data item now: it is in
    /// slave mode with no item pending. A write to AUTO0/AUTO1 while an
    /// item is pending replaces it (the older item is lost); a simulator
    /// can use this to hold back the mesh write instead.
    pub fn accepts_auto(&self, ch: usize) -> bool {
        self.ch
            .get(ch)
            .is_some_and(|c| c.run == Run::Slave && !c.item)
    }

    /// Remote reads of channel `ch` still in flight.
    pub fn reads_in_flight(&self, ch: usize) -> u32 {
        self.ch.get(ch).map_or(0, |c| c.reads)
    }

    /// Counters of channel `ch` (zero for a channel number other than 0 or 1).
    pub fn stats(&self, ch: usize) -> ChannelStats {
        self.ch
            .get(ch)
            .map_or_else(ChannelStats::default, |c| c.stats)
    }

    fn budget_spent(&self, now: Cycle) -> bool {
        self.budget_cycle == now && self.budget_used >= self.params.moves_per_cycle
    }

    /// Channel index and register offset within the channel's set.
    fn locate(&self, off: u32) -> Option<(usize, u32)> {
        if off >= WINDOW_BYTES || off & 3 != 0 {
            return None;
        }
        Some(((off / CHANNEL_STRIDE) as usize, off % CHANNEL_STRIDE))
    }
}
