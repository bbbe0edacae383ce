//! The timing model of one e-core: when each instruction issues.
//!
//! A layer over the `isa` semantics (README.md, "Design rules": function
//! and timing are separate): the execution loop asks
//! [`Pipeline::issue`] for the cycle an instruction issues in *before*
//! executing it (that depends only on earlier instructions), executes it,
//! then tells the pipeline what happened ([`Pipeline::complete`]: results in
//! flight, the memory access, a taken branch). In functional mode the loop
//! skips both calls and every instruction takes one cycle.
//!
//! Every number is a field of [`Params`]; `sim/TIMING.md` explains each
//! choice where the sources disagree or are silent. In short:
//! * in-order issue of up to two instructions per cycle by the dual-issue
//!   table (isa.md §5.2), with register and flag interlocks by the
//!   producer → consumer issue distances of isa.md §5.3;
//! * a taken branch or jump costs its penalty; a hardware-loop jump back
//!   costs nothing;
//! * instructions are fetched in aligned 8-byte lines, one per cycle, at most
//!   one line ahead of the line being issued from; a line that a load or
//!   store is using the same SRAM bank for is fetched a cycle later; a
//!   32-bit branch target that straddles two lines therefore waits for the
//!   second line (the +1 of isa.md §5.4);
//! * a load from external memory blocks the core for its round trip; stores
//!   to it are posted into a queue that the eLink drains at a fixed rate;
//! * a line of code outside the core's SRAM can issue when the machine says
//!   it arrived: from another core's SRAM, a read over the mesh
//!   ([`Pipeline::supply_line`]); from DRAM, a read at external memory's
//!   shared read port ([`DramPort`]), timed here while no other read can
//!   reach it first, else by the scheduler ([`Pipeline::take_need`]).

use epsim_isa::deps::{Deps, AFLAGS, BFLAGS};
use epsim_isa::state::irq;
use epsim_isa::{ArchState, OpClass};

use crate::core::Chip;

/// Every timing parameter, as a named value (see `sim/TIMING.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// IALU result → IALU, load/store address or data, branch, JR.
    pub ialu_to_int: u64,
    /// IALU result → FPU operand.
    pub ialu_to_fpu: u64,
    /// Word/double load data → IALU, address, store data.
    pub load_to_int: u64,
    /// Word/double load data → FPU operand.
    pub load_to_fpu: u64,
    /// Byte/half load data → anything.
    pub load_sub_word: u64,
    /// FPU result → FPU operand or IALU, in truncate mode (one more in
    /// round-to-nearest mode, `fpu_round_extra`).
    pub fpu_to_any: u64,
    /// FPU result → store data, truncate mode.
    pub fpu_to_store: u64,
    /// Extra FPU latency in round-to-nearest mode.
    pub fpu_round_extra: u64,
    /// Cycles lost after a taken branch, jump, call or return.
    pub branch_taken: u64,
    /// Cycles from an interrupt being taken to its vector's first issue.
    pub interrupt_entry: u64,
    /// Cycles between fetching a line and issuing from it (a line fetched
    /// in cycle `c` can issue from `c + fetch_lead`); the bank of a fetch
    /// is busy in cycle `c`.
    pub fetch_lead: u64,
    /// Cycles from a load or store issuing to it using its SRAM bank.
    pub mem_lead: u64,
    /// Timed mode with the mesh: cycles from a read response's arrival at
    /// the core until the loaded register can be used (the rest of a bare
    /// remote load's 14-cycle fixed part is the mesh's node entry and
    /// exit).
    pub remote_read_extra: u64,
    /// Timed mode: cycles external memory takes from a read request's
    /// arrival over the eLink to its response leaving (the rest of a
    /// blocking DRAM load is the mesh and the eLink both ways).
    pub dram_latency: u64,
    /// Timed mode: external memory starts one read per this many cycles
    /// (the Epiphany BSP benchmark: DMA from DRAM, 51 cycles per 8 bytes).
    pub dram_read_interval: u64,
    /// Timed mode: a core's memory answers one read request from the mesh
    /// per this many cycles (DMA reads from another core, ≈ 0.8 B/cycle).
    pub read_service_interval: u64,
    /// Timed mode: a DMA engine sends at most one element into the mesh
    /// per this many cycles (DMA writes to another core, ≈ 2.5 B/cycle).
    pub dma_mesh_interval: u64,
}

impl Params {
    /// External memory's read port takes a read arriving in cycle
    /// `arrives` (a load, TESTSET, DMA read or line of code): the cycle
    /// the read starts, once the port is free (`busy`, moved on by
    /// `dram_read_interval`).
    #[inline]
    pub fn start_read(&self, busy: &mut u64, arrives: u64) -> u64 {
        let start = arrives.max(*busy);
        *busy = start + self.dram_read_interval;
        start
    }

    /// The model's defaults (E16G301 at 600 MHz; `sim/TIMING.md`).
    pub const DEFAULT: Params = Params {
        ialu_to_int: 1,
        ialu_to_fpu: 2,
        load_to_int: 2,
        load_to_fpu: 3,
        load_sub_word: 3,
        fpu_to_any: 4,
        fpu_to_store: 3,
        fpu_round_extra: 1,
        branch_taken: 3,
        interrupt_entry: 3,
        fetch_lead: 2,
        mem_lead: 2,
        remote_read_extra: 12,
        dram_latency: 467,
        dram_read_interval: 51,
        read_service_interval: 10,
        dma_mesh_interval: 3,
    };
}

impl Default for Params {
    fn default() -> Self {
        Params::DEFAULT
    }
}

/// Why an instruction issued later than it could have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stall {
    /// An operand, flag or earlier write to a destination was not ready
    /// (register-dependency "RA" stall).
    Dependency,
    /// Refetching after a taken branch, jump, interrupt or RTI.
    Branch,
    /// The line could not be fetched: its SRAM bank was busy with a load or
    /// store ("local memory fetch stall").
    FetchBank,
    /// Fetching from external memory.
    ExtFetch,
    /// Waiting for a load from external memory.
    ExtLoad,
    /// The store queue to external memory was full.
    ExtStore,
    /// Waiting for a load from another core (over the rMesh), or for the
    /// mesh to accept a store.
    Remote,
}

/// How many stall reasons there are.
pub const NSTALL: usize = Stall::ALL.len();

impl Stall {
    pub const ALL: [Stall; 7] = [
        Stall::Dependency,
        Stall::Branch,
        Stall::FetchBank,
        Stall::ExtFetch,
        Stall::ExtLoad,
        Stall::ExtStore,
        Stall::Remote,
    ];

    /// The name traces and statistics use.
    pub const fn name(self) -> &'static str {
        match self {
            Stall::Dependency => "dependency",
            Stall::Branch => "branch",
            Stall::FetchBank => "fetch-bank",
            Stall::ExtFetch => "ext-fetch",
            Stall::ExtLoad => "ext-load",
            Stall::ExtStore => "ext-store",
            Stall::Remote => "remote",
        }
    }
}

/// When an instruction issues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Issue {
    pub cycle: u64,
    /// Cycles after the earliest it could have issued, and why.
    pub stall: u64,
    pub reason: Stall,
    /// Issued in the same cycle as the instruction before it.
    pub dual: bool,
    /// Every source that held the instruction back, each counted for the
    /// cycles of the stall it was not satisfied in (several at once: the
    /// core timers count each event that is true in a cycle, `reason`
    /// names only the one that bound the issue).
    pub waits: Waits,
}

/// The stall cycles of one instruction during which each source of delay
/// held: an operand, flag or destination not ready (`dep`), its fetch line
/// not there (`fetch`, for `fetch_reason`), the core blocked by an
/// external or remote access (`block`, for `block_reason`; a load's if
/// `block_load`, else a store's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Waits {
    pub dep: u32,
    pub fetch: u32,
    pub block: u32,
    pub fetch_reason: Stall,
    pub block_reason: Stall,
    pub block_load: bool,
}

impl Waits {
    /// No wait at all.
    pub const NONE: Waits = Waits {
        dep: 0,
        fetch: 0,
        block: 0,
        fetch_reason: Stall::Branch,
        block_reason: Stall::ExtLoad,
        block_load: true,
    };
}

/// The line instructions are being issued from (address >> 3), the cycle
/// they can issue from, the cycle the first instruction starting in it
/// issued, and why `ready` is what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fetch {
    pub(crate) line: u32,
    pub(crate) ready: u64,
    pub(crate) first: u64,
    pub(crate) reason: Stall,
}

/// Where an instruction's memory access went, for timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Local SRAM, this bank (or a memory-mapped register: no bank).
    Local(Option<u8>),
    /// External memory (DRAM).
    External,
    /// Another core's memory or external memory (`external`), through the
    /// mesh: a load's data arrives `latency` cycles after it issues (the
    /// core waits for it); a store is posted (`latency` is the cycles the
    /// core waited for the mesh to accept it).
    Remote { latency: u32, external: bool },
}

/// What an executed instruction did that matters for timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Done {
    /// Its memory access: where, and whether it was a store.
    pub mem: Option<(Place, bool)>,
    /// Byte/half load (longer latency).
    pub sub_word: bool,
    /// Control went to this address by a branch, jump or RTI.
    pub jumped_to: Option<u32>,
}

/// No line fetched yet / no first issue yet.
pub(crate) const NONE: u64 = u64::MAX;

/// External memory's read port as one core's fetch unit may use it during
/// one turn of the timed scheduler (`crate::sched`): the core times its
/// fetches from DRAM itself when they reach external memory before
/// `free_until`, the first cycle another read could; any other fetch is
/// left to the machine (`Pipeline::take_need`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DramPort {
    /// External memory starts its next read no earlier than this cycle.
    pub busy: u64,
    /// Fetches arriving at external memory before this cycle meet no other
    /// read there (0: none is timed by the core).
    pub free_until: u64,
    /// Cycles from the fetch unit sending a read to its arrival at external
    /// memory, and from the read starting there to the line being usable.
    pub out: u64,
    pub back: u64,
}

/// Scoreboard layout: three tables (integer, FPU, store-data readiness) of
/// `STRIDE` entries, registers 0-63 then [`ZERO`] (always 0, read by unused
/// wait slots) and [`SINK`] (written by unused write slots, never read);
/// then the A and B flags.
pub(crate) const STRIDE: usize = 66;
pub(crate) const ZERO: u8 = 64;
const SINK: u8 = 65;
pub(crate) const AFLAGS_SLOT: usize = 3 * STRIDE;
pub(crate) const BFLAGS_SLOT: usize = 3 * STRIDE + 1;
const SLOTS: usize = 3 * STRIDE + 2;
/// The scoreboard's length: every `u8` slot index is in bounds (those past
/// [`SLOTS`] are never used), so indexing needs no check.
const READY_LEN: usize = 256;
const _: () = assert!(SLOTS <= READY_LEN && SLOTS.is_multiple_of(8));

/// Kinds of result, indexing the latency table of [`Pipeline::complete`].
const KIND_IALU: u8 = 0;
const KIND_LOAD: u8 = 1;
const KIND_FPU: u8 = 2;

/// The scoreboard slot of register `r` in table `table` (0 integer, 1 FPU,
/// 2 store data).
const fn slot(table: usize, r: u8) -> u8 {
    (table * STRIDE + r as usize) as u8
}

/// What the timing model needs of one instruction, worked out once when
/// its block is decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// Scoreboard slots it waits for: operands (in the table of their use),
    /// flags, and its destinations (write after write); unused ones name a
    /// slot that is always zero.
    pub(crate) waits: [u8; 8],
    /// Registers written ([`SINK`] when unused) and the kind of each result.
    pub(crate) writes: [u8; 3],
    kinds: [u8; 3],
    pub(crate) nwrites: u8,
    /// Flag groups written.
    pub(crate) flags: u8,
    pub class: OpClass,
    /// Registers read or written (a pair partner must not write any).
    pub(crate) touches: u64,
    /// Registers written.
    pub(crate) writes_mask: u64,
}

impl Timing {
    /// The timing facts of an instruction of `class` with dependencies `d`.
    pub fn of(d: &Deps, class: OpClass) -> Timing {
        let mut waits = [ZERO; 8];
        let mut n = 0;
        let operand_table = if class == OpClass::Fpu { 1 } else { 0 };
        // The set bits of `mask`, lowest first.
        let regs = |mut mask: u64| {
            std::iter::from_fn(move || {
                (mask != 0).then(|| {
                    let r = mask.trailing_zeros() as u8;
                    mask &= mask - 1;
                    r
                })
            })
        };
        for r in regs(d.reads & !d.data) {
            waits[n] = slot(operand_table, r);
            n += 1;
        }
        for r in regs(d.data) {
            waits[n] = slot(2, r);
            n += 1;
        }
        for r in regs(d.writes()) {
            if n < 8 && d.reads & 1 << r == 0 {
                waits[n] = slot(0, r);
                n += 1;
            }
        }
        if d.flags_read & AFLAGS != 0 && n < 8 {
            waits[n] = AFLAGS_SLOT as u8;
            n += 1;
        }
        if d.flags_read & BFLAGS != 0 && n < 8 {
            waits[n] = BFLAGS_SLOT as u8;
        }
        let mut writes = [SINK; 3];
        let mut kinds = [KIND_IALU; 3];
        let mut k = 0;
        for (mask, kind) in [(d.ialu, KIND_IALU), (d.load, KIND_LOAD), (d.fpu, KIND_FPU)] {
            for r in regs(mask) {
                if k < 3 {
                    writes[k] = r;
                    kinds[k] = kind;
                    k += 1;
                }
            }
        }
        Timing {
            waits,
            writes,
            kinds,
            nwrites: k as u8,
            flags: d.flags_written,
            class,
            touches: d.reads | d.writes(),
            writes_mask: d.writes(),
        }
    }
}

/// The times of a pipeline that a replay sets ([`Pipeline::times`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Times {
    pub(crate) next: u64,
    pub(crate) blocked_until: u64,
    pub(crate) quiet: u64,
    pub(crate) fetch_ready: u64,
    pub(crate) port_busy: u64,
    /// A fetch from DRAM is pending.
    pub(crate) pending: bool,
}

/// The pipeline state of one core.
#[derive(Clone, Debug, PartialEq)]
pub struct Pipeline {
    pub params: Params,
    /// The scoreboard: for each register, the first cycle an integer-side
    /// consumer (IALU, address, branch), an FPU consumer and a store of it
    /// may issue, and the same for the A and B flags; laid out as
    /// [`Timing`] indexes it (see [`slot`]).
    pub(crate) ready: [u64; READY_LEN],
    /// Result latencies (integer, FPU, store-data use) of IALU, word-load
    /// and FPU results in the current rounding mode.
    pub(crate) lat: [[u64; 3]; 3],
    /// Cycle of the last issue, its class, and whether the next may pair
    /// with it.
    pub(crate) last: u64,
    /// The first cycle an instruction not paired with the last may issue.
    pub(crate) next: u64,
    pub(crate) last_class: OpClass,
    pub(crate) last_writes: u64,
    pub(crate) can_pair: bool,
    /// The fetch state before the last [`Pipeline::issue`] that changed it
    /// (for [`Pipeline::unissue`]), and whether the last one did.
    fetch_undo: Fetch,
    fetch_changed: bool,
    /// The line being issued from.
    pub(crate) fetch: Fetch,
    /// SRAM banks used by loads and stores: bit `4 * (c - banks_from) + b`
    /// is set when bank `b` is used in cycle `c`, for the 32 cycles from
    /// `banks_from` (which moves up as later cycles are used).
    pub(crate) banks: u128,
    pub(crate) banks_from: u64,
    /// The SRAM banks lines were fetched from (bit `b` for bank `b`) since
    /// the core's last checkpoint (`Core::checkpoint` clears it): a read
    /// from the mesh that reaches a bank none of its fetches looked at
    /// cannot have delayed one (`Machine::read_in_past`).
    pub(crate) fetched: u8,
    /// The same since the block being timed in detail began
    /// ([`Pipeline::dram_log_start`]), for its record.
    pub(crate) block_fetched: u8,
    /// The core may not issue before this cycle (a blocking load, a full
    /// store queue), and why.
    pub(crate) blocked_until: u64,
    pub(crate) blocked_reason: Stall,
    /// The block is a load's (the core waits for its data), not a store's.
    pub(crate) blocked_by_load: bool,
    /// Local SRAM: addresses below `sram_size` or in `id_bits << 20`.
    sram_size: u32,
    id_bits: u32,
    /// No scoreboard slot is ready later than this (the latest readiness
    /// ever written).
    pub(crate) quiet: u64,
    /// The memo record the pipeline state was last replayed or recorded
    /// from, while nothing else has changed it since
    /// ([`crate::memo::Chain`]); every other change clears it.
    pub(crate) chain: Option<crate::memo::Chain>,
    /// The chip around the core: lines in another core's SRAM are fetched
    /// through the mesh, and each can issue no earlier than the cycle the
    /// machine supplied it for ([`Pipeline::supply_line`]).
    pub(crate) chip: Chip,
    /// The last lines fetched from outside the core: (line, cycle the read
    /// was sent in (`NONE` for another core's SRAM), cycle it can issue
    /// from).
    ext_lines: [(u32, u64, u64); 2],
    /// External memory's read port, for fetches from DRAM.
    pub port: DramPort,
    /// A fetch from DRAM the core could not time itself: (line, cycle the
    /// read is sent in), and whether the last issue found it.
    pending: Option<(u32, u64)>,
    need: bool,
    /// The DRAM lines timed since [`Pipeline::dram_log_start`], for
    /// recording a block of DRAM code (`crate::memo`).
    pub(crate) dram_log: DramLog,
}

/// The fetches from DRAM timed here over one block: whether each was read
/// the moment it reached external memory (the read port free, not supplied
/// by the machine), and the first and last arrival there. Such a block's
/// fetch timing is a function of its entry state alone, while the port is
/// free by its first arrival and no other read reaches the memory before
/// its last ([`Pipeline::dram_replayable`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DramLog {
    pub(crate) clean: bool,
    pub(crate) first: u64,
    pub(crate) last: u64,
}

impl DramLog {
    const EMPTY: DramLog = DramLog {
        clean: true,
        first: NONE,
        last: 0,
    };
}

impl Pipeline {
    pub fn new(params: Params, sram_size: u32, id_bits: u32) -> Pipeline {
        Pipeline {
            params,
            ready: [0; READY_LEN],
            lat: Pipeline::latencies(&params, 1),
            last: 0,
            next: 0,
            last_class: OpClass::Control,
            last_writes: 0,
            can_pair: false,
            fetch_changed: false,
            fetch_undo: Fetch {
                line: u32::MAX,
                ready: 0,
                first: NONE,
                reason: Stall::Branch,
            },
            fetch: Fetch {
                line: u32::MAX,
                ready: 0,
                first: NONE,
                reason: Stall::Branch,
            },
            banks: 0,
            banks_from: 0,
            fetched: 0,
            block_fetched: 0,
            blocked_until: 0,
            blocked_reason: Stall::ExtLoad,
            blocked_by_load: true,
            sram_size,
            id_bits,
            quiet: 0,
            chain: None,
            chip: Chip {
                first_row: id_bits >> 6,
                first_col: id_bits & 63,
                rows: 1,
                cols: 1,
            },
            ext_lines: [(u32::MAX, NONE, 0); 2],
            port: DramPort::default(),
            pending: None,
            need: false,
            dram_log: DramLog::EMPTY,
        }
    }

    /// Makes this pipeline `src` again (for checkpoints and the heads of
    /// polling loops): the derived `clone_from` builds a whole copy and
    /// moves it in, and copies the scoreboard's slots past `SLOTS`, which
    /// are never written (zero in every pipeline).
    pub(crate) fn copy_from(&mut self, src: &Pipeline) {
        // (Every field is named: a new one must be added here.)
        let Pipeline {
            params,
            ready,
            lat,
            last,
            next,
            last_class,
            last_writes,
            can_pair,
            fetch_undo,
            fetch_changed,
            fetch,
            banks,
            banks_from,
            fetched,
            block_fetched,
            blocked_until,
            blocked_reason,
            blocked_by_load,
            sram_size,
            id_bits,
            quiet,
            chain,
            chip,
            ext_lines,
            port,
            pending,
            need,
            dram_log,
        } = src;
        self.params = *params;
        self.ready[..SLOTS].copy_from_slice(&ready[..SLOTS]);
        debug_assert!(ready[SLOTS..].iter().all(|&r| r == 0));
        self.lat = *lat;
        self.last = *last;
        self.next = *next;
        self.last_class = *last_class;
        self.last_writes = *last_writes;
        self.can_pair = *can_pair;
        self.fetch_undo = *fetch_undo;
        self.fetch_changed = *fetch_changed;
        self.fetch = *fetch;
        self.banks = *banks;
        self.banks_from = *banks_from;
        self.fetched = *fetched;
        self.block_fetched = *block_fetched;
        self.blocked_until = *blocked_until;
        self.blocked_reason = *blocked_reason;
        self.blocked_by_load = *blocked_by_load;
        self.sram_size = *sram_size;
        self.id_bits = *id_bits;
        self.quiet = *quiet;
        self.chain = *chain;
        self.chip = *chip;
        self.ext_lines = *ext_lines;
        self.port = *port;
        self.pending = *pending;
        self.need = *need;
        self.dram_log = *dram_log;
    }

    /// The first cycle an instruction not paired with the last may issue.
    pub fn next_issue(&self) -> u64 {
        self.next
    }

    /// The latency table for rounding `rnd` (1 round-to-nearest, 0
    /// truncate).
    fn latencies(p: &Params, rnd: u64) -> [[u64; 3]; 3] {
        let fpu = p.fpu_to_any + rnd * p.fpu_round_extra;
        [
            [p.ialu_to_int, p.ialu_to_fpu, p.ialu_to_int],
            [p.load_to_int, p.load_to_fpu, p.load_to_int],
            [fpu, fpu, p.fpu_to_store + rnd * p.fpu_round_extra],
        ]
    }

    /// Sets the FPU rounding mode from CONFIG (RMODE clear: round to
    /// nearest, one cycle more).
    #[inline]
    pub fn set_rounding(&mut self, config: u32) {
        let rnd = u64::from(config & 1 == 0);
        if self.lat[KIND_FPU as usize][2]
            != self.params.fpu_to_store + rnd * self.params.fpu_round_extra
        {
            self.lat = Pipeline::latencies(&self.params, rnd);
            self.chain = None;
        }
    }

    /// Whether `addr` is in this core's SRAM (either address).
    #[inline]
    fn local(&self, addr: u32) -> bool {
        let hi = addr >> 20;
        (hi == 0 || hi == self.id_bits) && (addr & 0xF_FFFF) < self.sram_size
    }

    /// Whether `addr` is in another core's window: fetched through the
    /// mesh, a line at a time, as the machine supplies it.
    #[inline]
    fn on_other_core(&self, addr: u32) -> bool {
        let hi = addr >> 20;
        hi != 0 && hi != self.id_bits && self.chip.contains(hi)
    }

    /// The cycle line `l`, read in cycle `sent`, can issue from, if it was
    /// supplied.
    #[inline]
    fn supplied(&self, l: u32, sent: u64) -> Option<u64> {
        self.ext_lines
            .iter()
            .find(|&&(line, at, _)| line == l && at == sent)
            .map(|&(_, _, ready)| ready)
    }

    /// Keeps line `l`, read in cycle `sent`, usable from `ready`.
    fn keep_line(&mut self, l: u32, sent: u64, ready: u64) {
        self.chain = None;
        let slot = match self.ext_lines.iter().position(|&(line, _, _)| line == l) {
            Some(k) => k,
            None => usize::from(self.ext_lines[0].2 > self.ext_lines[1].2),
        };
        self.ext_lines[slot] = (l, sent, ready);
    }

    /// Whether code at `pc` is fetched from external memory (DRAM).
    #[inline]
    pub fn fetches_from_dram(&self, pc: u32) -> bool {
        !self.local(pc & !7) && !self.on_other_core(pc)
    }

    /// Whether the last [`Pipeline::issue`] needs a line from DRAM that the
    /// machine must time (the read of [`Pipeline::pending_fetch`]); the
    /// caller takes the issue back and asks the machine.
    #[inline]
    pub fn take_need(&mut self) -> bool {
        std::mem::take(&mut self.need)
    }

    /// The DRAM line the machine is asked to time: (line address, cycle the
    /// read is sent in).
    pub fn pending_fetch(&self) -> Option<(u32, u64)> {
        self.pending.map(|(l, sent)| (l << 3, sent))
    }

    /// The machine timed the pending DRAM line: usable `latency` cycles
    /// after its read was sent.
    pub fn supply_pending(&mut self, latency: u64) {
        self.chain = None;
        if let Some((l, sent)) = self.pending.take() {
            self.keep_line(l, sent, sent + latency);
        }
    }

    /// When line `l` of DRAM, read in cycle `sent`, can issue: as supplied
    /// before, or timed here through the read port if nothing else can
    /// reach external memory first; otherwise `None` (pending, `need`).
    fn dram_line(&mut self, l: u32, sent: u64) -> Option<u64> {
        self.chain = None;
        if let Some(ready) = self.supplied(l, sent) {
            self.dram_log.clean = false;
            return Some(ready);
        }
        let arrives = sent + self.port.out;
        if arrives >= self.port.free_until {
            self.pending = Some((l, sent));
            self.need = true;
            self.dram_log.clean = false;
            return None;
        }
        let start = self.params.start_read(&mut self.port.busy, arrives);
        let log = &mut self.dram_log;
        log.clean &= start == arrives;
        log.first = log.first.min(arrives);
        log.last = log.last.max(arrives);
        let ready = start + self.port.back;
        self.keep_line(l, sent, ready);
        Some(ready)
    }

    /// Starts logging the fetches of a block timed in detail: those from
    /// DRAM ([`DramLog`]), and the SRAM banks fetched from
    /// (`block_fetched`).
    #[inline]
    pub(crate) fn dram_log_start(&mut self) {
        self.dram_log = DramLog::EMPTY;
        self.block_fetched = 0;
    }

    /// The first cycle from which the pipeline's state delays nothing: no
    /// issue, scoreboard slot, block or fetch waits past it. A block
    /// entered at `now` runs as it would from a quiet pipeline there.
    #[inline]
    pub(crate) fn settled(&self, now: u64) -> u64 {
        now.max(self.next)
            .max(self.blocked_until)
            .max(self.quiet)
            .max(self.fetch.ready)
    }

    /// The pipeline's times that a replay of a record sets as functions
    /// of its base (`memo::Record::times_after`) and that
    /// [`Pipeline::settled`], [`Pipeline::dram_block_fits`] and
    /// [`Pipeline::dram_replayable`] read; all else they read (the read
    /// port's `free_until`, `out` and `back`, the lines kept) no replay
    /// changes.
    #[inline(always)]
    pub(crate) fn times(&self) -> Times {
        Times {
            next: self.next,
            blocked_until: self.blocked_until,
            quiet: self.quiet,
            fetch_ready: self.fetch.ready,
            port_busy: self.port.busy,
            pending: self.pending.is_some(),
        }
    }

    /// [`Pipeline::settled`] with the pipeline's times `t` (the same
    /// reckoning, kept apart so that the run loop's code stays as it was;
    /// `core::blocks::solo_repeat` checks in debug builds that both agree).
    #[inline(always)]
    pub(crate) fn settled_at(&self, t: &Times, now: u64) -> u64 {
        now.max(t.next)
            .max(t.blocked_until)
            .max(t.quiet)
            .max(t.fetch_ready)
    }

    /// Whether a block of DRAM code (`n` instructions over `lines` 8-byte
    /// lines, the core at cycle `now`, its first instruction perhaps
    /// waiting `answered` cycles for an access the machine answered) can
    /// be timed here whole, without asking the machine for a line: every
    /// line it could fetch reaches external memory before `free_until`,
    /// and the block ends before `limit`. A generous bound: each line at
    /// most the trip, a wait for the port, the way back and a few cycles.
    pub fn dram_block_fits(
        &self,
        now: u64,
        limit: u64,
        n: usize,
        lines: u64,
        answered: u64,
    ) -> bool {
        if self.pending.is_some() {
            return false;
        }
        let start = self.settled(now).max(self.port.busy);
        self.dram_block_ends_in_time(start, limit, n, lines, answered)
    }

    /// The end of [`Pipeline::dram_block_fits`]'s reckoning: the block's
    /// bound from `start` (the settled cycle, the port free) before both
    /// `limit` and the port's `free_until`.
    #[inline(always)]
    fn dram_block_ends_in_time(
        &self,
        start: u64,
        limit: u64,
        n: usize,
        lines: u64,
        answered: u64,
    ) -> bool {
        let p = &self.params;
        let per_line = self.port.out + self.port.back + p.dram_read_interval + 64;
        let end = start
            .saturating_add(answered)
            .saturating_add(64 + 16 * n as u64)
            .saturating_add(lines.saturating_mul(per_line));
        end < limit && end < self.port.free_until
    }

    /// [`Pipeline::dram_block_fits`] with the pipeline's times `t` (as
    /// [`Pipeline::settled_at`]).
    #[inline(always)]
    pub(crate) fn dram_block_fits_at(
        &self,
        t: &Times,
        now: u64,
        limit: u64,
        n: usize,
        lines: u64,
        answered: u64,
    ) -> bool {
        if t.pending {
            return false;
        }
        let start = self.settled_at(t, now).max(t.port_busy);
        self.dram_block_ends_in_time(start, limit, n, lines, answered)
    }

    /// Whether a block whose fetches from DRAM were logged clean, first
    /// arriving at external memory `first` and last `last` cycles after
    /// the entry's `next`, times the same from the current state: the read
    /// port free by its first arrival, no other read before its last, no
    /// line kept from a read sent at or after the entry (only such a line
    /// could be found again in place of a fresh read).
    #[inline]
    pub(crate) fn dram_replayable(&self, first: i64, last: i64) -> bool {
        self.pending.is_none() && self.dram_port_replays(self.next, self.port.busy, first, last)
    }

    /// [`Pipeline::dram_replayable`]'s reckoning for a block entered at
    /// `next` with the port busy until `busy` (no fetch pending).
    #[inline(always)]
    fn dram_port_replays(&self, next: u64, busy: u64, first: i64, last: i64) -> bool {
        let b = next as i64;
        busy as i64 <= b + first
            && ((b + last) as u64) < self.port.free_until
            && self
                .ext_lines
                .iter()
                .all(|&(_, sent, _)| sent == NONE || (sent as i64) < b)
    }

    /// [`Pipeline::dram_replayable`] with the pipeline's times `t` (as
    /// [`Pipeline::settled_at`]).
    #[inline(always)]
    pub(crate) fn dram_replayable_at(&self, t: &Times, first: i64, last: i64) -> bool {
        !t.pending && self.dram_port_replays(t.next, t.port_busy, first, last)
    }

    /// The read port's state after a replayed block of DRAM code.
    #[inline]
    pub(crate) fn set_port_busy(&mut self, busy: u64) {
        self.port.busy = busy;
    }

    /// The cycle the fetch of the line holding `pc` from another core is
    /// requested in: the cycle an instruction at `pc` that waits for
    /// nothing else would issue in if the line were there (after the
    /// lines supplied so far). Leaves the pipeline as it was.
    pub fn fetch_request(&mut self, pc: u32) -> u64 {
        self.chain = None;
        let none = Timing {
            waits: [ZERO; 8],
            writes: [SINK; 3],
            kinds: [KIND_IALU; 3],
            nwrites: 0,
            flags: 0,
            class: OpClass::Control,
            touches: 0,
            writes_mask: 0,
        };
        let cycle = self.issue(&none, pc, 2).cycle;
        self.unissue();
        cycle
    }

    /// The machine fetched line `l` (address >> 3) from another core: its
    /// instructions can issue from `ready` on.
    pub fn supply_line(&mut self, l: u32, ready: u64) {
        self.chain = None;
        if self.fetch.line == l {
            if ready > self.fetch.ready {
                self.fetch.ready = ready;
                self.fetch.reason = Stall::ExtFetch;
            }
        } else {
            self.keep_line(l, NONE, ready);
        }
    }

    /// The SRAM bank of a local address (four 8 KB banks).
    #[inline]
    pub fn bank(addr: u32) -> u8 {
        ((addr >> 13) & 3) as u8
    }

    /// Whether a load or store uses `bank` in `cycle`.
    #[inline]
    fn bank_busy(&self, cycle: u64, bank: u8) -> bool {
        let i = cycle.wrapping_sub(self.banks_from);
        i < 32 && (self.banks >> (4 * i + bank as u64)) & 1 != 0
    }

    /// Records that a load or store uses `bank` in cycle `at`.
    #[inline]
    fn use_bank(&mut self, at: u64, bank: u8) {
        self.chain = None;
        let Some(mut i) = at.checked_sub(self.banks_from) else {
            return;
        };
        if i >= 32 {
            let shift = i - 31;
            self.banks = if shift >= 32 {
                0
            } else {
                self.banks >> (4 * shift)
            };
            self.banks_from += shift;
            i = 31;
        }
        self.banks |= 1u128 << (4 * i + bank as u64);
    }

    /// An access from the mesh (a write or a read from another core)
    /// reaches local address `off` in cycle `at`: it takes its SRAM bank in
    /// that cycle, before the core's own fetch (incoming mesh traffic has
    /// the highest priority at the banks, isa.md §5.5).
    pub fn mesh_access(&mut self, at: u64, off: u32) {
        if off < self.sram_size {
            self.use_bank(at, Self::bank(off));
        }
    }

    /// The bank uses of the 32 cycles from `from`, laid out as `banks`.
    #[inline]
    pub(crate) fn banks_window(&self, from: u64) -> u128 {
        let d = from as i64 - self.banks_from as i64;
        if d >= 32 || d <= -32 {
            0
        } else if d >= 0 {
            self.banks >> (4 * d)
        } else {
            self.banks << (4 * -d)
        }
    }

    /// When instructions from line `l`, the line after `f`'s, can issue:
    /// `f` becomes that line. False if it is a line of DRAM the machine
    /// must time first (`need`).
    #[inline]
    fn fetch_next(&mut self, f: &mut Fetch, l: u32) -> bool {
        let p = &self.params;
        let after = if f.first == NONE {
            f.ready + 1
        } else {
            (f.ready + 1).max(f.first)
        };
        let addr = l << 3;
        let mut timed = true;
        let (ready, reason) = if self.local(addr) {
            let bank = Pipeline::bank(addr);
            self.fetched |= 1 << bank;
            self.block_fetched |= 1 << bank;
            let mut r = after;
            while self.bank_busy(r - p.fetch_lead.min(r), bank) {
                r += 1;
            }
            let reason = if r > after {
                Stall::FetchBank
            } else {
                f.reason
            };
            (r, reason)
        } else if self.on_other_core(addr) {
            match self.supplied(l, NONE) {
                Some(r) if r > after => (r, Stall::ExtFetch),
                _ => (after, f.reason),
            }
        } else {
            // DRAM: the read is sent when the line could otherwise have
            // been fetched, but not before the core has issued everything
            // before it (no prefetch past a stall: the machine may be
            // asked, and it cannot be asked in the past).
            let sent = (after - 1).max(self.next).max(self.blocked_until);
            match self.dram_line(l, sent) {
                Some(ready) => (ready, Stall::ExtFetch),
                None => {
                    timed = false;
                    (after, Stall::ExtFetch)
                }
            }
        };
        *f = Fetch {
            line: l,
            ready,
            first: NONE,
            reason,
        };
        timed
    }

    /// The fetch state once the instruction at `pc` (`len` bytes) has been
    /// fetched; its `ready` is when the instruction can issue.
    #[cold]
    #[inline(never)]
    fn fetched(&mut self, pc: u32, len: u32) -> Fetch {
        let l0 = pc >> 3;
        let l1 = (pc + len - 1) >> 3;
        let mut f = self.fetch;
        if l0 != f.line && !self.fetch_next(&mut f, l0) {
            // The machine times the first line before the second is asked
            // for (sent once the first is there, as a line fetched here
            // would be): asking for both at once would lose the first.
            return f;
        }
        if l1 != l0 {
            let first = f.ready;
            self.fetch_next(&mut f, l1);
            f.ready = f.ready.max(first);
        }
        f
    }

    /// Control goes to `target`, which can issue from `cycle` on (plus the
    /// fetch of its line).
    pub fn redirect(&mut self, target: u32, cycle: u64) {
        self.chain = None;
        // A line of another core's SRAM is supplied by the machine later;
        // one of DRAM is read when the target first issues (the fetch
        // state then holds no line, and the target's is read from `cycle`).
        let dram = self.fetches_from_dram(target);
        // A DRAM line the machine was to time is not wanted any more.
        self.pending = None;
        self.fetch = Fetch {
            line: if dram { u32::MAX } else { target >> 3 },
            ready: cycle,
            first: NONE,
            reason: if dram { Stall::ExtFetch } else { Stall::Branch },
        };
        self.can_pair = false;
    }

    /// The cycle the instruction at `pc` issues in. Only its fetch state
    /// changes until [`Pipeline::complete`]; [`Pipeline::unissue`] takes
    /// that back.
    #[inline(always)]
    pub fn issue(&mut self, t: &Timing, pc: u32, len: u32) -> Issue {
        self.chain = None;
        // Operands, flags and earlier writes to the destinations: the
        // latest of eight scoreboard slots (unused ones read a zero).
        let r = &self.ready;
        let w = &t.waits;
        let ready = r[w[0] as usize]
            .max(r[w[1] as usize])
            .max(r[w[2] as usize])
            .max(r[w[3] as usize])
            .max(r[w[4] as usize].max(r[w[5] as usize]))
            .max(r[w[6] as usize].max(r[w[7] as usize]));
        let l0 = pc >> 3;
        let fetch = if l0 == self.fetch.line && (pc + len - 1) >> 3 == l0 {
            self.fetch_changed = false;
            self.fetch.ready
        } else {
            self.fetch_undo = self.fetch;
            self.fetch_changed = true;
            self.fetch = self.fetched(pc, len);
            self.fetch.ready
        };
        let pair =
            self.can_pair && pairs(self.last_class, t.class) && t.touches & self.last_writes == 0;
        let base = ready.max(fetch).max(self.blocked_until);
        let (cycle, dual) = if pair && base <= self.last {
            (self.last, true)
        } else {
            (base.max(self.next), false)
        };
        let natural = if dual { self.last } else { self.next };
        let stall = cycle - natural;
        let reason = if stall == 0 {
            Stall::Dependency
        } else if cycle == self.blocked_until && self.blocked_until >= ready.max(fetch) {
            self.blocked_reason
        } else if fetch >= ready {
            self.fetch.reason
        } else {
            Stall::Dependency
        };
        // How long each source held it, within the stall (saturating
        // into u32: a stall of 2^32 cycles is not a thing a core does).
        let held =
            |until: u64| (until.min(cycle).saturating_sub(natural)).min(u32::MAX as u64) as u32;
        Issue {
            cycle,
            stall,
            reason,
            dual,
            waits: Waits {
                dep: held(ready),
                fetch: held(fetch),
                block: held(self.blocked_until),
                fetch_reason: self.fetch.reason,
                block_reason: self.blocked_reason,
                block_load: self.blocked_by_load,
            },
        }
    }

    /// Takes back the fetch-state change of an [`Pipeline::issue`] that is
    /// not followed by its instruction (the cycle budget ran out).
    pub fn unissue(&mut self) {
        self.chain = None;
        if self.fetch_changed {
            self.fetch = self.fetch_undo;
        }
    }

    /// Records the effects of the instruction that issued as `issue`.
    #[inline(always)]
    pub fn complete(&mut self, issue: &Issue, t: &Timing, pc: u32, done: &Done) {
        self.chain = None;
        let c = issue.cycle;
        if self.fetch.first == NONE && pc >> 3 == self.fetch.line {
            self.fetch.first = c;
        }
        if t.nwrites != 0 {
            // Latencies (int, fpu, store) of each kind of result; a load's
            // depend on what it loaded from.
            let p = &self.params;
            let mut lat = self.lat;
            if t.class == OpClass::LoadStore {
                lat[KIND_LOAD as usize] =
                    if let Some((Place::Remote { latency, .. }, false)) = done.mem {
                        [u64::from(latency); 3]
                    } else if done.sub_word {
                        [p.load_sub_word; 3]
                    } else {
                        [p.load_to_int, p.load_to_fpu, p.load_to_int]
                    };
            }
            for k in 0..t.nwrites as usize {
                let reg = t.writes[k] as usize;
                let l = &lat[t.kinds[k] as usize];
                self.ready[reg] = c + l[0];
                self.ready[STRIDE + reg] = c + l[1];
                self.ready[2 * STRIDE + reg] = c + l[2];
                self.quiet = self.quiet.max(c + l[0].max(l[1]).max(l[2]));
            }
        }
        if t.flags != 0 {
            if t.flags & AFLAGS != 0 {
                self.ready[AFLAGS_SLOT] = c + self.params.ialu_to_int;
                self.quiet = self.quiet.max(self.ready[AFLAGS_SLOT]);
            }
            if t.flags & BFLAGS != 0 {
                self.ready[BFLAGS_SLOT] = c + if t.class == OpClass::Fpu {
                    self.lat[KIND_FPU as usize][0]
                } else {
                    self.params.ialu_to_int
                };
                self.quiet = self.quiet.max(self.ready[BFLAGS_SLOT]);
            }
        }
        if let Some((place, store)) = done.mem {
            self.memory(c, place, store);
        }
        self.last = c;
        self.next = c + 1;
        self.last_class = t.class;
        self.last_writes = t.writes_mask;
        self.can_pair = !issue.dual && t.class != OpClass::Control;
        if let Some(target) = done.jumped_to {
            self.redirect(target, c + 1 + self.params.branch_taken);
        }
    }

    /// A load or store issued at `c` went to `place`.
    #[inline]
    fn memory(&mut self, c: u64, place: Place, store: bool) {
        self.chain = None;
        let p = &self.params;
        match (place, store) {
            (Place::Local(Some(bank)), _) => {
                let at = c + p.mem_lead;
                self.use_bank(at, bank);
            }
            (Place::Local(None), _) => {}
            (Place::Remote { latency, external }, false) => {
                self.blocked_until = c + u64::from(latency);
                self.blocked_by_load = true;
                self.blocked_reason = if external {
                    Stall::ExtLoad
                } else {
                    Stall::Remote
                };
            }
            (Place::Remote { latency, external }, true) => {
                if latency > 0 {
                    self.blocked_until = c + u64::from(latency);
                    self.blocked_by_load = false;
                    self.blocked_reason = if external {
                        Stall::ExtStore
                    } else {
                        Stall::Remote
                    };
                }
            }
            // Timed mode reaches external memory through the mesh
            // (`Remote { external: true }`); nothing to time here.
            (Place::External, _) => {}
        }
    }

    /// A hardware-loop jump back to `ls` after the instruction issued at
    /// `t`: no penalty (the loop start is refetched in time).
    pub fn loop_back(&mut self, ls: u32, t: u64) {
        self.chain = None;
        self.fetch = Fetch {
            line: ls >> 3,
            ready: t,
            first: NONE,
            reason: Stall::Branch,
        };
    }

    /// An interrupt taken at `cycle`: its vector issues after the entry
    /// latency.
    pub fn interrupt(&mut self, vector: u32, cycle: u64) {
        self.chain = None;
        self.next = self.next.max(cycle);
        self.redirect(vector, cycle + self.params.interrupt_entry);
    }

    /// Time passes with nothing issuing (IDLE, a halted core): the next
    /// instruction issues no earlier than `cycle`.
    pub fn skip_to(&mut self, cycle: u64) {
        self.chain = None;
        if cycle > self.next {
            self.next = cycle;
            self.can_pair = false;
        }
    }

    /// The first cycle whose bank uses can still matter: only a fetch
    /// waits for a bank, from the cycle after its line's `ready` on,
    /// `fetch_lead` cycles ahead. The line before the last issue's
    /// (`fetch_undo`) counts only if that issue changed lines: only then
    /// does [`Pipeline::unissue`] go back to it, and the next issue that
    /// changes lines replaces it. (A polling loop within one line keeps
    /// the line it came from there, fetched before the loop: counted, the
    /// loop's own bank uses since then had to leave the 32 cycles after
    /// it before [`Pipeline::steady_after`] could hold.)
    fn banks_seen(&self) -> u64 {
        let mut r = self.fetch.ready.min(self.next);
        if self.fetch_changed {
            r = r.min(self.fetch_undo.ready);
        }
        (r + 1).saturating_sub(self.params.fetch_lead)
    }

    /// Whether this pipeline is `prev` one iteration of a loop later, the
    /// iteration having taken `p` cycles: every cycle it holds either moved
    /// by exactly `p`, or stayed where it was and lies before `prev`'s
    /// first free issue cycle (where it can delay nothing that issues from
    /// then on); everything else is equal. Then, as long as the loop's
    /// instructions, their memory accesses and their operands stay the
    /// same, every further iteration does the same `p` cycles later
    /// ([`Pipeline::repeat`]). The external memory port (the scheduler's)
    /// and the memo chain are not compared.
    pub(crate) fn steady_after(&self, prev: &Pipeline, p: u64) -> bool {
        let base = prev.next;
        let moved = |a: u64, b: u64| b == a.wrapping_add(p) || (b == a && (a <= base || a == NONE));
        let fetch = |a: &Fetch, b: &Fetch| {
            a.line == b.line
                && a.reason == b.reason
                && moved(a.ready, b.ready)
                && moved(a.first, b.first)
        };
        // (Slots past `SLOTS` are never used. When every slot of `prev` is
        // at or before `base`, one that did not change is in place, and
        // whole runs of unchanged slots pass at once.)
        let (now_s, prev_s) = (&self.ready[..SLOTS], &prev.ready[..SLOTS]);
        let slots = if prev.quiet <= base {
            now_s
                .chunks_exact(8)
                .zip(prev_s.chunks_exact(8))
                .all(|(b, a)| b == a || b.iter().zip(a).all(|(&b, &a)| moved(a, b)))
        } else {
            now_s.iter().zip(prev_s).all(|(&b, &a)| moved(a, b))
        };
        p > 0
            && slots
            && moved(prev.last, self.last)
            && self.next == prev.next + p
            && fetch(&prev.fetch, &self.fetch)
            && fetch(&prev.fetch_undo, &self.fetch_undo)
            && self.fetch_changed == prev.fetch_changed
            && self.banks_window(self.banks_seen()) == prev.banks_window(prev.banks_seen())
            && moved(prev.blocked_until, self.blocked_until)
            && self.blocked_reason == prev.blocked_reason
            && self.blocked_by_load == prev.blocked_by_load
            && self.lat == prev.lat
            && self.last_class == prev.last_class
            && self.last_writes == prev.last_writes
            && self.can_pair == prev.can_pair
            && self.ext_lines == prev.ext_lines
            && self.pending == prev.pending
            && self.need == prev.need
            && self.dram_log == prev.dram_log
    }

    /// The state `n` more iterations of the loop later, this pipeline being
    /// `prev` one iteration later ([`Pipeline::steady_after`]): every cycle
    /// that moved from `prev` moves `n` times as far again; the rest stays.
    /// (Debug builds check [`Pipeline::shift`] against it.)
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    pub(crate) fn repeat(&mut self, prev: &Pipeline, n: u64) {
        let step = |a: u64, b: &mut u64| {
            if *b != a {
                *b = b.wrapping_add(n.wrapping_mul(b.wrapping_sub(a)));
            }
        };
        for (b, &a) in self.ready.iter_mut().zip(&prev.ready) {
            step(a, b);
        }
        step(prev.last, &mut self.last);
        step(prev.fetch.ready, &mut self.fetch.ready);
        step(prev.fetch.first, &mut self.fetch.first);
        step(prev.fetch_undo.ready, &mut self.fetch_undo.ready);
        step(prev.fetch_undo.first, &mut self.fetch_undo.first);
        // (The bank uses seen relative to the next issue.)
        self.banks_from = self
            .banks_from
            .wrapping_add(n.wrapping_mul(self.next.wrapping_sub(prev.next)));
        step(prev.next, &mut self.next);
        step(prev.blocked_until, &mut self.blocked_until);
        // `quiet` bounds every slot from above (the memo relies on no more).
        step(prev.quiet, &mut self.quiet);
        self.quiet = self.ready.iter().fold(self.quiet, |q, &r| q.max(r));
        self.chain = None;
    }

    /// Which of this pipeline's cycles moved since `prev`, of which it is
    /// one iteration later ([`Pipeline::steady_after`] holds): the rest
    /// stay where they are in every further iteration.
    pub(crate) fn moves(&self, prev: &Pipeline) -> Moves {
        let mut m = Moves::default();
        for (k, (&b, &a)) in self.ready[..SLOTS].iter().zip(&prev.ready).enumerate() {
            if b != a {
                m.slots[k / 64] |= 1 << (k % 64);
            }
        }
        let fields = [
            (prev.last, self.last),
            (prev.fetch.ready, self.fetch.ready),
            (prev.fetch.first, self.fetch.first),
            (prev.fetch_undo.ready, self.fetch_undo.ready),
            (prev.fetch_undo.first, self.fetch_undo.first),
            (prev.blocked_until, self.blocked_until),
            (prev.quiet, self.quiet),
        ];
        for (k, (a, b)) in fields.into_iter().enumerate() {
            if b != a {
                m.fields |= 1 << k;
            }
        }
        m
    }

    /// The state `d` cycles of iterations later (a whole number of them),
    /// `m` saying what moves with them ([`Pipeline::moves`]): the same as
    /// [`Pipeline::repeat`] with the iteration before, without it.
    pub(crate) fn shift(&mut self, m: &Moves, d: u64) {
        let mut latest = 0u64;
        for (w, &bits) in m.slots.iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                let k = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                self.ready[k] = self.ready[k].wrapping_add(d);
                latest = latest.max(self.ready[k]);
            }
        }
        let fields = [
            &mut self.last,
            &mut self.fetch.ready,
            &mut self.fetch.first,
            &mut self.fetch_undo.ready,
            &mut self.fetch_undo.first,
            &mut self.blocked_until,
            &mut self.quiet,
        ];
        for (k, f) in fields.into_iter().enumerate() {
            if m.fields & (1 << k) != 0 {
                *f = f.wrapping_add(d);
            }
        }
        // (The bank uses seen relative to the next issue, which moves by
        // the iterations' cycles.)
        self.banks_from = self.banks_from.wrapping_add(d);
        self.next = self.next.wrapping_add(d);
        // `quiet` bounds every slot from above; only moved slots grew.
        self.quiet = self.quiet.max(latest);
        self.chain = None;
    }
}

/// What moves in a pipeline from one iteration of a loop in its fixed
/// point to the next ([`Pipeline::moves`]): a bit per scoreboard slot and
/// per other cycle it holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Moves {
    slots: [u64; 4],
    fields: u8,
}

/// Whether `second` may issue in the same cycle as `first` (isa.md §5.2).
#[inline]
const fn pairs(first: OpClass, second: OpClass) -> bool {
    matches!(
        (first, second),
        (OpClass::Ialu, OpClass::Fpu)
            | (OpClass::Fpu, OpClass::Ialu)
            | (OpClass::Fpu, OpClass::LoadStore)
            | (OpClass::LoadStore, OpClass::Fpu)
    )
}

/// Events the core timers can count, over one instruction or an idle spell
/// (CONFIG.CTIMERxCFG codes, isa.md §3.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Events {
    pub clock: u64,
    pub idle: u64,
    pub ialu: u64,
    pub fpu: u64,
    pub dual: u64,
    /// E1 stalls: the load/store unit waited (external load or store).
    pub e1: u64,
    /// Register-dependency (RA) stalls.
    pub ra: u64,
    pub fetch_bank: u64,
    pub ext_fetch: u64,
    pub ext_load: u64,
    /// Mesh traffic monitors 0 and 1 (the events MESHCONFIG bits 11:8
    /// and 7:4 select; [`mesh_events`]).
    pub mesh0: u64,
    pub mesh1: u64,
}

/// MESHCONFIG's event code for transactions through the node's core port.
pub const MESHEVENT_CORE_ACCESS: u32 = 0b1110;

/// The mesh-monitor events of `n` transactions entering or leaving the
/// mesh at a core's node, with MESHCONFIG `meshconfig`: only "core access"
/// (1110) is counted; waits and the other ports' traffic are not modelled.
pub fn mesh_events(meshconfig: u32, n: u64) -> Events {
    let counts = |field: u32| {
        if field & 0xf == MESHEVENT_CORE_ACCESS {
            n
        } else {
            0
        }
    };
    Events {
        mesh0: counts(meshconfig >> 8),
        mesh1: counts(meshconfig >> 4),
        ..Events::default()
    }
}

/// The events of one instruction that took `cycles` cycles (its issue
/// cycle minus the previous one's; 1 in functional mode, where `issue` is
/// `None`).
#[inline]
pub fn events(issue: Option<Issue>, class: OpClass, cycles: u64) -> Events {
    let mut ev = Events {
        clock: cycles,
        ialu: u64::from(class == OpClass::Ialu),
        fpu: u64::from(class == OpClass::Fpu),
        ..Events::default()
    };
    if let Some(i) = issue {
        ev.dual = u64::from(i.dual);
        if i.stall != 0 {
            // Each event true in a stall cycle counts it, as the hardware's
            // counters do. The next instruction waiting behind a load from
            // another core or DRAM is an RA stall (the board's cpu/ctimer
            // counts about as many RA as external-load stalls, and few E1
            // stalls); a wait for the store queue is an E1 stall.
            let w = i.waits;
            ev.ra = u64::from(w.dep);
            match w.fetch_reason {
                Stall::FetchBank => ev.fetch_bank = u64::from(w.fetch),
                Stall::ExtFetch => ev.ext_fetch = u64::from(w.fetch),
                _ => {}
            }
            if w.block_load {
                ev.ra = ev.ra.max(u64::from(w.block));
                if w.block_reason == Stall::ExtLoad {
                    ev.ext_load = u64::from(w.block);
                }
            } else if matches!(w.block_reason, Stall::ExtStore | Stall::Remote) {
                ev.e1 = u64::from(w.block);
            }
        }
    }
    ev
}

/// The events of the `waited` cycles before instruction `i` issues (its
/// stall, counted by reason; [`events_at`] counts the issue cycle itself).
#[inline]
pub fn events_before(i: Issue, waited: u64) -> Events {
    let mut ev = events(Some(i), OpClass::Control, waited);
    ev.dual = 0;
    ev
}

/// The events of the cycle instruction `i` (of `class`) issues in, when
/// `elapsed` cycles passed since the previous one (0 when dual-issued with
/// it) and its stall was already counted by [`events_before`].
#[inline]
pub fn events_at(i: Issue, class: OpClass, elapsed: u64) -> Events {
    let mut ev = events(None, class, elapsed.min(1));
    ev.dual = u64::from(i.dual);
    ev
}

/// The CTIMERxCFG fields of CONFIG.
const CTIMER_FIELDS: u32 = 0xff << 4;

/// Whether either core timer counts anything.
#[inline]
pub fn timers_on(config: u32) -> bool {
    config & CTIMER_FIELDS != 0
}

/// How many of `ev` the timer with configuration `code` counts.
fn counted(code: u32, ev: &Events) -> u64 {
    match code {
        0b0001 => ev.clock,
        0b0010 => ev.idle,
        0b0100 => ev.ialu,
        0b0101 => ev.fpu,
        0b0110 => ev.dual,
        0b0111 => ev.e1,
        0b1000 => ev.ra,
        0b1010 => ev.fetch_bank,
        0b1100 => ev.ext_fetch,
        0b1101 => ev.ext_load,
        0b1110 => ev.mesh0,
        0b1111 => ev.mesh1,
        // off, reserved, local-memory load stalls (incoming mesh traffic
        // takes banks from fetch only, in this model)
        _ => 0,
    }
}

/// Counts `ev` down on CTIMER0 and CTIMER1 as CONFIG selects. A timer that
/// reaches zero latches its interrupt (CTIMER0 → `ILAT[3]`, CTIMER1 →
/// `ILAT[4]`) and stays at zero (E16: no wrap). True if one fired.
pub fn tick_timers(s: &mut ArchState, ev: &Events) -> bool {
    let mut fired = false;
    for (timer, irq) in [(0, irq::TIMER0), (1, irq::TIMER1)] {
        let code = (s.config >> (4 + 4 * timer)) & 0xf;
        let n = counted(code, ev);
        let value = if timer == 0 {
            &mut s.ctimer0
        } else {
            &mut s.ctimer1
        };
        if n == 0 || *value == 0 {
            continue;
        }
        if n >= u64::from(*value) {
            *value = 0;
            s.ilat |= 1 << irq;
            fired = true;
        } else {
            *value -= n as u32;
        }
    }
    fired
}

/// Counts the cycles from `*timer_at` up to the issue of instruction `i`
/// (its stall, counted before it executes) and moves `*timer_at` there.
/// True if a timer fired.
#[inline]
pub fn count_before(s: &mut ArchState, timer_at: &mut u64, i: Issue) -> bool {
    let waited = i.cycle.saturating_sub(*timer_at);
    if waited == 0 {
        return false;
    }
    *timer_at = i.cycle;
    tick_timers(s, &events_before(i, waited))
}

/// Cycles until a timer counting clock or idle cycles expires on a
/// sleeping core, if one does.
pub fn idle_wakeup(s: &ArchState) -> Option<u64> {
    [(s.config >> 4) & 0xf, (s.config >> 8) & 0xf]
        .into_iter()
        .zip([s.ctimer0, s.ctimer1])
        .filter(|&(code, v)| matches!(code, 0b0001 | 0b0010) && v != 0)
        .map(|(_, v)| u64::from(v))
        .min()
}

/// What a timer configuration counts while the core runs, as far as
/// [`lazy_limit`] cares (found by asking [`counted`], the one table of
/// the codes).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Counts {
    /// Nothing: off, idle cycles (a running core is never idle), and the
    /// codes that count nothing in this model.
    Nothing,
    /// Clock cycles only.
    Clock,
    /// Events of the instructions.
    Other,
}

fn counts(code: u32) -> Counts {
    let clock = Events {
        clock: 1,
        ..Events::default()
    };
    let instructions = Events {
        ialu: 1,
        fpu: 1,
        dual: 1,
        e1: 1,
        ra: 1,
        fetch_bank: 1,
        ext_fetch: 1,
        ext_load: 1,
        mesh0: 1,
        mesh1: 1,
        ..Events::default()
    };
    if counted(code, &instructions) != 0 {
        Counts::Other
    } else if counted(code, &clock) != 0 {
        Counts::Clock
    } else {
        Counts::Nothing
    }
}

/// Lazy timers: while the core timers count only clock cycles, what they
/// count over a stretch of running code is its length in cycles, so they
/// need not be counted instruction by instruction: the count can wait
/// until something reads or changes them, as long as none of them could
/// expire in between. With the timers counted up to `timer_at`, the first
/// cycle in which no instruction may issue without its count (a timer
/// counting clock cycles fires at the first instruction issuing in it or
/// later): `u64::MAX` when no timer counting clock cycles is running;
/// `None` when a timer counts anything else (every instruction counts
/// then).
pub fn lazy_limit(s: &ArchState, timer_at: u64) -> Option<u64> {
    let mut limit = u64::MAX;
    for (code, value) in [
        ((s.config >> 4) & 0xf, s.ctimer0),
        ((s.config >> 8) & 0xf, s.ctimer1),
    ] {
        match counts(code) {
            Counts::Other => return None,
            // It fires at the first instruction issuing in a cycle c with
            // c + 1 - timer_at >= value.
            Counts::Clock if value != 0 => {
                limit = limit.min(timer_at + u64::from(value) - 1);
            }
            _ => {}
        }
    }
    Some(limit)
}

/// Counts the clock cycles from `*timer_at` to `to` on timers that count
/// only clock cycles ([`lazy_limit`]: none can expire before its limit),
/// and moves `*timer_at` there.
pub fn count_clock(s: &mut ArchState, timer_at: &mut u64, to: u64) {
    if to > *timer_at {
        let ev = Events {
            clock: to - *timer_at,
            ..Events::default()
        };
        let fired = tick_timers(s, &ev);
        debug_assert!(!fired, "a lazily counted timer expired");
        *timer_at = to;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two heads of a loop within one line that loads from bank 1 once an
    /// iteration (7 cycles), as `firmware/multi/poll16`'s wait for a flag
    /// is: the line the loop came from, fetched before it, is still in
    /// `fetch_undo`, and the loop's loads of the iterations before it are
    /// still in the 32 cycles after that line's `ready`.
    fn heads(fetch_changed: bool) -> (Pipeline, Pipeline) {
        let mut prev = Pipeline::new(Params::DEFAULT, 0x8000, 0x808 << 20);
        prev.fetch_undo = Fetch {
            line: 0x30,
            ready: 379,
            first: 379,
            reason: Stall::Branch,
        };
        prev.fetch_changed = fetch_changed;
        prev.use_bank(383, 1);
        prev.use_bank(390, 1);
        prev.fetch = Fetch {
            line: 0x31,
            ready: 395,
            first: NONE,
            reason: Stall::Branch,
        };
        prev.last = 391;
        prev.next = 392;
        let mut now = prev.clone();
        now.use_bank(397, 1);
        now.fetch.ready += 7;
        now.last += 7;
        now.next += 7;
        (prev, now)
    }

    #[test]
    fn a_stale_line_before_a_polling_loop_does_not_hold_off_its_fixed_point() {
        // Only the bank uses a fetch can still meet count: none of these
        // (a fetch waits for a bank from its line's `ready` on), so the
        // loop is in its fixed point at its second head, not only once its
        // loads have left the 32 cycles after the stale line's `ready`.
        let (prev, now) = heads(false);
        assert!(now.steady_after(&prev, 7));
        // Where the last issue changed lines, `unissue` may go back to the
        // line before, whose fetch would meet those bank uses.
        let (prev, now) = heads(true);
        assert!(!now.steady_after(&prev, 7));
    }
}
