//! The machine: every core of the chip, external DRAM, the host side of the
//! system calls, and the functional-mode scheduler (timed mode's is
//! `crate::sched`).
//!
//! Model decisions owned here:
//! * which cores take part in a run (the *group*: the cores programs were
//!   loaded onto) and when a run ends (every core of the group has exited
//!   or halted, or sleeps with nothing left to wake it; a fault, signal,
//!   breakpoint or DMA error ends it at once);
//! * in functional mode, how one core's access to another's memory or
//!   registers is performed (at once, by `serve_remote`) and how cores take
//!   turns: always the one furthest behind in simulated time (ties: the
//!   lower row-major index), for a bounded quantum, with DMA element moves
//!   done at once when due; a turn the end of a run cut short goes on
//!   first in the next run, so that a run split at any cycles takes the
//!   turns one run takes;
//! * that the program's unfinished lines of output (several cores, each
//!   line prefixed) are written out when a run ends other than at its
//!   cycle limit;
//! * the group-wide WAND wire: it ANDs the group's STATUS.WAND flags, and
//!   the barrier completes when the last flag is set;
//! * when a core counts as idle for an [`IdleWatch`] (asleep in IDLE with
//!   no interrupt it would take latched, halted, or exited; its DMA engine
//!   stopped; in timed mode not waiting on the machine and its stores to
//!   external memory landed) and how a watched
//!   run ends: in the first cycle the watch's condition holds, after every
//!   agent has acted in the cycles before it.

use std::path::Path;

use epsim_loader::{LoadPlan, Region};

use crate::config::{Config, CoreId, FaultPolicy, Mode};
use crate::core::{
    Answer, Chip, Core, CoreExit, GuestFault, RemoteAccess, RemoteKind, RunState, Shared,
    LINKDEBUG, LINKDEBUG_LOOPBACK,
};
use crate::memory::CodeMem;
use crate::syscall::{SyscallOutcome, Syscalls};
use crate::timing::idle_wakeup;
use crate::trace::Trace;
use epsim_dma::{MoveOutcome, Source};
use epsim_isa::state::{irq, status};
use epsim_isa::{MemFault, Size};

/// Cycles a core runs at most before the scheduler looks again, when it
/// is the only one running.
const BATCH: u64 = 1 << 20;

/// Cycles a core may run ahead of the next core in simulated time.
const QUANTUM: u64 = 1 << 12;

/// Why a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// Every core of the group exited (or returned from main). `core` and
    /// `status` are the first non-zero exit status, in the order the cores
    /// exited, or the last core's zero.
    Exit { core: CoreId, status: i32 },
    /// A core killed itself with a signal (abort → 6).
    Signalled { core: CoreId, signal: u32 },
    /// The cycle limit was reached.
    CycleLimit { cycles: u64 },
    /// Every core still running is idle and nothing can wake it.
    AllIdle,
    /// A core executed BKPT/MBKPT.
    Breakpoint { core: CoreId, pc: u32 },
    /// Every core of the group is halted (and not all of them exited).
    AllHalted,
    /// A guest fault stopped the run.
    Fault(GuestFault),
    /// A DMA channel stopped in its error state (bad descriptor or
    /// address); with the fault policy `Raise` the program sees the state
    /// instead.
    Dma {
        core: CoreId,
        error: epsim_dma::DmaError,
    },
}

/// Cores whose sleep ends a run ([`Machine::run_watch`]): all of them, or
/// any one. A core is idle when it sleeps in IDLE with no interrupt it
/// would take latched (a timer that has not yet expired wakes nothing
/// yet), is halted, or has exited, its DMA engine is stopped, and (timed
/// mode) the stores it made to external memory have landed there.
#[derive(Clone, Debug)]
pub struct IdleWatch {
    /// Indexes of the watched cores, ascending, no repeats.
    cores: Vec<usize>,
    /// Per core of the chip: its place in `cores`, if watched.
    member: Vec<Option<usize>>,
    any: bool,
    /// Per watched core: the cycle it has been idle since.
    since: Vec<Option<u64>>,
    /// How many of them are idle.
    idle: usize,
    /// The cycle the condition held in, once a run ended there.
    reached: Option<u64>,
}

impl IdleWatch {
    /// Watches the cores of indexes `cores` (row-major, from the chip's
    /// first core) of a chip of `n` cores: all of them, or `any` one.
    /// None if `cores` is empty or names a core beyond `n`.
    pub fn new(cores: &[usize], any: bool, n: usize) -> Option<IdleWatch> {
        if cores.is_empty() || cores.iter().any(|&i| i >= n) {
            return None;
        }
        let mut member = vec![None; n];
        for &i in cores {
            member[i] = Some(0);
        }
        let cores: Vec<usize> = (0..n).filter(|&i| member[i].is_some()).collect();
        for (k, &i) in cores.iter().enumerate() {
            member[i] = Some(k);
        }
        Some(IdleWatch {
            since: vec![None; cores.len()],
            cores,
            member,
            any,
            idle: 0,
            reached: None,
        })
    }

    /// Whether core index `i` is watched.
    #[inline]
    pub(crate) fn watches(&self, i: usize) -> bool {
        self.member.get(i).is_some_and(Option::is_some)
    }

    /// The cycle the last [`Machine::run_watch`] stopped in because the
    /// condition held (None if it stopped for another reason).
    pub fn reached(&self) -> Option<u64> {
        self.reached
    }

    /// Looks at the watched cores as they are now (`t`: timed mode's
    /// scheduler state), after an action in cycle `floor - 1` (a core that
    /// became idle in it is idle from `floor`, or from the cycle after its
    /// last instruction if that is later): the cycle since which the
    /// condition holds, if it does.
    pub(crate) fn update(
        &mut self,
        m: &Machine,
        t: Option<&crate::sched::Timed>,
        floor: u64,
    ) -> Option<u64> {
        for i in 0..self.cores.len() {
            self.note(m, t, self.cores[i], floor);
        }
        self.at()
    }

    /// Looks again at core index `i` only (as [`IdleWatch::update`]), if
    /// it is watched.
    #[inline]
    pub(crate) fn note(
        &mut self,
        m: &Machine,
        t: Option<&crate::sched::Timed>,
        i: usize,
        floor: u64,
    ) {
        let Some(Some(k)) = self.member.get(i).copied() else {
            return;
        };
        let since = &mut self.since[k];
        match (m.quiet(t, i), since.is_some()) {
            (true, false) => {
                *since = Some(m.cores[i].stats.cycles.max(floor));
                self.idle += 1;
            }
            (false, true) => {
                *since = None;
                self.idle -= 1;
            }
            _ => {}
        }
    }

    /// The cycle since which the condition holds, if it does.
    pub(crate) fn at(&self) -> Option<u64> {
        if self.any && self.idle > 0 {
            self.since.iter().flatten().copied().min()
        } else if self.idle == self.cores.len() {
            self.since.iter().flatten().copied().max()
        } else {
            None
        }
    }

    /// Whether the condition holds now, between runs.
    pub fn holds(&mut self, m: &Machine) -> bool {
        let t = m.timed.as_deref();
        self.update(m, t, 0).is_some()
    }
}

/// Errors setting up a machine.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error(transparent)]
    Load(#[from] epsim_loader::LoadError),
    #[error("{path}: segment at {addr:#010x} ({len:#x} bytes) is for core ({row},{col}), which is not on this chip")]
    CoreNotSimulated {
        path: String,
        addr: u32,
        len: u32,
        row: u32,
        col: u32,
    },
    #[error("{path}: core ({row},{col}) is not on this {rows} x {cols} chip")]
    GroupOutsideChip {
        path: String,
        row: u32,
        col: u32,
        rows: u32,
        cols: u32,
    },
    #[error("invalid machine configuration: {0}")]
    Config(String),
}

/// A whole simulated system.
pub struct Machine {
    pub config: Config,
    /// Every core of the chip, in row-major order from the first.
    pub cores: Vec<Core>,
    pub dram: CodeMem,
    pub sys: Syscalls,
    /// Simulated cycles since reset: the furthest any core has run.
    pub now: u64,
    /// Where retired instructions are traced, if anywhere.
    pub trace: Option<Trace>,
    /// Indexes of the cores that programs were loaded onto, ascending.
    pub(crate) group: Vec<usize>,
    /// Exit statuses, in the order the cores exited.
    pub(crate) exits: Vec<(CoreId, i32)>,
    /// The timed scheduler's state (the mesh, waits, packets in flight),
    /// kept between runs.
    pub(crate) timed: Option<Box<crate::sched::Timed>>,
    /// Timed mode: let every core run at most one cycle at a time (the
    /// reference order the scheduler's run-ahead is tested against).
    pub strict: bool,
    /// Functional mode: the core whose turn the end of the last run cut
    /// short, and the cycle its turn ends at. The next run goes on with
    /// it, so that a run split at any cycles takes the turns one run
    /// takes.
    turn: Option<(usize, u64)>,
    /// Timed mode: a run that ends at a cycle limit leaves the cores that
    /// spin in a polling loop parked (`Wait::Spin` in `crate::sched`)
    /// instead of running them up to the limit, so that a run that
    /// follows finds them parked. Whoever sets it calls
    /// [`Machine::settle_parked`] before it looks at or changes the
    /// machine other than through its external memory (libe-hal does, for
    /// a host polling the chip; off by default).
    pub keep_parked: bool,
    /// Timed mode: in a run that ends at a cycle limit, a core may run
    /// ahead past the limit from a checkpoint (as it runs ahead of its
    /// safe horizon, within its window), so that a host whose calls each
    /// run the chip a few cycles further does not cut every core's run
    /// into slices that short. The run ends when every agent has acted
    /// before the limit, with such cores left where they stand; the
    /// machine at the limit is the one strict order gives, to whoever
    /// looks at it through [`Machine::settle_parked`] or
    /// [`Machine::end_run_ahead`] (the cores past it go back and run up to
    /// it) or reads external memory (nothing a core does ahead reaches
    /// it), or reads SRAM through [`Machine::end_run_ahead_to_read`].
    /// Whoever sets it keeps to that (libe-hal does; off by default).
    pub run_past_limit: bool,
}

impl Machine {
    /// A machine with every core of the configured chip, halted, and the
    /// given system-call host.
    pub fn new(config: Config, sys: Syscalls) -> Result<Machine, SimError> {
        config.validate().map_err(SimError::Config)?;
        let chip = config.chip();
        let n = (config.rows * config.cols) as usize;
        let cores = (0..n)
            .map(|i| {
                let mut core = Core::new(config.core_at(i), config.sram_size);
                core.chip = chip;
                core.pipe.chip = chip;
                core.memoise = config.memoise;
                core
            })
            .collect();
        Ok(Machine {
            dram: CodeMem::new(config.ext_size),
            cores,
            sys,
            now: 0,
            trace: None,
            group: Vec::new(),
            exits: Vec::new(),
            timed: None,
            strict: false,
            turn: None,
            keep_parked: false,
            run_past_limit: false,
            config,
        })
    }

    /// The cores programs were loaded onto.
    pub fn group(&self) -> impl Iterator<Item = &Core> + '_ {
        self.group.iter().map(|&i| &self.cores[i])
    }

    /// The core `id`, if it is on the chip.
    pub fn core(&self, id: CoreId) -> Option<&Core> {
        self.config.core_index(id).map(|i| &self.cores[i])
    }

    /// Loads `plan` (from `path`, named in errors) onto the chip's first
    /// core and starts it: a single-core program.
    pub fn load(&mut self, plan: &LoadPlan, path: &Path) -> Result<(), SimError> {
        let first = self.config.first_core();
        self.load_group(plan, path, &[first])
    }

    /// Loads `plan` onto each core of `group` and starts them at its entry
    /// point, as the e-loader does: segments at local addresses go to every
    /// core of the group, those at another core's global addresses to that
    /// core, external ones to DRAM. Call it again with another program for
    /// other cores.
    pub fn load_group(
        &mut self,
        plan: &LoadPlan,
        path: &Path,
        group: &[CoreId],
    ) -> Result<(), SimError> {
        let name = || path.display().to_string();
        let mut targets = Vec::with_capacity(group.len());
        for &id in group {
            let Some(i) = self.config.core_index(id) else {
                return Err(SimError::GroupOutsideChip {
                    path: name(),
                    row: id.row,
                    col: id.col,
                    rows: self.config.rows,
                    cols: self.config.cols,
                });
            };
            targets.push(i);
        }
        // Check every segment before writing any.
        for seg in &plan.segments {
            if let Region::OnChip { row, col, .. } = seg.region {
                let id = CoreId::new(row.into(), col.into());
                if self.config.core_index(id).is_none() {
                    return Err(SimError::CoreNotSimulated {
                        path: name(),
                        addr: seg.vaddr,
                        len: seg.mem_size() as u32,
                        row: id.row,
                        col: id.col,
                    });
                }
            }
        }
        for seg in &plan.segments {
            let data = &seg.data;
            // mem_size fits: the loader checked the segment lies in memory
            let len = seg.mem_size() as u32;
            match seg.region {
                Region::External { offset } => {
                    self.dram.zero(offset, len);
                    self.dram.write_bytes(offset, data);
                }
                Region::Local { offset } => {
                    for &i in &targets {
                        self.cores[i].sram.zero(offset, len);
                        self.cores[i].sram.write_bytes(offset, data);
                    }
                }
                Region::OnChip {
                    row, col, offset, ..
                } => {
                    let id = CoreId::new(row.into(), col.into());
                    if let Some(i) = self.config.core_index(id) {
                        self.cores[i].sram.zero(offset, len);
                        self.cores[i].sram.write_bytes(offset, data);
                    }
                }
            }
        }
        for &i in &targets {
            self.cores[i].start(plan.entry);
            if let Err(at) = self.group.binary_search(&i) {
                self.group.insert(at, i);
            }
        }
        self.sys.prefix_lines = self.group.len() > 1;
        // (Turns are taken anew among the cores now running.)
        self.turn = None;
        Ok(())
    }

    /// Simulated nanoseconds at `cycle`.
    fn ns(&self, cycle: u64) -> u64 {
        (cycle as u128 * 1_000_000_000 / self.config.clock_hz as u128) as u64
    }

    /// Simulated nanoseconds since reset.
    pub fn now_ns(&self) -> u64 {
        self.ns(self.now)
    }

    /// When core `i` can next run, if anything but another core can make
    /// it: now if it is running or has an interrupt to take, the expiry of
    /// a timer that wakes it if it sleeps; never if halted.
    fn ready_at(&self, i: usize) -> Option<u64> {
        let core = &self.cores[i];
        match core.run {
            RunState::Running => Some(core.stats.cycles),
            RunState::Idle if core.can_wake() => Some(core.stats.cycles),
            RunState::Idle => idle_wakeup(&core.state).map(|w| core.stats.cycles + w),
            RunState::Halted => None,
        }
    }

    /// Runs until the program ends, faults, or `max_cycles` pass.
    pub fn run(&mut self, max_cycles: Option<u64>) -> StopReason {
        self.run_watch(max_cycles, None)
    }

    /// As [`Machine::run`], and, with a `watch`, until its cores are idle:
    /// then the run ends as if that cycle were the limit
    /// (`StopReason::CycleLimit` of that cycle) and `watch.reached()` says
    /// so. The cycle is exact: every agent has acted in every cycle before
    /// it (in timed mode, a core that ran ahead past it goes back and runs
    /// up to it), the same with or without `strict`. The condition is
    /// looked at only when a watched core has changed.
    ///
    /// A trace whose first cycle (`TraceFilter::from`) is still ahead is
    /// set aside until then: the cycles before it, which it would not
    /// write, run untraced, as fast as untraced runs are (tracing keeps
    /// every core in strict cycle order), and give the same machine at that
    /// cycle (fast mode is strict cycle order's equal).
    pub fn run_watch(
        &mut self,
        max_cycles: Option<u64>,
        mut watch: Option<&mut IdleWatch>,
    ) -> StopReason {
        let limit = max_cycles.unwrap_or(u64::MAX);
        let later = self.trace.as_ref().map(|t| t.filter.from);
        if let Some(from) = later.filter(|&f| f > self.now && self.config.mode == Mode::Timed) {
            let trace = self.trace.take();
            let stop = self.run_watch_all(Some(from.min(limit)), watch.as_deref_mut());
            // Every core and agent stands at `from`: nothing run ahead
            // past it untraced can go back.
            self.end_run_ahead();
            self.trace = trace;
            let reached = watch.as_ref().is_some_and(|w| w.reached.is_some());
            if !matches!(stop, StopReason::CycleLimit { .. }) || reached || from >= limit {
                return stop;
            }
        }
        self.run_watch_all(max_cycles, watch)
    }

    /// [`Machine::run_watch`] with the trace as it is.
    fn run_watch_all(
        &mut self,
        max_cycles: Option<u64>,
        mut watch: Option<&mut IdleWatch>,
    ) -> StopReason {
        if let Some(w) = watch.as_deref_mut() {
            w.reached = None;
        }
        let limit = max_cycles.unwrap_or(u64::MAX);
        let several = self.group.len() > 1;
        if let Some(t) = self.trace.as_mut() {
            t.merge_cores(several);
        }
        let stop = if self.config.mode == Mode::Timed {
            let mut t = match self.timed.take() {
                Some(t) => t,
                None => Box::new(crate::sched::Timed::new(self)),
            };
            // (Cores left parked reach the last run's end first if this
            // run must see them there.)
            let settled = if watch.is_some() || self.strict || self.trace.is_some() {
                self.settle_ahead_in(&mut t, None)
                    .or_else(|| self.settle_parked_in(&mut t))
            } else {
                None
            };
            t.strict = self.strict;
            let stop = match settled {
                Some(stop) => stop,
                None => self.schedule_timed(&mut t, limit, watch),
            };
            if self.run_past_limit
                && matches!(stop, StopReason::CycleLimit { .. })
                && self.any_ran_past(&t, limit)
            {
                t.ended_ahead += 1;
            }
            self.timed = Some(t);
            stop
        } else {
            self.schedule(limit, watch)
        };
        if !matches!(stop, StopReason::CycleLimit { .. }) {
            // The program's unfinished lines are final only now: a run
            // stopped at a cycle limit goes on with them (the same lines
            // as one run; whoever stops running the machine for good
            // writes them out with `sys.flush_lines`).
            self.sys.flush_lines();
        }
        stop
    }

    /// Whether core `i` is idle in the sense of [`IdleWatch`] (`t`: the
    /// timed scheduler's state, in timed mode).
    pub(crate) fn quiet(&self, t: Option<&crate::sched::Timed>, i: usize) -> bool {
        let c = &self.cores[i];
        let asleep = match c.run {
            RunState::Running => false,
            RunState::Idle => !c.can_wake(),
            RunState::Halted => true,
        };
        asleep && c.dma.next_ready().is_none() && t.is_none_or(|t| !t.busy(i))
    }

    /// Whether the chip-relative core of index `i` is idle in the sense of
    /// [`IdleWatch`], between runs.
    pub fn core_idle(&self, i: usize) -> bool {
        self.quiet(self.timed.as_deref(), i)
    }

    fn schedule(&mut self, max: u64, mut watch: Option<&mut IdleWatch>) -> StopReason {
        let policy = self.config.fault_policy;
        // The cycle after the last turn's start.
        let mut floor = 0;
        loop {
            // A watch whose condition holds from cycle `c` makes `c` the
            // limit: the other cores act up to it (and may end it).
            let cond = match watch.as_deref_mut() {
                Some(w) => w.update(self, None, floor).filter(|&c| c <= max),
                None => None,
            };
            let limit = cond.unwrap_or(max);
            // The core furthest behind, and when the next one can run; a
            // DMA engine with a move due before then goes first.
            // (At equal times a core that was woken goes first: the core
            // that woke it, caught up with it, must not starve it.)
            let mut best: Option<(u64, bool, usize)> = None;
            let mut second = u64::MAX;
            let mut dma: Option<(u64, usize)> = None;
            for &i in &self.group {
                if let Some(t) = self.ready_at(i) {
                    let running = self.cores[i].run == RunState::Running;
                    match best {
                        Some((bt, br, _)) if (t, running) >= (bt, br) => second = second.min(t),
                        _ => {
                            if let Some((bt, _, _)) = best {
                                second = second.min(bt);
                            }
                            best = Some((t, running, i));
                        }
                    }
                }
                if let Some(t) = self.cores[i].dma.next_ready() {
                    if dma.is_none_or(|(dt, _)| t < dt) {
                        dma = Some((t, i));
                    }
                }
            }
            // The core whose turn the last run's end cut short goes on
            // first, up to where its turn ends; else the one furthest
            // behind takes a turn (after the DMA moves due by then).
            let resumed = self
                .turn
                .take()
                .and_then(|(i, end)| Some((self.ready_at(i)?, i, end)))
                .filter(|&(t, i, end)| t < end && self.cores[i].run == RunState::Running);
            if let (Some((dt, di)), None) = (dma, resumed) {
                if best.is_none_or(|(t, _, _)| dt <= t) {
                    if dt >= limit {
                        return self.limit_reached(limit, cond, watch);
                    }
                    floor = dt + 1;
                    if let Some(stop) = self.dma_moves(di, dt) {
                        return stop;
                    }
                    continue;
                }
                second = second.min(dt);
            }
            let Some((behind, _, first)) = best else {
                if cond.is_some() {
                    return self.limit_reached(limit, cond, watch);
                }
                return self.finished();
            };
            let (t, i, end) = resumed.unwrap_or_else(|| {
                let horizon = if second == u64::MAX {
                    BATCH
                } else {
                    second - behind + QUANTUM
                };
                (behind, first, behind.saturating_add(horizon))
            });
            if t >= limit {
                self.turn = resumed.map(|(_, i, end)| (i, end));
                return self.limit_reached(limit, cond, watch);
            }
            if let Some(tr) = self.trace.as_mut() {
                // No core writes a line before the one furthest behind.
                tr.release(behind.min(dma.map_or(u64::MAX, |d| d.0)).saturating_sub(1));
            }
            floor = t + 1;
            let core = &mut self.cores[i];
            if core.run == RunState::Idle && !core.can_wake() {
                // Sleeps until its timer wakes it, with nothing else to
                // run before then.
                core.sleep_until_timer();
                continue;
            }
            let budget = limit.min(end) - t;
            let before = core.stats.cycles;
            let mut shared = Shared {
                dram: &mut self.dram,
                ext_base: self.config.ext_base,
            };
            let exit = core.run(
                &mut shared,
                budget,
                policy,
                self.config.mode,
                self.trace.as_mut(),
            );
            let after = core.stats.cycles.max(before);
            self.now = self.now.max(after);
            if exit == CoreExit::Budget && after < end {
                // The run's end cut the turn short.
                self.turn = Some((i, end));
            }
            if let Some(stop) = self.settle(i, exit) {
                return stop;
            }
        }
    }

    /// The run ends at `limit`: the watch's cycle `cond` (if it is that) or
    /// the caller's limit.
    pub(crate) fn limit_reached(
        &mut self,
        limit: u64,
        cond: Option<u64>,
        watch: Option<&mut IdleWatch>,
    ) -> StopReason {
        if let (Some(c), Some(w)) = (cond, watch) {
            w.reached = Some(c);
        }
        self.now = self.now.max(limit);
        StopReason::CycleLimit { cycles: limit }
    }

    /// Acts on why core `i` stopped; the reason the run ends, if it does.
    pub(crate) fn settle(&mut self, i: usize, exit: CoreExit) -> Option<StopReason> {
        let id = self.cores[i].id;
        match exit {
            CoreExit::Budget => {}
            CoreExit::Trap { num, pc } => {
                let cycle = self.cores[i].stats.cycles;
                let now_ns = self.ns(cycle);
                if self.sys.prefix_lines {
                    self.sys.speaker(&format!("[{},{}] ", id.row, id.col));
                }
                let core = &mut self.cores[i];
                let mut shared = Shared {
                    dram: &mut self.dram,
                    ext_base: self.config.ext_base,
                };
                let (s, mut bus) = core.bus(&mut shared);
                let before = s.r;
                let outcome = self.sys.service(num, &mut s.r, &mut bus, now_ns);
                if let Some(t) = self.trace.as_mut() {
                    let changed: Vec<(u8, u32)> = (0..64u8)
                        .filter(|&n| before[n as usize] != s.r[n as usize])
                        .map(|n| (n, s.r[n as usize]))
                        .collect();
                    t.trap(cycle.saturating_sub(1), id, num, &changed);
                }
                match outcome {
                    SyscallOutcome::Continue => {}
                    SyscallOutcome::Exit(status) => {
                        // The core halts at the trap, as on hardware.
                        s.pc = pc;
                        core.halt();
                        self.exits.push((id, status));
                    }
                    SyscallOutcome::Signalled(signal) => {
                        core.halt();
                        return Some(StopReason::Signalled { core: id, signal });
                    }
                }
            }
            // The scheduler sleeps it (or finds nothing can wake it).
            CoreExit::Idle | CoreExit::Halted => {}
            CoreExit::Fault(f) => {
                self.cores[i].halt();
                return Some(StopReason::Fault(f));
            }
            CoreExit::Breakpoint { pc } => return Some(StopReason::Breakpoint { core: id, pc }),
            CoreExit::Remote { access, .. } => {
                self.serve_remote(i, access);
                if matches!(access.kind, RemoteKind::Multicast(_)) {
                    return (0..self.cores.len()).find_map(|k| self.dma_stop(k));
                }
                let target = CoreId::from_bits(access.addr >> 20);
                if let Some(k) = self.config.core_index(target) {
                    return self.dma_stop(k);
                }
            }
            CoreExit::Wand => self.wand(),
            CoreExit::Sync => {
                for k in 0..self.group.len() {
                    let g = self.group[k];
                    self.cores[g].state.ilat |= 1 << irq::SYNC;
                    let cycle = self.cores[i].stats.cycles;
                    self.cores[g].catch_up(cycle);
                }
            }
        }
        None
    }

    /// A core's WAND set its STATUS.WAND flag: true if that completes the
    /// barrier. The wire ANDs the flags of the group's cores; it was low
    /// while this core's flag was clear, so it rises now if every other
    /// flag is set.
    pub(crate) fn wand_arrive(&mut self) -> bool {
        self.group
            .iter()
            .all(|&g| self.cores[g].state.status() & status::WAND != 0)
    }

    /// Completes a WAND barrier if every core of the group has arrived:
    /// each gets the WAND interrupt (STATUS.WAND stays set; the handler
    /// clears it).
    fn wand(&mut self) {
        if self.wand_arrive() {
            let at = self.group.iter().map(|&g| self.cores[g].stats.cycles).max();
            for k in 0..self.group.len() {
                let g = self.group[k];
                self.cores[g].state.ilat |= 1 << irq::WAND;
                if let Some(at) = at {
                    self.cores[g].catch_up(at);
                }
            }
        }
    }

    /// The indexes of the group's cores, ascending.
    pub(crate) fn group_indexes(&self) -> &[usize] {
        &self.group
    }

    /// Whether core index `i` is in the group.
    pub(crate) fn in_group(&self, i: usize) -> bool {
        self.group.binary_search(&i).is_ok()
    }

    /// Performs core `from`'s access to another core and leaves the answer
    /// for the instruction to consume when it executes again. An address
    /// that no core answers is the access fault the hardware would raise.
    fn serve_remote(&mut self, from: usize, access: RemoteAccess) {
        let cycle = self.cores[from].stats.cycles;
        if let RemoteKind::Multicast(v) = access.kind {
            // Every other core whose MULTICAST register holds the id.
            let id = access.addr >> 20;
            for k in 0..self.cores.len() {
                if k == from || self.cores[k].regs.multicast != id {
                    continue;
                }
                let store = RemoteAccess {
                    addr: self.cores[k].id.global_base() | (access.addr & 0xF_FFFF),
                    size: access.size,
                    kind: RemoteKind::Store(v),
                };
                let _ = self.serve_at(k, store, cycle);
                self.cores[k].mesh_traffic(1);
            }
            // (One write sent to every other core, as in timed mode.)
            let others = self.cores.len() as u64 - 1;
            self.cores[from].mesh_traffic(others);
            self.cores[from].answer = Some(Answer {
                addr: access.addr,
                value: Ok(0),
                latency: 0,
            });
            return;
        }
        let target = CoreId::from_bits(access.addr >> 20);
        let value = match self.config.core_index(target) {
            Some(t) => {
                let value = self.serve_at(t, access, cycle);
                // Transactions through each node's core port: the access,
                // and a read's response.
                let n = if matches!(access.kind, RemoteKind::Store(_)) {
                    1
                } else {
                    2
                };
                self.cores[t].mesh_traffic(n);
                self.cores[from].mesh_traffic(n);
                value
            }
            None => match (access.kind, self.looped(access.addr)) {
                // Out through a link in loopback mode and back in.
                (RemoteKind::Store(_), Some((looped, k))) => {
                    let store = RemoteAccess {
                        addr: looped.addr,
                        ..access
                    };
                    let value = self.serve_at(k, store, cycle);
                    self.cores[k].mesh_traffic(1);
                    self.cores[from].mesh_traffic(1);
                    value
                }
                _ => Err(MemFault::Unmapped),
            },
        };
        // Functional mode: every instruction is one cycle, whatever it
        // waits for.
        self.cores[from].answer = Some(Answer {
            addr: access.addr,
            value,
            latency: 0,
        });
    }

    /// Where a write to `addr` lands if `addr` leaves the chip through a
    /// link in loopback mode (LINKDEBUG bit 14 of that link's registers,
    /// mesh/MESH.md "Loopback"): the place it comes back in at and the
    /// index of the core there. `None` for an address of the chip, one
    /// through the wired eLink, or a link not in loopback mode.
    pub(crate) fn looped(&self, addr: u32) -> Option<(epsim_mesh::Looped, usize)> {
        let g = self.config.chip().geometry();
        let looped = g.looped(addr)?;
        let holder = g.elink_node(looped.side)?;
        let h = self
            .config
            .core_index(CoreId::new(holder.row, holder.col))?;
        if self.cores[h].regs.link[LINKDEBUG] & LINKDEBUG_LOOPBACK == 0 {
            return None;
        }
        let k = self
            .config
            .core_index(CoreId::from_bits(looped.addr >> 20))?;
        Some((looped, k))
    }

    /// Functional mode: core `k` serves `access` in `cycle` and, unless it
    /// is halted, catches up to that cycle.
    fn serve_at(&mut self, k: usize, access: RemoteAccess, cycle: u64) -> Result<u64, MemFault> {
        let mut shared = Shared {
            dram: &mut self.dram,
            ext_base: self.config.ext_base,
        };
        let core = &mut self.cores[k];
        let value = core.serve(&mut shared, access, cycle);
        if core.run != RunState::Halted {
            core.catch_up(cycle);
        }
        value
    }

    /// Performs the moves core `i`'s DMA engine makes in cycle `t`. Each
    /// completes at once: the source is read and the destination written
    /// (another core's SRAM or registers, DRAM) in this cycle.
    fn dma_moves(&mut self, i: usize, t: u64) -> Option<StopReason> {
        while let Some(mv) = self.cores[i].dma.peek(t) {
            let ch = mv.channel as usize;
            let value = match mv.src {
                Source::Data(v) => Ok(v),
                Source::Mem(a) => self.dma_access(i, a, mv.size, None, t).map_err(|_| a),
            };
            let done = value.and_then(|v| {
                self.dma_access(i, mv.dst, mv.size, Some(v), t)
                    .map_err(|_| mv.dst)
            });
            let core = &mut self.cores[i];
            let effect = match done {
                Ok(_) => core.dma.commit(t, ch, MoveOutcome::Written, &core.sram),
                Err(addr) => core.dma.fault(ch, addr),
            };
            if effect.irq().is_some() {
                core.catch_up(t);
            }
            core.dma_effect(effect);
            if let Some(stop) = self.dma_stop(i) {
                return Some(stop);
            }
            if mv.message && mv.dst >> 20 != 0 {
                let target = CoreId::from_bits(mv.dst >> 20);
                if let Some(k) = self.config.core_index(target) {
                    self.cores[k].state.ilat |= 1 << irq::MESSAGE;
                    self.cores[k].catch_up(t);
                }
            }
        }
        None
    }

    /// The run's end if core `i`'s DMA engine reported an error and the
    /// fault policy stops on guest faults.
    pub(crate) fn dma_stop(&mut self, i: usize) -> Option<StopReason> {
        let error = self.cores[i].dma_error.take()?;
        (self.config.fault_policy == FaultPolicy::Stop).then(|| StopReason::Dma {
            core: self.cores[i].id,
            error,
        })
    }

    /// One DMA element access of core `i`: a load of `size` bytes at
    /// `addr` (`value` None) or a store of `value`, with `addr` local to
    /// core `i` or global.
    pub(crate) fn dma_access(
        &mut self,
        i: usize,
        addr: u32,
        size: u8,
        value: Option<u64>,
        t: u64,
    ) -> Result<u64, MemFault> {
        let size = match size {
            1 => Size::Byte,
            2 => Size::Half,
            4 => Size::Word,
            _ => Size::Double,
        };
        let hi = addr >> 20;
        let target = if hi == 0 {
            Some(i)
        } else {
            self.config.core_index(CoreId::from_bits(hi))
        };
        let kind = match value {
            Some(v) => RemoteKind::Store(v),
            None => RemoteKind::Load,
        };
        match target {
            Some(k) => {
                let global = self.cores[k].id.global_base() | (addr & 0xF_FFFF);
                let mut shared = Shared {
                    dram: &mut self.dram,
                    ext_base: self.config.ext_base,
                };
                if k != i {
                    // Through both nodes' core ports (a read: and back).
                    let n = if value.is_some() { 1 } else { 2 };
                    self.cores[i].mesh_traffic(n);
                    self.cores[k].mesh_traffic(n);
                }
                let core = &mut self.cores[k];
                if value.is_some() && k != i {
                    core.catch_up(t);
                }
                core.serve(
                    &mut shared,
                    RemoteAccess {
                        addr: global,
                        size,
                        kind,
                    },
                    t,
                )
            }
            None => {
                let off = dram_offset(
                    self.config.chip(),
                    self.config.ext_base,
                    self.dram.size(),
                    addr,
                );
                let len = size.bytes();
                if !self.dram.contains(off, len) {
                    return Err(MemFault::Unmapped);
                }
                match value {
                    Some(v) => {
                        self.dram.write(off, len, v);
                        Ok(0)
                    }
                    None => Ok(self.dram.read(off, len)),
                }
            }
        }
    }

    /// Why the run ended when no core of the group can run any more.
    pub(crate) fn finished(&mut self) -> StopReason {
        let all_exited = self
            .group
            .iter()
            .all(|&g| self.exits.iter().any(|(id, _)| *id == self.cores[g].id));
        if all_exited {
            let first_failure = self.exits.iter().find(|(_, s)| *s != 0);
            if let Some(&(core, status)) = first_failure.or(self.exits.last()) {
                return StopReason::Exit { core, status };
            }
        }
        if self
            .group
            .iter()
            .any(|&g| self.cores[g].run == RunState::Idle)
        {
            StopReason::AllIdle
        } else {
            StopReason::AllHalted
        }
    }

    /// Ends every timed-mode run-ahead (`crate::sched`): the host
    /// interface calls it before it reads or changes a core between runs,
    /// so that no later roll-back undoes what it did. What the cores did
    /// ahead is kept: a run ends only when every agent has acted in the
    /// cycles before its end, and no core runs ahead past it, so nothing
    /// can still reach a core in a cycle it has passed. (Going back
    /// instead would let a core that runs again see the host's access
    /// before the host made it.)
    pub fn end_run_ahead(&mut self) {
        if let Some(mut t) = self.timed.take() {
            self.settle_ahead_in(&mut t, None);
            self.settle_parked_in(&mut t);
            self.commit_all(&mut t);
            self.timed = Some(t);
        }
    }

    /// As [`Machine::end_run_ahead`], before the host reads `len` bytes of
    /// core `i`'s SRAM at `off` between runs: the cores the last run left
    /// parked ([`Machine::keep_parked`]) stay so (a polling loop writes
    /// nothing to SRAM, and every write into it before the run's end was
    /// made in the run), and so do the cores that ran ahead past the
    /// run's end ([`Machine::run_past_limit`]), but core `i` if it wrote
    /// any page of the bytes since its checkpoint: it goes back and runs
    /// up to the end. (Every other write of them, by the mesh or its DMA
    /// engine, was made in the run, in its cycle; no other core's state
    /// matters to them.) A parked core that is past the end otherwise
    /// (by its last instruction) brings the parked cores there first.
    pub fn end_run_ahead_to_read(&mut self, i: usize, off: u32, len: u32) {
        if let Some(mut t) = self.timed.take() {
            if self.parked_past(&t) {
                self.settle_parked_in(&mut t);
            }
            if self.ran_past(&t, i) {
                if self.cores[i].sram.range_written_since_undo(off, len) {
                    self.settle_ahead_in(&mut t, Some(i));
                } else {
                    t.reads_ahead += 1;
                }
            }
            self.commit_not_past(&mut t);
            self.timed = Some(t);
        }
    }

    /// Timed mode: the cores the last run left parked ([`Machine::keep_parked`])
    /// run up to the cycle it ended at, as they would have before it
    /// ended, and those that ran ahead past it ([`Machine::run_past_limit`])
    /// go back and run up to it; after this the machine is as if none had
    /// been left parked nor run past the end. What stopped them, if not
    /// that cycle (nothing but what they did already runs: never
    /// expected).
    pub fn settle_parked(&mut self) -> Option<StopReason> {
        let mut t = self.timed.take()?;
        let ahead = self.settle_ahead_in(&mut t, None);
        let stop = self.settle_parked_in(&mut t);
        self.timed = Some(t);
        ahead.or(stop)
    }

    /// Timed mode: how many runs ended with cores left parked
    /// ([`Machine::keep_parked`]).
    pub fn kept_parked(&self) -> u64 {
        self.timed.as_ref().map_or(0, |t| t.kept_parked)
    }

    /// Timed mode, [`Machine::run_past_limit`]: how many runs ended with a
    /// core past their end; how many of the host's reads of SRAM were
    /// answered where such a core stands
    /// ([`Machine::end_run_ahead_to_read`]); how many times such cores
    /// went back to the end of the run before, for the host to look at
    /// or change the machine there.
    pub fn run_past_counts(&self) -> (u64, u64, u64) {
        self.timed.as_ref().map_or((0, 0, 0), |t| {
            (t.ended_ahead, t.reads_ahead, t.settled_ahead)
        })
    }

    /// Timed mode: how many times a core that ran ahead of its safe
    /// horizon had to go back (a measure of wasted work, not of results).
    pub fn rollbacks(&self) -> u64 {
        self.timed.as_ref().map_or(0, |t| t.rollbacks)
    }

    /// Timed mode: how many turns the scheduler gave the cores to run (a
    /// measure of speed, not of results: each costs a step).
    pub fn core_turns(&self) -> u64 {
        self.timed.as_ref().map_or(0, |t| t.turns)
    }

    /// Timed mode: loads from DRAM timed in closed form in the core's run
    /// (alone on their way: `sched::solo_load`), not stepped through the
    /// mesh (a measure of speed, not of results).
    pub fn solo_loads(&self) -> u64 {
        self.timed.as_ref().map_or(0, |t| t.solo_loads)
    }

    /// Timed mode: runs of cores polling another core's memory done at
    /// once (`core::poll`), not instruction by instruction (a measure of
    /// speed, not of results).
    pub fn poll_repeats(&self) -> u64 {
        self.cores.iter().map(|c| c.poll.repeats).sum()
    }

    /// Total instructions retired by all cores.
    pub fn instret(&self) -> u64 {
        self.cores.iter().map(|c| c.stats.instret).sum()
    }
}

/// The offset in external memory (`ext_size` bytes at `ext_base`) that an
/// access to the off-chip global address `addr` reaches: its offset in the
/// window, or for an address outside it, where the FPGA's eLink receiver
/// folds it when it leaves the chip through the (east) eLink
/// (`epsim_mesh::RxRemap`: the Parallella's driver folds every address onto
/// the 32 MB at 0x8e000000, keeping bits `[24:0]`). An offset of
/// `ext_size` or more: nothing answers (an edge with no eLink). The remap
/// is the Parallella's FPGA and driver: on for the chips of its boards
/// (the E16G301 and E64G401 at row 32, column 8); another `--chip` shape
/// models no board, and there only the window answers (a core missing
/// from a small chip stays a fault).
#[inline]
pub(crate) fn dram_offset(chip: Chip, ext_base: u32, ext_size: u32, addr: u32) -> u32 {
    let off = addr.wrapping_sub(ext_base);
    if off < ext_size {
        return off;
    }
    let g = epsim_mesh::Geometry::new(
        chip.first_row,
        chip.first_col,
        chip.rows,
        chip.cols,
        Some(epsim_mesh::Side::East),
    );
    if g != epsim_mesh::Geometry::E16G301 && g != epsim_mesh::Geometry::E64G401 {
        return off;
    }
    g.elink_fold(addr, ext_base, ext_size).unwrap_or(off)
}
