//! The exact scheduler of timed mode: cores, their DMA engines and the mesh
//! advance in strict order of simulated time, and each core runs ahead on
//! its own only as far as nothing else can reach it.
//!
//! Model decisions owned here:
//! * **What the agents are.** Each core; each core's DMA engine; the
//!   mesh, which moves packets between nodes (`epsim_mesh`). Every
//!   interaction between cores is a packet: a remote store or register
//!   write is a posted write, a remote load or TESTSET a read request
//!   answered by a read response, a DMA element move to or from another
//!   core the same. The WAND wire reaches every core of the group
//!   [`WIRE_LATENCY`] cycles after the last core raises it. SYNC crosses
//!   the mesh as a wave, reaching each other core of the group as soon as
//!   the fastest packet from the sender's node could (the rMesh's entry
//!   and 1.5 cycles a hop, in whole cycles: 2 cycles to a neighbour, 5 at
//!   three hops), the sender itself after [`WIRE_LATENCY`]. (No published
//!   figure gives SYNC's propagation, reference/isa.md's open question
//!   19; a latency that grows with the distance is what a wave passed
//!   from node to node gives, and it lets cores run apart by that much.)
//! * **When things happen, and in which order.** A core's instruction acts
//!   at its issue cycle. In one cycle: packets arriving at a core are
//!   applied first (an incoming mesh access has priority at the SRAM
//!   banks), then the core's instructions, then its DMA engine (lowest
//!   priority). Agents at the same time and rank go in row-major core
//!   order.
//! * **Which agent is next.** The one with the earliest action, ties by
//!   rank (deliveries, then cores, then DMA engines) and core index. Every
//!   core's earliest actions are kept in ordered sets and recomputed only
//!   for the cores something happened to (the agent that acted, a core a
//!   packet or wire became due at, a core answered, rolled back or whose
//!   stores to external memory landed), so a step costs O(log cores).
//! * **How far a core may run alone.** A core's *safe horizon* is the
//!   first cycle in which something could reach it — a packet already in
//!   flight to it (the mesh's bound), a delivery due, its own DMA engine's
//!   next move, or a packet another agent could still send it: the least,
//!   over the other cores, of the earliest action of that core (or its DMA
//!   engine, or a delivery due at it) plus the fastest trip from its node
//!   to this one (`Timed::reach`); a packet arriving at another node makes
//!   that core act from its arrival on. While the core's own WAND flag is
//!   set any core's arrival may complete the barrier, so then every other
//!   agent's earliest action plus one cycle bounds it (and so while a
//!   watch of idle cores may end the run). Before the horizon nothing but
//!   the core itself can change what it sees, so running it alone gives
//!   exactly what strict cycle-by-cycle order gives.
//! * **Running ahead.** Untraced, a core whose safe horizon is near may
//!   run further (within a window that doubles while it pays off, shrinks
//!   with each roll-back, and once below the least comes back to it after
//!   [`CALM`] cycles in safe steps) from a checkpoint of its state and
//!   SRAM. Nothing it does there leaves the core: a remote or external
//!   access, a system call, a fault or a barrier waits until it is the
//!   earliest action of all. If something
//!   reaches the core in a cycle it has already passed, it goes back to
//!   the checkpoint and runs again up to that cycle; but for a read of
//!   its SRAM that could not have changed what it did nor read anything
//!   it changed since (`Machine::read_in_past`): that is answered from
//!   where the core stands; and for a plain write into a page of its SRAM
//!   it neither wrote nor read since (but at other words of a page read
//!   only by aligned accesses, `CodeMem::read_since_undo`)
//!   (`Machine::write_in_past`): that is made where the core stands,
//!   kept by a later roll-back; and for its
//!   DMA engine's move sending an element of its SRAM to another core
//!   from bytes it did not write since (`Machine::send_in_past`): that
//!   is made where the core stands too. A run that ends at a cycle
//!   limit lets a core run ahead past it if `Machine::run_past_limit`
//!   says so (libe-hal's runs between host calls), within
//!   `Agent::past_window`; the run ends when every agent has acted
//!   before the limit, such cores left where they stand, and whoever
//!   looks at the machine there brings them back first
//!   (`Machine::settle_ahead_in`). The `strict` switch,
//!   which lets every core run at most one cycle at a time, exists to
//!   prove all this gives the same results (sim/tests/multicore.rs,
//!   sim/tests/wires.rs).
//! * **The WAND barrier.** A core's arrival (its WAND) is acted on once it
//!   is the earliest action of all, with the other cores' flags as they
//!   stand then: a core behind it cannot act before it, so keeps its
//!   flag; one that ran further has not arrived yet if its own arrival is
//!   still to be acted on; one that ran ahead of it from a checkpoint goes
//!   back, and the arrival is looked at again once that core has caught
//!   up (its flag may change on the way, e.g. cleared after the previous
//!   barrier), unless its flag has been clear at every block boundary
//!   since a cycle no later than the arrival's (`Core::wand_clear_from`:
//!   only MOVTS and WAND change it, and both end a block), so was clear
//!   at the arrival too: cores that wait alone for
//!   their timers while others sleep in the barrier, or that cleared
//!   their flag after the barrier before, are not sent back at each
//!   arrival.
//! * **Remote accesses.** A core's access to another core (or to external
//!   memory, or to its DMA registers), and its fetch of a line of code in
//!   another core's SRAM, stops it before the instruction. The
//!   scheduler finds the cycle it would issue in, and when that cycle is
//!   the earliest action of all, injects the packet. While the node's
//!   queue is full the core (or a DMA engine's move) retries at the
//!   network's next event, the first cycle a place can free: every retry
//!   before it would be refused, so this gives what retrying every cycle
//!   gives (a DMA engine whose registers are written retries at once). A
//!   store to external memory that finds the queue full already when its
//!   core stops before it waits so at once, instead of going out at its
//!   issue only to be refused (`Machine::refused_until_freed`). A
//!   store is posted: the core
//!   resumes at once (the instruction waits only as long as the queue was
//!   full). A store to a core issuing before the core's safe horizon goes
//!   in at its cycle without waiting to be the earliest action, and the
//!   core's turn goes on (`Machine::store_early`). A load waits for the response; the instruction then executes
//!   again with the data, which becomes ready
//!   [`Params::remote_read_extra`] cycles after the response arrives.
//! * **External memory** is the far side of the eLink: a write is applied
//!   when it arrives; a read is performed when it arrives (after that
//!   core's stores still on their way: a core sees its own stores) and its
//!   response enters the chip `dram_latency` cycles later, one read started
//!   per `dram_read_interval`. A core's memory answers one read from the
//!   mesh per `read_service_interval`; a DMA engine sends one element into
//!   the mesh per `dma_mesh_interval`.
//!
//! [`Params::remote_read_extra`]: crate::timing::Params::remote_read_extra

use std::collections::VecDeque;

use crate::evq::{self, MinTree};

use epsim_dma::{Dma, Effect as DmaEffect, Move, MoveOutcome, Source};
use epsim_isa::state::{irq, status};
use epsim_isa::{MemFault, Size};
use epsim_mesh::{Arrival, Dest, Geometry, InjectError, Kind, Mesh, Net, NodeId, Packet, Side};

use crate::config::CoreId;
use crate::core::{
    held_by_dma, is_dma, Answer, Checkpoint, CoreExit, RemoteAccess, RemoteKind, RunState, Shared,
    SoloLoads,
};
use crate::machine::{dram_offset, IdleWatch, Machine, StopReason};
use crate::timing::{idle_wakeup, DramPort, Pipeline};

/// Cycles from the last core's WAND (or any core's SYNC) to the interrupt
/// at every core of the group.
pub const WIRE_LATENCY: u64 = 1;

/// Cycles a core runs at most before the scheduler looks again, when
/// nothing else can reach it.
const BATCH: u64 = 1 << 20;

/// The agent index of the fetches of DRAM code on their way (the outbox's
/// is `usize::MAX`).
const FETCHES: usize = usize::MAX - 1;

/// The smallest and largest distance a core may run ahead of its safe
/// horizon; below the smallest it does not run ahead at all.
const MIN_WINDOW: u64 = 256;
const MAX_WINDOW: u64 = 1 << 16;

/// Cycles a core whose window shrank below [`MIN_WINDOW`] runs in safe
/// steps only before it runs ahead again.
const CALM: u64 = 1 << 10;

/// Cycles a core whose run past its DMA engine's sends went back for a
/// write from the mesh runs only up to the engine's next move
/// (`Machine::send_bound`).
const SENDS_CALM: u64 = 4096;

/// Cycles a core whose run-ahead past the host's clock went back too often
/// runs only up to it, at first and at most (`Agent::past_window`).
const PAST_CALM: u64 = 1 << 14;
const MAX_PAST_CALM: u64 = 1 << 24;

/// Cycles after it polled its DMA registers in a run past its engine's
/// next move before a core runs so again (`Machine::dma_bound`).
const DMA_POLL_QUIET: u64 = 1024;

/// What a core is waiting for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wait {
    Nothing,
    /// The instruction at the PC issues at `issue` and needs `access`,
    /// which goes out at `at` (later than `issue` while the node's queue
    /// is full).
    Emit {
        access: RemoteAccess,
        issue: u64,
        at: u64,
    },
    /// A read request went out; the instruction issued at `issue` waits
    /// for the response.
    Response {
        access: RemoteAccess,
        issue: u64,
    },
    /// The core stopped for the machine (a system call, a barrier, a
    /// fault...) after running ahead: the machine acts once that is final.
    Settle(CoreExit),
    /// A system call waiting for the core's stores to external memory to
    /// land.
    Drain(CoreExit),
    /// The core polls its own SRAM in a loop at its fixed point
    /// (`Core::spinning`): it acts on nothing, and nothing it does can
    /// reach another agent, until something reaches it (a delivery, its
    /// DMA engine) or the run ends; then it does the iterations before
    /// that cycle at once (`Machine::unspin`) and runs on from there. A
    /// move of its DMA engine, a read response for it or a write from the
    /// mesh that changes nothing the loop reads (`Core::spin_reads`) leaves
    /// it parked (`Machine::quiet_move`, `Machine::quiet_response`,
    /// `Machine::quiet_write`).
    Spin,
}

/// What a packet in flight carries (the mesh moves only its tag).
#[derive(Clone, Copy, Debug)]
enum Payload {
    /// A write from core `from` (a store, a DMA element, a register
    /// write); `message` raises the message interrupt at the destination
    /// with it.
    Write {
        from: usize,
        access: RemoteAccess,
        message: bool,
        /// A multicast write: applied only if the destination's MULTICAST
        /// register holds this id when it arrives.
        group: Option<u32>,
    },
    /// A read for core `from`'s instruction or for its DMA channel `dma`
    /// (the response is written at `dst`).
    ReadRequest {
        from: usize,
        access: RemoteAccess,
        dma: Option<(u8, u32)>,
    },
    /// The data for the core that asked.
    ReadResponse {
        value: Result<u64, MemFault>,
        dma: Option<(u8, u32, Size)>,
    },
}

/// How a core's access leaves it (`Machine::way_out`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Way {
    /// Into the network at its node (`external`: for external memory).
    Mesh { external: bool },
    /// A fetch of a line of DRAM code, to external memory's read port.
    DramPort,
    /// Its own DMA registers (or a register whose write waited for its
    /// DMA engine's moves: `Core::dma_detached`), answered at once.
    OwnRegs,
    /// Nowhere on the chip nor in external memory: through a link in
    /// loopback mode, or a fault (`Machine::emit_looped`).
    Other,
}

/// Something due at a core at a cycle.
#[derive(Clone, Copy, Debug)]
enum Delivery {
    Packet(Payload),
    /// The WAND or SYNC interrupt.
    Wire(u32),
    /// The core's memory answers the first read request waiting for it
    /// (`Agent::reads`).
    Serve,
}

/// A chip link in loopback mode, as writes through it find it: the first
/// cycle its transmit and receive sides are free, and the address that
/// continues its last transaction (`None`: none yet).
#[derive(Clone, Copy, Debug, Default)]
struct LoopLink {
    tx_free: u64,
    rx_free: u64,
    next: Option<u32>,
}

/// A read request waiting for a core's memory: from core `from`, for its
/// instruction or its DMA channel (as `Payload::ReadRequest`).
type WaitingRead = (usize, RemoteAccess, Option<(u8, u32)>);

/// The scheduler's view of one core.
#[derive(Clone, Debug)]
struct Agent {
    wait: Wait,
    /// Deliveries due, in time order.
    inbox: VecDeque<(u64, Delivery)>,
    /// Read requests that reached the core while its memory was answering
    /// another, in the order they are answered, one per
    /// `read_service_interval`; while any waits, one `Delivery::Serve` is
    /// due at the cycle its memory is free (`Machine::deliver`).
    reads: VecDeque<WaitingRead>,
    /// The DMA engine's refused move: retry at this cycle.
    dma_retry: Option<u64>,
    /// Running ahead of its safe horizon: the state to roll back to.
    speculating: bool,
    checkpoint: Option<Box<Checkpoint>>,
    /// How far it may run ahead (grows while speculation pays off,
    /// shrinks on each roll-back).
    window: u64,
    /// The cycle its run ahead was allowed to reach.
    spec_limit: u64,
    /// A multicast store being sent: the next core to send it to.
    multicast_next: usize,
    /// Its window shrank below [`MIN_WINDOW`] (roll-backs): it runs ahead
    /// again, from the least window, at this cycle (`Machine::core_turn`).
    calm: Option<u64>,
    /// A run of it past its DMA engine's next move (`Machine::dma_bound`)
    /// ended at a read of its DMA registers at this cycle: it polls them,
    /// and runs only up to the engine's next move until
    /// [`DMA_POLL_QUIET`] cycles later.
    dma_polled: u64,
    /// Its run ahead is detached from its DMA engine (`Core::dma_detached`)
    /// and may pass the engine's moves that send an element of its SRAM
    /// to another core (`Machine::send_bound`), each made where the core
    /// stands if it is exact (`Machine::send_in_past`).
    sends_past: bool,
    /// A run past its engine's sends went back for a write from the mesh
    /// (into a page it read): it runs past them again from this cycle.
    sends_calm: u64,
    /// How far past a run's limit it may run ahead
    /// (`Machine::run_past_limit`): doubles each time such a run-ahead is
    /// made final (from [`MIN_WINDOW`]); none from the time one goes back
    /// for the host (`Machine::settle_ahead_in`) until cycle `past_calm`,
    /// `past_calm_len` later, which doubles each time one goes back
    /// within twice that of the last (up to [`MAX_PAST_CALM`]), and is
    /// [`PAST_CALM`] again after a longer while: a host that reads what
    /// the core writes, or changes the machine, often, has it run past its
    /// clock less and less (each time is wasted: the core runs again from
    /// its checkpoint). The cycle it last went back so. Whether its
    /// run-ahead now goes past its run's limit.
    past_window: u64,
    past_calm: u64,
    past_calm_len: u64,
    past_back: u64,
    ran_past: bool,
}

/// The timed scheduler's state: the mesh, what each core waits for, and
/// the packets in flight.
pub struct Timed {
    /// (Boxed: lent to a core for a run by swapping pointers, `SoloLoads`.)
    pub mesh: Box<Mesh>,
    agents: Vec<Agent>,
    /// Payloads by tag (the tag is the index); free slots are reused.
    payloads: Vec<Option<Payload>>,
    free: Vec<u64>,
    arrivals: Vec<Arrival>,
    /// Minimum cycles from any agent's action to its effect on a core (a
    /// wire: the WAND barrier completing).
    lookahead: u64,
    /// The nodes of the cores; by the hops between two, the least cycles
    /// from an action at one to its effect at the other (the fastest
    /// packet, or SYNC: `Timed::reach`); the least of those (neighbours).
    nodes: Vec<NodeId>,
    by_hops: Vec<u64>,
    near: u64,
    /// On a chip of at most [`REACH_SCAN`] cores, `latency(k, i)` at
    /// `[i · cores + k]`, `u64::MAX` where `k == i` (`Timed::reach`
    /// looks at every core's entry); empty on a larger one.
    lat: Vec<u64>,
    /// Every core runs at most one cycle at a time (the reference order).
    pub strict: bool,
    /// Times a core that ran ahead had to go back.
    pub rollbacks: u64,
    /// Core turns (`Machine::core_turn`).
    pub turns: u64,
    /// Every core's earliest action (the scheduler's queue, `crate::evq`):
    /// its first action, keyed `cycle << 64 | rank << 32 | core` (the
    /// cycle is also the first it acts in at all, for the horizons); and
    /// the cores whose entries may be stale.
    queue: MinTree,
    dirty: Vec<usize>,
    /// Read responses waiting to be sent, in time order: from external
    /// memory into the chip through the eLink (`true`), or from a core's
    /// node whose queue was full (`false`).
    outbox: VecDeque<(u64, bool, Packet)>,
    /// Per core: its stores to external memory still on their way, and the
    /// reads from external memory it sent after them, waiting at the eLink
    /// (a core's loads see its own earlier stores).
    dram_writes: Vec<u32>,
    held_reads: Vec<VecDeque<Payload>>,
    /// Per edge (N, E, S, W): the link looping writes back into the chip
    /// (`Machine::emit_looped`).
    loops: [LoopLink; 4],
    /// Per core: the first cycle its memory can answer the next read
    /// request from the mesh; the same for external memory.
    read_busy: Vec<u64>,
    dram_busy: u64,
    /// For the core running (0: not now): nothing but it acts before this
    /// cycle and the network is idle, so a load from DRAM whose whole
    /// round trip ends before it meets nothing and is timed in closed form
    /// in the run (`Machine::solo_load`).
    solo_until: u64,
    /// `Mesh::solo_bound`: the longest a solo packet's trip takes.
    solo_bound: u64,
    /// Loads from DRAM timed in closed form (`solo_load`).
    pub solo_loads: u64,
    /// Read requests on their way to external memory (or held there).
    dram_reads: u64,
    /// Per core: cycles from sending a fetch of a line of DRAM code to its
    /// arrival at external memory, and from its read starting there to
    /// the line being usable; the least of the first over all cores.
    port_out: Vec<u64>,
    port_back: Vec<u64>,
    min_out: u64,
    /// Fetches of DRAM code on their way to external memory, in time
    /// order: (arrival, core, cycle sent, the access).
    fetches: VecDeque<(u64, usize, u64, RemoteAccess)>,
    /// Cores whose access or DMA move the mesh refused (a full queue) and
    /// that wait for a place to free in their node's queue
    /// (`Timed::refused_at`).
    refused: Vec<usize>,
    /// The nodes whose queue freed a place in the last advance.
    freed: Vec<NodeId>,
    /// The last run ended at this cycle with its spinning cores left
    /// parked (`Machine::keep_parked`): they reach it only when the
    /// machine is looked at (`Machine::settle_parked`) or something
    /// reaches them in a later run.
    parked_at: Option<u64>,
    /// A run that only brings those cores to `parked_at`, or the cores
    /// that ran ahead past the last run's end to it (`ahead_settle`: then
    /// the spinning cores stay parked, `Machine::settle_ahead_in`).
    settling: bool,
    ahead_settle: bool,
    /// Runs that ended so.
    pub kept_parked: u64,
    /// Runs that ended with a core past their end
    /// (`Machine::run_past_limit`); the host's reads of SRAM answered
    /// where such a core stands; the times such cores went back to the
    /// end of the run before (`Machine::settle_ahead_in`).
    pub ended_ahead: u64,
    pub reads_ahead: u64,
    pub settled_ahead: u64,
    /// Per core: the fewest cycles from a read request to external memory
    /// leaving its node to the response reaching it (no queue, no other
    /// read at external memory's port).
    dram_trip: Vec<u64>,
    /// For the core running: the first cycle its DMA engine could change
    /// its DMA registers (the engine's next move, plus one); `u64::MAX`
    /// outside the scheduler's core turns.
    regs_until: u64,
    /// Per core: a count of what reached it from outside (deliveries, its
    /// DMA engine, the machine acting on its exits, the host between
    /// runs): a polling loop's run is a period only if nothing did
    /// (`Core::poll_stop`).
    touched: Vec<u64>,
    /// Set by the scheduler before it advances the mesh (`NO_DIRECT`:
    /// never): an arrival at a core ordered before this (cycle, core) (a
    /// delivery's place in the scheduler's order, [`direct_bound`]), with
    /// nothing else to do before it, may be made in the advance
    /// (`Machine::deliver_direct`).
    direct_before: (u64, usize),
}

/// The retry cycle of an access or DMA move waiting for a place in its
/// node's queue (`Timed::refused_at`): known only when the mesh frees one.
const PARKED: u64 = u64::MAX;

/// Why an agent is next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    Delivery = 0,
    Core = 1,
    Dma = 2,
}

/// The most cores for which `Timed::reach` looks at every core's entry
/// (a table of latencies, `Timed::lat`) instead of searching the queue.
const REACH_SCAN: usize = 64;

/// The cycles a queue key holds (`Timed::queue`): 48 bits, the last
/// value standing for every cycle from it on.
const KEY_END: u64 = (1 << 48) - 1;

/// The queue key of an action at cycle `e` of `rank` for core `k`
/// (`Timed::queue`): cycle, rank and core in one word, compared whole as
/// the triple (a 64-bit word: a 32-bit host compares two halves, not four
/// quarters). A cycle from [`KEY_END`] on is kept as `KEY_END` and read
/// back as `u64::MAX - 1`, the cycle a core parked in its polling loop
/// acts at (`Machine::earliest`: when the run ends): only a run past
/// 2^48 cycles (about five days of the chip's time at 600 MHz) could
/// tell. A chip has at most 64 × 64 cores (`Config::validate`), fewer
/// than 2^14.
#[inline]
fn queue_key(e: u64, rank: Rank, k: usize) -> u64 {
    e.min(KEY_END) << 16 | (rank as u64) << 14 | k as u64
}

/// The cycle of a queue key (`queue_key`).
#[inline]
fn key_cycle(key: u64) -> u64 {
    match key >> 16 {
        KEY_END => u64::MAX - 1,
        c => c,
    }
}

/// `Timed::direct_before` when no arrival may be made in the mesh's
/// advance.
const NO_DIRECT: (u64, usize) = (0, 0);

/// The place in `Timed::direct_before`'s order of the scheduler's action
/// `next` (cycle, rank, agent): a delivery at core `k` in cycle `c` comes
/// before it if `(c, k)` is less. A delivery is the first action of its
/// cycle's cores and DMA engines (`Rank::Delivery`), and among deliveries
/// of a cycle those to lower cores come first (the outbox's and the
/// fetches' agents are above every core's); `None` (nothing to do) is
/// after everything.
#[inline]
fn direct_bound(next: Option<(u64, Rank, usize)>) -> (u64, usize) {
    match next {
        None => (u64::MAX, usize::MAX),
        Some((c, Rank::Delivery, k)) => (c, k),
        Some((c, _, _)) => (c, usize::MAX),
    }
}

/// The action a queue key stands for.
#[inline]
fn key_action(key: u64) -> Option<(u64, Rank, usize)> {
    let rank = match key >> 14 & 3 {
        0 => Rank::Delivery,
        1 => Rank::Core,
        _ => Rank::Dma,
    };
    (key != evq::NONE).then_some((key_cycle(key), rank, (key & 0x3fff) as usize))
}

impl Timed {
    pub fn new(m: &Machine) -> Timed {
        let c = &m.config;
        let geometry = Geometry {
            first_row: c.first_row,
            first_col: c.first_col,
            rows: c.rows,
            cols: c.cols,
            elink: Some(Side::East),
        };
        let mesh = Mesh::new(geometry, epsim_mesh::Params::DEFAULT)
            .expect("invariant: a validated configuration is a valid mesh");
        let agent = Agent {
            wait: Wait::Nothing,
            inbox: VecDeque::new(),
            reads: VecDeque::new(),
            dma_retry: None,
            speculating: false,
            checkpoint: None,
            window: MIN_WINDOW,
            spec_limit: 0,
            multicast_next: 0,
            calm: None,
            dma_polled: 0,
            sends_past: false,
            sends_calm: 0,
            past_window: MIN_WINDOW,
            past_calm: 0,
            past_calm_len: PAST_CALM,
            past_back: 0,
            ran_past: false,
        };
        // A fetch from DRAM costs what a blocking load does on an idle chip
        // (the eLink transaction not continuing a burst), without taking
        // the mesh or the eLink: only external memory's read port is
        // shared (sim/TIMING.md).
        let (mut port_out, mut port_back) = (Vec::new(), Vec::new());
        for core in &m.cores {
            let n = node(core.id);
            let p = &core.pipe.params;
            let out = mesh
                .min_latency(n, Dest::External, Kind::ReadRequest)
                .map_or(u64::MAX / 4, |l| l + mesh.params().elink_tx_break_cycles);
            let back = mesh
                .min_latency_from_elink(n)
                .map_or(u64::MAX / 4, |l| l + p.dram_latency + p.remote_read_extra);
            port_out.push(out);
            port_back.push(back);
        }
        let min_out = port_out.iter().copied().min().unwrap_or(u64::MAX / 4);
        let dram_trip = m
            .cores
            .iter()
            .map(|core| {
                let n = node(core.id);
                let out = mesh.min_latency(n, Dest::External, Kind::ReadRequest);
                let back = mesh.min_latency_from_elink(n);
                match (out, back) {
                    (Some(o), Some(b)) => o + core.pipe.params.dram_latency + b,
                    // (No way to external memory: the engine's reads of it
                    // fault, which `dma_bound` leaves to its next move.)
                    _ => 0,
                }
            })
            .collect();
        let nodes: Vec<NodeId> = m.cores.iter().map(|c| node(c.id)).collect();
        // (An uncontended packet's latency depends on the hops alone, and
        // the first core is at a corner: every distance of the chip is
        // seen from it.)
        let mut by_hops = vec![u64::MAX; (c.rows + c.cols) as usize];
        for &n in &nodes {
            let h = nodes[0].hops(n) as usize;
            by_hops[h] = by_hops[h].min(pair_latency(&mesh, nodes[0], n));
        }
        let near = by_hops
            .get(1)
            .copied()
            .unwrap_or(u64::MAX)
            .min(u64::MAX / 4);
        let cores = nodes.len();
        let lat = if cores <= REACH_SCAN {
            (0..cores * cores)
                .map(|x| {
                    let (i, k) = (x / cores, x % cores);
                    if i == k {
                        u64::MAX
                    } else {
                        by_hops[nodes[k].hops(nodes[i]) as usize]
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        Timed {
            nodes,
            by_hops,
            near,
            lat,
            port_out,
            port_back,
            min_out,
            fetches: VecDeque::new(),
            refused: Vec::new(),
            freed: Vec::new(),
            parked_at: None,
            settling: false,
            ahead_settle: false,
            kept_parked: 0,
            ended_ahead: 0,
            reads_ahead: 0,
            settled_ahead: 0,
            dram_trip,
            regs_until: u64::MAX,
            touched: vec![0; m.cores.len()],
            direct_before: NO_DIRECT,
            dram_reads: 0,
            agents: vec![agent; m.cores.len()],
            payloads: Vec::new(),
            free: Vec::new(),
            arrivals: Vec::new(),
            lookahead: WIRE_LATENCY.max(1),
            strict: false,
            rollbacks: 0,
            turns: 0,
            queue: MinTree::new(m.cores.len()),
            dirty: Vec::new(),
            outbox: VecDeque::new(),
            dram_writes: vec![0; m.cores.len()],
            held_reads: vec![VecDeque::new(); m.cores.len()],
            loops: [LoopLink::default(); 4],
            read_busy: vec![0; m.cores.len()],
            dram_busy: 0,
            solo_until: 0,
            solo_bound: mesh.solo_bound(),
            solo_loads: 0,
            mesh: Box::new(mesh),
        }
    }

    fn tag(&mut self, p: Payload) -> u64 {
        match self.free.pop() {
            Some(t) => {
                self.payloads[t as usize] = Some(p);
                t
            }
            None => {
                self.payloads.push(Some(p));
                (self.payloads.len() - 1) as u64
            }
        }
    }

    /// Queues a response to be sent at cycle `at` (see `outbox`).
    fn queue_response(&mut self, at: u64, external: bool, packet: Packet) {
        let pos = self.outbox.partition_point(|&(when, _, _)| when <= at);
        self.outbox.insert(pos, (at, external, packet));
    }

    /// Makes `d` due at core `k` in cycle `at`, after anything already due
    /// then or earlier.
    fn due(&mut self, k: usize, at: u64, d: Delivery) {
        let inbox = &mut self.agents[k].inbox;
        if inbox.back().is_none_or(|&(when, _)| when <= at) {
            // (Most often: after all, without a search.)
            inbox.push_back((at, d));
        } else {
            let pos = inbox.partition_point(|&(when, _)| when <= at);
            inbox.insert(pos, (at, d));
        }
        self.dirty.push(k);
    }

    /// The cycle to retry an injection the mesh refused at core `k`'s
    /// node `n` (its queue was full): `PARKED`, the first cycle a place
    /// frees in that queue, which the mesh reports as it advances
    /// (`Machine::advance_mesh`). Every retry before then would be refused
    /// again (only the node's own injections fill its queue), so this
    /// gives what retrying every cycle gives, in one step. A DMA engine
    /// reprogrammed meanwhile may want another move, so it retries at
    /// once (`wake_refused`).
    fn refused_at(&mut self, k: usize, n: NodeId) -> u64 {
        if !self.refused.contains(&k) {
            self.refused.push(k);
        }
        self.mesh.watch_queue(n);
        PARKED
    }

    /// Queues `read`, a read request reaching core `i`'s memory at `at`,
    /// if the memory is answering an earlier read (busy then, or others
    /// waiting): it waits its turn behind those already waiting, and the
    /// first of them is answered when the memory is free. Gives the cycle
    /// that answer became due at (`u64::MAX`: it was due already), or
    /// `None` with nothing queued: the memory answers it at once.
    fn queue_read(&mut self, i: usize, at: u64, read: WaitingRead) -> Option<u64> {
        let free = self.read_busy[i];
        let reads = &mut self.agents[i].reads;
        if free <= at && reads.is_empty() {
            return None;
        }
        reads.push_back(read);
        if reads.len() > 1 {
            return Some(u64::MAX);
        }
        self.due(i, free, Delivery::Serve);
        Some(free)
    }

    /// Core `k`'s access (the instruction issuing at `issue`) waits for a
    /// place to free in node `n`'s queue before it goes out
    /// ([`Timed::refused_at`]).
    fn wait_for_place(&mut self, k: usize, n: NodeId, access: RemoteAccess, issue: u64) {
        let at = self.refused_at(k, n);
        self.agents[k].wait = Wait::Emit { access, issue, at };
    }

    /// The first cycle a refused injection can be retried in (a place
    /// freeing in a queue is one of the network's own events, after the
    /// cycle it has reached); `u64::MAX` if none waits.
    fn parked_bound(&self) -> u64 {
        if self.refused.is_empty() {
            return u64::MAX;
        }
        let next = self.mesh.now() + 1;
        self.mesh.next_event().map_or(next, |e| e.max(next))
    }

    /// Core `k`'s refused access and DMA move, if waiting for a place in
    /// its node's queue, are retried at cycle `at`.
    fn unpark(&mut self, k: usize, at: u64) {
        let Some(p) = self.refused.iter().position(|&r| r == k) else {
            return;
        };
        self.refused.swap_remove(p);
        let a = &mut self.agents[k];
        if let Wait::Emit { at: r, issue, .. } = &mut a.wait {
            if *r == PARKED {
                *r = at.max(*issue);
            }
        }
        if a.dma_retry == Some(PARKED) {
            a.dma_retry = Some(at);
        }
        self.dirty.push(k);
    }

    /// A DMA engine's registers were written at cycle `at`: every refused
    /// injection is retried from the next cycle on, and not before the
    /// cycle the network has reached (`Mesh::now`, where a place freeing
    /// retries one too, `Machine::advance_mesh`): a core whose system call
    /// waited for its stores to external memory to land (`Wait::Drain`)
    /// acts at its own cycle, behind the network, and a retry keyed to
    /// that cycle would be injected into the network's past. (Only one
    /// still waiting: a DMA engine that has since moved keeps the pace of
    /// its path into the mesh.)
    fn wake_refused(&mut self, at: u64) {
        let retry = (at + 1).max(self.mesh.now());
        for k in self.refused.clone() {
            self.unpark(k, retry);
        }
    }

    /// The first cycle another core's action (or its DMA engine's, or a
    /// delivery due at it) could reach core `i`, its own action and the
    /// rest aside: the least, over the other cores' earliest actions, of
    /// that cycle plus the cycles from that core to `i` (a packet from its
    /// node, or its SYNC). `one`: a wire could reach `i` one cycle after
    /// any action (its WAND flag is set: any core's WAND may complete the
    /// barrier). Besides, anything at any node from cycle `c` reaches
    /// `i` from `c` plus the least of those latencies: a packet arriving
    /// (its core answers a read, wakes up) and `parked`, a refused
    /// injection's retry (any core's).
    fn reach(&self, i: usize, one: bool, parked: u64) -> u64 {
        let near = if one { self.lookahead } else { self.near };
        let anywhere = self
            .mesh
            .earliest_arrival_bound()
            .map_or(parked, |b| b.min(parked));
        let start = anywhere.saturating_add(near);
        if !self.lat.is_empty() {
            // (Few cores: every entry is looked at, without the tree's
            // pruning. The same least: every other core is at least `near`
            // away, and an empty slot's or a parked core's cycle, read
            // back as `u64::MAX - 1`, plus one or more is `u64::MAX`.)
            let n = self.nodes.len();
            let keys = &self.queue.slots()[..n];
            let mut best = start;
            if one {
                for (k, &key) in keys.iter().enumerate() {
                    if k != i {
                        best = best.min(key_cycle(key).saturating_add(self.lookahead));
                    }
                }
            } else {
                let row = &self.lat[i * n..(i + 1) * n];
                for (&key, &l) in keys.iter().zip(row) {
                    best = best.min(key_cycle(key).saturating_add(l));
                }
            }
            debug_assert_eq!(best, self.reach_search(i, one, start));
            return best;
        }
        self.reach_search(i, one, start)
    }

    /// [`Timed::reach`] by a search of the queue's tree from `start`, the
    /// bound from packets and refused injections.
    fn reach_search(&self, i: usize, one: bool, start: u64) -> u64 {
        let near = if one { self.lookahead } else { self.near };
        let best = std::cell::Cell::new(start);
        // (No entry whose cycle plus the least latency is not below the
        // best yet can come sooner.)
        self.queue.search(
            |key| key_cycle(key).saturating_add(near) < best.get(),
            |k, key| {
                let e = key_cycle(key);
                if k != i {
                    let l = if one {
                        self.lookahead
                    } else {
                        self.latency(k, i)
                    };
                    best.set(best.get().min(e.saturating_add(l)));
                }
            },
        );
        best.get()
    }

    /// Cycles from core `j`'s SYNC to the interrupt at core `i`: the wave
    /// crosses the mesh as fast as a packet from `j`'s node would
    /// (sim/TIMING.md), [`WIRE_LATENCY`] at `j` itself.
    fn sync_latency(&self, j: usize, i: usize) -> u64 {
        if i == j {
            WIRE_LATENCY
        } else {
            self.latency(j, i)
        }
    }

    /// The least cycles from an action of core `j` to its effect at another
    /// core `i`.
    fn latency(&self, j: usize, i: usize) -> u64 {
        self.by_hops[self.nodes[j].hops(self.nodes[i]) as usize]
    }

    fn untag(&mut self, tag: u64) -> Option<Payload> {
        let p = self.payloads.get_mut(tag as usize)?.take();
        if p.is_some() {
            self.free.push(tag);
        }
        p
    }
}

/// The node of a core.
fn node(id: CoreId) -> NodeId {
    NodeId::new(id.row, id.col)
}

/// The least cycles from an action at node `from` to its effect at
/// another node `to`: the fastest packet between them (at least
/// [`WIRE_LATENCY`]).
fn pair_latency(mesh: &Mesh, from: NodeId, to: NodeId) -> u64 {
    [Kind::Write, Kind::ReadRequest, Kind::ReadResponse]
        .into_iter()
        .filter_map(|k| mesh.min_latency(from, Dest::Node(to), k))
        .min()
        .unwrap_or(WIRE_LATENCY)
        .max(WIRE_LATENCY)
}

fn size_of(bytes: u8) -> Size {
    match bytes {
        1 => Size::Byte,
        2 => Size::Half,
        4 => Size::Word,
        _ => Size::Double,
    }
}

impl Machine {
    /// When core `i` acts next on its own (`u64::MAX`: only a delivery can
    /// make it), and when its DMA engine does.
    fn earliest(&self, t: &Timed, i: usize) -> (u64, u64) {
        let core = &self.cores[i];
        let own = match t.agents[i].wait {
            Wait::Emit { at, .. } => at,
            Wait::Settle(_) => core.stats.cycles,
            Wait::Drain(_) if t.dram_writes[i] > 0 => u64::MAX,
            Wait::Drain(_) => core.stats.cycles,
            Wait::Response { .. } => u64::MAX,
            // (Acting only once the run ends, which `schedule_timed` sees
            // first: not a horizon for the others; or when a timer
            // counting clock cycles could fire.)
            Wait::Spin => core.spin_deadline().min(u64::MAX - 1),
            Wait::Nothing => match core.run {
                RunState::Running => core.stats.cycles,
                RunState::Idle if core.can_wake() => core.stats.cycles,
                RunState::Idle => idle_wakeup(&core.state)
                    .map_or(u64::MAX, |w| core.stats.cycles.saturating_add(w)),
                RunState::Halted => u64::MAX,
            },
        };
        let dma = match (core.dma.next_ready(), t.agents[i].dma_retry) {
            (Some(r), Some(x)) => r.max(x),
            (Some(r), None) => r,
            _ => u64::MAX,
        };
        (own, dma)
    }

    /// Whether the scheduler looks at core `k`: a core of the group that
    /// runs, sleeps, waits or has DMA or deliveries pending; another core
    /// while deliveries are due at it.
    fn in_scan(&self, t: &Timed, k: usize) -> bool {
        let c = &self.cores[k];
        let a = &t.agents[k];
        if self.in_group(k) {
            c.run != RunState::Halted
                || !a.inbox.is_empty()
                || a.wait != Wait::Nothing
                || c.dma.next_ready().is_some()
        } else {
            !a.inbox.is_empty()
        }
    }

    /// Puts core `k`'s earliest actions, as they are now, in the
    /// scheduler's queue.
    fn refresh(&self, t: &mut Timed, k: usize) {
        if !self.in_scan(t, k) {
            t.queue.set(k, evq::NONE);
            return;
        }
        let (o, d) = self.earliest(t, k);
        let delivery = t.agents[k].inbox.front().map(|&(at, _)| at);
        let mut first: Option<(u64, Rank, usize)> = None;
        for (time, rank) in [
            (delivery.unwrap_or(u64::MAX), Rank::Delivery),
            (o, Rank::Core),
            (d, Rank::Dma),
        ] {
            if time != u64::MAX && first.is_none_or(|f| (time, rank, k) < f) {
                first = Some((time, rank, k));
            }
        }
        t.queue
            .set(k, first.map_or(evq::NONE, |(e, r, k)| queue_key(e, r, k)));
    }

    /// Runs in timed mode until the program ends, faults, or the cycle
    /// `max` comes, or the cores of `watch` are idle.
    pub(crate) fn schedule_timed(
        &mut self,
        t: &mut Timed,
        max: u64,
        mut watch: Option<&mut IdleWatch>,
    ) -> StopReason {
        for n in &mut t.touched {
            // (The host may have written anything since the last run.)
            *n += 1;
        }
        if !t.settling {
            for core in &mut self.cores {
                core.dram_via_mesh = true;
                // (The host may have written it since the last run.)
                core.spin_check();
            }
            // Anything may have changed since the last run (a load, the
            // host): refused injections are retried.
            t.dirty.extend(0..self.cores.len());
            let retry = t.mesh.now() + 1;
            for k in t.refused.clone() {
                t.unpark(k, retry);
            }
        }
        // How far past the limit a core may run ahead
        // (`Machine::run_past_limit`): not in a run that must leave every
        // core at its end.
        let past = if self.run_past_limit && !t.settling && watch.is_none() {
            MAX_WINDOW
        } else {
            0
        };
        let mut watched_changed = true;
        let mut cond = None;
        // The cycle after the last action's.
        let mut floor = 0;
        'step: loop {
            // Every agent's earliest action: the group's cores and any
            // other core a packet is due at, kept ordered; only the cores
            // something happened to are looked at again.
            while let Some(k) = t.dirty.pop() {
                self.refresh(t, k);
                if let Some(w) = watch.as_deref_mut() {
                    if w.watches(k) {
                        w.note(self, Some(t), k, floor);
                        watched_changed = true;
                    }
                }
            }
            // A watch whose condition holds from cycle `c` makes `c` the
            // limit: every agent acts up to it (and may end it).
            if watched_changed {
                watched_changed = false;
                if let Some(w) = watch.as_deref() {
                    cond = w.at().filter(|&c| c <= max);
                }
            }
            let limit = cond.unwrap_or(max);
            let (first, second) = t.queue.first_two();
            let mut next = key_action(first);
            // The two smallest earliest actions of any core (an action of
            // its own, its DMA engine's, a delivery), for the horizons.
            let least = [first, second]
                .map(|key| key_action(key).map_or((u64::MAX, usize::MAX), |(e, _, i)| (e, i)));
            // Responses waiting to be sent (from external memory, or from a
            // node whose queue was full).
            let ext_at = t.outbox.front().map(|e| e.0);
            if let Some(at) = ext_at {
                if next.is_none_or(|n| (at, Rank::Delivery, usize::MAX) < n) {
                    next = Some((at, Rank::Delivery, usize::MAX));
                }
            }
            // Fetches of DRAM code reaching external memory.
            let fetch_at = t.fetches.front().map(|e| e.0);
            if let Some(at) = fetch_at {
                if next.is_none_or(|n| (at, Rank::Delivery, FETCHES) < n) {
                    next = Some((at, Rank::Delivery, FETCHES));
                }
            }
            // Nothing can be injected before `frontier`: the mesh may run
            // up to it (and must, before anything arriving by then is
            // missed).
            let frontier = next.map_or(u64::MAX, |n| n.0);
            // An advance in which nothing arrived at a core, no core's
            // stores to external memory all landed, no response became the
            // first to send and no place freed for a refused injection
            // changes nothing the steps above looked at (no core is dirty,
            // the queue, `outbox`'s first and `fetches` are as they were;
            // a write reaching external memory, or a read there whose
            // response leaves after another's, only changes the memory):
            // the mesh is looked at again from here.
            loop {
                if let Some(bound) = t.mesh.earliest_arrival_bound() {
                    if bound <= frontier && bound < limit {
                        // (What arrived, arrived by the cycle reached:
                        // `bound`, or earlier where a place freed for a
                        // refused injection.)
                        // (Not while traced, watched, or in strict
                        // order, the reference.)
                        if !t.strict && self.trace.is_none() && watch.is_none() {
                            t.direct_before = direct_bound(next);
                        }
                        floor = self.advance_mesh(t, bound) + 1;
                        t.direct_before = NO_DIRECT;
                        if t.dirty.is_empty() && t.outbox.front().map(|e| e.0) == ext_at {
                            continue;
                        }
                        continue 'step;
                    }
                }
                // A refused injection waits for a place to free in its
                // node's queue: the mesh runs up to the next action
                // (nothing arrives by then), or to the first cycle a place
                // frees in a queue something waits for, where that retry
                // is the next action.
                if !t.refused.is_empty() {
                    let to = frontier.min(limit.saturating_sub(1));
                    if t.mesh.now() < to {
                        self.advance_mesh(t, to);
                        if t.dirty.is_empty() && t.outbox.front().map(|e| e.0) == ext_at {
                            continue;
                        }
                        continue 'step;
                    }
                }
                break;
            }
            let parked = t.parked_bound();
            if let Some(c) = cond {
                if next.is_none_or(|n| n.0 >= c) && self.unspin_all(t, c) {
                    continue;
                }
                if next.is_none_or(|n| n.0 >= c) {
                    // A core that ran ahead past `c` before it was known
                    // goes back and runs up to it.
                    if self.roll_back_past(t, c) {
                        continue;
                    }
                    return self.limit_reached(c, cond, watch);
                }
            }
            let Some((time, rank, i)) = next else {
                // (A core that ran ahead past the limit, allowed to, has
                // not yet stopped for good: the host may reach it before.)
                if t.mesh.earliest_arrival_bound().is_some()
                    || (past > 0 && self.any_ran_past(t, limit))
                {
                    // Only packets in flight, arriving at the limit or
                    // later: the run goes on from there.
                    self.now = self.now.max(limit);
                    return StopReason::CycleLimit { cycles: limit };
                }
                // Every core has stopped: the run ends when the last one
                // did (a core going idle acts on nothing that moves `now`).
                for &g in &self.group {
                    self.now = self.now.max(self.cores[g].stats.cycles);
                }
                return self.finished();
            };
            if self.trace.is_some() {
                // Lines of cycles before every core's next one are final.
                let mut upto = time;
                for k in 0..self.cores.len() {
                    if !self.in_scan(t, k) {
                        continue;
                    }
                    let c = &self.cores[k];
                    let next_line = match (c.run, t.agents[k].wait) {
                        (RunState::Idle, Wait::Nothing) if !c.can_wake() => self.earliest(t, k).0,
                        _ => c.stats.cycles.saturating_sub(1),
                    };
                    upto = upto.min(next_line);
                }
                if let Some(tr) = self.trace.as_mut() {
                    tr.release(upto);
                }
            }
            if i < self.cores.len() {
                // What it does changes its earliest actions.
                t.dirty.push(i);
            }
            if time >= limit {
                if self.keep_parked
                    && (!t.settling || t.ahead_settle)
                    && watch.is_none()
                    && !t.strict
                    && self.trace.is_none()
                    && t.agents.iter().any(|a| a.wait == Wait::Spin)
                {
                    // Spinning cores stay parked: they run up to the limit
                    // only if the machine is looked at before a later run
                    // (`Machine::settle_parked`).
                    t.parked_at = Some(limit);
                    t.kept_parked += 1;
                    self.now = self.now.max(limit);
                    return StopReason::CycleLimit { cycles: limit };
                }
                // Spinning cores run up to the limit first.
                if self.unspin_all(t, limit) {
                    continue;
                }
                self.now = self.now.max(limit);
                return StopReason::CycleLimit { cycles: limit };
            }
            if i < self.cores.len() && t.agents[i].wait == Wait::Spin {
                // Its DMA engine moves, or a read response or a write from
                // the mesh arrives, leaving what its loop reads as it was:
                // done with the core left parked (every iteration stays
                // the same).
                // (One that ran ahead to poll past `time` goes back
                // first; else what it did is final.)
                let parked = match rank {
                    _ if t.agents[i].speculating && self.cores[i].stats.cycles > time => false,
                    Rank::Dma => true,
                    Rank::Delivery => {
                        self.cores[i].spin_find_reads();
                        self.quiet_response(t, i) || self.quiet_write(t, i)
                    }
                    Rank::Core => false,
                };
                if parked {
                    floor = time + 1;
                    let stop = match rank {
                        Rank::Dma => self.dma_cycle(t, i, time, true),
                        _ => self.deliver(t, i),
                    };
                    // (What it wrote into the core's SRAM, if it stayed
                    // parked, is none of the loop's business.)
                    self.cores[i].spin_writes_seen();
                    if let Some(stop) = stop {
                        return self.stop_here(t, (time, rank, i), stop);
                    }
                    continue;
                }
                // Something reaches a spinning core (or, with no limit in
                // sight, a long while passes): it runs up to then first.
                let to = if rank == Rank::Core {
                    self.cores[i].stats.cycles.saturating_add(BATCH)
                } else {
                    time
                };
                self.unspin(t, i, to);
                if rank == Rank::Delivery && watch.is_none() {
                    match self.wake_run(t, i, time) {
                        Some(Ok(())) => {
                            // The delivery is the earliest action of all
                            // again: made now, as the next step would.
                            floor = time + 1;
                            self.cores[i].spin_forget();
                            if let Some(stop) = self.deliver(t, i) {
                                return self.stop_here(t, (time, rank, i), stop);
                            }
                        }
                        Some(Err((at, stop))) => {
                            return self.stop_here(t, (at, Rank::Core, i), stop);
                        }
                        None => {}
                    }
                }
                continue;
            }
            floor = time + 1;
            if i < self.cores.len() && rank != Rank::Core {
                // Something else writes the core's memory or registers:
                // a loop it polls is watched afresh.
                self.cores[i].spin_forget();
            }
            let stop = match rank {
                Rank::Delivery if i == usize::MAX => {
                    self.send_response(t);
                    None
                }
                Rank::Delivery if i == FETCHES => {
                    self.fetch_arrival(t);
                    None
                }
                Rank::Delivery => self.deliver(t, i),
                Rank::Dma => self.dma_cycle(t, i, time, false),
                Rank::Core => match t.agents[i].wait {
                    Wait::Emit { access, issue, at } => {
                        // The earliest action of all: what the core did
                        // before it is final.
                        self.commit(t, i);
                        self.emit(t, i, access, issue, at)
                    }
                    Wait::Settle(exit) if t.dram_writes[i] > 0 && exit != CoreExit::Wand => {
                        // A system call reads memory as the core wrote it:
                        // its stores to external memory land first.
                        self.commit(t, i);
                        t.agents[i].wait = Wait::Drain(exit);
                        None
                    }
                    Wait::Settle(exit) => {
                        self.commit(t, i);
                        t.agents[i].wait = Wait::Nothing;
                        self.after_run(t, i, exit)
                    }
                    Wait::Drain(exit) => {
                        t.agents[i].wait = Wait::Settle(exit);
                        None
                    }
                    _ => {
                        self.commit(t, i);
                        // (A refused DMA move waits for a place in the
                        // queue: not before `parked`.)
                        let dma_i = match t.agents[i].dma_retry {
                            Some(PARKED) => parked,
                            _ => self.earliest(t, i).1,
                        };
                        // The horizon: the first cycle something else
                        // could reach this core.
                        // (Traced, a shorter batch: the lines of other
                        // cores wait for the slowest to be merged.)
                        let batch = if self.trace.is_some() {
                            BATCH >> 6
                        } else {
                            BATCH
                        };
                        let mut horizon = limit.min(time.saturating_add(batch));
                        if let Some(&(at, _)) = t.agents[i].inbox.front() {
                            horizon = horizon.min(at);
                        }
                        let arriving = t
                            .mesh
                            .next_arrival_bound(Dest::Node(node(self.cores[i].id)));
                        if let Some(b) = arriving {
                            horizon = horizon.min(b);
                        }
                        horizon = horizon.min(self.dma_bound(t, i, dma_i));
                        if let Some(at) = ext_at {
                            horizon = horizon.min(at.saturating_add(t.lookahead));
                        }
                        if let Some(at) = fetch_at {
                            horizon = horizon.min(at.saturating_add(t.lookahead));
                        }
                        // A wire reaches a core one cycle after any action
                        // while its WAND flag is set (a WAND anywhere may
                        // complete the barrier), and while a watch may end
                        // the run at any core's cycle; else anything takes
                        // at least a packet's trip from another node.
                        let one =
                            watch.is_some() || self.cores[i].state.status() & status::WAND != 0;
                        // Every other core's earliest action (and packets
                        // arriving anywhere, refused injections waiting for
                        // a place), plus the time it takes to reach this
                        // one.
                        horizon = horizon.min(t.reach(i, one, parked));
                        let others = if least[0].1 == i {
                            least[1].0
                        } else {
                            least[0].0
                        };
                        let others = others.min(parked);
                        if t.strict {
                            horizon = horizon.min(time + 1);
                        }
                        // Where only this core's own choices could be
                        // undone: deliveries due, packets on their way,
                        // its DMA engine.
                        let mut hard = limit
                            .saturating_add(t.past_allowed(i, past, time))
                            .min(time.saturating_add(BATCH));
                        if let Some(&(at, _)) = t.agents[i].inbox.front() {
                            hard = hard.min(at);
                        }
                        if let Some(b) = arriving {
                            hard = hard.min(b);
                        }
                        // (Past a move only if the safe horizon is not:
                        // `dma_bound` found reads of external memory.)
                        hard = if horizon > dma_i.saturating_add(1) {
                            hard.min(dma_i.saturating_add(1))
                        } else {
                            hard.min(self.send_bound(t, i, dma_i))
                        };
                        // The first cycle a read other than this core's
                        // fetches could reach external memory: until then
                        // the core times its fetches from DRAM itself.
                        let free_until = if t.dram_reads > 0 || !t.fetches.is_empty() {
                            0
                        } else {
                            let mut e = others.min(dma_i);
                            if let Some(at) = ext_at {
                                e = e.min(at);
                            }
                            // (Writes to external memory make nothing act.)
                            if let Some(b) = t.mesh.earliest_node_arrival_bound() {
                                e = e.min(b);
                            }
                            if let Some(&(at, _)) = t.agents[i].inbox.front() {
                                e = e.min(at);
                            }
                            e.saturating_add(t.min_out)
                        };
                        // Nothing but this core acts before `solo_until`,
                        // and nothing is on its way: its loads from DRAM
                        // are timed in the run (`solo_load`).
                        t.solo_until = if !t.strict
                            && self.trace.is_none()
                            && t.dram_reads == 0
                            && t.fetches.is_empty()
                            && ext_at.is_none()
                            && t.refused.is_empty()
                            && t.agents[i].inbox.is_empty()
                            && t.mesh.is_idle()
                        {
                            others.min(dma_i).min(limit)
                        } else {
                            0
                        };
                        t.regs_until = dma_i.saturating_add(1);
                        let stop = self.core_turn(t, i, horizon, hard, free_until, one);
                        let a = &mut t.agents[i];
                        if a.speculating && a.spec_limit > limit {
                            a.ran_past = true;
                        }
                        t.regs_until = u64::MAX;
                        t.solo_until = 0;
                        stop
                    }
                },
            };
            if let Some(stop) = stop {
                return self.stop_here(t, (time, rank, i), stop);
            }
        }
    }

    /// The run ends at action `at` (cycle, rank, agent) with `stop` (a
    /// fault, an exit...): every other core is brought to where strict
    /// cycle order leaves it then, the cycle's end if it acts before the
    /// action in a cycle, its start if after. Every action before it is
    /// done, so nothing reaches a core on the way. A core left parked
    /// runs its loop up to there, one that ran ahead past it goes back
    /// and runs up to it. (A core's fault is acted on as its system
    /// calls are, once it is the earliest action of all: `Wait::Settle`.
    /// One whose safe run took it past, a core run before the stopping
    /// one became the earliest, stays there: a fault is not known before
    /// it happens.)
    fn stop_here(&mut self, t: &mut Timed, at: (u64, Rank, usize), stop: StopReason) -> StopReason {
        let (time, rank, i) = at;
        for k in 0..self.cores.len() {
            if rank == Rank::Core && k == i {
                continue;
            }
            let to = if (Rank::Core, k) < (rank, i) {
                time + 1
            } else {
                time
            };
            if t.agents[k].wait == Wait::Spin {
                self.unspin(t, k, to);
            } else if t.agents[k].speculating && self.cores[k].stats.cycles > to {
                self.roll_back(t, k);
            }
            let core = &self.cores[k];
            if t.agents[k].wait == Wait::Nothing
                && core.run == RunState::Running
                && core.stats.cycles < to
            {
                if let Some(exit) = self.run_core_raw(t, k, to) {
                    t.agents[k].wait = Wait::Settle(exit);
                }
            }
        }
        stop
    }

    /// Advances the mesh to the end of cycle `to`, queueing what arrives,
    /// or to the end of an earlier cycle in which a place freed in the
    /// queue of a node whose injection was refused: the cycle reached.
    fn advance_mesh(&mut self, t: &mut Timed, to: u64) -> u64 {
        let mut arrivals = std::mem::take(&mut t.arrivals);
        arrivals.clear();
        let mut freed = std::mem::take(&mut t.freed);
        let reached = t.mesh.advance_until_freed(to, &mut arrivals, &mut freed);
        // A place freed in the queue of a node whose injection was
        // refused: retried in that cycle.
        for n in freed.drain(..) {
            if let Some(k) = self.config.core_index(CoreId::new(n.row, n.col)) {
                t.unpark(k, reached);
                t.direct_before = t.direct_before.min((reached, 0));
            }
        }
        t.freed = freed;
        for a in &arrivals {
            let Some(p) = t.untag(a.tag) else { continue };
            let Dest::Node(n) = a.to else {
                self.external_arrival(t, a.at, p);
                t.direct_before = NO_DIRECT;
                continue;
            };
            let Some(k) = self.config.core_index(CoreId::new(n.row, n.col)) else {
                continue;
            };
            if (a.at, k) < t.direct_before && self.deliver_direct(t, k, a.at, p) {
                continue;
            }
            t.direct_before = t.direct_before.min((a.at, k));
            t.due(k, a.at, Delivery::Packet(p));
        }
        t.arrivals = arrivals;
        self.now = self.now.max(to.min(self.now.max(t.mesh.now())));
        reached
    }

    /// Brings the mesh to the end of cycle `at` before something is
    /// injected in it, so that a full queue is judged as of `at`. (Nothing
    /// arrives by then: the scheduler delivers arrivals before the actions
    /// of their cycle.)
    /// (A place freeing for a refused injection stops an advance early;
    /// the scheduler has run the mesh up to the action's cycle when any
    /// waits, so one freeing here is for none.)
    fn mesh_to(&mut self, t: &mut Timed, at: u64) {
        while t.mesh.now() < at {
            self.advance_mesh(t, at);
        }
    }

    /// A packet reached external memory through the eLink at cycle `at`:
    /// a write is applied; a read (or TESTSET) is performed and its
    /// response leaves `dram_latency` cycles later.
    fn external_arrival(&mut self, t: &mut Timed, at: u64, p: Payload) {
        let base = self.config.ext_base;
        let (chip, size) = (self.config.chip(), self.dram.size());
        match p {
            Payload::Write { from, access, .. } => {
                let off = dram_offset(chip, base, size, access.addr);
                let len = access.size.bytes();
                if self.dram.contains(off, len) {
                    if let RemoteKind::Store(v) = access.kind {
                        self.dram.write(off, len, v);
                    }
                }
                if t.dram_writes[from] > 0 {
                    t.dram_writes[from] -= 1;
                    if t.dram_writes[from] == 0 {
                        // (Before the last, its earliest actions and
                        // `Timed::busy` stay as they were: a system call
                        // waits for all.)
                        t.dirty.push(from);
                        while let Some(read) = t.held_reads[from].pop_front() {
                            self.external_arrival(t, at, read);
                        }
                    }
                }
            }
            Payload::ReadRequest { from, .. } if t.dram_writes[from] > 0 => {
                t.held_reads[from].push_back(p);
            }
            Payload::ReadRequest { from, access, dma } => {
                t.dram_reads -= 1;
                let off = dram_offset(chip, base, size, access.addr);
                let len = access.size.bytes();
                let value = if !self.dram.contains(off, len) {
                    Err(MemFault::Unmapped)
                } else {
                    match access.kind {
                        RemoteKind::TestSet(v) => {
                            let old = self.dram.read(off, 4);
                            if old == 0 {
                                self.dram.write(off, 4, u64::from(v));
                            }
                            Ok(old)
                        }
                        _ => Ok(self.dram.read(off, len)),
                    }
                };
                let dma = dma.map(|(ch, dst)| (ch, dst, access.size));
                let src = node(self.cores[from].id);
                let packet = self.response(t, src, from, value, dma, access.size);
                let p = &self.cores[from].pipe.params;
                let leave = p.start_read(&mut t.dram_busy, at) + p.dram_latency;
                t.queue_response(leave, true, packet);
            }
            Payload::ReadResponse { .. } => {}
        }
    }

    /// The read response, from node `src`, carrying `value` (for a DMA
    /// read: the channel, destination and size) to core `to`.
    fn response(
        &self,
        t: &mut Timed,
        src: NodeId,
        to: usize,
        value: Result<u64, MemFault>,
        dma: Option<(u8, u32, Size)>,
        size: Size,
    ) -> Packet {
        Packet {
            tag: t.tag(Payload::ReadResponse { value, dma }),
            kind: Kind::ReadResponse,
            src,
            dst: self.cores[to].id.global_base(),
            bytes: size.bytes() as u8,
        }
    }

    /// The first fetch of DRAM code reaches external memory: its read
    /// starts when the read port is free, and the line is usable
    /// `port_back` cycles after that.
    fn fetch_arrival(&mut self, t: &mut Timed) {
        let Some((at, i, sent, access)) = t.fetches.pop_front() else {
            return;
        };
        let start = self.cores[i].pipe.params.start_read(&mut t.dram_busy, at);
        let ready = start + t.port_back[i];
        self.answer(t, i, access, Ok(0), (ready - sent) as u32);
    }

    /// The first waiting response is sent (a cycle later while the queue
    /// it enters is full).
    fn send_response(&mut self, t: &mut Timed) {
        let Some((at, external, packet)) = t.outbox.pop_front() else {
            return;
        };
        self.send_now(t, at, external, packet);
    }

    /// Sends a response at cycle `at` (a cycle later while the queue it
    /// enters is full).
    fn send_now(&mut self, t: &mut Timed, at: u64, external: bool, packet: Packet) {
        self.mesh_to(t, at);
        let at = at.max(t.mesh.now());
        let sent = if external {
            t.mesh.inject_external(at, packet)
        } else {
            t.mesh.inject(at, packet)
        };
        match sent {
            Ok(()) => {}
            Err(InjectError::Full) => t.queue_response(at + 1, external, packet),
            Err(_) => {
                // No way to the requester (cannot happen for a core on the
                // chip): the response is lost, as on hardware.
                t.untag(packet.tag);
            }
        }
    }

    /// Runs core `i` until `horizon` (exclusive) or until it stops.
    fn run_core(&mut self, t: &mut Timed, i: usize, horizon: u64) -> Option<StopReason> {
        match self.run_core_raw(t, i, horizon) {
            Some(exit) => self.after_run(t, i, exit),
            None => None,
        }
    }

    /// Runs core `i` until `horizon`: the exit the machine must act on,
    /// if any (`None`: the budget ran out, the core sleeps, or it waits to
    /// send an access to another core). A store to external memory that
    /// would meet its node's full queue however soon it went out waits
    /// for a place at once (`Machine::refused_until_freed`; the network
    /// is back from a lent run by then).
    fn run_core_raw(&mut self, t: &mut Timed, i: usize, horizon: u64) -> Option<CoreExit> {
        let exit = self.run_core_lent(t, i, horizon);
        if let Wait::Emit { access, issue, at } = t.agents[i].wait {
            if self.refused_until_freed(t, i, access) {
                debug_assert_eq!(at, issue);
                t.wait_for_place(i, node(self.cores[i].id), access, issue);
            }
        }
        exit
    }

    /// [`Machine::run_core_raw`] but for a store to external memory that
    /// would meet a full queue: in a run lent the network (`SoloLoads`)
    /// or not.
    fn run_core_lent(&mut self, t: &mut Timed, i: usize, horizon: u64) -> Option<CoreExit> {
        if t.solo_until == 0 {
            return self.run_core_inner(t, i, horizon);
        }
        // Nothing but this core acts before `solo_until` and nothing is on
        // its way: the network is lent to the core for the run, and its
        // loads from DRAM that surely end before then are timed in the run
        // (`SoloLoads`).
        let core = &mut self.cores[i];
        let solo = core.solo.get_or_insert_with(|| {
            Box::new(SoloLoads {
                mesh: t.mesh.clone(),
                until: 0,
                bound: t.solo_bound,
                loads: 0,
                ext_base: self.config.ext_base,
                ext_size: self.config.ext_size,
                chip: self.config.chip(),
                waiting: None,
                block: Default::default(),
                rounds: Vec::new(),
                uncounted: 0,
                pass: None,
                fresh: true,
                posted: None,
                counted: false,
            })
        });
        std::mem::swap(&mut solo.mesh, &mut t.mesh);
        solo.until = t.solo_until;
        let ev = crate::timing::mesh_events(core.regs.meshconfig, 1);
        solo.counted = ev.mesh0 | ev.mesh1 != 0;
        let exit = self.run_core_inner(t, i, horizon);
        let Some(solo) = self.cores[i].solo.as_deref_mut() else {
            return exit;
        };
        // (The statistics of its series of trips taken at once written:
        // `SoloLoads::settle`.)
        solo.settle();
        std::mem::swap(&mut solo.mesh, &mut t.mesh);
        // (Its solo trips' router updates written: `Mesh::solo_settle`.)
        t.mesh.solo_settle();
        solo.until = 0;
        (solo.pass, solo.fresh) = (None, true);
        t.solo_loads += std::mem::take(&mut solo.loads);
        let (posted, waiting) = (solo.posted.take(), solo.waiting.take());
        if let Some(w) = posted {
            self.send_posted(t, i, w.access, w.issue);
        }
        if let Some(w) = waiting {
            // Its request reached external memory and read there; the
            // response could not be timed in the run: it is sent as
            // usual (`external_arrival`) and the core waits for it.
            let src = node(self.cores[i].id);
            let packet = self.response(t, src, i, w.value, None, w.access.size);
            t.queue_response(w.leave, true, packet);
            self.cores[i].poll_stop(None, 0, 0, 0);
            t.agents[i].wait = Wait::Response {
                access: w.access,
                issue: w.issue,
            };
            return None;
        }
        exit
    }

    /// Sends core `i`'s store `access` to DRAM, answered in a run lent the
    /// network and not landed there (`SoloLoads::post`), at its `issue`:
    /// as [`Machine::emit`] would have sent it then, the earliest action
    /// of all (nothing else acts before the run's `solo_until`, which it
    /// issued before), into the idle network (whose queues are empty) and
    /// not behind it (the run's trips all ended before the store issued).
    fn send_posted(&mut self, t: &mut Timed, i: usize, access: RemoteAccess, issue: u64) {
        debug_assert_eq!(self.way_out(i, access), Way::Mesh { external: true });
        debug_assert!(t.mesh.now() <= issue, "a posted store behind the network");
        let (_, packet) = self.access_packet(t, i, access);
        self.mesh_to(t, issue);
        let sent = t.mesh.inject(issue, packet);
        assert!(
            sent.is_ok(),
            "invariant: an idle network takes a posted store"
        );
        t.dram_writes[i] += 1;
    }

    /// [`Machine::run_core_raw`] with the network where it is.
    fn run_core_inner(&mut self, t: &mut Timed, i: usize, horizon: u64) -> Option<CoreExit> {
        let core = &mut self.cores[i];
        if core.run == RunState::Idle && !core.can_wake() {
            // Its timer wakes it now.
            core.sleep_until_timer();
            return None;
        }
        let start = core.stats.cycles;
        let mut budget = horizon.saturating_sub(start).max(1);
        // Until `horizon` nothing but the core changes its DMA engine (its
        // next move is at the horizon at the earliest, and anything
        // reaching the core comes later, or makes a core running ahead go
        // back): reads of its registers are answered in the run. (Not
        // traced: a trace shows them as the machine answers them.)
        core.dma_direct = self.trace.is_none() && horizon <= t.regs_until;
        let exit = loop {
            let mut shared = Shared {
                dram: &mut self.dram,
                ext_base: self.config.ext_base,
            };
            let exit = core.run(
                &mut shared,
                budget,
                self.config.fault_policy,
                self.config.mode,
                self.trace.as_mut(),
            );
            // A read of its own DMA registers (a core polling a channel's
            // status) issuing before `horizon` is answered here: until
            // then neither the engine (its next move is at the horizon at
            // the earliest) nor anything reaching the core (a read's data,
            // a write to the registers) changes what it reads, so this is
            // what the machine would answer when the read became the
            // earliest action of all (`emit`), without the round trip.
            let CoreExit::Remote { access, .. } = exit else {
                break exit;
            };
            let own = access.addr & 0xFFF0_0000 == core.id.global_base()
                && is_dma(access.addr & 0xF_FFFF);
            if !own || access.kind != RemoteKind::Load {
                break exit;
            }
            let issue = core.probe_issue(&mut shared, &access);
            if issue >= horizon.min(t.regs_until) {
                if issue < horizon {
                    // (Past its DMA engine's next move: `dma_bound`.)
                    t.agents[i].dma_polled = issue;
                }
                core.poll_stop(None, 0, 0, 0);
                t.agents[i].wait = Wait::Emit {
                    access,
                    issue,
                    at: issue,
                };
                return None;
            }
            let value = core.serve(&mut shared, access, issue);
            core.answer = Some(Answer {
                addr: access.addr,
                value,
                latency: 0,
            });
            budget = horizon.saturating_sub(core.stats.cycles).max(1);
        };
        match exit {
            CoreExit::Budget if core.spinning() => {
                t.agents[i].wait = Wait::Spin;
                None
            }
            CoreExit::Budget | CoreExit::Idle => None,
            CoreExit::Remote { access, .. } => {
                let mut shared = Shared {
                    dram: &mut self.dram,
                    ext_base: self.config.ext_base,
                };
                let issue = core.probe_issue(&mut shared, &access);
                t.agents[i].wait = Wait::Emit {
                    access,
                    issue,
                    at: issue,
                };
                // A read of another core's memory: perhaps one of a loop
                // polling it (`Core::poll_stop`).
                let polled = matches!(access.kind, RemoteKind::Load | RemoteKind::TestSet(_))
                    && self
                        .config
                        .core_index(CoreId::from_bits(access.addr >> 20))
                        .is_some_and(|k| k != i);
                let core = &mut self.cores[i];
                core.poll_stop(polled.then_some(access), issue, t.touched[i], t.solo_loads);
                None
            }
            // A system call sees memory, and acts on the host, as of its
            // cycle: once that is the earliest action of all.
            // So does arriving at the WAND barrier: whether it completes
            // it depends on where the others are then (a core that ran
            // further has not arrived yet, `timed_wand`).
            // So does a fault: which of several cores faulting in one
            // cycle stops the run is the machine's order's first.
            exit @ (CoreExit::Trap { .. } | CoreExit::Wand | CoreExit::Fault(_)) => {
                t.agents[i].wait = Wait::Settle(exit);
                None
            }
            // Anything else once its DMA engine's moves before it are
            // made (`Core::dma_detached`).
            exit if core.dma_detached => {
                t.agents[i].wait = Wait::Settle(exit);
                None
            }
            other => Some(other),
        }
    }

    /// Whether core `i`'s store `access` to external memory would be
    /// refused at its node's full queue however soon it went out: the
    /// queue it enters (the xMesh's) is full as of the cycle the network
    /// has reached, and nothing but a place freeing in it (which the mesh
    /// reports, `Timed::refused_at`) lets it through. Such a store waits
    /// for that place at once, as if it had been refused at its issue
    /// (the retry comes at the issue if the place frees by then,
    /// `Timed::unpark`), instead of going out at its issue only to be
    /// refused: a core storing to DRAM through a saturated eLink costs one
    /// step per store, not two. A store behind the network
    /// (`behind_network`) would go out at the cycle the network has
    /// reached and be refused there just the same; one taken back by a
    /// roll-back leaves the core among the refused, which only retries it
    /// to no effect when the place frees. Not for an access of another
    /// kind, nor for a store to a core (another queue;
    /// `Machine::way_out`), nor in strict order, which proves it exact
    /// (sim/tests/multicore.rs, `store_full`).
    fn refused_until_freed(&self, t: &Timed, i: usize, access: RemoteAccess) -> bool {
        !t.strict
            && matches!(access.kind, RemoteKind::Store(_))
            && self.way_out(i, access) == (Way::Mesh { external: true })
            && t.mesh.queue_full(node(self.cores[i].id), Net::XMesh)
    }

    /// Acts on what stopped core `i` (other than its budget, sleep or a
    /// remote access).
    fn after_run(&mut self, t: &mut Timed, i: usize, exit: CoreExit) -> Option<StopReason> {
        t.touched[i] += 1;
        self.now = self.now.max(self.cores[i].stats.cycles);
        match exit {
            CoreExit::Wand => {
                self.timed_wand(t, i);
                None
            }
            CoreExit::Sync => {
                let now = self.cores[i].stats.cycles;
                for g in self.group_indexes().to_vec() {
                    let at = now + t.sync_latency(i, g);
                    t.due(g, at, Delivery::Wire(irq::SYNC));
                }
                None
            }
            other => self.settle(i, other),
        }
    }

    /// Core `i` arrives at the WAND barrier, its arrival being the earliest
    /// action of all (`Wait::Settle`): when that completes the barrier
    /// (every core of the group has STATUS.WAND set), each gets the WAND
    /// interrupt.
    fn timed_wand(&mut self, t: &mut Timed, i: usize) {
        // The other flags as they stand at this cycle. Every other core
        // acts at this cycle or later, so one behind it waits (asleep, for
        // a response...) and keeps its flag until then; one that ran
        // further has not arrived yet if its WAND waits to be acted on
        // (`waiting`), and one that ran ahead of it from a checkpoint goes
        // back: it runs up to this cycle again (its flag may change on
        // the way) before this arrival is looked at again; unless its flag
        // has been clear since this cycle or before (`Core::wand_clear_from`):
        // it was clear then, and the barrier does not complete.
        let now = self.cores[i].stats.cycles;
        let mut back = false;
        for g in self.group_indexes().to_vec() {
            if g != i
                && t.agents[g].speculating
                && self.cores[g].stats.cycles > now
                && self.cores[g].wand_clear_from > now
            {
                self.roll_back(t, g);
                back = true;
            }
        }
        if back {
            t.agents[i].wait = Wait::Settle(CoreExit::Wand);
            t.dirty.push(i);
            return;
        }
        let waiting = |g: &usize| t.agents[*g].wait == Wait::Settle(CoreExit::Wand);
        if self.wand_arrive() && !self.group_indexes().iter().any(waiting) {
            let at = now + WIRE_LATENCY;
            for g in self.group_indexes().to_vec() {
                t.due(g, at, Delivery::Wire(irq::WAND));
            }
        }
    }

    /// Sends core `i`'s access (the instruction issuing at `issue`) at
    /// cycle `at`: into the mesh, or to its own DMA engine.
    fn emit(
        &mut self,
        t: &mut Timed,
        i: usize,
        access: RemoteAccess,
        issue: u64,
        at: u64,
    ) -> Option<StopReason> {
        if let RemoteKind::Multicast(v) = access.kind {
            if self.behind_network(t, i, access, issue, at) {
                return None;
            }
            return self.emit_multicast(t, i, access, v, issue, at);
        }
        let from = self.cores[i].id;
        let external = match self.way_out(i, access) {
            Way::Mesh { external } => external,
            Way::Other => {
                if !self.emit_looped(t, i, access, issue, at) {
                    self.answer(t, i, access, Err(MemFault::Unmapped), 0);
                }
                return None;
            }
            Way::DramPort => {
                // A line of DRAM code: to external memory's read port.
                let arrives = at + t.port_out[i];
                let pos = t.fetches.partition_point(|e| e.0 <= arrives);
                t.fetches.insert(pos, (arrives, i, at, access));
                t.agents[i].wait = Wait::Response { access, issue };
                return None;
            }
            Way::OwnRegs => {
                // Its own DMA registers (or a register whose write waited
                // for its DMA engine's moves: `Core::dma_detached`).
                return self.emit_own_regs(t, i, access, issue, at);
            }
        };
        if self.behind_network(t, i, access, issue, at) {
            return None;
        }
        let (kind, packet) = self.access_packet(t, i, access);
        let tag = packet.tag;
        self.mesh_to(t, at);
        let sent = t.mesh.inject(at, packet);
        if sent.is_ok() {
            self.cores[i].mesh_traffic(1);
        }
        match sent {
            Ok(()) => match kind {
                Kind::ReadRequest if external => {
                    t.dram_reads += 1;
                    t.agents[i].wait = Wait::Response { access, issue };
                }
                Kind::Write if external => {
                    t.dram_writes[i] += 1;
                    let latency = (at - issue) as u32;
                    self.answer(t, i, access, Ok(0), latency);
                }
                Kind::Write => {
                    let latency = (at - issue) as u32;
                    self.answer(t, i, access, Ok(0), latency);
                }
                _ => t.agents[i].wait = Wait::Response { access, issue },
            },
            Err(InjectError::Full) => {
                t.untag(tag);
                t.wait_for_place(i, node(from), access, issue);
            }
            Err(_) => {
                t.untag(tag);
                self.answer(t, i, access, Err(MemFault::Unmapped), 0);
            }
        }
        None
    }

    /// The packet core `i`'s access (not a multicast) sends into the
    /// network, its payload tagged, and its kind.
    fn access_packet(&self, t: &mut Timed, i: usize, access: RemoteAccess) -> (Kind, Packet) {
        let (kind, payload) = match access.kind {
            RemoteKind::Store(_) | RemoteKind::Multicast(_) => (
                Kind::Write,
                Payload::Write {
                    from: i,
                    access,
                    message: false,
                    group: None,
                },
            ),
            RemoteKind::Load | RemoteKind::TestSet(_) | RemoteKind::Fetch => (
                Kind::ReadRequest,
                Payload::ReadRequest {
                    from: i,
                    access,
                    dma: None,
                },
            ),
        };
        let packet = Packet {
            tag: t.tag(payload),
            kind,
            src: node(self.cores[i].id),
            dst: access.addr,
            bytes: access.size.bytes() as u8,
        };
        (kind, packet)
    }

    /// Core `i`, in a turn up to its safe `horizon`, waits to send a store
    /// to a core issuing before then: it goes into the network at once, at
    /// its cycle, ahead of the network's own, and the core runs on (the
    /// earliest cycle anything in the network now arrives anywhere: the
    /// turn's horizon comes down to what the store can make reach it).
    /// This is what strict order does when the store becomes the earliest
    /// action: the network keeps no order among its agents within a cycle
    /// (mesh/src/wheel.rs); nothing else injects at the core's node before
    /// the horizon (a read reaching its memory, a Serve, its DMA engine's
    /// move each bound it; no response waits in `outbox`); and its queue
    /// only empties until then (its node's own injections alone fill it),
    /// so one with room as of the network's cycle has room at the store's,
    /// and a full one is left to the scheduler. Not in strict order,
    /// traced, or while running ahead; a run lent the network
    /// (`solo_until`) is not lent it again. store_reply fails without the
    /// lowered horizon (the answer lands in the core's past).
    #[cold]
    #[inline(never)]
    fn store_early(&mut self, t: &mut Timed, i: usize, horizon: u64) -> Option<u64> {
        let Wait::Emit { access, issue, at } = t.agents[i].wait else {
            return None;
        };
        // (A store a core waits to send again, refused by its node's full
        // queue, is not this; a response waiting in `outbox` from before
        // `at` would meet a queue gone past its cycle. Its callers make the
        // core's run final first: a store of a run ahead might not be sent
        // at all.)
        debug_assert!(!t.agents[i].speculating, "store_early while speculating");
        if !matches!(access.kind, RemoteKind::Store(_))
            || t.strict
            || self.trace.is_some()
            || issue >= horizon
            || at != issue
            || !t.outbox.is_empty()
        {
            return None;
        }
        // (Into the network to a core: another's SRAM or registers, or its
        // own SRAM by its global address, each arriving no sooner than the
        // horizon the turn goes on with. A queue full as of the network's
        // cycle, or a cycle before that, and `inject` refuses it.)
        if self.way_out(i, access) != (Way::Mesh { external: false }) {
            return None;
        }
        let (_, packet) = self.access_packet(t, i, access);
        if t.mesh.inject(at, packet).is_err() {
            t.untag(packet.tag);
            return None;
        }
        self.cores[i].mesh_traffic(1);
        self.answer(t, i, access, Ok(0), 0);
        // (The network is no longer idle: the core's loads from DRAM are
        // not timed in its run from here, `SoloLoads`.)
        t.solo_until = 0;
        t.mesh.earliest_arrival_bound()
    }

    /// Core `i`'s access of its own DMA registers (or of a register whose
    /// write waited for its DMA engine's moves), at cycle `at`: answered at
    /// once, and every refused injection retried from the next cycle.
    fn emit_own_regs(
        &mut self,
        t: &mut Timed,
        i: usize,
        access: RemoteAccess,
        issue: u64,
        at: u64,
    ) -> Option<StopReason> {
        let mut shared = Shared {
            dram: &mut self.dram,
            ext_base: self.config.ext_base,
        };
        let value = self.cores[i].serve(&mut shared, access, at);
        let latency = (at - issue) as u32;
        self.answer(t, i, access, value, latency);
        t.wake_refused(at);
        self.dma_stop(i)
    }

    /// How core `i`'s access (not a multicast) leaves it (`emit`).
    fn way_out(&self, i: usize, access: RemoteAccess) -> Way {
        let c = &self.config;
        let target = CoreId::from_bits(access.addr >> 20);
        match c.core_index(target) {
            Some(k)
                if k == i
                    && (is_dma(access.addr & 0xF_FFFF) || held_by_dma(access.addr & 0xF_FFFF)) =>
            {
                Way::OwnRegs
            }
            Some(_) => Way::Mesh { external: false },
            None if dram_offset(c.chip(), c.ext_base, c.ext_size, access.addr) < c.ext_size => {
                if access.kind == RemoteKind::Fetch {
                    Way::DramPort
                } else {
                    Way::Mesh { external: true }
                }
            }
            None => Way::Other,
        }
    }

    /// Whether core `i`'s access into the network (the instruction
    /// issuing at `issue`), due at cycle `at`, waits for the cycle the
    /// network has reached: nothing enters it before then. A core acts
    /// behind the network only after a system call of it waited for its
    /// stores to external memory to land (`Wait::Drain`, which leaves its
    /// clock where it was); its access then goes out when the network
    /// lets it, as one its node's queue refused (the same cycle in strict
    /// order and in the fast scheduler: until the core catches up, its
    /// actions are the earliest of all and the network stands still).
    fn behind_network(
        &mut self,
        t: &mut Timed,
        i: usize,
        access: RemoteAccess,
        issue: u64,
        at: u64,
    ) -> bool {
        let now = t.mesh.now();
        if at >= now {
            return false;
        }
        t.agents[i].wait = Wait::Emit {
            access,
            issue,
            at: now,
        };
        true
    }

    /// Sends core `i`'s store (the instruction issuing at `issue`) at
    /// cycle `at` out through a link in loopback mode and back into the
    /// chip, if it leaves through one (mesh/MESH.md, "Loopback"): false if
    /// it does not. The write reaches the link as a lone packet would
    /// (`Mesh::loop_legs`), waits for the link's transmit side, which
    /// takes the link's writes one at a time as the eLink's does (a write
    /// not continuing the last one's addresses costs the break cycles
    /// more), then for its receive side, and from there reaches the node
    /// it comes back in at; it is delivered to that core then, a packet's
    /// fastest trip from `i` at the earliest (the other cores' horizons).
    /// The routers on its way are not occupied by it: the trips out and in
    /// are timed uncontended. The store is posted, as any.
    fn emit_looped(
        &mut self,
        t: &mut Timed,
        i: usize,
        access: RemoteAccess,
        issue: u64,
        at: u64,
    ) -> bool {
        if !matches!(access.kind, RemoteKind::Store(_)) {
            return false;
        }
        let Some((looped, k)) = self.looped(access.addr) else {
            return false;
        };
        let src = node(self.cores[i].id);
        let Some(legs) = t.mesh.loop_legs(src, access.addr, looped) else {
            return false;
        };
        let link = &mut t.loops[looped.side as usize];
        let tx_start = (at + legs.out).max(link.tx_free);
        let tx_end = tx_start
            + legs.tx
            + if link.next == Some(access.addr) {
                0
            } else {
                legs.tx_break
            };
        link.tx_free = tx_end;
        link.next = Some(access.addr.wrapping_add(access.size.bytes()));
        let rx_start = (tx_end + legs.turn).max(link.rx_free);
        link.rx_free = rx_start + legs.rx;
        let arrives = (link.rx_free + legs.back).max(at + t.latency(i, k));
        let write = RemoteAccess {
            addr: looped.addr,
            ..access
        };
        t.due(
            k,
            arrives,
            Delivery::Packet(Payload::Write {
                from: i,
                access: write,
                message: false,
                group: None,
            }),
        );
        self.cores[i].mesh_traffic(1);
        let latency = (at - issue) as u32;
        self.answer(t, i, access, Ok(0), latency);
        true
    }

    /// Sends core `i`'s multicast store (the instruction issuing at
    /// `issue`) from cycle `at`: a write to every other core of the chip,
    /// in row-major order, each taken only where the MULTICAST register
    /// matches on arrival (the hardware's radial fan-out is not modelled:
    /// the writes leave the node one per cycle, as its queue allows). The
    /// store waits until the last is in.
    fn emit_multicast(
        &mut self,
        t: &mut Timed,
        i: usize,
        access: RemoteAccess,
        value: u64,
        issue: u64,
        at: u64,
    ) -> Option<StopReason> {
        let id = access.addr >> 20;
        let src = node(self.cores[i].id);
        let mut k = t.agents[i].multicast_next;
        while k < self.cores.len() {
            if k == i {
                k += 1;
                continue;
            }
            let dst = self.cores[k].id.global_base() | (access.addr & 0xF_FFFF);
            let write = RemoteAccess {
                addr: dst,
                size: access.size,
                kind: RemoteKind::Store(value),
            };
            let tag = t.tag(Payload::Write {
                from: i,
                access: write,
                message: false,
                group: Some(id),
            });
            let packet = Packet {
                tag,
                kind: Kind::Write,
                src,
                dst,
                bytes: access.size.bytes() as u8,
            };
            self.mesh_to(t, at);
            match t.mesh.inject(at, packet) {
                Ok(()) => {
                    self.cores[i].mesh_traffic(1);
                    k += 1;
                }
                Err(InjectError::Full) => {
                    t.untag(tag);
                    t.agents[i].multicast_next = k;
                    t.agents[i].wait = Wait::Emit {
                        access,
                        issue,
                        at: at.max(t.mesh.now()) + 1,
                    };
                    return None;
                }
                Err(_) => {
                    // (No way to a core of the chip: cannot happen.)
                    t.untag(tag);
                    k += 1;
                }
            }
        }
        t.agents[i].multicast_next = 0;
        self.answer(t, i, access, Ok(0), (at - issue) as u32);
        None
    }

    /// Gives core `i` the answer to its access; it runs again.
    fn answer(
        &mut self,
        t: &mut Timed,
        i: usize,
        access: RemoteAccess,
        value: Result<u64, MemFault>,
        latency: u32,
    ) {
        t.agents[i].wait = Wait::Nothing;
        t.dirty.push(i);
        self.cores[i].answer = Some(Answer {
            addr: access.addr,
            value,
            latency,
        });
    }

    /// Makes `p`, reaching core `i` at `at`, at once in the mesh's advance
    /// (true) when it is a read request the core's memory, answering
    /// others, queues (`Agent::reads`), or the response to a read the
    /// core's instruction waits for: what [`Machine::deliver`] would do
    /// with it as the next action, before any other. Only for a core not
    /// parked (`Wait::Spin`), and an arrival before `Timed::direct_before`
    /// (the scheduler's next action, lowered by every arrival left for a
    /// step of its own and by what one made here makes due, in the
    /// scheduler's order: an arrival in the cycle of a core's action comes
    /// before it): it would be the next action of all. Saves two of a
    /// remote read's steps.
    ///
    /// (A parked core is left to the step, which runs its loop up to the
    /// arrival and parks it again; queued here, its loop's period would be
    /// forgotten (`Core::spin_forget`) while it stays parked. Taking it
    /// here gave the same results on served_asleep's 98 such requests.)
    fn deliver_direct(&mut self, t: &mut Timed, i: usize, at: u64, p: Payload) -> bool {
        let a = &t.agents[i];
        if a.wait == Wait::Spin {
            return false;
        }
        match p {
            Payload::ReadRequest { from, access, dma } => {
                // (Queued, it reads nothing yet: a core that ran ahead
                // past `at` is looked at when its memory answers it,
                // `Delivery::Serve`, and a sleeping one is brought to that
                // cycle then (`Core::catch_up`). Not queued, it is
                // answered at once: its response goes into the mesh in its
                // cycle's order.)
                let Some(due) = t.queue_read(i, at, (from, access, dma)) else {
                    return false;
                };
                t.direct_before = t.direct_before.min((due, i));
                t.touched[i] += 1;
                self.cores[i].spin_forget();
                true
            }
            Payload::ReadResponse { value, dma: None } => {
                // (A core waiting for a response has committed its run,
                // and runs: one that sleeps is brought to the cycle first.)
                if a.speculating || self.cores[i].run != RunState::Running {
                    return false;
                }
                t.touched[i] += 1;
                self.cores[i].spin_forget();
                self.cores[i].mesh_traffic(1);
                let _ = self.read_returned(t, i, at, value, None);
                // (The core acts next, at its own cycle.)
                t.direct_before = NO_DIRECT;
                true
            }
            _ => false,
        }
    }

    /// Applies the first delivery due at core `i`.
    fn deliver(&mut self, t: &mut Timed, i: usize) -> Option<StopReason> {
        let (at, d) = t.agents[i].inbox.front()?;
        let at = *at;
        t.touched[i] += 1;
        let read = match d {
            Delivery::Packet(Payload::ReadRequest { access, .. }) => Some(*access),
            Delivery::Serve => t.agents[i].reads.front().map(|r| r.1),
            _ => None,
        };
        let past = read.is_some_and(|access| self.read_in_past(t, i, at, access));
        // (`write_in_past`'s cheapest tests first, here: most deliveries
        // reach a core that did not run past them.)
        let write_past = !past
            && t.agents[i].speculating
            && self.cores[i].stats.cycles > at
            && self.write_in_past(t, i, at, d);
        let sends_past = t.agents[i].sends_past && t.agents[i].speculating;
        if !past && !write_past && !self.settle_speculation(t, i, at) {
            // Rolled back before `at`: the core runs up to it first.
            if sends_past {
                // (It runs past its engine's sends again only later.)
                let a = &mut t.agents[i];
                a.sends_calm = self.cores[i].stats.cycles.saturating_add(SENDS_CALM);
            }
            return None;
        }
        let (at, d) = t.agents[i].inbox.pop_front()?;
        self.cores[i].catch_up(at);
        match d {
            Delivery::Wire(n) => self.cores[i].state.ilat |= 1 << n,
            Delivery::Packet(Payload::Write {
                access,
                message,
                group,
                ..
            }) => {
                if group.is_some_and(|id| id != self.cores[i].regs.multicast) {
                    // A multicast for another group: not taken.
                    return None;
                }
                let mut shared = Shared {
                    dram: &mut self.dram,
                    ext_base: self.config.ext_base,
                };
                if write_past {
                    // (Made at `at`, before the cycle the core's
                    // checkpoint keeps writes for: a roll-back keeps it.)
                    if let RemoteKind::Store(v) = access.kind {
                        let off = access.addr & 0xF_FFFF;
                        let sram = &mut self.cores[i].sram;
                        let _ = sram.write_unkept(off, access.size.bytes(), v);
                    }
                } else {
                    let _ = self.cores[i].serve(&mut shared, access, at);
                }
                if is_dma(access.addr & 0xF_FFFF) {
                    // A DMA engine reprogrammed.
                    t.wake_refused(at);
                }
                if !self.cores[i].spinning() {
                    // (A core left parked takes the bank when it runs on:
                    // `Machine::quiet_write`.)
                    self.cores[i].pipe.mesh_access(at, access.addr & 0xF_FFFF);
                }
                self.cores[i].mesh_traffic(1);
                if message {
                    self.cores[i].state.ilat |= 1 << irq::MESSAGE;
                }
                // (A write to ILATST, or a message, may have raised one.)
                self.interrupt_before_emit(t, i, at);
                return self.dma_stop(i);
            }
            Delivery::Packet(Payload::ReadRequest { from, access, dma }) => {
                if t.queue_read(i, at, (from, access, dma)).is_some() {
                    return None;
                }
                return self.serve_read(t, i, at, from, access, dma);
            }
            Delivery::Serve => {
                let (from, access, dma) = t.agents[i].reads.pop_front()?;
                return self.serve_read(t, i, at, from, access, dma);
            }
            Delivery::Packet(Payload::ReadResponse { value, dma, .. }) => {
                self.cores[i].mesh_traffic(1);
                return self.read_returned(t, i, at, value, dma);
            }
        }
        self.interrupt_before_emit(t, i, at);
        None
    }

    /// Whether core `i`, which ran ahead past `at`, answers `access`, a
    /// read from the mesh reaching its memory at `at`, as strict order
    /// would without going back: the read gives the bytes as they were at
    /// `at`, and takes their SRAM bank in that cycle, which delays only a
    /// fetch from that bank looking at it then (a load or store is not
    /// delayed, `Pipeline::memory`). So: a read of SRAM (registers change
    /// as the core runs) none of whose bytes were written since the
    /// checkpoint, in a bank no line was fetched from since, while the
    /// core's DMA engine, which could write them, is idle (or only sends:
    /// `untouched_since_checkpoint`). A plain read, or a TESTSET that
    /// finds the word taken (not zero: it writes nothing, as a loop
    /// waiting for a mutex another core holds finds it). The bank's use
    /// in `at` is still recorded, for fetches to come, as it would have
    /// been.
    fn read_in_past(&self, t: &Timed, i: usize, at: u64, access: RemoteAccess) -> bool {
        let (off, len) = match access.kind {
            // (The aligned line.)
            RemoteKind::Fetch => (access.addr & 0xF_FFF8, 8),
            RemoteKind::Load => (access.addr & 0xF_FFFF, access.size.bytes()),
            RemoteKind::TestSet(_) => (access.addr & 0xF_FFFF, 4),
            _ => return false,
        };
        self.untouched_since_checkpoint(t, i, at, off, len)
            && (!matches!(access.kind, RemoteKind::TestSet(_))
                || self.cores[i].sram.peek(off, len) != 0)
    }

    /// What [`Machine::read_in_past`] and [`Machine::write_in_past`] both
    /// ask of core `i` and the SRAM bytes `[off, off + len)` an access from
    /// the mesh reaches at `at`: the core ran ahead past `at` from a
    /// checkpoint, the bytes are SRAM it has not written since, in a bank
    /// it fetched no line from since, and its DMA engine is idle, or the
    /// run is one past its sends (`Agent::sends_past`): each move the
    /// core ran past only read its SRAM, at the move's own cycle, in the
    /// machine's order with the access (and one that would do more takes
    /// the core back when it comes).
    #[inline(always)]
    fn untouched_since_checkpoint(&self, t: &Timed, i: usize, at: u64, off: u32, len: u32) -> bool {
        let core = &self.cores[i];
        t.agents[i].speculating
            && core.stats.cycles > at
            && off + len <= core.sram.size()
            && core.pipe.fetched & 1 << Pipeline::bank(off) == 0
            && !core.sram.written_since_undo(off, len)
            && (!core.dma.is_busy() || t.agents[i].sends_past)
    }

    /// Whether core `i`, which ran ahead past `at`, takes `d`, a write
    /// from the mesh reaching its memory at `at`, as strict order would
    /// without going back: a plain store (no message interrupt, no
    /// multicast) into SRAM none of whose bytes the core read since its
    /// checkpoint (`CodeMem::read_since_undo`: its loads went to other
    /// pages, or to other words of a page read by loads alone) nor wrote
    /// (the write is not undone by a roll-back, made before the cycle the
    /// checkpoint keeps writes for), in a bank no
    /// line was fetched from since (its use of the bank in `at` delays
    /// only a fetch then; the code decoded there is dropped as the write
    /// is made), while the core's DMA engine, which could read or write
    /// the bytes, is idle (or only sends, each move reading them at its
    /// own cycle, before or after the write as in strict order:
    /// `untouched_since_checkpoint`) and no timer counts (mesh events, or anything:
    /// a loop polling with CTIMER counting the clock is better taken back
    /// and parked, as is one found in its fixed point; a parked core has
    /// `Core::spin_quiet_write`). The core then goes on from where it
    /// stands: it did nothing that depends on the bytes, and a roll-back
    /// for a later event runs it again the same way up to that event.
    #[inline(never)]
    fn write_in_past(&self, t: &Timed, i: usize, at: u64, d: &Delivery) -> bool {
        let Delivery::Packet(Payload::Write {
            access,
            message: false,
            group: None,
            ..
        }) = d
        else {
            return false;
        };
        let core = &self.cores[i];
        if t.agents[i].wait == Wait::Spin
            || core.polling()
            || crate::timing::timers_on(core.state.config)
            || !matches!(access.kind, RemoteKind::Store(_))
        {
            return false;
        }
        let (off, len) = (access.addr & 0xF_FFFF, access.size.bytes());
        self.untouched_since_checkpoint(t, i, at, off, len) && !core.sram.read_since_undo(off, len)
    }

    /// Core `i`'s memory answers a read request from core `from` at `at`
    /// (its memory free then): the next one waiting, if any, is answered
    /// `read_service_interval` cycles later.
    ///
    /// This gives what putting every waiting request back in the inbox at
    /// the cycle the memory is free gives, one step per request and
    /// answer instead of one per request and answer before it: the
    /// requests waiting when it frees are those that arrived before that
    /// cycle (the network is never ahead of the first action due, so a
    /// request arriving in the cycle it frees comes after them), in the
    /// order they arrived; the first is answered, the others wait again
    /// in the same order, before any arriving later.
    fn serve_read(
        &mut self,
        t: &mut Timed,
        i: usize,
        at: u64,
        from: usize,
        access: RemoteAccess,
        dma: Option<(u8, u32)>,
    ) -> Option<StopReason> {
        t.read_busy[i] = at + self.cores[i].pipe.params.read_service_interval;
        if !t.agents[i].reads.is_empty() {
            t.due(i, t.read_busy[i], Delivery::Serve);
        }
        let mut shared = Shared {
            dram: &mut self.dram,
            ext_base: self.config.ext_base,
        };
        let value = self.cores[i].serve(&mut shared, access, at);
        self.cores[i].pipe.mesh_access(at, access.addr & 0xF_FFFF);
        // The request in, the response out.
        self.cores[i].mesh_traffic(2);
        let dma = dma.map(|(ch, dst)| (ch, dst, access.size));
        let src = node(self.cores[i].id);
        let packet = self.response(t, src, from, value, dma, access.size);
        // Sent now, or as soon as the node's queue has room (the
        // read itself is done: a TESTSET is not repeated). With no
        // response waiting to be sent by this cycle it goes into the mesh
        // here, without a step of its own: in the order the outbox would
        // have sent it (after the deliveries of this cycle to cores before
        // this one, whose responses went in the same way, and before
        // those to cores after it; nothing else is injected before the
        // outbox's turn in a cycle), into a mesh brought to this cycle as
        // `send_response` brings it.
        if t.outbox.front().is_some_and(|&(when, _, _)| when <= at) {
            t.queue_response(at, false, packet);
        } else {
            self.send_now(t, at, false, packet);
        }
        self.dma_stop(i)
    }

    /// A read response reached core `i` at `at`: for its DMA channel (the
    /// data is written at the channel's destination) or for its waiting
    /// instruction.
    fn read_returned(
        &mut self,
        t: &mut Timed,
        i: usize,
        at: u64,
        value: Result<u64, MemFault>,
        dma: Option<(u8, u32, Size)>,
    ) -> Option<StopReason> {
        match dma {
            Some((ch, dst, size)) => {
                let v = value.unwrap_or(0);
                let mut shared = Shared {
                    dram: &mut self.dram,
                    ext_base: self.config.ext_base,
                };
                let core = &mut self.cores[i];
                let global = core.id.global_base() | (dst & 0xF_FFFF);
                let kind = RemoteKind::Store(v);
                let _ = core.serve(
                    &mut shared,
                    RemoteAccess {
                        addr: global,
                        size,
                        kind,
                    },
                    at,
                );
                let effect = core.dma.read_returned(at, ch as usize, &core.sram);
                let irq = effect.irq().is_some();
                core.dma_effect(effect);
                if irq {
                    // (A channel in message mode ends when its last read
                    // returns: its interrupt, as a write's.)
                    self.interrupt_before_emit(t, i, at);
                }
                return self.dma_stop(i);
            }
            None => {
                if let Wait::Response { access, issue } = t.agents[i].wait {
                    let extra = self.cores[i].pipe.params.remote_read_extra;
                    let latency = (at + extra - issue) as u32;
                    self.answer(t, i, access, value, latency);
                }
            }
        }
        self.interrupt_before_emit(t, i, at);
        None
    }

    /// A core waiting to issue a remote access at a later cycle takes an
    /// interrupt raised at `at` first: from `at`, as it would, cycle by
    /// cycle, before the instruction issued. One waiting for a line of its
    /// code (a fetch sent, no instruction issued) takes it at `at` too,
    /// once the line is back: its run then starts from `at`, not from the
    /// cycle it stood at when it sent the fetch.
    fn interrupt_before_emit(&mut self, t: &mut Timed, i: usize, at: u64) {
        match t.agents[i].wait {
            Wait::Emit { issue, .. } => {
                let core = &mut self.cores[i];
                if issue > at && core.run == RunState::Running && core.can_wake() {
                    t.agents[i].wait = Wait::Nothing;
                    core.stats.cycles = core.stats.cycles.max(at);
                }
            }
            Wait::Response { access, .. } if access.kind == RemoteKind::Fetch => {
                let core = &mut self.cores[i];
                if core.run == RunState::Running && core.can_wake() {
                    core.stats.cycles = core.stats.cycles.max(at);
                }
            }
            _ => {}
        }
    }

    /// Between runs: the host wrote one of core `i`'s registers at cycle
    /// `at` (a write of ILATST may raise an interrupt): as after a write
    /// the network delivers ([`Machine::interrupt_before_emit`]).
    pub fn host_wrote_regs(&mut self, i: usize, at: u64) {
        if let Some(mut t) = self.timed.take() {
            self.interrupt_before_emit(&mut t, i, at);
            self.timed = Some(t);
        }
    }

    /// Before an event at cycle `at` reaches core `i`: if the core ran
    /// ahead, what it did before `at` is final (kept), or it ran past `at`
    /// and goes back to where it started running ahead. False if it went
    /// back.
    fn settle_speculation(&mut self, t: &mut Timed, i: usize, at: u64) -> bool {
        if !t.agents[i].speculating {
            return true;
        }
        if self.cores[i].stats.cycles <= at {
            self.commit(t, i);
            return true;
        }
        self.roll_back(t, i);
        false
    }

    /// Core `i`'s run-ahead is final.
    fn commit(&mut self, t: &mut Timed, i: usize) {
        let a = &mut t.agents[i];
        if a.speculating {
            self.cores[i].commit_checkpoint();
            a.speculating = false;
            a.window = (a.window * 2).min(MAX_WINDOW);
            if a.ran_past {
                a.past_window = (a.past_window * 2).clamp(MIN_WINDOW, MAX_WINDOW);
            }
        }
        a.ran_past = false;
    }

    /// Core `i` goes back to where it started running ahead.
    fn roll_back(&mut self, t: &mut Timed, i: usize) {
        let a = &mut t.agents[i];
        if let (true, Some(cp)) = (a.speculating, a.checkpoint.as_deref()) {
            self.cores[i].roll_back(cp);
            t.dirty.push(i);
            a.wait = Wait::Nothing;
            a.speculating = false;
            a.ran_past = false;
            a.window = (a.window / 4).max(MIN_WINDOW / 2);
            t.rollbacks += 1;
        }
    }

    /// What every core did running ahead is final (between runs: see
    /// `Machine::end_run_ahead`).
    pub(crate) fn commit_all(&mut self, t: &mut Timed) {
        for i in 0..self.cores.len() {
            self.commit(t, i);
        }
    }

    /// The cores the last run left parked (`Timed::parked_at`) run up to
    /// its end, as they would have before it ended: the run's last steps,
    /// done now. What stopped it, if not its end (nothing but the cores'
    /// own polling loops runs: always its end).
    pub(crate) fn settle_parked_in(&mut self, t: &mut Timed) -> Option<StopReason> {
        let at = t.parked_at.take()?;
        t.settling = true;
        let stop = self.schedule_timed(t, at, None);
        t.settling = false;
        (!matches!(stop, StopReason::CycleLimit { .. })).then_some(stop)
    }

    /// The cores that ran ahead past the last run's end (`Machine::now`),
    /// allowed to by [`Machine::run_past_limit`] (all of them, or only core
    /// `only`), go back to their checkpoints (before it) and run up to it:
    /// the machine at the run's end as strict order leaves it, but for the
    /// cores that spin, which stay (or are left) parked as the run's end
    /// leaves them (`Machine::settle_parked_in` brings them there). What
    /// stopped them, if not that cycle (nothing but what they did already
    /// runs: never expected).
    pub(crate) fn settle_ahead_in(
        &mut self,
        t: &mut Timed,
        only: Option<usize>,
    ) -> Option<StopReason> {
        let mut any = false;
        for i in 0..self.cores.len() {
            if only.is_none_or(|k| k == i) && self.ran_past(t, i) {
                // (Its window ahead of its safe horizon stays: the host,
                // not another agent, took it back.)
                let window = t.agents[i].window;
                self.roll_back(t, i);
                let a = &mut t.agents[i];
                a.window = window;
                if self.now.saturating_sub(a.past_back) > 2 * a.past_calm_len {
                    a.past_calm_len = PAST_CALM;
                } else if a.past_back > 0 {
                    a.past_calm_len = (a.past_calm_len * 2).min(MAX_PAST_CALM);
                }
                a.past_back = self.now;
                a.past_window = 0;
                a.past_calm = self.now.saturating_add(a.past_calm_len);
                any = true;
            }
        }
        if !any {
            return None;
        }
        t.settled_ahead += 1;
        t.settling = true;
        t.ahead_settle = true;
        let stop = self.schedule_timed(t, self.now, None);
        t.settling = false;
        t.ahead_settle = false;
        (!matches!(stop, StopReason::CycleLimit { .. })).then_some(stop)
    }

    /// Whether core `i` ran ahead past the last run's end (`Machine::now`),
    /// allowed to by [`Machine::run_past_limit`].
    pub(crate) fn ran_past(&self, t: &Timed, i: usize) -> bool {
        self.ran_past_to(t, i, self.now)
    }

    /// Whether any core ran ahead past cycle `c`, allowed to.
    pub(crate) fn any_ran_past(&self, t: &Timed, c: u64) -> bool {
        (0..self.cores.len()).any(|k| self.ran_past_to(t, k, c))
    }

    /// Whether core `i` ran ahead past cycle `c`, allowed to.
    fn ran_past_to(&self, t: &Timed, i: usize, c: u64) -> bool {
        let a = &t.agents[i];
        a.speculating && a.spec_limit > c && self.cores[i].stats.cycles > c
    }

    /// What every core that did not run past the last run's end, allowed
    /// to (`Machine::ran_past`), did running ahead is final (between runs:
    /// see `Machine::end_run_ahead_to_read`).
    pub(crate) fn commit_not_past(&mut self, t: &mut Timed) {
        for i in 0..self.cores.len() {
            if !self.ran_past(t, i) {
                self.commit(t, i);
            }
        }
    }

    /// Whether a core left parked at the last run's end is past it, not
    /// allowed to (`Machine::ran_past`: its last instruction took it
    /// there; bringing it to the end takes it back: `Machine::unspin`).
    /// One that ran ahead up to it has its run-ahead made final there, as
    /// a commit does now.
    pub(crate) fn parked_past(&self, t: &Timed) -> bool {
        t.parked_at.is_some_and(|at| {
            (0..self.cores.len()).any(|k| {
                let (a, c) = (&t.agents[k], &self.cores[k]);
                a.wait == Wait::Spin && a.speculating && c.stats.cycles > at && !self.ran_past(t, k)
            })
        })
    }

    /// Every core that ran ahead past cycle `c`, allowed to because `c`
    /// was not yet the limit, goes back to its checkpoint (before `c`):
    /// true if any did. (One that stopped past `c` although allowed only
    /// up to it finished its last instruction there, as it would have
    /// without running ahead.)
    fn roll_back_past(&mut self, t: &mut Timed, c: u64) -> bool {
        let mut any = false;
        for i in 0..self.cores.len() {
            if self.ran_past_to(t, i, c) {
                self.roll_back(t, i);
                any = true;
            }
        }
        any
    }

    /// Core `i`, spinning (`Wait::Spin`), reaches cycle `to`: the
    /// iterations of its loop that end by then are done at once and it runs
    /// on from there (if it ran ahead past `to`, it goes back instead).
    fn unspin(&mut self, t: &mut Timed, i: usize, to: u64) {
        if t.agents[i].wait != Wait::Spin {
            return;
        }
        t.dirty.push(i);
        // (If it ran ahead past `to`, only to poll, it goes back.)
        if self.settle_speculation(t, i, to) {
            self.cores[i].spin_to(to);
            t.agents[i].wait = Wait::Nothing;
        }
    }

    /// Core `i`, just moved on from its polling loop by a delivery at
    /// `time` that is the earliest action of all (`Machine::unspin`),
    /// stands at the head of the loop before `time`: it runs up to `time`
    /// at once, as its next turn would (nothing else acts before the
    /// delivery, which bounds the turn: a run in safe steps), without the
    /// scheduler's steps. `Some(Ok)`: it reached `time` and waits for
    /// nothing, the delivery being the earliest action of all again;
    /// `Some(Err)`: the run stopped at (the turn's cycle, why); `None`:
    /// the scheduler goes on as usual.
    fn wake_run(
        &mut self,
        t: &mut Timed,
        i: usize,
        time: u64,
    ) -> Option<Result<(), (u64, StopReason)>> {
        let core = &self.cores[i];
        let start = core.stats.cycles;
        if t.strict
            || self.trace.is_some()
            || start >= time
            || core.run != RunState::Running
            || t.agents[i].wait != Wait::Nothing
            || t.agents[i].speculating
            || !t.refused.is_empty()
            || t.dirty.iter().any(|&k| k != i)
            || t.agents[i].inbox.front().map(|d| d.0) != Some(time)
            || t.mesh.earliest_arrival_bound().is_some_and(|b| b <= time)
        {
            return None;
        }
        let dma_i = self.earliest(t, i).1;
        if dma_i < time {
            return None;
        }
        // Its turn's settings (`core_turn`, with the delivery its hard
        // bound: not parked again, nor detached from its DMA engine).
        t.turns += 1;
        t.regs_until = dma_i.saturating_add(1);
        let core = &mut self.cores[i];
        core.dma_detached = false;
        core.spin_skip = true;
        core.spin_park = false;
        core.pipe.port = DramPort {
            busy: t.dram_busy,
            free_until: 0,
            out: t.port_out[i],
            back: t.port_back[i],
        };
        t.agents[i].sends_past = false;
        let stop = self.run_core(t, i, time);
        t.regs_until = u64::MAX;
        t.dram_busy = self.cores[i].pipe.port.busy;
        if let Some(stop) = stop {
            return Some(Err((start, stop)));
        }
        (self.cores[i].stats.cycles >= time && t.agents[i].wait == Wait::Nothing).then_some(Ok(()))
    }

    /// Every spinning core reaches cycle `to`: true if any was spinning.
    fn unspin_all(&mut self, t: &mut Timed, to: u64) -> bool {
        let mut any = false;
        for i in 0..self.cores.len() {
            if t.agents[i].wait == Wait::Spin {
                self.unspin(t, i, to);
                any = true;
            }
        }
        any
    }

    /// At the start of core `i`'s turn: if it is answered at a stop of a
    /// loop polling another core's memory and the run from there is a
    /// period (`Core::poll_find`), the core is moved to its next stop at
    /// once, waiting to send the read again, as the run would leave it
    /// (true). Only if the run would end by `horizon`, before anything can
    /// reach the core, or by `ahead`, the end of its run ahead (from a
    /// checkpoint, as the run would be: something reaching it before the
    /// end takes it back).
    #[inline(never)]
    fn poll_turn(&mut self, t: &mut Timed, i: usize, horizon: u64, ahead: Option<u64>) -> bool {
        if t.strict || self.trace.is_some() {
            return false;
        }
        let Some((k, end)) = self.cores[i].poll_find(t.touched[i]) else {
            return false;
        };
        if end > horizon {
            let Some(spec_to) = ahead.filter(|&s| end <= s) else {
                return false;
            };
            // (Only what the run done at once changes is saved.)
            self.cores[i].checkpoint_poll(&mut t.agents[i].checkpoint);
            t.agents[i].speculating = true;
            t.agents[i].spec_limit = spec_to;
        }
        // (If not applied, the core is unchanged and runs ahead from a
        // checkpoint of all of it, `Machine::core_turn`.)
        let Some((access, issue)) = self.cores[i].poll_apply(k, t.touched[i], t.solo_loads) else {
            return false;
        };
        t.agents[i].wait = Wait::Emit {
            access,
            issue,
            at: issue,
        };
        true
    }

    /// Core `i`'s turn: it runs to its safe `horizon`, or ahead of it (up
    /// to `hard`, within its window) from a checkpoint, if nothing is
    /// watching (no trace) and the safe horizon is near. `one`: the
    /// horizon counts a wire reaching the core one cycle after any action.
    /// A store to another core issuing before the horizon goes into the
    /// network at once (`Machine::store_early`) and the turn goes on, up to
    /// the horizon lowered by the first cycle what it makes act could
    /// reach the core.
    fn core_turn(
        &mut self,
        t: &mut Timed,
        i: usize,
        horizon: u64,
        hard: u64,
        free_until: u64,
        one: bool,
    ) -> Option<StopReason> {
        t.turns += 1;
        let (mut horizon, mut free_until) = (horizon, free_until);
        loop {
            match self.core_run(t, i, horizon, hard, free_until, one) {
                Ok(stop) => return stop,
                Err(reach) => {
                    horizon = horizon.min(reach.saturating_add(t.near));
                    // (Its fetches from DRAM go through the scheduler
                    // from here: what the store makes act may reach
                    // external memory.)
                    free_until = 0;
                    if self.cores[i].stats.cycles >= horizon {
                        return None;
                    }
                }
            }
        }
    }

    /// One run of [`Machine::core_turn`]: `Err` with the first cycle
    /// anything in the network now arrives anywhere if it ended at a store
    /// sent at once.
    fn core_run(
        &mut self,
        t: &mut Timed,
        i: usize,
        horizon: u64,
        hard: u64,
        free_until: u64,
        one: bool,
    ) -> Result<Option<StopReason>, u64> {
        let start = self.cores[i].stats.cycles;
        let a = &mut t.agents[i];
        if a.window < MIN_WINDOW {
            // Roll-backs shrank its window below the least: it tries
            // again once it has run a while in safe steps only.
            match a.calm {
                None => a.calm = Some(start.saturating_add(CALM)),
                Some(at) if start >= at => {
                    a.window = MIN_WINDOW;
                    a.calm = None;
                }
                Some(_) => {}
            }
        }
        let window = a.window;
        let ahead = !t.strict
            && self.trace.is_none()
            && window >= MIN_WINDOW
            && horizon < hard
            && horizon.saturating_sub(start) < window;
        let spec_to = hard.min(start.saturating_add(window));
        // A loop polling local memory is done in closed form, not in
        // strict order (which proves it exact) nor traced; and stops the
        // core for good when only other cores bound its horizon (its own
        // deliveries and DMA engine would wake it at once).
        // A run past its DMA engine's next move (`dma_bound`) leaves that
        // move and the next ones to be made after it: what the engine's
        // registers read changes within the run, so a loop polling them is
        // not skipped, and writes of the registers that change what the
        // moves do wait for them (`Core::dma_detached`). So does a run
        // ahead past it, over moves that only send an element of its SRAM
        // to another core (`send_bound`).
        let detached = if ahead { spec_to } else { horizon } > t.regs_until;
        self.cores[i].dma_detached = detached;
        let skip = !t.strict && self.trace.is_none() && !detached;
        if !skip {
            // (Its loop's iterations are not watched in this run: one
            // found later is watched afresh, with all it reads.)
            self.cores[i].spin_forget();
        }
        self.cores[i].spin_skip = skip;
        self.cores[i].spin_park = skip && horizon < hard;
        // External memory's read port, for the core's fetches from DRAM:
        // not while running ahead (a roll-back could not take them back).
        self.cores[i].pipe.port = DramPort {
            busy: t.dram_busy,
            free_until: if ahead { 0 } else { free_until },
            out: t.port_out[i],
            back: t.port_back[i],
        };
        if ahead {
            t.solo_until = 0;
        }
        t.agents[i].sends_past = false;
        // (Only a core answered at a remote read may be at a poll's stop;
        // its loop's run is not detached from its DMA engine.)
        let poll_to = spec_to.min(t.regs_until);
        if self.cores[i].answer.is_some() && self.poll_turn(t, i, horizon, ahead.then_some(poll_to))
        {
            self.cores[i].pipe.port.free_until = 0;
            return Ok(None);
        }
        if !ahead {
            let stop = self.run_core(t, i, horizon);
            t.dram_busy = self.cores[i].pipe.port.busy;
            self.cores[i].pipe.port.free_until = 0;
            if stop.is_none() && !one && matches!(t.agents[i].wait, Wait::Emit { .. }) {
                if let Some(reach) = self.store_early(t, i, horizon) {
                    return Err(reach);
                }
            }
            return Ok(stop);
        }
        self.cores[i].pipe.port.free_until = 0;
        self.cores[i].checkpoint(&mut t.agents[i].checkpoint);
        t.agents[i].speculating = true;
        t.agents[i].spec_limit = spec_to;
        t.agents[i].sends_past = detached;
        let exit = self.run_core_raw(t, i, spec_to);
        let end = self.cores[i].stats.cycles;
        Ok(match exit {
            // Waiting to send a store before anything could reach it: its
            // run is final, and the store goes out at once.
            None if !one
                && end <= horizon
                && matches!(t.agents[i].wait, Wait::Emit { issue, access, .. }
                    if issue < horizon && matches!(access.kind, RemoteKind::Store(_))) =>
            {
                self.commit(t, i);
                if let Some(reach) = self.store_early(t, i, horizon) {
                    return Err(reach);
                }
                None
            }
            // Local work, sleeping, or waiting to reach another core:
            // nothing left this core yet.
            None => None,
            Some(exit) if end <= horizon => {
                // It stopped before anything could reach it.
                self.commit(t, i);
                self.after_run(t, i, exit)
            }
            Some(exit) => {
                // A system call, fault, barrier... after the safe horizon:
                // acted on once it is certain.
                t.agents[i].wait = Wait::Settle(exit);
                None
            }
        })
    }

    /// Core `i`'s DMA engine in cycle `now`: local moves complete at once,
    /// moves to or from another core go through the mesh (a full queue
    /// refuses the move until the next cycle).
    ///
    /// `parked`: the core is [`Wait::Spin`] and stays so through each move
    /// that leaves what its loop reads as it was (`Machine::quiet_move`),
    /// its instructions of cycle `now` reading the same before the move
    /// as after it. Before a move that would change it, or that faults
    /// (which changes the channel's STATUS), the core runs up to `now`
    /// first: it is unparked and the move retried in the same cycle, as
    /// it would have been made after the core's instructions of `now`.
    /// (A refused or faulting move changes nothing before that.)
    fn dma_cycle(&mut self, t: &mut Timed, i: usize, now: u64, parked: bool) -> Option<StopReason> {
        t.touched[i] += 1;
        // The core's own instructions in this cycle come first (or ran
        // already, and the move is made where the core stands:
        // `send_in_past`).
        let a = &t.agents[i];
        let past = !parked
            && a.sends_past
            && a.speculating
            && self.cores[i].stats.cycles > now.saturating_add(1)
            && (self.cores[i].dma.peek(now)).is_some_and(|mv| self.send_in_past(t, i, &mv, now));
        if !past && !self.settle_speculation(t, i, now + 1) {
            return None;
        }
        t.agents[i].dma_retry = None;
        let mut first = true;
        while let Some(mv) = self.cores[i].dma.peek(now) {
            if past && !std::mem::take(&mut first) && !self.send_in_past(t, i, &mv, now) {
                // (Another move in the same cycle: the core runs up to it
                // first.)
                self.roll_back(t, i);
                t.agents[i].dma_retry = Some(now);
                return None;
            }
            let ch = mv.channel as usize;
            let size = size_of(mv.size);
            let me = self.cores[i].id;
            let remote = |a: u32| a >> 20 != 0 && a >> 20 != me.bits();
            let chip = self.config.chip();
            let (ext_base, ext_size) = (self.config.ext_base, self.config.ext_size);
            let on_chip = |a: u32| {
                chip.contains(a >> 20) || dram_offset(chip, ext_base, ext_size, a) < ext_size
            };
            let read = matches!(mv.src, Source::Mem(a) if remote(a) && on_chip(a));
            let local_dst = !(read || (remote(mv.dst) && on_chip(mv.dst)));
            if !local_dst && now < t.mesh.now() {
                // Nothing enters the network before the cycle it has
                // reached: an engine started by a core acting behind it
                // (`behind_network`) makes its first move into it then.
                t.agents[i].dma_retry = Some(t.mesh.now());
                break;
            }
            if parked && t.agents[i].wait == Wait::Spin {
                self.cores[i].spin_find_reads();
                if !self.quiet_move(i, &mv, now, read, local_dst) {
                    return self.unpark_for_dma(t, i, now);
                }
            }
            let outcome = match mv.src {
                Source::Mem(src) if remote(src) && on_chip(src) => {
                    // A read request; the response is written at dst.
                    let access = RemoteAccess {
                        addr: src,
                        size,
                        kind: RemoteKind::Load,
                    };
                    let tag = t.tag(Payload::ReadRequest {
                        from: i,
                        access,
                        dma: Some((mv.channel, mv.dst)),
                    });
                    let packet = Packet {
                        tag,
                        kind: Kind::ReadRequest,
                        src: node(me),
                        dst: src,
                        bytes: mv.size,
                    };
                    self.mesh_to(t, now);
                    match t.mesh.inject(now, packet) {
                        Ok(()) => {
                            if !chip.contains(src >> 20) {
                                t.dram_reads += 1;
                            }
                            self.cores[i].mesh_traffic(1);
                            Ok(MoveOutcome::ReadIssued)
                        }
                        Err(InjectError::Full) => {
                            t.untag(tag);
                            Err(None)
                        }
                        Err(_) => {
                            t.untag(tag);
                            Err(Some(src))
                        }
                    }
                }
                _ => {
                    let value = match mv.src {
                        Source::Data(v) => Ok(v),
                        Source::Mem(a) => self.dma_access(i, a, mv.size, None, now).map_err(|_| a),
                    };
                    match value {
                        Err(a) => Err(Some(a)),
                        Ok(v) if remote(mv.dst) && on_chip(mv.dst) => {
                            let access = RemoteAccess {
                                addr: mv.dst,
                                size,
                                kind: RemoteKind::Store(v),
                            };
                            let tag = t.tag(Payload::Write {
                                from: i,
                                access,
                                message: mv.message,
                                group: None,
                            });
                            let packet = Packet {
                                tag,
                                kind: Kind::Write,
                                src: node(me),
                                dst: mv.dst,
                                bytes: mv.size,
                            };
                            self.mesh_to(t, now);
                            match t.mesh.inject(now, packet) {
                                Ok(()) => {
                                    if !chip.contains(mv.dst >> 20) {
                                        t.dram_writes[i] += 1;
                                    }
                                    self.cores[i].mesh_traffic(1);
                                    Ok(MoveOutcome::Written)
                                }
                                Err(InjectError::Full) => {
                                    t.untag(tag);
                                    Err(None)
                                }
                                Err(_) => {
                                    t.untag(tag);
                                    Err(Some(mv.dst))
                                }
                            }
                        }
                        Ok(v) => match self.dma_access(i, mv.dst, mv.size, Some(v), now) {
                            Ok(_) => Ok(MoveOutcome::Written),
                            Err(_) => Err(Some(mv.dst)),
                        },
                    }
                }
            };
            let meshed = matches!(mv.src, Source::Mem(a) if remote(a) && on_chip(a))
                || (remote(mv.dst) && on_chip(mv.dst));
            let core = &mut self.cores[i];
            let effect = match outcome {
                Ok(o) => {
                    if meshed {
                        // The engine's path into the mesh is busy.
                        t.agents[i].dma_retry = Some(now + core.pipe.params.dma_mesh_interval);
                    }
                    let effect = core.dma.commit(now, ch, o, &core.sram);
                    if past {
                        // (Made in the machine's order: a roll-back keeps
                        // it.)
                        if let Some(cp) = t.agents[i].checkpoint.as_deref_mut() {
                            cp.keep_dma(&core.dma);
                        }
                    }
                    effect
                }
                // Refused: the network is busy; the same move next cycle.
                Err(None) => {
                    t.agents[i].dma_retry = Some(t.refused_at(i, node(self.cores[i].id)));
                    break;
                }
                Err(Some(_)) if parked && t.agents[i].wait == Wait::Spin => {
                    return self.unpark_for_dma(t, i, now);
                }
                Err(Some(_)) if past => {
                    // (The fault changes what the core sees: it runs up
                    // to the move first.)
                    self.roll_back(t, i);
                    t.agents[i].dma_retry = Some(now);
                    return None;
                }
                Err(Some(addr)) => core.dma.fault(ch, addr),
            };
            if effect.irq().is_some() {
                core.catch_up(now);
            }
            core.dma_effect(effect);
            if let Some(stop) = self.dma_stop(i) {
                return Some(stop);
            }
        }
        None
    }
}

impl Machine {
    /// Whether core `i` may run past its DMA engine's next move at `dma_i`
    /// at all (`dma_bound`, `send_bound`): not in strict order nor traced,
    /// not while the engine's path into the mesh is unmodelled
    /// (`dma_mesh_interval` 0), a timer counts mesh events, the core has
    /// written RESETCORE's 1 or polled its DMA registers lately.
    fn may_pass_moves(&self, t: &Timed, i: usize, dma_i: u64) -> bool {
        let core = &self.cores[i];
        let mesh = crate::timing::mesh_events(core.regs.meshconfig, 1);
        dma_i != u64::MAX
            && !t.strict
            && self.trace.is_none()
            && core.pipe.params.dma_mesh_interval != 0
            && mesh.mesh0 | mesh.mesh1 == 0
            && core.regs.resetcore == 0
            && core.stats.cycles >= t.agents[i].dma_polled.saturating_add(DMA_POLL_QUIET)
    }

    /// The first cycle core `i`'s DMA engine, whose next move is at
    /// `dma_i`, could change anything the core sees: the core's run may
    /// reach it, the engine's moves before it made later in the
    /// machine's order (`Core::dma_detached`). That is `dma_i + 1` (the
    /// core's instructions of a cycle come before its engine's move),
    /// unless every move up to the bound only sends a read request to
    /// external memory for an element written into the core's SRAM when
    /// its data returns (`Dma::stretch`'s plain moves): such a move
    /// changes only the engine's counters and addresses, which the core
    /// reads through the machine in such a run, sends nothing the core
    /// sees before the request's round trip (`Timed::dram_trip`), and
    /// ticks no timer while MESHCONFIG counts no core access (its writes
    /// wait for the moves in such a run). One move per
    /// `dma_mesh_interval` at most: the engine's path into the mesh.
    /// Not in strict order nor traced, nor while the core polls its DMA
    /// registers, nor once it has written RESETCORE's 1.
    fn dma_bound(&self, t: &Timed, i: usize, dma_i: u64) -> u64 {
        let next = dma_i.saturating_add(1);
        let core = &self.cores[i];
        let interval = core.pipe.params.dma_mesh_interval;
        if !self.may_pass_moves(t, i, dma_i) || t.dram_trip[i] == 0 {
            return next;
        }
        let chip = self.config.chip();
        let (base, size) = (self.config.ext_base, self.config.ext_size);
        // A range of external memory (not a core's window), and one of
        // the core's own SRAM.
        let external = |(lo, hi): (u32, u32)| {
            lo >> 20 == hi >> 20
                && !chip.contains(lo >> 20)
                && lo >> 20 != 0
                && dram_offset(chip, base, size, lo) < size
                && dram_offset(chip, base, size, hi) < size
                && dram_offset(chip, base, size, hi) - dram_offset(chip, base, size, lo) == hi - lo
        };
        let mut bound = dma_i.saturating_add(t.dram_trip[i]);
        for ch in 0..2 {
            if let Some(b) = plain_end(core, ch, dma_i, interval, |src, dst| {
                external(src) && in_own_sram(core, dst)
            }) {
                bound = bound.min(b);
            }
        }
        bound.max(next)
    }

    /// How far core `i` may run ahead of its safe horizon (from a
    /// checkpoint) past its DMA engine's next move at `dma_i`: `dma_i + 1`
    /// (the core's instructions of a cycle come before its engine's move),
    /// unless every move up to the bound only sends an element of the
    /// core's SRAM to another core's (`Dma::stretch`'s plain moves: a
    /// posted write into the mesh). Such a move changes only the engine's
    /// counters and addresses, which the core reads through the machine
    /// in such a run (`Core::dma_detached`), raises no interrupt, ticks
    /// no timer while MESHCONFIG counts no mesh event (its writes wait
    /// for the moves in such a run), takes no SRAM bank from the core
    /// (the model charges the core for none of its engine's accesses);
    /// and reads bytes the core may store into while running past it:
    /// it is made where the core stands only if the core did not write
    /// them since its checkpoint, else the core goes back
    /// (`Machine::send_in_past`). What the element does at the other
    /// core reaches this one, if at all, as any packet does: a core that
    /// ran past its arrival goes back. One move per `dma_mesh_interval`
    /// at most: the engine's path into the mesh. Not in strict order nor
    /// traced, nor while the core polls its DMA registers, nor once it
    /// has written RESETCORE's 1.
    fn send_bound(&self, t: &Timed, i: usize, dma_i: u64) -> u64 {
        let next = dma_i.saturating_add(1);
        let core = &self.cores[i];
        let interval = core.pipe.params.dma_mesh_interval;
        if !self.may_pass_moves(t, i, dma_i) || core.stats.cycles < t.agents[i].sends_calm {
            return next;
        }
        let me = core.id.bits();
        // A range in another core's SRAM of the group (`send_in_past`).
        let other = |(lo, hi): (u32, u32)| {
            lo >> 20 == hi >> 20 && lo >> 20 != 0 && lo >> 20 != me && self.group_core(lo >> 20)
        };
        let mut bound = u64::MAX;
        for ch in 0..2 {
            // (Its addresses first: most channels that move send nothing.)
            let at = |reg: u32| core.dma.read_reg(ch as u32 * 0x20 + reg) >> 20;
            let (from, to) = (at(0x0C), at(0x10));
            if (from != 0 && from != me) || to == 0 || to == me {
                if core.dma.state(ch) == epsim_dma::DmaState::Idle {
                    continue;
                }
                return next;
            }
            if let Some(b) = plain_end(core, ch, dma_i, interval, |src, dst| {
                in_own_sram(core, src) && other(dst)
            }) {
                bound = bound.min(b);
            }
        }
        if bound == u64::MAX {
            next
        } else {
            bound.max(next)
        }
    }

    /// Whether move `mv` of core `i`'s DMA engine at `now`, which core `i`
    /// ran ahead past in a run detached from its engine
    /// (`Agent::sends_past`), is made where the core stands, as strict
    /// order makes it after the core's instructions of `now`: it sends
    /// an element of the core's SRAM, none of whose bytes the core wrote
    /// since its checkpoint (so they are as they were at `now`; a write
    /// from the mesh made in the core's past, `write_in_past`, is made at
    /// its own cycle, before or after the move as in strict order), to
    /// another core of the group; it is not the last of its descriptor,
    /// no timer counts mesh events, and stepping the engine (on a copy)
    /// raises nothing (`send_bound`). (A core outside the group runs only
    /// up to what reaches it, so its fault is found in the others' past:
    /// `stop_here` would take a core that ran past its sends back to its
    /// checkpoint, short of where strict order leaves it.)
    fn send_in_past(&self, t: &Timed, i: usize, mv: &Move, now: u64) -> bool {
        let a = &t.agents[i];
        let core = &self.cores[i];
        if !(a.speculating && a.sends_past && core.stats.cycles > now.saturating_add(1)) {
            return false;
        }
        let Source::Mem(src) = mv.src else {
            return false;
        };
        let me = core.id.bits();
        let (off, size) = (src & 0xF_FFFF, u32::from(mv.size));
        let to = mv.dst >> 20;
        let mesh = crate::timing::mesh_events(core.regs.meshconfig, 1);
        if mv.last
            || mv.message
            || (src >> 20 != 0 && src >> 20 != me)
            || !core.sram.contains(off, size)
            || core.sram.written_since_undo(off, size)
            || to == 0
            || to == me
            || !self.group_core(to)
            || mesh.mesh0 | mesh.mesh1 != 0
            || core.regs.resetcore != 0
        {
            return false;
        }
        let mut e = core.dma.clone();
        e.commit(now, mv.channel as usize, MoveOutcome::Written, &core.sram)
            .is_none()
    }

    /// Whether the 12-bit core id `id` names a core of the group
    /// (`send_in_past`).
    fn group_core(&self, id: u32) -> bool {
        self.config
            .core_index(CoreId::from_bits(id))
            .is_some_and(|k| self.in_group(k))
    }

    /// Core `i`, parked in a polling loop ([`Wait::Spin`]), runs up to
    /// cycle `now` before its DMA engine's move of `now`, which is made
    /// again after the core's instructions of that cycle.
    fn unpark_for_dma(&mut self, t: &mut Timed, i: usize, now: u64) -> Option<StopReason> {
        self.unspin(t, i, now);
        t.agents[i].dma_retry = Some(now);
        None
    }

    /// Whether DMA move `mv` of core `i` at `now`, made as planned (a
    /// read request sent if `read`, else the element written, into the
    /// core's own memory if `local_dst`), leaves what the loop core `i` is
    /// parked in reads as it was: the SRAM it writes now (if any) is not
    /// read, the DMA registers read keep their values, and no
    /// interrupt or error is raised (worked out on a copy of the engine).
    fn quiet_move(&self, i: usize, mv: &Move, now: u64, read: bool, local_dst: bool) -> bool {
        let outcome = if read {
            MoveOutcome::ReadIssued
        } else {
            MoveOutcome::Written
        };
        let dst = local_dst.then_some((mv.dst, u32::from(mv.size)));
        leaves_loop_alone(&self.cores[i], dst, |e, sram| {
            e.commit(now, mv.channel as usize, outcome, sram)
        })
    }

    /// Whether the delivery due first at core `i`, parked in a polling
    /// loop ([`Wait::Spin`]), is a plain write from the mesh (a store, not
    /// a message nor a multicast) into its SRAM that leaves the loop as
    /// it is (`Core::spin_quiet_write`: none of the bytes it loads nor its
    /// code, in a bank it does not fetch from), with no timer counting
    /// mesh events: the core stays parked, as a sender's value written
    /// beside the flag its receiver polls leaves it. (Its bank use is kept
    /// for when the core runs on.)
    fn quiet_write(&mut self, t: &Timed, i: usize) -> bool {
        let Some(&(
            at,
            Delivery::Packet(Payload::Write {
                access,
                message: false,
                group: None,
                ..
            }),
        )) = t.agents[i].inbox.front()
        else {
            return false;
        };
        let core = &mut self.cores[i];
        let mesh = crate::timing::mesh_events(core.regs.meshconfig, 1);
        if !matches!(access.kind, RemoteKind::Store(_)) || mesh.mesh0 | mesh.mesh1 != 0 {
            return false;
        }
        core.spin_quiet_write(at, access.addr & 0xF_FFFF, access.size.bytes())
    }

    /// Whether the delivery due first at core `i`, parked in a polling
    /// loop ([`Wait::Spin`]), is the data of its DMA engine's read that
    /// leaves what the loop reads as it was (as [`Machine::quiet_move`]:
    /// the bytes written are not read, and the read returning changes no
    /// DMA register read and raises nothing).
    fn quiet_response(&self, t: &Timed, i: usize) -> bool {
        let Some(&(at, Delivery::Packet(Payload::ReadResponse { dma, .. }))) =
            t.agents[i].inbox.front()
        else {
            return false;
        };
        let Some((ch, dst, size)) = dma else {
            return false;
        };
        leaves_loop_alone(&self.cores[i], Some((dst, size.bytes())), |e, sram| {
            e.read_returned(at, ch as usize, sram)
        })
    }
}

/// Whether the 32-bit range `(lo, hi)` (both ends included) lies in
/// `core`'s own SRAM, by its local or its global address (`dma_bound`,
/// `send_bound`).
fn in_own_sram(core: &crate::core::Core, (lo, hi): (u32, u32)) -> bool {
    let me = core.id.bits();
    lo >> 20 == hi >> 20
        && (lo >> 20 == 0 || lo >> 20 == me)
        && core.sram.contains(lo & 0xF_FFFF, hi - lo + 1)
}

/// The cycle after the last of the plain moves (`Dma::stretch`) channel
/// `ch` of `core`'s engine makes from `dma_i` on, if the channel has a
/// stretch: its first move that is not plain comes after them, each at
/// least `interval` after the engine's last. Its moves count as plain
/// only if `ok(src, dst)` holds of their ranges.
fn plain_end(
    core: &crate::core::Core,
    ch: usize,
    dma_i: u64,
    interval: u64,
    ok: impl Fn((u32, u32), (u32, u32)) -> bool,
) -> Option<u64> {
    let run = core.dma.stretch(ch)?;
    let plain = if run.plain > 0 && ok(run.src, run.dst) {
        u64::from(run.plain)
    } else {
        0
    };
    Some(dma_i.saturating_add(plain * interval).saturating_add(1))
}

/// Whether a DMA step of `core`, parked in a polling loop, leaves what the
/// loop reads as it was: the element it writes into the core's SRAM
/// (`dst`: address and bytes, if any) is none of the bytes the loop loads
/// nor of its code (`Core::spin_untouched`), and
/// `step` on a copy of the engine changes no DMA register the loop reads
/// and raises no interrupt or error.
fn leaves_loop_alone(
    core: &crate::core::Core,
    dst: Option<(u32, u32)>,
    step: impl FnOnce(&mut Dma, &crate::memory::CodeMem) -> DmaEffect,
) -> bool {
    let (regs, _) = core.spin_reads();
    if let Some((addr, bytes)) = dst {
        let off = addr & 0xF_FFFF;
        if !core.sram.contains(off, bytes) || !core.spin_untouched(off, bytes) {
            return false;
        }
    }
    let mut e = core.dma.clone();
    let effect = step(&mut e, &core.sram);
    effect.irq().is_none() && effect.error.is_none() && same_regs(&core.dma, &e, regs)
}

/// Whether engines `a` and `b` read the same in each DMA register of
/// `regs` (bit `n`: the word at offset `4n`).
fn same_regs(a: &Dma, b: &Dma, regs: u16) -> bool {
    (0..16u32)
        .filter(|n| regs & 1 << n != 0)
        .all(|n| a.read_reg(4 * n) == b.read_reg(4 * n))
}

impl Timed {
    /// How far past the run's limit core `i`, at cycle `time`, may run
    /// ahead, where the run allows `past` (`Agent::past_window`).
    fn past_allowed(&mut self, i: usize, past: u64, time: u64) -> u64 {
        if past == 0 {
            return 0;
        }
        let a = &mut self.agents[i];
        if a.past_window == 0 && time >= a.past_calm {
            a.past_window = MIN_WINDOW;
        }
        a.past_window.min(past)
    }

    /// Whether core `i` waits on the machine (to send an access, for an
    /// answer, for a system call or barrier to be acted on), or stores it
    /// made to external memory are still on their way there.
    pub(crate) fn busy(&self, i: usize) -> bool {
        self.agents.get(i).is_some_and(|a| a.wait != Wait::Nothing)
            || self.dram_writes.get(i).is_some_and(|&n| n > 0)
    }

    /// Whether core `i` waits for the answer of a read it sent (a view of
    /// the machine shows it; `crate::view`).
    pub(crate) fn waits_for_read(&self, i: usize) -> bool {
        matches!(
            self.agents.get(i).map(|a| &a.wait),
            Some(Wait::Response { .. })
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Queue keys order as (cycle, rank, core) triples do, and read back
    /// what they hold; a cycle from `KEY_END` on reads back as the cycle
    /// of a core parked until the run ends.
    #[test]
    fn queue_keys_order_and_read_back_as_their_actions() {
        let mut rnd = evq::test_numbers(0x2545_f491_4f6c_dd1d);
        let ranks = [Rank::Delivery, Rank::Core, Rank::Dma];
        let mut pick = || {
            let e = match rnd(3) {
                0 => rnd(64),
                1 => rnd(KEY_END),
                _ => KEY_END - 1 - rnd(4),
            };
            (e, ranks[rnd(3) as usize], rnd(64 * 64) as usize)
        };
        for _ in 0..10_000 {
            let (a, b) = (pick(), pick());
            let (ka, kb) = (queue_key(a.0, a.1, a.2), queue_key(b.0, b.1, b.2));
            assert_eq!(ka.cmp(&kb), a.cmp(&b), "{a:?} {b:?}");
            assert_eq!(key_action(ka), Some(a));
        }
        for e in [KEY_END, KEY_END + 1, u64::MAX - 1] {
            let k = queue_key(e, Rank::Core, 4095);
            assert_eq!(key_action(k), Some((u64::MAX - 1, Rank::Core, 4095)));
            assert!(k < evq::NONE && k > queue_key(KEY_END - 1, Rank::Dma, 4095));
        }
        assert_eq!(key_action(evq::NONE), None);
    }
}
