//! One e-core: architectural state, its SRAM, its memory-mapped registers
//! (`bus`), and the execution loop that runs decoded blocks (`blocks`)
//! functionally or under the timing model.
//!
//! Model decisions owned here: how each `Step` the semantics report is
//! acted on, when interrupts are taken (between blocks, which end wherever
//! one can become pending: `crate::block`), how the fault policy applies,
//! and how an idle core sleeps until a timer. The address map is `bus`'s.

use epsim_isa::exec::{enter_interrupt, fallthrough, pending_interrupt};
use epsim_isa::state::status;
use epsim_isa::{decode, insn_len, ArchState, Excause, MemFault, OpClass, Step};

use epsim_dma::{Dma, Effect as DmaEffect, Params as DmaParams};
use epsim_isa::Size;

use crate::block::{ends_block, BlockCache, Found, Insn, MAX_BLOCK};
use crate::config::Mode;
use crate::config::{CoreId, FaultPolicy};
use crate::memo::Memo;
use crate::memory::CodeMem;
use crate::timing::{
    count_before, count_clock, idle_wakeup, lazy_limit, tick_timers, timers_on, Events, Issue,
    Moves, Params, Pipeline, Timing,
};
use crate::trace::Trace;

mod blocks;
mod bus;
mod poll;
mod solo;
mod twait;

pub use solo::{Outcome as SoloOutcome, Sent as SoloSent, SoloLoads, Waiting as SoloWaiting};

use blocks::{
    general_block, memo_block, memo_block_before, memo_margin, plain_block, plain_chain, undoable,
    Env, NearTries,
};
pub(crate) use bus::{held_by_dma, is_dma};
pub use bus::{
    Answer, Chip, CoreBus, RemoteAccess, RemoteKind, Shared, LINKDEBUG, LINKDEBUG_LOOPBACK,
    MMR_BASE, MMR_END,
};
use bus::{MemCodes, Place};

/// The DMA registers' local address.
const DMA_BASE: u32 = 0xF0500;

/// DEBUGSTATUS bit 0: the core is halted.
const DEBUG_HALT: u32 = 1;

/// Whether a core is executing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunState {
    Running,
    /// Executed IDLE; wakes on an unmasked interrupt.
    Idle,
    /// Halted (BKPT, DEBUGCMD, exit): fetches nothing until resumed.
    Halted,
}

/// Memory-mapped registers that are not part of [`ArchState`] or the DMA
/// engine: memory-protection and mesh-node registers (groups 2-3), kept so
/// software reads back what it wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OtherRegs {
    pub mem: [u32; 3],
    pub meshconfig: u32,
    pub multicast: u32,
    /// The last value written to RESETCORE (bit 0).
    pub resetcore: u32,
    /// On the node that holds an eLink's registers, LINKCFG, LINKTXCFG,
    /// LINKRXCFG, GPIOCFG, FLAGCFG and LINKDEBUG (0xF0300-0xF0328,
    /// `bus::link_reg`): kept, without effect (mesh/MESH.md).
    pub link: [u32; 6],
}

impl OtherRegs {
    /// MEMPROTECT protects some page of SRAM (bits 7:0).
    #[inline(always)]
    pub fn protects(&self) -> bool {
        self.mem[bus::MEMPROTECT] & 0xFF != 0
    }
}

/// The fetch unit's buffer for code in another core's SRAM. There is no
/// instruction cache: such code is read over the mesh an aligned 8-byte
/// line at a time ([`RemoteKind::Fetch`]), never decoded into cached
/// blocks, and read again after any jump, so writes to it are seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FetchBuf {
    /// (global line address, its bytes), the older first; an address of
    /// `u32::MAX` is an empty place (line addresses are 8-aligned).
    lines: [(u32, u64); 2],
    /// The PC execution continues at without a jump; at any other PC the
    /// buffer is emptied first.
    expect: u32,
}

impl FetchBuf {
    pub const EMPTY: FetchBuf = FetchBuf {
        lines: [(u32::MAX, 0); 2],
        expect: u32::MAX,
    };

    /// The halfword at `addr`, if its line is here.
    fn halfword(&self, addr: u32) -> Option<u16> {
        let line = addr & !7;
        self.lines
            .iter()
            .find(|l| l.0 == line)
            .map(|&(_, v)| (v >> (8 * (addr & 6))) as u16)
    }

    /// Keeps `line`'s bytes, and the line before it if that is here.
    fn push(&mut self, line: u32, bytes: u64) {
        self.lines[0] = if self.lines[1].0.wrapping_add(8) == line {
            self.lines[1]
        } else {
            (u32::MAX, 0)
        };
        self.lines[1] = (line, bytes);
    }
}

/// Per-core counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CoreStats {
    pub instret: u64,
    /// Cycles since reset (functional mode: one per instruction).
    pub cycles: u64,
    /// Cycles spent idle (IDLE waiting for an interrupt).
    pub idle: u64,
    /// Timed mode: instructions that issued with the one before them.
    pub dual: u64,
    /// Timed mode: stall cycles by reason (`Stall::ALL` order).
    pub stalls: [u64; crate::timing::NSTALL],
}

impl CoreStats {
    #[inline(always)]
    fn count(&mut self, issue: &Issue) {
        self.dual += u64::from(issue.dual);
        if issue.stall != 0 {
            self.stalls[issue.reason as usize] += issue.stall;
        }
    }
}

/// One core.
pub struct Core {
    pub id: CoreId,
    pub state: ArchState,
    pub sram: CodeMem,
    pub regs: OtherRegs,
    pub run: RunState,
    pub stats: CoreStats,
    /// Decoded blocks of the code this core ran.
    pub blocks: BlockCache,
    /// The timing model's state (used in timed mode).
    pub pipe: Pipeline,
    /// Recorded block schedules (timed mode's fast path, `crate::memo`).
    pub memo: Memo,
    /// Whether timed mode replays recorded schedules (on; off for the
    /// tests that compare both).
    pub memoise: bool,
    /// The chip around this core (the cores it can reach).
    pub chip: Chip,
    /// The machine's answer to this core's last remote access, for the
    /// instruction to consume when it executes again.
    pub answer: Option<Answer>,
    /// The two DMA channels (the machine drives them).
    pub dma: Dma,
    /// Timed mode: external memory is reached through the mesh and the
    /// eLink (set by the timed scheduler).
    pub dram_via_mesh: bool,
    /// The cycle up to which the core timers have counted (behind
    /// `stats.cycles` when a run ended in the middle of a stall: the next
    /// instruction counts the whole stall).
    timer_at: u64,
    /// A DMA channel entered its error state (the machine reports it).
    pub dma_error: Option<epsim_dma::DmaError>,
    /// Code from another core's SRAM being executed.
    fetch_buf: FetchBuf,
    /// How often blocks near a run's limit are tried for a replay
    /// ([`blocks::memo_block_before`]).
    near_tries: NearTries,
    /// Timed mode: the iterations of a loop that only polls this core's
    /// SRAM are done in closed form ([`Spin`]); off in strict order and
    /// when traced (the scheduler sets it for each run).
    pub spin_skip: bool,
    /// With `spin_skip`: such a loop stops the run at its head instead
    /// ([`Core::spinning`]), for the scheduler to leave the core alone
    /// until something can change what it reads.
    pub spin_park: bool,
    /// Timed mode: in this run nothing but the core itself can change
    /// what its DMA registers read (the scheduler's run ends before the
    /// engine's next move and before anything can reach the core, or the
    /// core goes back if something does), so its loads and MOVFS of them
    /// are answered from the engine at once, as the machine would answer
    /// them (set by the scheduler for each run).
    pub dma_direct: bool,
    /// Timed mode: this run goes on past the next move of the core's DMA
    /// engine, made later in the machine's order (every move up to the
    /// run's end only sends a read of external memory: `sched.rs`,
    /// `Machine::dma_bound`; or, running ahead from a checkpoint, only
    /// sends an element of its SRAM to another core:
    /// `Machine::send_bound`), so a write of MESHCONFIG or RESETCORE, which
    /// changes what such a move does to the core, goes to the machine
    /// first, as one of the DMA registers would (set by the scheduler for
    /// each run).
    pub dma_detached: bool,
    /// A cycle from which STATUS.WAND has been clear at every block
    /// boundary (`u64::MAX`: it is set): as only MOVTS and WAND change it,
    /// and both end their block, it was clear in every cycle since
    /// (`Machine::timed_wand`). Set at each checkpoint (its cycle, or
    /// `u64::MAX`) and followed from there; a poll's run done at once,
    /// which does not look, counts from its end.
    pub(crate) wand_clear_from: u64,
    /// The loop being watched.
    spin: Box<Spin>,
    /// The loop waiting for its own timer it may be in (`twait`).
    twait: Box<twait::TimerWait>,
    /// A loop re-issuing a remote read (timed mode: `poll`).
    pub(crate) poll: poll::Poll,
    /// Timed mode: the machine's network lent for a run in which the
    /// core's loads from DRAM meet nothing ([`SoloLoads`], set up by the
    /// scheduler; `until` 0 when not).
    pub solo: Option<Box<SoloLoads>>,
}

/// A loop that only polls local memory, watched for its fixed point.
///
/// A block that jumps back to its own first instruction, stores nothing,
/// loads only from this core's SRAM and left no interrupt to take is one
/// iteration of a polling loop. When the architectural state at its head
/// is the same after an iteration as before it (but for what timers
/// counting clock cycles count: [`same_but_timers`]; an iteration that
/// reads or writes a timer is not clean), and the pipeline's is the
/// same moved by the iteration's cycles (`Pipeline::steady_after`), every
/// further iteration does exactly the same, that many cycles later, until
/// something else writes the core's memory or registers (a delivery from
/// the mesh, its DMA engine, the host) or a timer fires: timed mode then
/// does `n` iterations at once ([`Spin::repeat`]): cycles, instructions,
/// dual issues and stalls advanced by `n` times one iteration's, and the
/// pipeline as `n` iterations leave it. Not with a timer counting anything
/// but clock cycles (those count the iterations afterwards, and none is
/// done past the cycle one could fire: `timing::lazy_limit`), a hardware
/// loop active, or a trace.
#[derive(Clone, Debug)]
struct Spin {
    /// The head of the loop whose last iteration only polled (`u32::MAX`:
    /// none).
    entry: u32,
    /// Whether a head is saved (the state, the pipeline, the counters):
    /// 1, else 0.
    stage: u8,
    state: ArchState,
    pipe: Option<Pipeline>,
    stats: CoreStats,
    /// Instructions retired and the cycle, at the saved head.
    instret: u64,
    now: u64,
    /// The core's SRAM write count ([`CodeMem::writes`]) at the saved
    /// head: the loop's fixed point holds only while nothing wrote it.
    writes: u64,
    /// One iteration of the loop in its fixed point, once `look` found it.
    period: Option<Period>,
    /// The saved head is where the core was last moved on in closed form
    /// (`Spin::rebase`; its pipeline is not saved): the next head, one
    /// `period` later with the same registers, is the fixed point's.
    trusted: bool,
    /// Heads to let pass before looking again, and looks that failed in a
    /// row (a loop whose state changes: looked at ever less often).
    skip: u32,
    fails: u32,
    /// Loops left with looks failing (entry, failed looks in a row), by
    /// entry (`Spin::slot`): a loop entered again, most often an inner
    /// loop that computes, is looked at as rarely as when it was left
    /// (from [`SPIN_FAILS_KEPT`] failed looks) instead of from its
    /// second head on. Only when loops are looked at changes: what they
    /// do is the same whether run or moved on in closed form.
    failed: [(u32, u32); 8],
    /// The run stopped at the head of a loop in its fixed point.
    parked: bool,
    /// Since the last arrival at `entry`: only loads from local SRAM
    /// banks, nothing else (`clean`), at least one load (`loads`); the
    /// last block was cut short by the end of a run (`mid`: the next one
    /// continues the same iteration).
    clean: bool,
    loads: bool,
    mid: bool,
    /// What the iteration under way has read so far, and what the last
    /// complete one read (the loop's read set once it is parked): the
    /// DMA registers (`bus::dma_word`) and the SRAM banks (bit `b`).
    cur_dma: u16,
    cur_banks: u8,
    dma_reads: u16,
    banks: u8,
    /// Once parked: the SRAM its iteration loads, byte ranges `[lo, hi)`
    /// found by running it on a copy of the state (`loop_reads`) when
    /// first needed (`Core::spin_find_reads`; `reads_found` set then);
    /// `None` if that could not tell (its banks stand for it then).
    reads: Option<([(u32, u32); SPIN_READS], u8)>,
    reads_found: bool,
    /// Writes from the mesh that reached the core while parked, leaving
    /// what its loop reads and fetches as it was (`Core::spin_quiet_write`):
    /// the cycle and SRAM offset of each, whose bank use the pipeline
    /// takes when the core runs on (`Core::spin_take_banks`).
    banks_due: Vec<(u64, u32)>,
}

/// At a block boundary in cycle `now`: [`Core::wand_clear_from`] follows
/// STATUS.WAND (`u64::MAX` while it is set, else the first boundary it
/// was seen clear at).
#[inline]
fn follow_wand(s: &ArchState, clear_from: &mut u64, now: u64) {
    if s.status_rest & status::WAND != 0 {
        *clear_from = u64::MAX;
    } else if *clear_from == u64::MAX {
        *clear_from = now;
    }
}

/// The failed looks a loop entered again starts from (`Spin::failed`):
/// it lets 2^6 - 1 = 63 heads pass before the first look, so an inner
/// loop of fewer iterations that changed its registers before is not
/// looked at again.
const SPIN_FAILS_KEPT: u32 = 6;

/// The most loads of SRAM a parked loop's iteration may make for its read
/// set to be kept byte by byte (`Spin::reads`).
const SPIN_READS: usize = 4;

/// What one iteration of the polling loop at `entry` (its block `insns`,
/// up to the jump back taken) loads from this core's SRAM (`me`: the
/// core's id), from state `s`: run on a copy of the state, each load
/// answered from `sram` and noted. `None` if it does anything else (a
/// load from elsewhere, a store, a special register) or more loads than
/// [`SPIN_READS`], or does not come back to `entry`. (In its fixed point
/// every iteration loads the same bytes: the same instructions from the
/// same state on the same memory.)
fn loop_reads(
    s: &ArchState,
    sram: &CodeMem,
    me: u32,
    insns: &[crate::block::Insn],
    entry: u32,
) -> Option<([(u32, u32); SPIN_READS], u8)> {
    struct Probe<'a> {
        sram: &'a CodeMem,
        me: u32,
        reads: [(u32, u32); SPIN_READS],
        n: u8,
    }
    impl epsim_isa::Bus for Probe<'_> {
        fn load(&mut self, _: &mut ArchState, addr: u32, size: Size) -> epsim_isa::Access<u64> {
            let (off, len) = (addr & 0xF_FFFF, size.bytes());
            let mine = addr >> 20 == 0 || addr >> 20 == self.me;
            if !mine || !self.sram.contains(off, len) || usize::from(self.n) == SPIN_READS {
                return epsim_isa::Access::Busy;
            }
            self.reads[usize::from(self.n)] = (off, off + len);
            self.n += 1;
            epsim_isa::Access::Ready(self.sram.read(off, len))
        }
        fn store(&mut self, _: &mut ArchState, _: u32, _: Size, _: u64) -> epsim_isa::Access<()> {
            epsim_isa::Access::Busy
        }
        fn testset(&mut self, _: &mut ArchState, _: u32, _: u32) -> epsim_isa::Access<u32> {
            epsim_isa::Access::Busy
        }
        fn read_sreg(&mut self, _: &mut ArchState, _: epsim_isa::Sreg) -> epsim_isa::Access<u32> {
            epsim_isa::Access::Busy
        }
        fn write_sreg(
            &mut self,
            _: &mut ArchState,
            _: epsim_isa::Sreg,
            _: u32,
        ) -> epsim_isa::Access<()> {
            epsim_isa::Access::Busy
        }
    }
    let mut st = s.clone();
    let mut probe = Probe {
        sram,
        me,
        reads: [(0, 0); SPIN_READS],
        n: 0,
    };
    for insn in insns {
        let step =
            epsim_isa::exec::exec_ref(&mut st, &mut probe, &insn.op, insn.pc, u32::from(insn.len));
        match step {
            Step::Next => {}
            Step::Jump { target } if target == entry => return Some((probe.reads, probe.n)),
            _ => return None,
        }
    }
    None
}

/// Whether `a` and `b` are the same state but for the core timers' counts.
/// A polling loop's heads are compared so (`Spin::look`): its iterations
/// neither read nor write the timers (`CoreBus::timer_touched`) and no
/// timer can fire while they are done at once (`timing::lazy_limit`),
/// so what the timers count changes nothing an iteration does; the
/// iterations done at once are counted from the core's `timer_at` as any
/// other cycles (`Core::spin_to`, the run's lazy count).
fn same_but_timers(a: &ArchState, b: &ArchState) -> bool {
    let ArchState {
        r,
        pc,
        flags,
        status_rest,
        config,
        debugstatus,
        lc,
        ls,
        le,
        iret,
        imask,
        ilat,
        ipend,
        ctimer0: _,
        ctimer1: _,
    } = a;
    *pc == b.pc
        && *r == b.r
        && *flags == b.flags
        && *status_rest == b.status_rest
        && *config == b.config
        && *debugstatus == b.debugstatus
        && *lc == b.lc
        && *ls == b.ls
        && *le == b.le
        && *iret == b.iret
        && *imask == b.imask
        && *ilat == b.ilat
        && *ipend == b.ipend
}

/// One iteration of a polling loop in its fixed point ([`Spin::look`]):
/// its cycles, instructions, dual issues and stall cycles by reason, and
/// what moves in the pipeline from one to the next.
#[derive(Clone, Copy, Debug)]
struct Period {
    p: u64,
    instret: u64,
    dual: u64,
    stalls: [u64; crate::timing::NSTALL],
    moves: Moves,
}

impl Spin {
    fn new() -> Spin {
        Spin {
            entry: u32::MAX,
            stage: 0,
            state: ArchState::new(),
            pipe: None,
            stats: CoreStats::default(),
            instret: 0,
            now: 0,
            writes: 0,
            period: None,
            trusted: false,
            skip: 0,
            fails: 0,
            failed: [(u32::MAX, 0); 8],
            parked: false,
            clean: false,
            loads: false,
            mid: false,
            cur_dma: 0,
            cur_banks: 0,
            dma_reads: 0,
            banks: 0,
            reads: None,
            reads_found: false,
            banks_due: Vec::new(),
        }
    }

    /// The slot of `failed` a loop's entry has.
    #[inline(always)]
    fn slot(entry: u32) -> usize {
        (entry >> 1) as usize & 7
    }

    /// Forgets the heads it saved: something else may have written the
    /// core's memory or registers. (What it knows of the loop's code
    /// stays: its next head is compared with the one after.)
    fn forget(&mut self) {
        self.stage = 0;
        self.parked = false;
        self.trusted = false;
        self.period = None;
    }

    /// Forgets everything (the core went back in time, or was reset).
    fn clear(&mut self) {
        self.forget();
        self.entry = u32::MAX;
        self.mid = false;
    }

    /// A block starts at `entry` (with the core's state, as for
    /// [`Spin::look`]): the cycles of one iteration if it is the head of a
    /// loop in its fixed point.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn head(
        &mut self,
        entry: u32,
        s: &ArchState,
        pipe: &Pipeline,
        stats: &CoreStats,
        instret: u64,
        now: u64,
        writes: u64,
    ) -> Option<u64> {
        if std::mem::take(&mut self.mid) {
            // The rest of a block the last run cut short.
            return None;
        }
        let polled = self.entry == entry && self.clean && self.loads;
        self.clean = true;
        self.loads = false;
        if !polled {
            self.trusted = false;
        }
        // (An iteration ended here: what it read is the loop's read set
        // if this head is found to be in the fixed point.)
        self.dma_reads = std::mem::take(&mut self.cur_dma);
        self.banks = std::mem::take(&mut self.cur_banks);
        if self.entry != entry {
            self.entry = entry;
            self.stage = 0;
            let (e, fails) = self.failed[Spin::slot(entry)];
            self.fails = if e == entry {
                fails.min(SPIN_FAILS_KEPT)
            } else {
                0
            };
            self.skip = (1u32 << self.fails) - 1;
            return None;
        }
        if !polled {
            self.stage = 0;
            return None;
        }
        if writes != self.writes {
            // Something wrote the SRAM since the saved head (the host
            // between runs, say): the head is looked at afresh.
            self.stage = 0;
            self.trusted = false;
            self.writes = writes;
        }
        if self.stage > 0 && now == self.now {
            // The head saved when the core was last moved on in closed
            // form (`Spin::rebase`): it runs on from it.
            return None;
        }
        self.look(s, pipe, stats, instret, now)
    }

    /// A block (or the first part of one) ran: `mem` says where its
    /// accesses went (bit 0: a load from a local bank or the core's own
    /// DMA registers; bit 1: anything else; bits 4-7: the banks loaded
    /// from), `dma` which DMA registers it read, `quiet` that it did
    /// nothing else the loop may not (a store for the system's attention,
    /// a hardware loop, the timers counting), `cut` that the run ended
    /// before its end, `last` how it ended.
    #[inline(always)]
    fn piece(&mut self, mem: u8, dma: u16, quiet: bool, cut: bool, last: Option<Step>) {
        if mem & 2 != 0 || !quiet {
            self.clean = false;
        }
        self.loads |= mem & 1 != 0;
        self.cur_dma |= dma;
        self.cur_banks |= mem >> 4;
        self.mid = false;
        match last {
            None => self.mid = cut,
            Some(Step::Jump { target }) if target == self.entry => {}
            Some(_) => self.clean = false,
        }
    }

    /// At the head of the watched loop, with the core's state, pipeline,
    /// counters, instructions retired and cycle: the cycles of one
    /// iteration if the loop is in its fixed point (this head's state is
    /// the saved one's one iteration later).
    #[inline(never)]
    fn look(
        &mut self,
        s: &ArchState,
        pipe: &Pipeline,
        stats: &CoreStats,
        instret: u64,
        now: u64,
    ) -> Option<u64> {
        if self.skip > 0 {
            self.skip -= 1;
            if std::mem::take(&mut self.trusted) {
                // (The saved pipeline is not the saved head's.)
                self.stage = 0;
            }
            return None;
        }
        if std::mem::take(&mut self.trusted) {
            // One iteration on from where the core was moved on in closed
            // form: the same registers and cycles, and so (the same
            // instructions on the same memory) the same pipeline one
            // period on. Otherwise the head is saved afresh (the saved
            // pipeline is not this head's).
            if let Some(per) = self.period {
                if now == self.now + per.p && same_but_timers(s, &self.state) {
                    return Some(per.p);
                }
            }
            self.stage = 0;
        }
        if self.stage > 0 && now > self.now && same_but_timers(s, &self.state) {
            let p = now - self.now;
            if let Some(prev) = self.pipe.as_ref() {
                if pipe.steady_after(prev, p) {
                    self.fails = 0;
                    let slot = &mut self.failed[Spin::slot(self.entry)];
                    if slot.0 == self.entry {
                        *slot = (u32::MAX, 0);
                    }
                    let mut stalls = stats.stalls;
                    for (d, &b) in stalls.iter_mut().zip(&self.stats.stalls) {
                        *d -= b;
                    }
                    let moves = pipe.moves(prev);
                    self.period = Some(Period {
                        p,
                        instret: instret - self.instret,
                        dual: stats.dual - self.stats.dual,
                        stalls,
                        moves,
                    });
                    #[cfg(debug_assertions)]
                    {
                        // (`shift` is `repeat` without the iteration before.)
                        let (mut a, mut b) = (pipe.clone(), pipe.clone());
                        a.repeat(prev, 3);
                        b.shift(&moves, 3 * p);
                        debug_assert!(a == b, "Pipeline::shift differs from repeat");
                    }
                    return Some(p);
                }
            }
        } else if self.stage > 0 {
            // The loop changes the registers: looked at ever less often.
            self.fails += 1;
            self.skip = (1u32 << self.fails.min(10)) - 1;
            self.failed[Spin::slot(self.entry)] = (self.entry, self.fails);
        }
        match &mut self.pipe {
            Some(p) => p.copy_from(pipe),
            None => self.pipe = Some(pipe.clone()),
        }
        self.keep_head(s, stats, instret, now);
        None
    }

    /// Saves the head the core is at (its registers, counters, instructions
    /// retired and cycle) as the one the next is compared with.
    fn keep_head(&mut self, s: &ArchState, stats: &CoreStats, instret: u64, now: u64) {
        self.state.clone_from(s);
        self.stats = *stats;
        self.instret = instret;
        self.now = now;
        self.stage = 1;
    }

    /// Does `n` more iterations of the loop in its fixed point, the core
    /// being at its head with `pipe`, `stats` (whose `cycles` and `instret`
    /// are not used), `instret` and `now`; the saved head is no longer one
    /// iteration back.
    fn repeat(
        &mut self,
        n: u64,
        pipe: &mut Pipeline,
        stats: &mut CoreStats,
        instret: &mut u64,
        now: &mut u64,
    ) {
        let Some(per) = self.period else {
            return;
        };
        *now += n * per.p;
        *instret += n * per.instret;
        stats.dual += n * per.dual;
        for (a, d) in stats.stalls.iter_mut().zip(per.stalls) {
            *a += n * d;
        }
        pipe.shift(&per.moves, n * per.p);
        // (The iterations' fetches are not made one by one: any bank may
        // have been looked at, `Machine::read_in_past`.)
        pipe.fetched = 0xf;
        self.stage = 0;
    }

    /// The core, parked at the head of the loop in its fixed point, runs on
    /// from this head (`Core::spin_to`): it is saved as the one before the
    /// next, so the next (an iteration on) can park the core again at once.
    fn rebase(&mut self, s: &ArchState, stats: &CoreStats, instret: u64, now: u64, writes: u64) {
        self.writes = writes;
        self.keep_head(s, stats, instret, now);
        self.trusted = self.period.is_some();
    }
}

/// A core's state at one cycle, to roll back to: what it runs with, not
/// its caches (decoded blocks and recorded schedules stay valid: the SRAM
/// comes back through writes, which drop decoded code they change).
#[derive(Clone, Debug)]
pub struct Checkpoint {
    state: ArchState,
    regs: OtherRegs,
    run: RunState,
    stats: CoreStats,
    pipe: Pipeline,
    timer_at: u64,
    answer: Option<Answer>,
    dma: Dma,
    dma_error: Option<epsim_dma::DmaError>,
    fetch_buf: FetchBuf,
    /// Taken for a poll's run done at once (`Core::checkpoint_poll`): only
    /// what that run changes is saved (the fields above that it leaves
    /// alone hold an older checkpoint's values, and a roll-back keeps the
    /// core's own).
    light: bool,
    /// With `light`: `state` was not saved either (no timer counts).
    light_state: bool,
    // (The SRAM keeps what is written after the checkpoint itself:
    // `CodeMem::undo_begin`.)
}

impl Checkpoint {
    /// The cycle it was taken at.
    pub fn cycle(&self) -> u64 {
        self.stats.cycles
    }

    /// The DMA engine a roll-back gives the core back becomes `dma`: its
    /// moves made since the checkpoint, in the machine's order, are final
    /// (`Machine::send_in_past`).
    pub fn keep_dma(&mut self, dma: &Dma) {
        self.dma.clone_from(dma);
    }
}

/// Why a core's execution loop returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoreExit {
    /// The instruction budget ran out.
    Budget,
    /// The core executed IDLE and no interrupt can wake it by itself.
    Idle,
    /// TRAP n at `pc`: the machine services it and resumes.
    Trap { num: u8, pc: u32 },
    /// The core stopped on a guest fault (fault policy `Stop`).
    Fault(GuestFault),
    /// BKPT or MBKPT at `pc`; the core is halted.
    Breakpoint { pc: u32 },
    /// Halted by a write to DEBUGCMD.
    Halted,
    /// The instruction at `pc` (not executed: the PC is still on it) needs
    /// another core's memory or registers. The machine performs `access`,
    /// puts its [`Answer`] in [`Core::answer`], and runs the core again.
    Remote { access: RemoteAccess, pc: u32 },
    /// WAND set this core's STATUS.WAND flag: the machine completes the
    /// barrier if every core of the group has it set.
    Wand,
    /// SYNC executed: the machine raises SYNC in every core of the group.
    Sync,
}

/// A guest fault: what went wrong, where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GuestFault {
    pub core: CoreId,
    pub pc: u32,
    /// The instruction word (first halfword low).
    pub word: u32,
    pub kind: FaultKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// A data access faulted.
    Access { addr: u32, fault: MemFault },
    /// Instruction fetch from an address no memory answers, or odd.
    Fetch { fault: MemFault },
    /// An unimplemented instruction.
    Unimplemented,
    /// An FPU exception enabled in CONFIG.
    Fpu,
}

impl std::fmt::Display for GuestFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let insn = |f: &mut std::fmt::Formatter<'_>| -> std::fmt::Result {
            let d = epsim_isa::decode(self.word);
            let w = if d.len == 2 {
                format!("{:04x}", self.word & 0xffff)
            } else {
                format!("{:08x}", self.word)
            };
            write!(f, "instruction {w} `{}`", d.disasm(self.pc, self.word))
        };
        match self.kind {
            FaultKind::Access { addr, fault } => {
                let what = match fault {
                    MemFault::Unmapped => "access to unmapped address",
                    MemFault::Unaligned => "misaligned access to address",
                    MemFault::Protected => "access not allowed to address",
                };
                write!(
                    f,
                    "{} at pc {:#010x}: {what} {addr:#010x}, ",
                    self.core, self.pc
                )?;
                insn(f)
            }
            FaultKind::Fetch { fault } => {
                let what = match fault {
                    MemFault::Unaligned => "misaligned instruction fetch",
                    MemFault::Protected => "instruction fetch not allowed",
                    _ => "instruction fetch from unmapped address",
                };
                write!(f, "{}: {what} at pc {:#010x}", self.core, self.pc)
            }
            FaultKind::Unimplemented => {
                write!(f, "{} at pc {:#010x}: illegal ", self.core, self.pc)?;
                insn(f)
            }
            FaultKind::Fpu => {
                write!(f, "{} at pc {:#010x}: FPU exception, ", self.core, self.pc)?;
                insn(f)
            }
        }
    }
}

impl Core {
    pub fn new(id: CoreId, sram_size: u32) -> Core {
        Core {
            id,
            state: ArchState::new(),
            sram: CodeMem::new(sram_size),
            regs: OtherRegs {
                meshconfig: 2,
                ..OtherRegs::default()
            },
            run: RunState::Halted,
            stats: CoreStats::default(),
            blocks: BlockCache::new(),
            pipe: Pipeline::new(Params::DEFAULT, sram_size, id.bits()),
            memo: Memo::new(),
            memoise: true,
            chip: Chip {
                first_row: id.row,
                first_col: id.col,
                rows: 1,
                cols: 1,
            },
            answer: None,
            dma: Dma::new(DmaParams::DEFAULT),
            dma_error: None,
            timer_at: 0,
            dram_via_mesh: false,
            fetch_buf: FetchBuf::EMPTY,
            near_tries: NearTries::default(),
            spin_skip: false,
            spin_park: false,
            dma_direct: false,
            dma_detached: false,
            wand_clear_from: u64::MAX,
            spin: Box::new(Spin::new()),
            twait: Box::new(twait::TimerWait::new()),
            poll: poll::Poll::default(),
            solo: None,
        }
    }

    /// Whether the last run stopped at the head of a loop that only polls
    /// local memory, in its fixed point ([`Spin`]): until something else
    /// writes the core's memory or registers, [`Core::spin_to`] moves it
    /// on in closed form.
    pub fn spinning(&self) -> bool {
        self.spin.parked
    }

    /// Whether the core was last found in a polling loop's fixed point
    /// (`Spin::period`), parked or not.
    pub fn polling(&self) -> bool {
        self.spin.period.is_some()
    }

    /// Something other than the core itself may have written its memory or
    /// registers: a loop it polls is watched afresh.
    pub fn spin_forget(&mut self) {
        self.spin_take_banks();
        self.spin.forget();
    }

    /// The pipeline takes the SRAM banks of the writes that reached the
    /// core while it was parked (`Spin::banks_due`), each in its cycle, as
    /// it would have as they came: the loop, which fetches from none of
    /// them, ran the same; the uses are the pipeline's later (a fetch from
    /// that bank after the loop). True if there were any. (The bank uses a
    /// pipeline keeps are the same whatever their order: the window ends
    /// at the latest.)
    fn spin_take_banks(&mut self) -> bool {
        if self.spin.banks_due.is_empty() {
            return false;
        }
        for (at, off) in self.spin.banks_due.drain(..) {
            self.pipe.mesh_access(at, off);
        }
        true
    }

    /// A write of `bytes` at SRAM offset `off` reaching the core, parked
    /// in a polling loop, at cycle `at`: whether it leaves the loop as it
    /// is, none of the bytes it loads nor its code, and the SRAM bank the
    /// write takes in `at` none the loop fetches from (a load or store is
    /// not delayed by it, `Pipeline::memory`). Its bank use is then kept
    /// for when the core runs on (`Core::spin_take_banks`) and the write
    /// is made by the caller.
    pub fn spin_quiet_write(&mut self, at: u64, off: u32, bytes: u32) -> bool {
        if !self.spin.parked || !self.sram.contains(off, bytes) {
            return false;
        }
        let Some((entry, end)) = self.spin_code() else {
            return false;
        };
        // (The lines of the loop, and the next two the fetch may look at.)
        let bank = Pipeline::bank(off);
        if [entry, end.saturating_sub(1), end + 8, end + 16]
            .into_iter()
            .any(|a| Pipeline::bank(a) == bank)
        {
            return false;
        }
        self.spin_find_reads();
        if !self.spin_untouched(off, bytes) {
            return false;
        }
        self.spin.banks_due.push((at, off));
        true
    }

    /// Writes into its SRAM made while it stayed parked, found to leave
    /// everything its loop reads as it was (a quiet DMA move or read
    /// response, `Machine::schedule_timed`): they do not end its loop.
    pub fn spin_writes_seen(&mut self) {
        if self.spin.parked {
            self.spin.writes = self.sram.writes();
        }
    }

    /// Before a run: a core parked at the head of a polling loop is watched
    /// afresh if its SRAM or registers changed since (written from outside
    /// the machine's runs; a core not parked looks at the SRAM's write
    /// count at the loop's next head). Whoever changes its other registers
    /// (DMA, MEMPROTECT, ...) from outside calls [`Core::spin_forget`], as
    /// the host interface does.
    pub fn spin_check(&mut self) {
        if self.spin.parked
            && (self.sram.writes() != self.spin.writes || self.state != self.spin.state)
        {
            self.spin_forget();
        }
    }

    /// A core [`Core::spinning`]: does the loop's iterations that end by
    /// cycle `to`, at once, and leaves the core at the loop's head (from
    /// there it runs as usual).
    pub fn spin_to(&mut self, to: u64) {
        if !std::mem::take(&mut self.spin.parked) {
            return;
        }
        let to = to.min(self.spin_deadline());
        let now = self.stats.cycles;
        let n = self
            .spin
            .period
            .map_or(0, |per| to.saturating_sub(now) / per.p);
        if n > 0 {
            self.sram.note_read_all();
            let mut instret = self.stats.instret;
            let mut cycles = now;
            self.spin.repeat(
                n,
                &mut self.pipe,
                &mut self.stats,
                &mut instret,
                &mut cycles,
            );
            self.stats.instret = instret;
            self.stats.cycles = cycles;
            // (Timers counting clock cycles count the iterations: none
            // fires before `to`, cut to `spin_deadline`.)
            count_clock(&mut self.state, &mut self.timer_at, cycles);
        }
        // The core is at the head of the loop it polled, in the same fixed
        // point: it runs on from here, and the next head (an iteration on)
        // parks it again at once unless something wrote its memory or
        // registers meanwhile (`Spin::forget`, the SRAM's write count).
        self.spin.rebase(
            &self.state,
            &self.stats,
            self.stats.instret,
            self.stats.cycles,
            self.sram.writes(),
        );
        self.spin.clean = true;
        self.spin.loads = true;
        if self.spin_take_banks() {
            // (The pipeline is not one the loop's closed form moves on:
            // its next head is looked at afresh.)
            self.spin.forget();
        }
    }

    /// The code of the loop a core is [`Core::spinning`] in, `[entry,
    /// end)`: the instructions of its cached block; `None` if the block is
    /// not cached.
    fn spin_code(&self) -> Option<(u32, u32)> {
        let entry = self.spin.entry;
        let b = self.blocks.lookup(entry)?;
        let end = self
            .blocks
            .code(b)
            .last()
            .map_or(entry, |k| k.pc + u32::from(k.len));
        Some((entry, end))
    }

    /// What the loop a core is [`Core::spinning`] in reads: its DMA
    /// registers (bit `n`: the word at offset `4n` of the window
    /// 0xF0500-0xF053F) and its SRAM banks (bit `b`: bank `b`), its own
    /// code's among them. Until something changes one of them (or its
    /// registers otherwise), every iteration stays the same.
    pub fn spin_reads(&self) -> (u16, u8) {
        // (Not cached: every bank.)
        let Some((entry, end)) = self.spin_code() else {
            return (self.spin.dma_reads, 0xF);
        };
        let mut banks = self.spin.banks;
        for at in [entry, end.saturating_sub(1)] {
            banks |= 1 << Pipeline::bank(at);
        }
        (self.spin.dma_reads, banks)
    }

    /// Finds the bytes the iteration of the loop a core is parked in
    /// loads (`Spin::reads`), once per park: from the core's state, which
    /// is the loop's head's while it is parked. (Only a parked core whose
    /// DMA engine or the mesh writes its SRAM needs them: not found at
    /// every park.)
    pub fn spin_find_reads(&mut self) {
        if std::mem::replace(&mut self.spin.reads_found, true) {
            return;
        }
        let entry = self.spin.entry;
        let me = self.id.bits();
        self.spin.reads = self
            .blocks
            .lookup(entry)
            .and_then(|b| loop_reads(&self.state, &self.sram, me, self.blocks.code(b), entry));
    }

    /// Whether a write of `bytes` at offset `off` of the SRAM of a core
    /// [`Core::spinning`] leaves what its loop reads as it was: none of
    /// the bytes its iteration loads (`Spin::reads`; the banks it loads
    /// from if those are not known) nor of its code. (A write by the
    /// core's DMA engine takes no bank from its fetches.)
    pub fn spin_untouched(&self, off: u32, bytes: u32) -> bool {
        debug_assert!(self.spin.reads_found, "spin_find_reads first");
        let Some((entry, end)) = self.spin_code() else {
            return false;
        };
        let hit = |(lo, hi): (u32, u32)| off < hi && lo < off + bytes;
        if hit((entry, end)) {
            return false;
        }
        match &self.spin.reads {
            Some((reads, n)) => !reads[..usize::from(*n)].iter().any(|&r| hit(r)),
            None => self.spin_reads().1 & 1 << Pipeline::bank(off) == 0,
        }
    }

    /// A core parked at the head of a polling loop ([`Core::spin_to`])
    /// must run on by this cycle: the first in which one of its timers
    /// counting clock cycles could fire (`timing::lazy_limit`; `u64::MAX`:
    /// none counts).
    pub fn spin_deadline(&self) -> u64 {
        lazy_limit(&self.state, self.timer_at).unwrap_or(self.stats.cycles)
    }

    /// A bus for this core over the shared memories.
    pub fn bus<'a>(&'a mut self, shared: &'a mut Shared<'_>) -> (&'a mut ArchState, CoreBus<'a>) {
        (
            &mut self.state,
            CoreBus::new(self.id, &mut self.sram, &mut self.regs, shared, self.chip),
        )
    }

    /// Starts the core at `pc` as a reset does: running, interrupts enabled
    /// at the global level, IMASK as e-hal leaves it.
    pub fn start(&mut self, pc: u32) {
        self.state.pc = pc;
        self.fetch_buf = FetchBuf::EMPTY;
        self.pipe.redirect(pc, self.stats.cycles);
        self.state.set_bit(status::ACTIVE, true);
        self.state.debugstatus &= !DEBUG_HALT;
        self.run = RunState::Running;
    }

    /// Halts the core.
    pub fn halt(&mut self) {
        self.state.debugstatus |= DEBUG_HALT;
        self.run = RunState::Halted;
    }

    /// Runs for up to `budget` cycles, returning why it stopped. With
    /// `TIMED` the pipeline model decides when each instruction issues;
    /// without, each takes one cycle. With `TRACE` every instruction is
    /// recorded to `trace`. `REC` makes the bus record each access: it must
    /// be `TIMED || TRACE` (the caller spells it out; see [`Core::run`]).
    pub fn run_mode<const TIMED: bool, const TRACE: bool, const REC: bool>(
        &mut self,
        shared: &mut Shared<'_>,
        budget: u64,
        policy: FaultPolicy,
        mut trace: Option<&mut Trace>,
    ) -> CoreExit {
        // (Writes that reached it parked take their banks now, if a run
        // comes before anything brought it on: `Core::spin_take_banks`.)
        self.spin_take_banks();
        let id = self.id;
        let cycle0 = self.stats.cycles;
        let limit = cycle0.saturating_add(budget);
        let mut retired = 0u64;
        let mut reset = false;
        // Timed: the cycle count after the last instruction (last issue + 1).
        let mut now = cycle0;
        // Lazy timers: the end of the last stretch whose clock cycles the
        // timers have yet to count (`timing::lazy_limit`).
        let mut lazy_to = 0u64;
        let exit = 'run: {
            if self.run == RunState::Idle && !self.wake() {
                break 'run CoreExit::Idle;
            }
            if self.run == RunState::Halted {
                break 'run CoreExit::Halted;
            }
            let Core {
                state: s,
                sram,
                regs,
                run,
                blocks,
                pipe,
                stats,
                memo,
                memoise,
                chip,
                answer,
                timer_at,
                dram_via_mesh,
                fetch_buf,
                spin_skip,
                spin_park,
                spin,
                twait,
                near_tries,
                dma,
                dma_direct,
                dma_detached,
                solo,
                wand_clear_from,
                ..
            } = self;
            let mut bus = CoreBus::<REC>::new(id, sram, regs, shared, *chip);
            if TIMED && *dma_direct {
                bus.dma = Some(&*dma);
            }
            bus.dma_detached = TIMED && *dma_detached;
            bus.answer = answer.take();
            bus.dram_via_mesh = *dram_via_mesh;
            if TIMED && !TRACE {
                // (Loads from DRAM alone on their way: `SoloLoads`.)
                bus.solo = solo.as_deref_mut().filter(|x| x.until > 0);
            }
            // A one-instruction block for code in another core's SRAM.
            let mut one = (
                [Insn {
                    op: epsim_isa::Op::Nop,
                    pc: 0,
                    len: 2,
                    class: OpClass::Control,
                }],
                [nop_timing()],
            );
            // The machine's timing of a line of DRAM code the pipeline
            // could not time itself.
            if TIMED {
                if let (Some(a), Some((line, _))) = (bus.answer, pipe.pending_fetch()) {
                    if a.addr == line {
                        bus.answer = None;
                        pipe.supply_pending(u64::from(a.latency));
                    }
                }
            }
            // Code may have been written since this core last ran (the
            // loader, a system call, another agent); within the loop only
            // a store that sets `attention` can write it.
            blocks.validate([bus.sram.epoch(), bus.dram.epoch()]);
            // Another agent may have raised an interrupt since this core
            // last ran (not while an instruction waits to execute again
            // with its remote access answered).
            if bus.answer.is_none() && s.ilat & !s.imask != 0 && !idle_after_gie(s, &bus) {
                if let Some(n) = pending_interrupt(s) {
                    let ret = s.pc;
                    enter_interrupt(s, n, ret);
                    fetch_buf.expect = u32::MAX;
                    if TIMED {
                        pipe.interrupt(s.pc, now);
                    }
                    if let Some(t) = trace.as_deref_mut() {
                        t.interrupt(now, id, n, s.pc, ret);
                    }
                }
            }
            spin.parked = false;
            // The next block runs in the detailed model (it reads or
            // changes the timers).
            let mut eager_next = false;
            // (A loop waiting for a timer is found within one run.)
            twait.forget();
            // An interrupt raised while the instruction answered now waited
            // for its access (its block's first) is taken right after it,
            // before the next, as in strict order: that block ends there
            // (the block loop checks for interrupts after each block).
            bus.cut_at_answer = TIMED
                && bus.answer.is_some()
                && s.ilat & !s.imask != 0
                && pending_interrupt(s).is_some();
            while now < limit {
                let entry = s.pc;
                follow_wand(s, wand_clear_from, now);
                // CONFIG changes only at block ends (MOVTS, or a store that
                // sets `attention`).
                let timers = timers_on(s.config);
                // While the timers count only clock cycles, replayed blocks
                // and a polling loop's iterations done at once leave the
                // count for later (`lazy_to`), up to the cycle the first
                // timer could fire: no block or iteration done so reaches
                // `blim`.
                let eager = std::mem::take(&mut eager_next);
                let lazy = if TIMED && !TRACE && timers && !eager {
                    lazy_limit(s, *timer_at)
                } else {
                    None
                };
                let blim = lazy.map_or(limit, |l| l.min(limit));
                // The timer read at the head of a loop waiting for the
                // timer (`twait`): its iterations that end well before the
                // first cycle a timer could fire are done at once, the
                // timers counting them when the read runs below.
                if TIMED && !TRACE && eager && *spin_skip {
                    if let Some(tlim) = lazy_limit(s, *timer_at) {
                        let instret = stats.instret + retired;
                        let writes = bus.sram.writes();
                        let read = bus.timer_read;
                        let found =
                            twait.head(entry, s, pipe, stats, instret, now, writes, read, blocks);
                        if let Some(per) = found {
                            let mut n =
                                (tlim.min(limit).saturating_sub(now) / per.p).saturating_sub(1);
                            // (Fewer if the loop may leave before: a
                            // compare whose flags change on the way.)
                            while n > 0 && !twait::fits(&per, read, n) {
                                n /= 2;
                            }
                            if n > 0 {
                                bus.sram.note_read_all();
                                now += n * per.p;
                                retired += n * per.instret;
                                stats.dual += n * per.dual;
                                for (a, d) in stats.stalls.iter_mut().zip(per.stalls) {
                                    *a += n * d;
                                }
                                pipe.shift(&per.moves, n * per.p);
                                // (Its fetches not made one by one:
                                // `Machine::read_in_past`.)
                                pipe.fetched = 0xf;
                                let dv = (n * per.p) as u32;
                                for k in 0..64 {
                                    if per.regs & 1 << k != 0 {
                                        s.r[k] = s.r[k].wrapping_sub(dv);
                                    }
                                }
                                twait.moved += n;
                                spin.forget();
                            }
                        }
                    }
                }
                // The head of a loop that only polls local memory: in its
                // fixed point, the run stops here for the scheduler, or
                // the iterations that end well before the limit are done
                // at once.
                if TIMED && !TRACE && *spin_skip && (!timers || lazy.is_some()) {
                    let instret = stats.instret + retired;
                    if let Some(p) =
                        spin.head(entry, s, pipe, stats, instret, now, bus.sram.writes())
                    {
                        if *spin_park {
                            spin.parked = true;
                            spin.reads_found = false;
                            break 'run CoreExit::Budget;
                        }
                        let n = (blim.saturating_sub(now) / p).saturating_sub(1);
                        if n > 0 {
                            // (Its loads made in closed form: every page
                            // counts as read, `CodeMem::read_since_undo`.)
                            bus.sram.note_read_all();
                            let mut instret = instret;
                            spin.repeat(n, pipe, stats, &mut instret, &mut now);
                            retired = instret - stats.instret;
                            if timers {
                                lazy_to = now;
                            } else {
                                *timer_at = now;
                            }
                        }
                    }
                }
                let fetch_fault = |fault| {
                    CoreExit::Fault(GuestFault {
                        core: id,
                        pc: entry,
                        word: 0,
                        kind: FaultKind::Fetch { fault },
                    })
                };
                let block = match blocks.lookup(entry) {
                    Some(b) => Some(b),
                    None => match build_block(blocks, &mut bus, entry) {
                        Ok(b) => Some(b),
                        Err(None) => None,
                        Err(Some(fault)) => break 'run fetch_fault(fault),
                    },
                };
                let (insns, deps) = match block {
                    // (Control only reaches local code by a jump, which
                    // emptied the buffer for code elsewhere, or an
                    // interrupt, which does so below.)
                    Some(b) => (blocks.code(b), blocks.timing(b)),
                    None => {
                        // Code in another core's SRAM: one instruction at a
                        // time, its lines read through the machine.
                        match remote_insn(&mut bus, fetch_buf, pipe, TIMED, entry, &mut one) {
                            RemoteFetch::Word(_) => (&one.0[..], &one.1[..]),
                            RemoteFetch::Need(access) => {
                                break 'run CoreExit::Remote { access, pc: entry }
                            }
                            RemoteFetch::Fault(fault) => break 'run fetch_fault(fault),
                        }
                    }
                };
                let mut n = insns.len();
                if !TIMED {
                    n = n.min((limit - now) as usize);
                }
                if s.lc != 0 {
                    n = n.min(upto_loop_end(insns, s.le));
                }
                if TIMED {
                    pipe.set_rounding(s.config);
                }
                // Run the block's instructions back to back while each one
                // simply falls through; stop at the first that does not, or
                // after a store that needs the system's attention. The
                // hardware-loop rule applies to the last one run only: the
                // block was cut after the loop's last instruction above.
                bus.attention = false;
                bus.timer_touched = false;
                // Where its loads and stores went (`Spin::piece`).
                let mut mem = 0u8;
                // The block was replayed with the timers' count left for
                // later.
                let mut ran_lazy = false;
                let (done, pc, len, last, issued) = if !TIMED && !TRACE && !timers {
                    let (done, pc, len, last) = match block {
                        Some(_) => plain_chain(
                            s,
                            &mut bus,
                            blocks,
                            &insns[..n],
                            &mut now,
                            &mut retired,
                            limit,
                        ),
                        None => plain_block(s, &mut bus, &insns[..n], entry),
                    };
                    now += done as u64;
                    (done, pc, len, last, None)
                } else if let Some(block) = block.filter(|_| {
                    TIMED
                        && !TRACE
                        && (!timers || lazy.is_some())
                        && *memoise
                        // An answered access of an instruction other than a
                        // load or store (a MOVFS of a DMA register) is
                        // noted among the memory codes, which belong to
                        // loads and stores only.
                        && (bus.answer.is_none() || insns[0].class == OpClass::LoadStore)
                        // (From where the pipeline's state no longer
                        // delays it: a load's data may come far later,
                        // the answered one's latency on top.)
                        && blim.saturating_sub(pipe.settled(now))
                            >= memo_margin(n, entry >> 20 == 0)
                                + bus.answer.map_or(0, |a| u64::from(a.latency))
                        && (!pipe.fetches_from_dram(entry)
                            || dram_block_fits(pipe, &bus, &insns[..n], now, blim))
                }) {
                    memo.validate(blocks.generation);
                    bus.lazy_timers = timers;
                    let ran = memo_block(
                        s,
                        &mut bus,
                        &insns[..n],
                        &deps[..n],
                        blocks.live(block.id),
                        entry,
                        pipe,
                        stats,
                        memo,
                        &mut now,
                        id,
                        limit,
                    );
                    bus.lazy_timers = false;
                    if timers {
                        ran_lazy = true;
                        lazy_to = now;
                    }
                    // (Its accesses, as the replay key codes them.)
                    // (Reads of the core's own DMA registers answered at
                    // once count as local loads: `CoreBus::direct_dma`;
                    // any other access through the mesh stopped the block
                    // before it, or is its first instruction answered
                    // after such a stop, which made the loop unclean.)
                    let direct = std::mem::take(&mut bus.direct);
                    let c = &bus.codes;
                    mem = u8::from(c.external && !direct) << 1 | u8::from(direct);
                    for &k in &c.codes[..c.n] {
                        mem |= if k & 8 == 0 && k & 7 < 4 {
                            1 | 16 << (k & 7)
                        } else if k & 8 == 0 && direct && k & 7 == 6 {
                            1
                        } else {
                            2
                        };
                    }
                    ran
                } else {
                    // A block too near the limit for its margin: replayed
                    // if the record its run finds ends before the limit
                    // (`memo_block_before`), else timed in the detailed model.
                    let m = if TIMED
                        && !TRACE
                        && !timers
                        && *memoise
                        && bus.answer.is_none()
                        && entry >> 20 == 0
                    {
                        undoable(&insns[..n])
                    } else {
                        0
                    };
                    let near = match block {
                        Some(block) if m > 0 && memo.has_entry(entry) && near_tries.try_now() => {
                            memo.validate(blocks.generation);
                            let r = memo_block_before(
                                s,
                                &mut bus,
                                &insns[..m],
                                &deps[..m],
                                blocks.live(block.id),
                                entry,
                                pipe,
                                stats,
                                memo,
                                &mut now,
                                limit,
                            );
                            near_tries.note(&r);
                            r.ok()
                        }
                        _ => None,
                    };
                    if let Some(ran) = near {
                        // (Loads from its own SRAM only, as the replay key
                        // codes them.)
                        let c = &bus.codes;
                        for &k in &c.codes[..c.n] {
                            mem |= 1 | 16 << (k & 7);
                        }
                        ran
                    } else {
                        general_block::<TIMED, TRACE, REC>(
                            s,
                            &mut bus,
                            &insns[..n],
                            &deps[..n],
                            entry,
                            Env {
                                pipe,
                                stats,
                                trace: trace.as_deref_mut(),
                                id,
                                first_cycle: cycle0 + retired,
                                limit,
                                timers,
                                timer_at: &mut *timer_at,
                                mem: &mut mem,
                            },
                            &mut now,
                        )
                    }
                };
                retired += done as u64;
                if TIMED && !TRACE && *spin_skip {
                    // (Timers counting clock cycles only, which it did not
                    // touch, leave it alone, counted at once or later:
                    // `Spin::look` compares states without them.)
                    let quiet = !bus.attention
                        && s.lc == 0
                        && (!timers || ran_lazy || (lazy.is_some() && !bus.timer_touched));
                    let dma = std::mem::take(&mut bus.dma_reads);
                    spin.piece(mem, dma, quiet, done < n, last);
                    // (A block stopped before the timer read, for the
                    // detailed model: `eager_next` below.)
                    let ok = !bus.attention
                        && s.lc == 0
                        && mem == 0
                        && (eager || !bus.timer_touched || bus.timer_stall)
                        && matches!(
                            last,
                            None | Some(Step::Next | Step::Jump { .. } | Step::Stall)
                        )
                        && (last != Some(Step::Stall) || bus.timer_stall);
                    twait.piece(entry, done, ok);
                }
                if !timers {
                    // Nothing counted: a timer enabled by this block
                    // counts from here.
                    *timer_at = now;
                }
                if last == Some(Step::Stall) {
                    // The instruction at `pc` needs the machine; the ones
                    // before it ran.
                    s.pc = pc;
                    if ran_lazy && bus.deferred.is_some() && done < n {
                        // The detailed model counts the cycles before the
                        // instruction's issue before it finds the access:
                        // so do the timers here, as they would then.
                        let (d, k) = (&deps[done], &insns[done]);
                        let issue = pipe.issue(d, k.pc, u32::from(k.len));
                        let need = pipe.take_need();
                        pipe.unissue();
                        if !need && issue.cycle < limit {
                            count_before(s, timer_at, issue);
                        }
                    }
                    match bus.deferred.take() {
                        Some(access) if TIMED && !TRACE => {
                            // A load from DRAM alone on its way: answered
                            // here (`SoloLoads`); so is a store to DRAM,
                            // posted (`SoloLoads::load`).
                            // (Not if its request went in its block and
                            // the core waits for the response.)
                            let solo = bus.solo.as_deref_mut().filter(|x| x.waiting.is_none());
                            let found = blocks.lookup(pc);
                            if let (Some(solo), Some(b), None) = (solo, found, pipe.pending_fetch())
                            {
                                // When it issues (`Core::probe_issue`).
                                let (timing, len) = (blocks.timing(b)[0], blocks.code(b)[0].len);
                                pipe.set_rounding(s.config);
                                let issue = pipe.issue(&timing, pc, u32::from(len)).cycle;
                                // (Answered, the instruction issues again at
                                // once from the same state: the fetch of its
                                // line stays, as that issue would make it,
                                // unless it spans two lines, whose second
                                // the issue would not find in place.)
                                let need =
                                    pipe.take_need() || pc >> 3 != (pc + u32::from(len) - 1) >> 3;
                                if need {
                                    pipe.unissue();
                                }
                                let mut busy = pipe.port.busy;
                                let outcome = solo.load(
                                    id,
                                    &pipe.params,
                                    &mut busy,
                                    bus.dram,
                                    access,
                                    issue,
                                    limit,
                                );
                                pipe.port.busy = busy;
                                // Its request sent and (answered) its
                                // response delivered: mesh events.
                                let ev = crate::timing::mesh_events(bus.regs.meshconfig, 1);
                                match outcome {
                                    SoloOutcome::Answered(a) => {
                                        if ev.mesh0 | ev.mesh1 != 0 {
                                            tick_timers(s, &ev);
                                            tick_timers(s, &ev);
                                        }
                                        spin.forget();
                                        bus.answer = Some(a);
                                        continue;
                                    }
                                    SoloOutcome::Waits => {
                                        if !need {
                                            pipe.unissue();
                                        }
                                        if ev.mesh0 | ev.mesh1 != 0 {
                                            tick_timers(s, &ev);
                                        }
                                    }
                                    SoloOutcome::No if !need => pipe.unissue(),
                                    SoloOutcome::No => {}
                                }
                            }
                            break 'run CoreExit::Remote { access, pc };
                        }
                        Some(access) => break 'run CoreExit::Remote { access, pc },
                        // A block whose loads from DRAM were answered as
                        // it ran ended before a store (`CoreBus::solo_stop`).
                        None if std::mem::take(&mut bus.solo_split) => continue,
                        None if std::mem::take(&mut bus.timer_stall) => {
                            // A replayed block reached an access to the
                            // timers: it runs in the detailed model.
                            eager_next = true;
                            continue;
                        }
                        None => unreachable!("invariant: only a deferred access stalls"),
                    }
                }
                if done == 0 {
                    // The budget ran out before the block's first issue.
                    now = limit;
                    break;
                }
                let step = last.unwrap_or(Step::Next);
                let seq = pc.wrapping_add(len);
                if block.is_none() {
                    // Fetch goes on sequentially from here, unless control
                    // goes elsewhere (a jump, a hardware loop's end; an
                    // interrupt's vector is local code, which empties it).
                    fetch_buf.expect = seq;
                }
                if let Some(exit) = settle(s, &mut bus, run, id, policy, step, pc, len) {
                    break 'run exit;
                }
                if block.is_none() && s.pc != seq {
                    fetch_buf.expect = u32::MAX;
                }
                if TIMED && matches!(step, Step::Next) && s.pc != seq {
                    // A hardware loop went back to its start.
                    if let Some(i) = issued {
                        pipe.loop_back(s.pc, i.cycle);
                    }
                }
                if bus.attention {
                    if bus.reset_requested {
                        // The core reset itself: it is idle from here.
                        reset = true;
                        break 'run CoreExit::Idle;
                    }
                    if bus.halt_requested {
                        *run = RunState::Halted;
                        break 'run CoreExit::Halted;
                    }
                    blocks.validate([bus.sram.epoch(), bus.dram.epoch()]);
                }
                if step == Step::Idle && *run == RunState::Running {
                    // IDLE found an interrupt to take at once: the core
                    // went on to its vector without sleeping.
                    if TIMED {
                        pipe.interrupt(s.pc, now);
                    }
                    if let Some(t) = trace.as_deref_mut() {
                        t.interrupt(now, id, s.ipend.trailing_zeros(), s.pc, s.iret);
                    }
                }
                if s.ilat & !s.imask != 0 && !idle_after_gie(s, &bus) {
                    if let Some(n) = pending_interrupt(s) {
                        let ret = s.pc;
                        enter_interrupt(s, n, ret);
                        fetch_buf.expect = u32::MAX;
                        if TIMED {
                            pipe.interrupt(s.pc, now);
                        }
                        if let Some(t) = trace.as_deref_mut() {
                            t.interrupt(now, id, n, s.pc, ret);
                        }
                    }
                }
            }
            CoreExit::Budget
        };
        self.stats.instret += retired;
        self.stats.cycles = now.max(self.stats.cycles);
        follow_wand(&self.state, &mut self.wand_clear_from, now);
        // The timers count what replayed blocks left for later (none can
        // fire: they ran before the first cycle one could).
        if TIMED && lazy_to > self.timer_at {
            count_clock(&mut self.state, &mut self.timer_at, lazy_to);
        }
        if reset {
            self.reset();
        }
        exit
    }

    /// Runs for up to `budget` cycles in `mode`, tracing to `trace` if given.
    pub fn run(
        &mut self,
        shared: &mut Shared<'_>,
        budget: u64,
        policy: FaultPolicy,
        mode: Mode,
        trace: Option<&mut Trace>,
    ) -> CoreExit {
        match (mode, trace) {
            (Mode::Functional, None) => {
                self.run_mode::<false, false, false>(shared, budget, policy, None)
            }
            (Mode::Functional, Some(t)) => {
                self.run_mode::<false, true, true>(shared, budget, policy, Some(t))
            }
            (Mode::Timed, None) => self.run_mode::<true, false, true>(shared, budget, policy, None),
            (Mode::Timed, Some(t)) => {
                self.run_mode::<true, true, true>(shared, budget, policy, Some(t))
            }
        }
    }

    /// A sleeping core whose timers count clock or idle cycles sleeps until
    /// the first one expires: the time passes, the timer interrupt is
    /// latched, and the core wakes if it can take it. False if no timer
    /// can wake it.
    pub fn sleep_until_timer(&mut self) -> bool {
        let Some(wait) = idle_wakeup(&self.state) else {
            return false;
        };
        let ev = Events {
            clock: wait,
            idle: wait,
            ..Events::default()
        };
        tick_timers(&mut self.state, &ev);
        self.stats.cycles += wait;
        self.stats.idle += wait;
        self.timer_at = self.stats.cycles;
        self.pipe.skip_to(self.stats.cycles);
        if self.wake() {
            let (cycle, pc) = (self.stats.cycles, self.state.pc);
            self.pipe.interrupt(pc, cycle);
            true
        } else {
            false
        }
    }

    /// Performs `access`, from another core, on this core's memory or
    /// registers: its SRAM as its own loads and stores would, its
    /// registers as the memory-mapped register window defines (a write to
    /// DEBUGCMD halts or resumes it; ILATST raises an interrupt it takes
    /// when it next runs).
    pub fn serve(
        &mut self,
        shared: &mut Shared<'_>,
        access: RemoteAccess,
        now: u64,
    ) -> Result<u64, MemFault> {
        let off = access.addr & 0xF_FFFF;
        if access.kind == RemoteKind::Fetch {
            // Code is fetched from SRAM only.
            let line = off & !7;
            return if self.sram.contains(line, 8) {
                Ok(self.sram.read_load(line, 8))
            } else {
                Err(MemFault::Unmapped)
            };
        }
        if is_dma(off) {
            return self.dma_register(access, now);
        }
        let len = access.size.bytes();
        let (s, mut bus) = self.bus(shared);
        let result = if bus.sram.contains(off, len) {
            match access.kind {
                RemoteKind::Load => Ok(bus.sram.read_load(off, len)),
                RemoteKind::Store(v) | RemoteKind::Multicast(v) => {
                    bus.sram.write(off, len, v);
                    Ok(0)
                }
                RemoteKind::TestSet(v) => {
                    let old = bus.sram.read_load(off, 4);
                    if old == 0 {
                        bus.sram.write(off, 4, u64::from(v));
                    }
                    Ok(old)
                }
                RemoteKind::Fetch => Err(MemFault::Protected),
            }
        } else if (MMR_BASE..MMR_END).contains(&off) {
            match access.kind {
                _ if access.size != Size::Word => Err(MemFault::Protected),
                RemoteKind::Load => bus
                    .mmr_read(s, off)
                    .map(u64::from)
                    .ok_or(MemFault::Unmapped),
                RemoteKind::Store(v) | RemoteKind::Multicast(v) => {
                    if bus.mmr_write(s, off, v as u32) {
                        Ok(0)
                    } else {
                        Err(MemFault::Unmapped)
                    }
                }
                RemoteKind::TestSet(_) | RemoteKind::Fetch => Err(MemFault::Protected),
            }
        } else {
            Err(MemFault::Unmapped)
        };
        if bus.reset_requested {
            self.reset();
        } else if bus.halt_requested {
            self.run = RunState::Halted;
        } else if self.run == RunState::Halted
            && self.state.debugstatus & DEBUG_HALT == 0
            && matches!(access.kind, RemoteKind::Store(_) | RemoteKind::Multicast(_))
        {
            // Resumed through DEBUGCMD.
            self.run = RunState::Running;
        }
        result
    }

    /// The cycle the instruction at the PC would issue in (timed mode), for
    /// an instruction waiting on the machine: the pipeline is left as it
    /// was.
    pub fn probe_issue(&mut self, shared: &mut Shared<'_>, access: &RemoteAccess) -> u64 {
        let pc = self.state.pc;
        if access.kind == RemoteKind::Fetch {
            // The instruction's own line(s): when the fetch unit asks.
            return match self.pipe.pending_fetch() {
                Some((line, sent)) if line == access.addr => sent,
                _ => self.pipe.fetch_request(pc),
            };
        }
        // The instruction's timing facts: from the block starting at it
        // when one is cached for the code as it stands (a stopped
        // instruction starts the block run when it executes again).
        self.blocks
            .validate([self.sram.epoch(), shared.dram.epoch()]);
        let (timing, len) = match self.blocks.lookup(pc) {
            Some(b) => (self.blocks.timing(b)[0], self.blocks.code(b)[0].len),
            None => {
                let word = {
                    let (_, bus) = self.bus(shared);
                    instruction_word(&bus, pc)
                };
                let d = decode(word);
                let timing = crate::timing::Timing::of(&d.op.deps(), d.op.class());
                (timing, d.len)
            }
        };
        self.pipe.set_rounding(self.state.config);
        let issue = self.pipe.issue(&timing, pc, u32::from(len));
        self.pipe.unissue();
        // (Its line was timed when it first issued: nothing is asked here.)
        let _ = self.pipe.take_need();
        issue.cycle
    }

    /// An access to a DMA register at cycle `now`: word accesses only.
    fn dma_register(&mut self, access: RemoteAccess, now: u64) -> Result<u64, MemFault> {
        if access.size != Size::Word {
            return Err(MemFault::Protected);
        }
        let off = (access.addr & 0xF_FFFF) - DMA_BASE;
        match access.kind {
            RemoteKind::Load => dma_load(&self.dma, access.addr, access.size),
            RemoteKind::Store(v) | RemoteKind::Multicast(v) => {
                let effect = self.dma.write_reg(now, off, v as u32, &self.sram);
                self.dma_effect(effect);
                Ok(0)
            }
            RemoteKind::TestSet(_) | RemoteKind::Fetch => Err(MemFault::Protected),
        }
    }

    /// Acts on what the DMA engine reports: completion interrupts; an
    /// error is kept for the machine to report.
    pub fn dma_effect(&mut self, effect: DmaEffect) {
        if let Some(n) = effect.irq() {
            self.state.ilat |= 1 << n;
        }
        if let Some(e) = effect.error {
            self.dma_error.get_or_insert(e);
        }
    }

    /// A reset through RESETCORE: the registers as at power-up (those of
    /// [`ArchState::new`]: IMASK lets only SYNC through), the DMA engine
    /// stopped, the pipeline drained; SRAM keeps its contents. The core is
    /// idle: a SYNC interrupt (a write of 1 to its ILATST, as e-hal's
    /// `e_start` does) starts it at address 0.
    pub fn reset(&mut self) {
        self.spin.clear();
        self.poll.clear();
        self.state = ArchState::new();
        self.regs = OtherRegs {
            meshconfig: 2,
            // The chip's eLink registers are not the core's.
            link: self.regs.link,
            ..OtherRegs::default()
        };
        self.dma.reset();
        self.dma_error = None;
        self.answer = None;
        self.fetch_buf = FetchBuf::EMPTY;
        self.run = RunState::Idle;
        self.timer_at = self.stats.cycles;
        self.pipe.skip_to(self.stats.cycles);
    }

    /// Saves the core's state in `into` (reusing its buffers).
    pub fn checkpoint(&mut self, into: &mut Option<Box<Checkpoint>>) {
        self.spin_take_banks();
        self.sram.undo_begin();
        self.pipe.fetched = 0;
        self.wand_clear_from = self.wand_clear_here();
        match into {
            Some(cp) => {
                cp.state.clone_from(&self.state);
                cp.regs.clone_from(&self.regs);
                cp.run = self.run;
                cp.stats = self.stats;
                cp.pipe.copy_from(&self.pipe);
                cp.timer_at = self.timer_at;
                cp.answer = self.answer;
                cp.dma.clone_from(&self.dma);
                cp.dma_error = self.dma_error;
                cp.fetch_buf = self.fetch_buf;
                cp.light = false;
                cp.light_state = false;
            }
            None => {
                *into = Some(Box::new(Checkpoint {
                    state: self.state.clone(),
                    regs: self.regs.clone(),
                    run: self.run,
                    stats: self.stats,
                    pipe: self.pipe.clone(),
                    timer_at: self.timer_at,
                    answer: self.answer,
                    dma: self.dma.clone(),
                    dma_error: self.dma_error,
                    fetch_buf: self.fetch_buf,
                    light: false,
                    light_state: false,
                }))
            }
        }
    }

    /// [`Core::wand_clear_from`] where the core stands, not knowing the
    /// flag before: its cycle if the flag is clear.
    fn wand_clear_here(&self) -> u64 {
        let mut clear_from = u64::MAX;
        follow_wand(&self.state, &mut clear_from, self.stats.cycles);
        clear_from
    }

    /// [`Core::checkpoint`] before a poll's run done at once
    /// (`Core::poll_apply`), which changes only the core's counters,
    /// pipeline, timers and answer: those are saved, not its other
    /// registers, run state, DMA engine or fetch buffer (nor its
    /// architectural state when no timer counts), which nothing changes
    /// before the checkpoint is final or rolled back (the core runs no
    /// instruction meanwhile; its DMA engine is idle, `Core::poll_find`).
    pub(crate) fn checkpoint_poll(&mut self, into: &mut Option<Box<Checkpoint>>) {
        let Some(cp) = into.as_deref_mut() else {
            self.checkpoint(into);
            return;
        };
        self.spin_take_banks();
        self.sram.undo_begin();
        self.pipe.fetched = 0;
        self.wand_clear_from = self.wand_clear_here();
        let same_state = !timers_on(self.state.config);
        if !same_state {
            cp.state.clone_from(&self.state);
        }
        cp.stats = self.stats;
        cp.pipe.copy_from(&self.pipe);
        cp.timer_at = self.timer_at;
        cp.answer = self.answer;
        cp.light = true;
        cp.light_state = same_state;
    }

    /// The state saved at the last checkpoint is final: its SRAM no longer
    /// keeps what writes overwrite.
    pub fn commit_checkpoint(&mut self) {
        self.sram.undo_end();
    }

    /// Returns to the state saved in `cp` (the last checkpoint taken).
    pub fn roll_back(&mut self, cp: &Checkpoint) {
        debug_assert!(
            self.spin.banks_due.is_empty(),
            "a parked core's writes are final"
        );
        self.spin.banks_due.clear();
        self.spin.clear();
        self.poll.clear();
        if !cp.light_state {
            self.state.clone_from(&cp.state);
        }
        if !cp.light {
            self.regs.clone_from(&cp.regs);
            self.run = cp.run;
            self.dma.clone_from(&cp.dma);
            self.dma_error = cp.dma_error;
            self.fetch_buf = cp.fetch_buf;
        }
        self.stats = cp.stats;
        self.pipe.copy_from(&cp.pipe);
        self.timer_at = cp.timer_at;
        self.answer = cp.answer;
        self.sram.undo_apply();
    }

    /// A sleeping core woken at `cycle` by another agent: the time until
    /// then passes idle.
    pub fn catch_up(&mut self, cycle: u64) {
        if self.run != RunState::Running && cycle > self.stats.cycles {
            let wait = cycle - self.stats.cycles;
            if self.run == RunState::Idle {
                self.stats.idle += wait;
                let ev = Events {
                    clock: wait,
                    idle: wait,
                    ..Events::default()
                };
                tick_timers(&mut self.state, &ev);
            }
            self.stats.cycles = cycle;
            self.timer_at = cycle;
            self.pipe.skip_to(cycle);
        }
    }

    /// `n` transactions entered or left the mesh at this core's node (a
    /// packet it sent, one delivered to it): the mesh-monitor timer events
    /// MESHCONFIG selects.
    pub fn mesh_traffic(&mut self, n: u64) {
        let ev = crate::timing::mesh_events(self.regs.meshconfig, n);
        if ev.mesh0 | ev.mesh1 != 0 {
            tick_timers(&mut self.state, &ev);
        }
    }

    /// Whether an idle core has an interrupt it would take now.
    pub fn can_wake(&self) -> bool {
        pending_interrupt(&self.state).is_some()
    }

    /// An idle core takes a pending interrupt if it can; true if it woke.
    fn wake(&mut self) -> bool {
        if wake_now(&mut self.state) {
            self.run = RunState::Running;
            // The vector is local code: code elsewhere is fetched afresh.
            self.fetch_buf.expect = u32::MAX;
            true
        } else {
            false
        }
    }
}

/// Applies the fault policy to a fault of the instruction at `pc`: with
/// `Stop`, the exit that reports it (the PC stays at the instruction, except
/// after an FPU exception, whose result is already written); with `Raise`,
/// latches the software exception `cause` and continues after the
/// instruction.
#[allow(clippy::too_many_arguments)]
fn guest_fault<const REC: bool>(
    policy: FaultPolicy,
    s: &mut ArchState,
    bus: &CoreBus<'_, REC>,
    core: CoreId,
    pc: u32,
    len: u32,
    kind: FaultKind,
    cause: Excause,
) -> Option<CoreExit> {
    if policy == FaultPolicy::Stop {
        // The state names the instruction the core stopped at (after an
        // FPU fault: the one after it), even in the middle of a block,
        // whose instructions do not keep the PC up to date.
        s.pc = if kind == FaultKind::Fpu {
            pc.wrapping_add(len)
        } else {
            pc
        };
        let word = instruction_word(bus, pc);
        return Some(CoreExit::Fault(GuestFault {
            core,
            pc,
            word,
            kind,
        }));
    }
    s.pc = pc.wrapping_add(len);
    s.raise_exception(cause);
    None
}

/// Whether the core is about to execute an IDLE that follows a GIE at an
/// 8-byte boundary: no interrupt is taken between the two (isa.md, the GIE
/// row; the hardware fetches them as one line). The IDLE then takes the
/// pending interrupt at once, returning after itself, so Adapteva's
/// barrier idiom `gid; wand; .balignw 8; gie; idle` cannot sleep through
/// the WAND interrupt it waits for. Decided from the code at the PC, not
/// from the history: a jump straight to such an IDLE is treated the same.
#[cold]
#[inline(never)]
fn idle_after_gie<const REC: bool>(s: &ArchState, bus: &CoreBus<'_, REC>) -> bool {
    let pc = s.pc;
    pc & 7 == 2
        && decode(instruction_word(bus, pc)).op == epsim_isa::Op::Idle
        && decode(instruction_word(bus, pc - 2)).op == epsim_isa::Op::Gie
}

/// Takes a pending interrupt on an idle core (returning into the
/// instruction after IDLE); true if one was taken.
fn wake_now(s: &mut ArchState) -> bool {
    match pending_interrupt(s) {
        Some(n) => {
            let ret = s.pc;
            enter_interrupt(s, n, ret);
            true
        }
        None => false,
    }
}

/// How many of a block's instructions to run so that the
/// hardware loop's last instruction, at `le`, is the last one run: all of
/// them unless `le` is one of their addresses.
#[inline]
fn upto_loop_end(insns: &[Insn], le: u32) -> usize {
    insns
        .iter()
        .position(|insn| insn.pc == le)
        .map_or(insns.len(), |k| k + 1)
}

/// Acts on the outcome `step` of the instruction at `pc` (`len` bytes),
/// the last one a block ran: sets the PC, services
/// what the core services itself, and returns the exit when the core must
/// stop.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn settle<const REC: bool>(
    s: &mut ArchState,
    bus: &mut CoreBus<'_, REC>,
    run: &mut RunState,
    id: CoreId,
    policy: FaultPolicy,
    step: Step,
    pc: u32,
    len: u32,
) -> Option<CoreExit> {
    // The two common outcomes first, tested rather than dispatched on.
    if step == Step::Next {
        s.pc = fallthrough(s, pc, len);
        return None;
    }
    if let Step::Jump { target } = step {
        s.pc = target;
        return None;
    }
    match step {
        Step::Next | Step::Jump { .. } => unreachable!("handled above"),
        Step::Trap { num } => {
            s.pc = pc.wrapping_add(len);
            return Some(CoreExit::Trap { num, pc });
        }
        Step::Idle => {
            s.pc = pc.wrapping_add(len);
            if !wake_now(s) {
                // Still the IDLE: the caller sees an idle core.
                *run = RunState::Idle;
                return Some(CoreExit::Idle);
            }
        }
        Step::Exception(Excause::Swi) => {
            s.pc = pc.wrapping_add(len);
            s.raise_exception(Excause::Swi);
        }
        Step::Exception(cause) => {
            let kind = if cause == Excause::Fpu {
                FaultKind::Fpu
            } else {
                FaultKind::Unimplemented
            };
            return guest_fault(policy, s, bus, id, pc, len, kind, cause);
        }
        Step::Fault { addr, fault } => {
            let kind = FaultKind::Access { addr, fault };
            let cause = match fault {
                MemFault::Unaligned => Excause::Unaligned,
                _ => Excause::IllegalAccess,
            };
            return guest_fault(policy, s, bus, id, pc, len, kind, cause);
        }
        Step::Bkpt | Step::Mbkpt => {
            s.pc = pc.wrapping_add(len);
            s.debugstatus |= DEBUG_HALT;
            *run = RunState::Halted;
            return Some(CoreExit::Breakpoint { pc });
        }
        Step::Wand { rose } => {
            s.pc = fallthrough(s, pc, len);
            if rose {
                return Some(CoreExit::Wand);
            }
        }
        Step::Sync => {
            s.pc = fallthrough(s, pc, len);
            return Some(CoreExit::Sync);
        }
        Step::LoadPending { .. } | Step::Stall => {
            unreachable!("invariant: remote accesses retry (Stall, handled first), never pend")
        }
    }
    None
}

/// Whether a block of DRAM code can be timed whole by the core
/// (`Pipeline::dram_block_fits`): no line of it left to the machine.
#[inline]
fn dram_block_fits<const REC: bool>(
    pipe: &Pipeline,
    bus: &CoreBus<'_, REC>,
    insns: &[Insn],
    now: u64,
    limit: u64,
) -> bool {
    let (Some(first), Some(last)) = (insns.first(), insns.last()) else {
        return false;
    };
    let lines = u64::from(((last.pc + last.len as u32 - 1) >> 3) - (first.pc >> 3)) + 1;
    let answered = bus.answer.map_or(0, |a| u64::from(a.latency));
    pipe.dram_block_fits(now, limit, insns.len(), lines, answered)
}

/// Decodes the block that starts at `pc` into `blocks`, marking its bytes
/// as code in the memory that holds them. Only local SRAM (either address)
/// and DRAM hold code decoded into blocks; `Err(None)` for a `pc` in
/// another core's window (its code is fetched through the machine); an odd
/// or unmapped `pc` is a fetch fault.
#[cold]
#[inline(never)]
fn build_block<const REC: bool>(
    blocks: &mut BlockCache,
    bus: &mut CoreBus<'_, REC>,
    pc: u32,
) -> Result<Found, Option<MemFault>> {
    if pc & 1 != 0 {
        return Err(Some(MemFault::Unaligned));
    }
    let (mem, start) = match bus.place_local(pc, 2) {
        Place::Sram(off) => (&mut *bus.sram, off),
        Place::Dram(off) => (&mut *bus.dram, off),
        Place::Remote if pc >> 20 != 0 && pc >> 20 != bus.id_bits => return Err(None),
        _ => return Err(Some(MemFault::Unmapped)),
    };
    let mut insns = [Insn {
        op: epsim_isa::Op::Nop,
        pc: 0,
        len: 2,
        class: OpClass::Control,
    }; MAX_BLOCK];
    let mut n = 0;
    let mut off = start;
    while n < MAX_BLOCK && mem.contains(off, 2) {
        let d = decode(mem.word_for_decode(off));
        insns[n] = Insn {
            op: d.op,
            pc: pc.wrapping_add(off - start),
            len: d.len,
            class: d.op.class(),
        };
        n += 1;
        off += d.len as u32;
        if ends_block(&d.op) {
            break;
        }
    }
    mem.mark_code(start, off.min(mem.size()) - start);
    Ok(blocks.insert(pc, &insns[..n]))
}

/// What fetching the instruction at a PC in another core's SRAM gives.
/// Fetches and decodes the instruction at `pc` in another core's SRAM
/// into the one-instruction block `one` (out of the hot loop: such code is
/// rare and slow anyway).
#[cold]
#[inline(never)]
fn remote_insn<const REC: bool>(
    bus: &mut CoreBus<'_, REC>,
    buf: &mut FetchBuf,
    pipe: &mut Pipeline,
    timed: bool,
    pc: u32,
    one: &mut ([Insn; 1], [Timing; 1]),
) -> RemoteFetch {
    let fetched = fetch_remote(bus, buf, pipe, timed, pc);
    if let RemoteFetch::Word(word) = fetched {
        let d = decode(word);
        let class = d.op.class();
        one.0[0] = Insn {
            op: d.op,
            pc,
            len: d.len,
            class,
        };
        one.1[0] = Timing::of(&d.op.deps(), class);
        bus.remote_insn = Some((pc, word));
    }
    fetched
}

enum RemoteFetch {
    /// The instruction word (first halfword low).
    Word(u32),
    /// A line the machine must read first.
    Need(RemoteAccess),
    Fault(MemFault),
}

/// The instruction at `pc`, in another core's SRAM, from the fetch buffer;
/// a line not in it is read through the machine (its answer, when this
/// runs again, fills the buffer and, `timed`, tells the pipeline when the
/// line arrived).
fn fetch_remote<const REC: bool>(
    bus: &mut CoreBus<'_, REC>,
    buf: &mut FetchBuf,
    pipe: &mut Pipeline,
    timed: bool,
    pc: u32,
) -> RemoteFetch {
    if buf.expect != pc {
        *buf = FetchBuf::EMPTY;
        buf.expect = pc;
    }
    let mut word = 0;
    for k in 0..2 {
        let at = pc.wrapping_add(2 * k);
        let h = loop {
            if let Some(h) = buf.halfword(at) {
                break h;
            }
            let line = at & !7;
            match bus.answer {
                Some(a) if a.addr == line => {
                    bus.answer = None;
                    match a.value {
                        Ok(bytes) => {
                            if timed {
                                // (The cycle the machine sent the read in.)
                                let sent = pipe.fetch_request(pc);
                                pipe.supply_line(line >> 3, sent + u64::from(a.latency));
                            }
                            buf.push(line, bytes);
                        }
                        Err(fault) => return RemoteFetch::Fault(fault),
                    }
                }
                _ => {
                    return RemoteFetch::Need(RemoteAccess {
                        addr: line,
                        size: Size::Double,
                        kind: RemoteKind::Fetch,
                    })
                }
            }
        };
        word |= u32::from(h) << (16 * k);
        if k == 0 && insn_len(h) == 2 {
            break;
        }
    }
    RemoteFetch::Word(word)
}

/// The instruction word at `pc` for diagnostics (0 if unreadable).
fn instruction_word<const REC: bool>(bus: &CoreBus<'_, REC>, pc: u32) -> u32 {
    if let Some((at, word)) = bus.remote_insn {
        if at == pc {
            return word;
        }
    }
    match bus.place_local(pc, 2) {
        Place::Sram(off) => bus.sram.word_for_decode(off),
        Place::Dram(off) => bus.dram.word_for_decode(off),
        _ => 0,
    }
}

/// A load of the DMA register at `addr` (global or local: its low 20 bits
/// are the offset) from `dma`, as the machine answers one: word reads only.
pub(super) fn dma_load(dma: &Dma, addr: u32, size: Size) -> Result<u64, MemFault> {
    if size != Size::Word {
        return Err(MemFault::Protected);
    }
    Ok(u64::from(dma.read_reg((addr & 0xF_FFFF) - DMA_BASE)))
}

/// The timing facts of a NOP (worked out once: the placeholder of the
/// one-instruction block for code in another core's SRAM).
fn nop_timing() -> Timing {
    static NOP: std::sync::OnceLock<Timing> = std::sync::OnceLock::new();
    *NOP.get_or_init(|| Timing::of(&epsim_isa::Op::Nop.deps(), OpClass::Control))
}
