//! The Rust host API: the chip as a Parallella host program sees it
//! through e-hal, over one [`Machine`].
//!
//! Model decisions owned here:
//! * **Who advances time.** The host's clock is the chip's (`now`). Every
//!   host call takes effect at it and then runs the chip for the call's
//!   modelled cost (below), in both run modes: the call returns when the
//!   chip has reached the host's clock after the call, as on a board, so a
//!   host that polls sees the chip move by one call's cost per poll. A
//!   sleep of the host program (crate::hosttime) runs the chip for the
//!   time slept, a slice at a time. In [`RunMode::Deterministic`] that is
//!   all (and [`Host::run`]): the same calls give the same results, cycle
//!   for cycle. In [`RunMode::Free`] a background thread also runs the
//!   chip, in slices of [`FREE_SLICE`] cycles, while the host is neither
//!   in a sleep nor busy with calls (none for [`HOST_QUIET_NS`] of real
//!   time): the hardware runs on while the host program computes or waits
//!   in ways libe-hal does not see. A waiting host call goes before the
//!   next slice.
//! * **What a host access costs** (simulated core cycles at 600 MHz): every
//!   call [`CALL_CYCLES`] (driver overhead); through the eLink, per aligned
//!   8-byte transaction, [`WRITE_TXN_CYCLES`] for a posted write and
//!   [`READ_TXN_CYCLES`] for a read (a round trip through the eLink and the
//!   mesh, not pipelined); external DRAM is the host's own memory,
//!   [`DRAM_TXN_CYCLES`] per 8 bytes. A register access is one
//!   transaction. Asymptotically: 200 MB/s host writes into core SRAM,
//!   9.6 MB/s reads.
//! * **When a host access takes effect**: at the host's clock, between
//!   slices; cores that were asleep or halted are brought up to that time
//!   first, and timed mode's run-ahead is ended so that no roll-back can
//!   undo the access. In timed mode a core may run ahead past the host's
//!   clock between calls, from a checkpoint (`Machine::run_past_limit`;
//!   `EPSIM_RUN_PAST=off` turns it off): an access to external memory
//!   leaves it there (nothing a core does ahead reaches external memory),
//!   a read of a core's SRAM too unless that core wrote a page of the
//!   bytes since its checkpoint, and anything else (a register, a write
//!   into SRAM, a look at the machine) first takes every such core back
//!   and runs it up to the host's clock. The host sees what strict cycle
//!   order gives either way.
//! * **Loading** follows e-loader (stack.md §2.4): each core of the group
//!   is reset (registers as at power-up, DMA stopped), its SRAM cleared,
//!   the program's segments copied, then the e-lib configuration words
//!   written (`e_group_config_t`, `e_emem_config_t`, and `loader_cfg` with
//!   the BSS-cleared flag) at the addresses of the ELF's `workgroup_cfg`,
//!   `ext_mem_cfg` and `loader_cfg` sections, over whatever the segments
//!   put there (e-lib defines the objects in them, so ESDK-linked programs
//!   load zeros there); a section in external memory gets its words in
//!   DRAM. A program with none of the three sections (our linker scripts)
//!   gets the words at e-lib's addresses 0x28, 0x50 and 0x58 if it loads
//!   nothing in 0x28..0x68 (e-loader itself writes nothing then); the
//!   words and their places are the loader crate's (`LoadPlan::config_places`,
//!   `GroupConfig`), written by `epsim_sim::setup::write_loader_config`, as
//!   `epsim run` writes them. The core is left idle until a SYNC interrupt
//!   (`start`) sends it to address 0.
//! * **A program's unfinished last line of output** (a group of several
//!   cores writes whole lines, each prefixed) is written out when the host
//!   is done with the chip: when the last open workgroup is closed, at
//!   `e_finalize`, when the [`Host`] is dropped ([`Host::flush_output`]).
//! * **Host writes into DRAM through raw pointers** are not seen by the
//!   decoded-code check: the decoded DRAM code is dropped whenever the host
//!   starts, resumes or signals a core.
//! * **Tracing** ([`Host::trace_start`], `EPSIM_TRACE`): the chip's
//!   instruction trace plus one record per host access made through this
//!   API (not through the DRAM pointer), at the host's clock when the
//!   access takes effect, before the cost of the call.

use std::cell::Cell;
use std::io::BufWriter;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use epsim_isa::Size;
use epsim_loader::Region;
use epsim_sim::core::{RemoteAccess, RemoteKind, RunState, Shared};
use epsim_sim::setup::write_loader_config;
use epsim_sim::trace::{HostRecord, Trace, TraceFilter, TraceFormat};
use epsim_sim::{Config, CoreId, IdleWatch, Machine, Mode, StopReason, Syscalls};

use crate::log::Level;
use crate::platform::Platform;
use crate::progress::Progress;

/// Cycles every host call costs before it touches the chip.
pub const CALL_CYCLES: u64 = 60;
/// Cycles per posted eLink write transaction (up to 8 aligned bytes).
pub const WRITE_TXN_CYCLES: u64 = 24;
/// Cycles per eLink read transaction (up to 8 aligned bytes), a round trip.
pub const READ_TXN_CYCLES: u64 = 500;
/// Cycles per 8 bytes of the host's own accesses to external DRAM.
pub const DRAM_TXN_CYCLES: u64 = 2;
/// Register writes e-loader's soft reset makes per core (`ee_soft_reset_core`
/// and `ee_reset_regs`: the DMA registers, the 62-byte stub, 64 GPRs and
/// the special registers).
pub const RESET_REG_WRITES: u64 = 112;
/// Cycles the free-running chip advances between looks at the host.
pub const FREE_SLICE: u64 = 8192;
/// Real time (ns) after a host call before the free-running thread runs
/// the chip again on its own (see `free_run`).
pub const HOST_QUIET_NS: u64 = 5_000_000;

/// Memory-mapped registers the host uses (offsets in a core's window).
pub mod reg {
    pub const CONFIG: u32 = 0xF0400;
    pub const STATUS: u32 = 0xF0404;
    pub const PC: u32 = 0xF0408;
    pub const DEBUGSTATUS: u32 = 0xF040C;
    pub const IMASK: u32 = 0xF0424;
    pub const ILAT: u32 = 0xF0428;
    pub const ILATST: u32 = 0xF042C;
    pub const IPEND: u32 = 0xF0434;
    pub const DEBUGCMD: u32 = 0xF0448;
    pub const COREID: u32 = 0xF0704;
    pub const RESETCORE: u32 = 0xF070C;
    /// The register window.
    pub const BASE: u32 = 0xF0000;
    pub const END: u32 = 0xF1000;
}

/// ILAT bits the host raises.
const SYNC: u32 = 1 << 0;
const USER_INT: u32 = 1 << 9;

/// How simulated time advances.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunMode {
    /// A background thread runs the chip, as the hardware runs.
    Free,
    /// Time advances only through host calls and [`Host::run`].
    Deterministic,
}

impl RunMode {
    /// `EPSIM_MODE` (`free`, `deterministic`); free if unset.
    pub fn from_env() -> Result<RunMode, String> {
        match std::env::var("EPSIM_MODE").ok().as_deref() {
            None | Some("") | Some("free") => Ok(RunMode::Free),
            Some("deterministic") | Some("det") => Ok(RunMode::Deterministic),
            Some(other) => Err(format!(
                "EPSIM_MODE={other:?}: expected \"free\" or \"deterministic\""
            )),
        }
    }
}

/// Errors of host calls. Every error leaves the chip as it was.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error("core ({row},{col}) is not on the {rows} x {cols} chip")]
    NoCore {
        row: u32,
        col: u32,
        rows: u32,
        cols: u32,
    },
    #[error("{what}: {len:#x} bytes at {off:#x} do not fit in {limit:#x} bytes")]
    OutOfRange {
        what: &'static str,
        off: u64,
        len: u64,
        limit: u64,
    },
    #[error("register offset {0:#x} is not a word of the register window 0xf0000-0xf0fff")]
    BadRegister(u64),
    #[error("{core}: register {off:#07x} does not exist or refused the access")]
    RegisterRefused { core: CoreId, off: u32 },
    #[error(transparent)]
    Load(#[from] epsim_loader::LoadError),
    #[error(transparent)]
    Sim(#[from] epsim_sim::SimError),
    /// The environment asks for something that cannot be set up.
    #[error("{0}")]
    Setup(String),
    #[error("no cores given")]
    NoCores,
    #[error("cannot create the trace file {path}: {error}")]
    Trace { path: String, error: std::io::Error },
}

/// What the host has done and what it cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostStats {
    /// The host's clock: simulated cycles since the chip was opened.
    pub now: u64,
    /// Cycles charged for host calls.
    pub host_cycles: u64,
    pub calls: u64,
    pub write_txns: u64,
    pub read_txns: u64,
    pub bytes_written: u64,
    pub bytes_read: u64,
    /// Instructions retired by all cores.
    pub instret: u64,
}

/// A rectangle of cores (an e-hal workgroup), chip-relative.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Workgroup {
    pub row: u32,
    pub col: u32,
    pub rows: u32,
    pub cols: u32,
}

/// The machine and the host's view of time, behind the lock.
pub(crate) struct Sim {
    pub(crate) machine: Machine,
    pub(crate) now: u64,
    mode: RunMode,
    stats: HostStats,
    /// The last run found nothing that could run.
    idle: bool,
    /// The host's clock is the program's (crate::hosttime): publish it.
    pub(crate) publish: bool,
    /// When the last host call ended (real monotonic nanoseconds): the
    /// free-running thread leaves the pace to a host busy with calls.
    last_call: Option<u64>,
    /// `EPSIM_PROGRESS`'s reporter (crate::progress), if set.
    progress: Option<Progress>,
}

pub(crate) struct Inner {
    sim: Mutex<Sim>,
    /// Host calls waiting for the lock (the free-running thread lets them go
    /// first).
    waiting: AtomicUsize,
    /// Times a host call took the lock.
    turns: AtomicU64,
    stop: AtomicBool,
    wake: Condvar,
    /// `epsim tui --attach` holds the free-running chip (crate::view_server).
    pub(crate) paused: AtomicBool,
    /// The host closed the chip (the view server hangs up).
    pub(crate) closed: AtomicBool,
    /// Host threads inside a sleep ([`sleep_cycles`]): they run the chip.
    sleepers: AtomicUsize,
}

impl Inner {
    pub(crate) fn lock(&self) -> SimGuard<'_> {
        let g = self.look();
        // Whatever the caller does next may make the chip act: the DRAM
        // pointer is watched again (crate::dramwatch).
        crate::dramwatch::close_view();
        g
    }

    /// The lock, for a call that touches nothing on the chip but external
    /// memory and runs the chip on (an access to DRAM, a sleep, the
    /// clock): the cores the last run left parked in their polling loops
    /// (`Machine::keep_parked`) stay so (none of them reads or writes
    /// external memory, and the next run goes on with them parked).
    pub(crate) fn lock_dram(&self) -> SimGuard<'_> {
        let g = self.take();
        crate::dramwatch::close_view();
        g
    }

    /// The lock, for a look at the machine that changes nothing (the view
    /// server's): the DRAM pointer's view stays as it is.
    pub(crate) fn look(&self) -> SimGuard<'_> {
        let mut g = self.take();
        // The cores the last run left parked reach its end: the machine
        // is as it would be had they run there.
        if let Some(stop) = g.machine.settle_parked() {
            g.ended(stop);
        }
        g
    }

    fn take(&self) -> SimGuard<'_> {
        self.waiting.fetch_add(1, Ordering::AcqRel);
        let g = self.sim.lock().unwrap_or_else(PoisonError::into_inner);
        self.waiting.fetch_sub(1, Ordering::AcqRel);
        self.turns.fetch_add(1, Ordering::AcqRel);
        SimGuard::new(g)
    }
}

thread_local! {
    /// Locks on a [`Sim`] this thread holds: a sleep the program makes
    /// meanwhile (a signal handler's) cannot run the chip, and is real.
    static HOLDS: Cell<u32> = const { Cell::new(0) };
}

/// The lock on the machine, counted per thread (see `HOLDS`).
pub(crate) struct SimGuard<'a>(MutexGuard<'a, Sim>);

impl<'a> SimGuard<'a> {
    fn new(g: MutexGuard<'a, Sim>) -> SimGuard<'a> {
        HOLDS.with(|h| h.set(h.get() + 1));
        SimGuard(g)
    }
}

impl Drop for SimGuard<'_> {
    fn drop(&mut self) {
        HOLDS.with(|h| h.set(h.get().saturating_sub(1)));
    }
}

impl std::ops::Deref for SimGuard<'_> {
    type Target = Sim;
    fn deref(&self) -> &Sim {
        &self.0
    }
}

impl std::ops::DerefMut for SimGuard<'_> {
    fn deref_mut(&mut self) -> &mut Sim {
        &mut self.0
    }
}

/// Whether this thread holds the machine's lock.
pub(crate) fn holds_lock() -> bool {
    HOLDS.with(|h| h.get() > 0)
}

/// Advances the host's clock by `cycles` as a sleep of the host program
/// does (crate::hosttime): the chip runs up to the clock at the start
/// plus `cycles`, a slice at a time, the lock released between slices (the
/// program's other threads make their calls meanwhile; in free mode the
/// chip's own thread runs slices too). Returns when the host's clock has
/// got there, or at once if the chip is closed.
pub(crate) fn sleep_cycles(inner: &Inner, cycles: u64) {
    struct Sleeping<'a>(&'a AtomicUsize);
    impl Drop for Sleeping<'_> {
        fn drop(&mut self) {
            self.0.fetch_sub(1, Ordering::AcqRel);
        }
    }
    inner.sleepers.fetch_add(1, Ordering::AcqRel);
    let _sleeping = Sleeping(&inner.sleepers);
    let target = inner.lock_dram().now.saturating_add(cycles);
    loop {
        if inner.closed.load(Ordering::Acquire) {
            return;
        }
        if inner.paused.load(Ordering::Acquire) {
            // `epsim tui --attach` holds the chip: time stands still.
            std::thread::sleep(Duration::from_millis(5));
            continue;
        }
        let mut g = inner.lock_dram();
        if g.now >= target {
            return;
        }
        // Nothing can run: the chip's clock goes straight there.
        let t = if g.idle {
            target
        } else {
            target.min(g.now.saturating_add(FREE_SLICE))
        };
        g.run_to(t);
    }
}

/// The chip as the host sees it.
pub struct Host {
    inner: Arc<Inner>,
    thread: Option<JoinHandle<()>>,
    platform: Platform,
    config: Config,
    dram: *mut u8,
}

// SAFETY: `dram` points into the machine's DRAM, which lives (at a fixed
// address) as long as `inner` does; every use of it through `Host` takes the
// lock or is the caller's raw access to simulated shared memory.
unsafe impl Send for Host {}
unsafe impl Sync for Host {}

impl Host {
    /// Opens the chip of `platform`, every core reset and idle, in run mode
    /// `mode`, cores timed by `timing`. Device output goes to this
    /// process's standard output and error.
    pub fn new(platform: Platform, mode: RunMode, timing: Mode) -> Result<Host, HostError> {
        Host::with_syscalls(platform, mode, timing, Syscalls::inherit(Vec::new()))
    }

    /// As [`Host::new`], with the system-call host `sys` (e.g. captured
    /// output).
    pub fn with_syscalls(
        platform: Platform,
        mode: RunMode,
        timing: Mode,
        sys: Syscalls,
    ) -> Result<Host, HostError> {
        let mut config = platform.config();
        config.mode = timing;
        let progress = crate::progress::from_env()
            .map_err(HostError::Setup)?
            .map(|every| Progress::new(every, 0));
        let mut machine = Machine::new(config.clone(), sys)?;
        for core in &mut machine.cores {
            core.reset();
        }
        // A host polling the chip runs it in short runs: the cores that
        // spin are left parked between them (`Inner::look` settles them).
        machine.keep_parked = true;
        // And a core computing meanwhile may run ahead past the host's
        // clock (README "Host access costs"; `EPSIM_RUN_PAST=off` turns it
        // off, for comparison: the results are the same).
        machine.run_past_limit = run_past_from_env().map_err(HostError::Setup)?;
        let dram = machine.dram.host_ptr();
        let inner = Arc::new(Inner {
            sim: Mutex::new(Sim {
                machine,
                now: 0,
                mode: RunMode::Deterministic,
                stats: HostStats::default(),
                idle: true,
                publish: false,
                last_call: None,
                progress,
            }),
            waiting: AtomicUsize::new(0),
            turns: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            wake: Condvar::new(),
            paused: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            sleepers: AtomicUsize::new(0),
        });
        let mut host = Host {
            inner,
            thread: None,
            platform,
            config,
            dram,
        };
        host.set_mode(mode);
        if let Some(path) = std::env::var_os("EPSIM_TRACE").filter(|p| !p.is_empty()) {
            let format = match std::env::var("EPSIM_TRACE_FORMAT").ok().as_deref() {
                None | Some("") | Some("text") => TraceFormat::Text,
                Some("json") => TraceFormat::Json,
                Some(other) => {
                    return Err(HostError::Setup(format!(
                        "EPSIM_TRACE_FORMAT={other:?}: expected \"text\" or \"json\""
                    )))
                }
            };
            let mut filter = TraceFilter::default();
            for (var, at) in [
                ("EPSIM_TRACE_FROM", &mut filter.from),
                ("EPSIM_TRACE_TO", &mut filter.to),
            ] {
                if let Some(v) = std::env::var(var).ok().filter(|v| !v.trim().is_empty()) {
                    *at = epsim_sim::setup::parse_u64(&v)
                        .map_err(|e| HostError::Setup(format!("{var}={v:?}: {e}")))?;
                }
            }
            if filter.from > filter.to {
                return Err(HostError::Setup(format!(
                    "EPSIM_TRACE_FROM={} is after EPSIM_TRACE_TO={}",
                    filter.from, filter.to
                )));
            }
            host.trace_start_filtered(Path::new(&path), format, filter)?;
        }
        if let Some(path) = std::env::var_os("EPSIM_TUI").filter(|p| !p.is_empty()) {
            let path = std::path::PathBuf::from(path);
            crate::view_server::listen(Arc::clone(&host.inner), &path)
                .map_err(|e| HostError::Setup(format!("EPSIM_TUI={}: {e}", path.display())))?;
        }
        Ok(host)
    }

    pub fn platform(&self) -> &Platform {
        &self.platform
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn mode(&self) -> RunMode {
        self.inner.lock().mode
    }

    /// Switches run mode: starts or stops the free-running thread.
    pub fn set_mode(&mut self, mode: RunMode) {
        let mut g = self.inner.lock();
        if g.mode == mode && (mode == RunMode::Deterministic || self.thread.is_some()) {
            return;
        }
        g.mode = mode;
        drop(g);
        match mode {
            RunMode::Free => {
                self.inner.stop.store(false, Ordering::Release);
                let inner = Arc::clone(&self.inner);
                // Named: crate::lifetime tells epsim's threads by name.
                let t = std::thread::Builder::new()
                    .name(format!("{}chip", crate::lifetime::THREAD_PREFIX))
                    .spawn(move || free_run(&inner))
                    .expect("the chip thread could not be started");
                self.thread = Some(t);
            }
            RunMode::Deterministic => self.stop_thread(),
        }
    }

    fn stop_thread(&mut self) {
        if let Some(t) = self.thread.take() {
            self.inner.stop.store(true, Ordering::Release);
            self.inner.wake.notify_all();
            // A panic in the thread was already reported on stderr.
            let _ = t.join();
        }
    }

    /// The index of chip-relative core (`row`, `col`).
    pub fn core_index(&self, row: u32, col: u32) -> Result<usize, HostError> {
        let c = &self.config;
        if row >= c.rows || col >= c.cols {
            return Err(HostError::NoCore {
                row,
                col,
                rows: c.rows,
                cols: c.cols,
            });
        }
        Ok((row * c.cols + col) as usize)
    }

    /// The core id of chip-relative (`row`, `col`).
    pub fn core_id(&self, row: u32, col: u32) -> Result<CoreId, HostError> {
        let i = self.core_index(row, col)?;
        Ok(self.config.core_at(i))
    }

    /// Resets every core (e-hal's `e_reset_system`): registers as at
    /// power-up, DMA stopped, idle; memories keep their contents.
    pub fn reset_system(&self) {
        let mut g = self.inner.lock();
        let n = g.machine.cores.len();
        g.machine.end_run_ahead();
        for i in 0..n {
            g.bring_up(i);
            g.machine.cores[i].reset();
            g.record("reset", Some(i), reg::RESETCORE, 4);
        }
        g.charge(
            CALL_CYCLES + n as u64 * 2 * WRITE_TXN_CYCLES,
            2 * n as u64,
            0,
        );
    }

    /// Resets the cores (chip-relative) as `e_reset_group` does: halt
    /// (DEBUGCMD = 1), pause DMA, RESETCORE = 1 then 0.
    pub fn reset_cores(&self, cores: &[(u32, u32)]) -> Result<(), HostError> {
        let idx = self.indexes(cores)?;
        let mut g = self.inner.lock();
        for &i in &idx {
            g.record("reset", Some(i), reg::RESETCORE, 4);
            g.reg_write(i, reg::DEBUGCMD, 1)?;
            g.reg_write(i, reg::CONFIG, 0x0100_0000)?;
            g.reg_write(i, reg::RESETCORE, 1)?;
            g.reg_write(i, reg::RESETCORE, 0)?;
        }
        let n = idx.len() as u64;
        g.charge(
            CALL_CYCLES + n * (4 * WRITE_TXN_CYCLES + READ_TXN_CYCLES),
            4 * n,
            n,
        );
        Ok(())
    }

    fn indexes(&self, cores: &[(u32, u32)]) -> Result<Vec<usize>, HostError> {
        cores.iter().map(|&(r, c)| self.core_index(r, c)).collect()
    }

    /// Loads the ELF at `path` onto `cores` (relative to `group`, itself
    /// chip-relative), as e-loader does (see the module doc), and starts
    /// them if `start`. Nothing changes if the file cannot be loaded.
    pub fn load(
        &self,
        path: &Path,
        group: Workgroup,
        cores: &[(u32, u32)],
        start: bool,
    ) -> Result<(), HostError> {
        let mut idx = Vec::with_capacity(cores.len());
        for &(r, c) in cores {
            if r >= group.rows || c >= group.cols {
                return Err(HostError::NoCore {
                    row: r,
                    col: c,
                    rows: group.rows,
                    cols: group.cols,
                });
            }
            idx.push(self.core_index(group.row + r, group.col + c)?);
        }
        let plan = epsim_loader::load_file(path, &self.config.load_target())?;
        for seg in &plan.segments {
            if let Region::OnChip { row, col, .. } = seg.region {
                let id = CoreId::new(row.into(), col.into());
                if self.config.core_index(id).is_none() {
                    return Err(epsim_sim::SimError::CoreNotSimulated {
                        path: path.display().to_string(),
                        addr: seg.vaddr,
                        len: seg.mem_size() as u32,
                        row: id.row,
                        col: id.col,
                    }
                    .into());
                }
            }
        }
        let cfg_places = plan
            .config_places(&self.config.load_target())
            .map_err(|e| epsim_loader::LoadError::File {
                path: path.to_path_buf(),
                error: Box::new(e),
            })?;
        let (mut local, mut external) = (0u64, 0u64);
        for s in &plan.segments {
            match s.region {
                Region::External { .. } => external += s.mem_size(),
                _ => local += s.mem_size().div_ceil(8),
            }
        }
        let mut g = self.inner.lock();
        let sram = self.config.sram_size;
        g.machine.end_run_ahead();
        for &i in &idx {
            g.bring_up(i);
            let core = &mut g.machine.cores[i];
            core.reset();
            core.sram.zero(0, sram);
        }
        let ids: Vec<CoreId> = idx.iter().map(|&i| self.config.core_at(i)).collect();
        g.machine.load_group(&plan, path, &ids)?;
        for &i in &idx {
            g.record("load", Some(i), 0, sram.into());
        }
        for s in &plan.segments {
            if let Region::External { offset } = s.region {
                let addr = self.config.ext_base.wrapping_add(offset);
                g.record("load", None, addr, s.mem_size());
            }
        }
        let base = self.config.core_at(self.core_index(group.row, group.col)?);
        let cfg_group = epsim_loader::GroupConfig {
            chip_type: self.platform.chip.code(),
            row: base.row,
            col: base.col,
            rows: group.rows,
            cols: group.cols,
            ext_base: self.config.ext_base,
        };
        for &i in &idx {
            // load_group starts the core at the entry; e-loader leaves it
            // idle until the SYNC interrupt.
            g.machine.cores[i].reset();
            let id = self.config.core_at(i);
            write_loader_config(&mut g.machine, &cfg_places, &cfg_group, id);
        }
        let n = idx.len() as u64;
        let per_core = RESET_REG_WRITES + u64::from(sram) / 8 + local + 8;
        g.charge(
            CALL_CYCLES + n * per_core * WRITE_TXN_CYCLES + external.div_ceil(8) * DRAM_TXN_CYCLES,
            n * per_core,
            0,
        );
        if start {
            g.start(&idx)?;
        }
        drop(g);
        self.inner.wake.notify_all();
        Ok(())
    }

    /// Starts cores (ILATST = SYNC), as `e_start`/`e_start_group` do.
    pub fn start(&self, cores: &[(u32, u32)]) -> Result<(), HostError> {
        let idx = self.indexes(cores)?;
        let mut g = self.inner.lock();
        g.start(&idx)?;
        drop(g);
        self.inner.wake.notify_all();
        Ok(())
    }

    /// Raises the user interrupt (ILATST = 1 << 9), as `e_signal` does.
    pub fn signal(&self, row: u32, col: u32) -> Result<(), HostError> {
        self.poke("signal", row, col, reg::ILATST, USER_INT)
    }

    /// Halts a core (DEBUGCMD = 1).
    pub fn halt(&self, row: u32, col: u32) -> Result<(), HostError> {
        self.poke("halt", row, col, reg::DEBUGCMD, 1)
    }

    /// Resumes a halted core (DEBUGCMD = 0).
    pub fn resume(&self, row: u32, col: u32) -> Result<(), HostError> {
        self.poke("resume", row, col, reg::DEBUGCMD, 0)
    }

    /// A register write the host makes to release or stop a core: code it
    /// may have written into DRAM through a pointer is decoded afresh.
    fn poke(
        &self,
        kind: &'static str,
        row: u32,
        col: u32,
        off: u32,
        v: u32,
    ) -> Result<(), HostError> {
        let i = self.core_index(row, col)?;
        let mut g = self.inner.lock();
        g.machine.dram.invalidate_code();
        g.reg_write(i, off, v)?;
        g.record(kind, Some(i), off, 4);
        g.charge(CALL_CYCLES + WRITE_TXN_CYCLES, 1, 0);
        drop(g);
        self.inner.wake.notify_all();
        Ok(())
    }

    /// Reads `buf.len()` bytes of a core's SRAM from `off`.
    pub fn read_sram(&self, row: u32, col: u32, off: u32, buf: &mut [u8]) -> Result<(), HostError> {
        let i = self.core_index(row, col)?;
        self.check_sram(off, buf.len())?;
        // (The cores left parked stay so: none writes its SRAM; so do the
        // cores that ran ahead past the host's clock, but this one if it
        // wrote these bytes since its checkpoint.)
        let mut g = self.inner.lock_dram();
        g.machine.end_run_ahead_to_read(i, off, buf.len() as u32);
        g.bring_up(i);
        buf.copy_from_slice(g.machine.cores[i].sram.read_bytes(off, buf.len() as u32));
        g.record("read", Some(i), off, buf.len() as u64);
        let t = txns(off, buf.len());
        g.stats.bytes_read += buf.len() as u64;
        g.charge(CALL_CYCLES + t * READ_TXN_CYCLES, 0, t);
        Ok(())
    }

    /// Writes `data` into a core's SRAM at `off`.
    pub fn write_sram(&self, row: u32, col: u32, off: u32, data: &[u8]) -> Result<(), HostError> {
        let i = self.core_index(row, col)?;
        self.check_sram(off, data.len())?;
        let mut g = self.inner.lock();
        g.touch(i);
        g.machine.cores[i].sram.write_bytes(off, data);
        g.record("write", Some(i), off, data.len() as u64);
        let t = txns(off, data.len());
        g.stats.bytes_written += data.len() as u64;
        g.idle = false;
        g.charge(CALL_CYCLES + t * WRITE_TXN_CYCLES, t, 0);
        drop(g);
        self.inner.wake.notify_all();
        Ok(())
    }

    fn check_sram(&self, off: u32, len: usize) -> Result<(), HostError> {
        check_range("core SRAM", self.config.sram_size, off, len)
    }

    /// Reads a core's memory-mapped register at `off` (0xF0000-0xF0FFF).
    pub fn read_reg(&self, row: u32, col: u32, off: u32) -> Result<u32, HostError> {
        check_reg(off)?;
        let i = self.core_index(row, col)?;
        let mut g = self.inner.lock();
        let v = g.reg(i, off, RemoteKind::Load)?;
        g.record("read", Some(i), off, 4);
        g.stats.bytes_read += 4;
        g.charge(CALL_CYCLES + READ_TXN_CYCLES, 0, 1);
        Ok(v)
    }

    /// Writes a core's memory-mapped register at `off`.
    pub fn write_reg(&self, row: u32, col: u32, off: u32, v: u32) -> Result<(), HostError> {
        check_reg(off)?;
        let i = self.core_index(row, col)?;
        let mut g = self.inner.lock();
        g.reg_write(i, off, v)?;
        g.record("write", Some(i), off, 4);
        g.stats.bytes_written += 4;
        g.charge(CALL_CYCLES + WRITE_TXN_CYCLES, 1, 0);
        drop(g);
        self.inner.wake.notify_all();
        Ok(())
    }

    /// The external DRAM as host memory: `dram_size()` bytes that cores
    /// see at the platform's device base. Writes through it are not seen
    /// by the decoded-code check until the host next starts, resumes or
    /// signals a core.
    pub fn dram_ptr(&self) -> *mut u8 {
        self.dram
    }

    pub fn dram_size(&self) -> u32 {
        self.config.ext_size
    }

    /// Reads external DRAM at offset `off`.
    pub fn read_dram(&self, off: u32, buf: &mut [u8]) -> Result<(), HostError> {
        self.check_dram(off, buf.len())?;
        let mut g = self.inner.lock_dram();
        buf.copy_from_slice(g.machine.dram.read_bytes(off, buf.len() as u32));
        let addr = self.config.ext_base.wrapping_add(off);
        g.record("read", None, addr, buf.len() as u64);
        g.stats.bytes_read += buf.len() as u64;
        g.charge(
            CALL_CYCLES + (buf.len() as u64).div_ceil(8) * DRAM_TXN_CYCLES,
            0,
            0,
        );
        Ok(())
    }

    /// Writes external DRAM at offset `off` (decoded code there is dropped).
    pub fn write_dram(&self, off: u32, data: &[u8]) -> Result<(), HostError> {
        self.check_dram(off, data.len())?;
        let mut g = self.inner.lock_dram();
        g.machine.dram.write_bytes(off, data);
        let addr = self.config.ext_base.wrapping_add(off);
        g.record("write", None, addr, data.len() as u64);
        g.stats.bytes_written += data.len() as u64;
        g.charge(
            CALL_CYCLES + (data.len() as u64).div_ceil(8) * DRAM_TXN_CYCLES,
            0,
            0,
        );
        Ok(())
    }

    fn check_dram(&self, off: u32, len: usize) -> Result<(), HostError> {
        check_range("external memory", self.config.ext_size, off, len)
    }

    /// Advances the chip `cycles` cycles (in either mode; in free mode the
    /// background thread keeps going afterwards).
    pub fn run(&self, cycles: u64) {
        let mut g = self.inner.lock_dram();
        let target = g.now.saturating_add(cycles);
        g.run_to(target);
    }

    /// Runs until no core can run any more (every loaded core exited,
    /// halted or sleeps with nothing to wake it) or `max` more cycles pass;
    /// true in the first case.
    pub fn run_until_idle(&self, max: u64) -> bool {
        let mut g = self.inner.lock();
        let end = g.now.saturating_add(max);
        loop {
            let target = end.min(g.now.saturating_add(FREE_SLICE * 16));
            g.run_to(target);
            if g.idle {
                return true;
            }
            if g.now >= end {
                return false;
            }
        }
    }

    /// Runs until the chip-relative `cores` are idle -- asleep in IDLE
    /// with no interrupt they would take latched, halted, or exited, their
    /// DMA engines stopped -- all of them, or `any` one, or `max` more
    /// cycles pass. True in the first case: the host's clock is then the
    /// first cycle the condition holds in (every agent has acted in the
    /// cycles before it; timed mode gives the same with or without
    /// `strict`), or unchanged if it held already. False if `max` cycles
    /// passed first, or (at once, the clock where the chip stopped) if
    /// nothing on the chip can run any more and the condition does not
    /// hold: it never will.
    pub fn run_until_cores_idle(
        &self,
        cores: &[(u32, u32)],
        any: bool,
        max: u64,
    ) -> Result<bool, HostError> {
        let idx = self.indexes(cores)?;
        let n = self.config.rows as usize * self.config.cols as usize;
        let mut watch = IdleWatch::new(&idx, any, n).ok_or(HostError::NoCores)?;
        let mut g = self.inner.lock();
        if watch.holds(&g.machine) {
            return Ok(true);
        }
        let end = g.now.saturating_add(max);
        Ok(g.run_watch_to(end, &mut watch))
    }

    /// Whether the chip-relative core is idle in the sense of
    /// [`Host::run_until_cores_idle`], at the host's clock.
    pub fn core_idle(&self, row: u32, col: u32) -> Result<bool, HostError> {
        let i = self.core_index(row, col)?;
        Ok(self.inner.lock().machine.core_idle(i))
    }

    /// Timed mode: every core runs at most one cycle at a time (the
    /// reference order; results are identical, only slower).
    pub fn set_strict(&self, strict: bool) {
        let mut g = self.inner.lock();
        g.machine.end_run_ahead();
        g.machine.strict = strict;
    }

    /// Starts writing a trace to the file at `path` (created or
    /// truncated), replacing one already open: the records of `epsim run
    /// --trace` plus one per host access (README "Traces").
    pub fn trace_start(&self, path: &Path, format: TraceFormat) -> Result<(), HostError> {
        self.trace_start_filtered(path, format, TraceFilter::default())
    }

    /// As [`Host::trace_start`], writing only what `filter` lets through
    /// (cycles before its first run untraced, at untraced speed:
    /// `Machine::run_watch`).
    pub fn trace_start_filtered(
        &self,
        path: &Path,
        format: TraceFormat,
        filter: TraceFilter,
    ) -> Result<(), HostError> {
        let file = std::fs::File::create(path).map_err(|error| HostError::Trace {
            path: path.display().to_string(),
            error,
        })?;
        let trace = Trace::new(Box::new(BufWriter::new(file)), format, filter);
        let mut g = self.inner.lock();
        // A core that ran ahead untraced must not go back and run again
        // traced.
        g.machine.end_run_ahead();
        let old = g.machine.trace.replace(trace);
        drop(g);
        if let Some(mut old) = old {
            if let Err(e) = old.finish() {
                crate::log::say(
                    crate::log::Level::Error,
                    format_args!("epsim: the trace being replaced could not be written: {e}"),
                );
            }
        }
        Ok(())
    }

    /// Flushes and closes the trace, if one is open; the first error
    /// writing it, if any.
    pub fn trace_stop(&self) -> std::io::Result<()> {
        let old = self.inner.lock().machine.trace.take();
        match old {
            Some(mut t) => t.finish(),
            None => Ok(()),
        }
    }

    /// The state the chip's threads share (for crate::hosttime).
    pub(crate) fn shared(&self) -> &Arc<Inner> {
        &self.inner
    }

    /// The host's clock (simulated cycles).
    pub fn now(&self) -> u64 {
        self.inner.lock_dram().now
    }

    pub fn stats(&self) -> HostStats {
        let g = self.inner.lock();
        HostStats {
            now: g.now,
            instret: g.machine.instret(),
            ..g.stats
        }
    }

    /// The run state of the chip-relative core.
    pub fn run_state(&self, row: u32, col: u32) -> Result<RunState, HostError> {
        let i = self.core_index(row, col)?;
        Ok(self.inner.lock().machine.cores[i].run)
    }

    /// Writes out the lines of output the cores left unfinished (a group
    /// of several cores writes whole lines, each prefixed; a line without
    /// its newline waits for the rest until the chip stops for good). Done
    /// when the host is done with the chip: when the last open workgroup
    /// is closed, and when the host is dropped (`e_finalize`).
    pub fn flush_output(&self) {
        self.inner.lock().machine.sys.flush_lines();
    }

    /// Runs `f` on the machine (under the lock), for inspection.
    pub fn with_machine<T>(&self, f: impl FnOnce(&mut Machine) -> T) -> T {
        f(&mut self.inner.lock().machine)
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        self.inner.closed.store(true, Ordering::Release);
        self.stop_thread();
        self.flush_output();
        self.inner.lock().progress_end();
        if let Err(e) = self.trace_stop() {
            crate::log::say(
                crate::log::Level::Error,
                format_args!("epsim: the trace could not be written: {e}"),
            );
        }
    }
}

/// `EPSIM_RUN_PAST` (`on`, the default, or `off`): whether cores may run
/// ahead past the host's clock (`Machine::run_past_limit`).
fn run_past_from_env() -> Result<bool, String> {
    match std::env::var("EPSIM_RUN_PAST").ok().as_deref() {
        None | Some("") | Some("on") => Ok(true),
        Some("off") => Ok(false),
        Some(other) => Err(format!(
            "EPSIM_RUN_PAST={other:?}: expected \"on\" (the default) or \"off\""
        )),
    }
}

/// `len` bytes at `off` of a memory (`what`) of `size` bytes fit in it.
fn check_range(what: &'static str, size: u32, off: u32, len: usize) -> Result<(), HostError> {
    if u64::from(off) + len as u64 > u64::from(size) {
        return Err(HostError::OutOfRange {
            what,
            off: off.into(),
            len: len as u64,
            limit: size.into(),
        });
    }
    Ok(())
}

fn check_reg(off: u32) -> Result<(), HostError> {
    if !(reg::BASE..reg::END).contains(&off) || !off.is_multiple_of(4) {
        return Err(HostError::BadRegister(off.into()));
    }
    Ok(())
}

/// The aligned 8-byte transactions that cover `len` bytes at `off`.
fn txns(off: u32, len: usize) -> u64 {
    if len == 0 {
        return 0;
    }
    let first = u64::from(off) / 8;
    let last = (u64::from(off) + len as u64 - 1) / 8;
    last - first + 1
}

impl Sim {
    /// Whether the last run found nothing that could run: no core running
    /// or able to wake (an interrupt, a timer), no DMA, nothing in flight
    /// (so a run changes nothing but the clock until the host acts).
    pub(crate) fn quiescent(&self) -> bool {
        self.idle
    }

    /// Runs the chip up to the host's cycle `target`. Guest faults,
    /// breakpoints, signals and DMA errors stop only the core concerned
    /// (reported on stderr), as on the hardware, where a core just stops.
    pub(crate) fn run_to(&mut self, target: u64) {
        for _ in 0..256 {
            let stop = self.machine.run(Some(target));
            if self.ended(stop) {
                break;
            }
        }
        self.now = self.now.max(target);
        self.publish_clock();
        if let Some(p) = self.progress.as_mut() {
            p.tick(&self.machine, self.now);
        }
    }

    /// Writes `EPSIM_PROGRESS`'s closing line, once.
    fn progress_end(&mut self) {
        if let Some(p) = self.progress.take() {
            p.end(&self.machine, self.now);
        }
    }

    /// Makes the host's clock the program's, if it is (crate::hosttime).
    fn publish_clock(&self) {
        if self.publish {
            crate::hosttime::publish(self.now);
        }
    }

    /// Acts on why a run stopped: true if it ended (the limit came, or
    /// nothing can run any more); a guest fault, breakpoint, signal or DMA
    /// error stops only the core concerned (reported on stderr).
    fn ended(&mut self, stop: StopReason) -> bool {
        match stop {
            StopReason::CycleLimit { .. } => {
                self.idle = false;
                return true;
            }
            StopReason::Exit { .. } | StopReason::AllIdle | StopReason::AllHalted => {
                self.idle = true;
                return true;
            }
            // Said at log level info (crate::log): on the board a core just
            // stops, and nothing is printed.
            StopReason::Fault(f) => crate::log::say(Level::Info, format_args!("epsim: {f}")),
            StopReason::Breakpoint { core, pc } => crate::log::say(
                Level::Info,
                format_args!("epsim: {core} halted at a breakpoint at pc {pc:#010x}"),
            ),
            StopReason::Signalled { core, signal } => crate::log::say(
                Level::Info,
                format_args!("epsim: {core} killed itself with signal {signal}"),
            ),
            StopReason::Dma { core, error } => crate::log::say(
                Level::Info,
                format_args!("epsim: {core}: DMA error: {error}"),
            ),
        }
        false
    }

    /// Runs the chip up to the host's cycle `end` or until `watch`'s
    /// condition holds (see [`Host::run_until_cores_idle`]): true in the
    /// second case, the host's clock at its first cycle.
    fn run_watch_to(&mut self, end: u64, watch: &mut IdleWatch) -> bool {
        for _ in 0..256 {
            let stop = self.machine.run_watch(Some(end), Some(watch));
            if let Some(c) = watch.reached() {
                self.idle = false;
                self.now = self.now.max(c);
                self.publish_clock();
                return true;
            }
            let limit = matches!(stop, StopReason::CycleLimit { .. });
            if self.ended(stop) {
                if limit {
                    self.now = self.now.max(end);
                }
                self.publish_clock();
                return false;
            }
        }
        self.now = self.now.max(end);
        self.publish_clock();
        false
    }

    /// Puts the host's access in the trace, if one is being written: at
    /// the host's clock, to core index `core` (offset `addr` in its
    /// window) or to external memory (device address `addr`).
    fn record(&mut self, kind: &'static str, core: Option<usize>, addr: u32, len: u64) {
        if let Some(t) = self.machine.trace.as_mut() {
            let core = core.map(|i| self.machine.cores[i].id);
            t.host(
                self.now,
                &HostRecord {
                    kind,
                    core,
                    addr,
                    len,
                },
            );
        }
    }

    /// Charges a host call: `cycles`, and the transactions it made. The
    /// call took effect at the host's clock; the chip now runs for as long
    /// as the call takes, in both run modes, so the call returns when the
    /// chip has reached the host's clock after it (README "Host access
    /// costs").
    fn charge(&mut self, cycles: u64, writes: u64, reads: u64) {
        self.stats.calls += 1;
        self.stats.host_cycles += cycles;
        self.stats.write_txns += writes;
        self.stats.read_txns += reads;
        let target = self.now + cycles;
        self.run_to(target);
        if self.mode == RunMode::Free {
            self.last_call = Some(crate::hosttime::real_monotonic_ns());
        }
    }

    /// How long (real time) the free-running thread is still to leave the
    /// pace to the host, if it is: a host call ended less than
    /// [`HOST_QUIET_NS`] ago.
    fn host_busy(&self) -> Option<Duration> {
        let since = crate::hosttime::real_monotonic_ns().saturating_sub(self.last_call?);
        (since < HOST_QUIET_NS).then(|| Duration::from_nanos(HOST_QUIET_NS - since))
    }

    /// Before the host acts on core `i`: no run-ahead left, and a core
    /// that was not running brought to the host's time.
    fn touch(&mut self, i: usize) {
        self.machine.end_run_ahead();
        self.bring_up(i);
        // (It may write the core's registers: a loop the core polls is
        // watched afresh.)
        self.machine.cores[i].spin_forget();
    }

    fn bring_up(&mut self, i: usize) {
        let now = self.now;
        let core = &mut self.machine.cores[i];
        if core.run != RunState::Running {
            core.catch_up(now);
        }
    }

    fn reg(&mut self, i: usize, off: u32, kind: RemoteKind) -> Result<u32, HostError> {
        self.touch(i);
        let now = self.now;
        let m = &mut self.machine;
        let mut shared = Shared {
            dram: &mut m.dram,
            ext_base: m.config.ext_base,
        };
        let core = &mut m.cores[i];
        let id = core.id;
        let access = RemoteAccess {
            addr: id.global_base() | off,
            size: Size::Word,
            kind,
        };
        let v = core
            .serve(&mut shared, access, now)
            .map_err(|_| HostError::RegisterRefused { core: id, off })?;
        if matches!(kind, RemoteKind::Store(_)) {
            self.idle = false;
            m.host_wrote_regs(i, now);
        }
        Ok(v as u32)
    }

    fn reg_write(&mut self, i: usize, off: u32, v: u32) -> Result<(), HostError> {
        self.reg(i, off, RemoteKind::Store(v.into())).map(|_| ())
    }

    fn start(&mut self, idx: &[usize]) -> Result<(), HostError> {
        self.machine.dram.invalidate_code();
        for &i in idx {
            self.reg_write(i, reg::ILATST, SYNC)?;
            self.record("start", Some(i), reg::ILATST, 4);
        }
        let n = idx.len() as u64;
        self.charge(CALL_CYCLES + n * WRITE_TXN_CYCLES, n, 0);
        Ok(())
    }
}

/// Every thread of the program has ended (crate::lifetime): writes out what
/// the program's end would have (the cores' unfinished lines, the trace)
/// and ends the process, as the last thread's exit does.
fn last_thread_gone(inner: &Inner) -> ! {
    let mut g = inner.sim.lock().unwrap_or_else(PoisonError::into_inner);
    g.machine.sys.flush_lines();
    g.progress_end();
    if let Some(mut t) = g.machine.trace.take() {
        if let Err(e) = t.finish() {
            crate::log::say(
                Level::Error,
                format_args!("epsim: the trace could not be written: {e}"),
            );
        }
    }
    inner.closed.store(true, Ordering::Release);
    drop(g);
    crate::lifetime::end_process()
}

/// The free-running thread: the chip advances a slice at a time while
/// anything can run, host calls and slices taking turns; when nothing can
/// run it waits for a host call (or a millisecond).
fn free_run(inner: &Inner) {
    // This thread's sleeps and clocks are real ones (crate::hosttime).
    crate::hosttime::mark_internal();
    let mut alone = crate::lifetime::Watch::new();
    while !inner.stop.load(Ordering::Acquire) {
        if alone.all_others_gone() {
            last_thread_gone(inner);
        }
        // One waiting host call goes before each slice (and a host that
        // calls without pause still leaves the chip a slice between calls).
        let turn = inner.turns.load(Ordering::Acquire);
        while inner.waiting.load(Ordering::Acquire) > 0
            && inner.turns.load(Ordering::Acquire) == turn
            && !inner.stop.load(Ordering::Acquire)
        {
            std::thread::yield_now();
        }
        if inner.paused.load(Ordering::Acquire) {
            std::thread::sleep(Duration::from_millis(5));
            continue;
        }
        // A sleeping host runs the chip itself (sleep_cycles), to the
        // cycle its sleep ends.
        if inner.sleepers.load(Ordering::Acquire) > 0 {
            std::thread::sleep(Duration::from_micros(200));
            continue;
        }
        let mut g = inner.sim.lock().unwrap_or_else(PoisonError::into_inner);
        // A host busy with e-hal calls sets the pace: each call runs the
        // chip for its cost (Sim::charge), as a board's host polling the
        // chip sees it move. The chip runs on its own once the host has
        // made no call for HOST_QUIET_NS of real time (it computes, or
        // waits in a way that does not call e-hal).
        if let Some(wait) = g.host_busy() {
            drop(g);
            std::thread::sleep(wait);
            continue;
        }
        if g.idle {
            g = inner
                .wake
                .wait_timeout(g, Duration::from_millis(1))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
            if inner.stop.load(Ordering::Acquire) {
                break;
            }
            // A host call came meanwhile (it woke this thread): look again.
            if g.host_busy().is_some() {
                continue;
            }
        }
        let target = g.now + FREE_SLICE;
        g.run_to(target);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transactions_count_aligned_8_byte_chunks() {
        assert_eq!(txns(0, 0), 0);
        assert_eq!(txns(0, 8), 1);
        assert_eq!(txns(4, 8), 2);
        assert_eq!(txns(7, 2), 2);
        assert_eq!(txns(0, 0x8000), 0x1000);
    }

    fn det() -> Host {
        Host::with_syscalls(
            Platform::parallella16(),
            RunMode::Deterministic,
            Mode::Timed,
            Syscalls::captured(Vec::new(), Vec::new()),
        )
        .unwrap()
    }

    #[test]
    fn sram_and_dram_round_trip_and_bad_ranges_change_nothing() {
        let h = det();
        h.write_sram(3, 3, 0x7ff0, &[1, 2, 3, 4]).unwrap();
        let mut b = [0; 4];
        h.read_sram(3, 3, 0x7ff0, &mut b).unwrap();
        assert_eq!(b, [1, 2, 3, 4]);
        let before = h.stats();
        assert!(h.write_sram(3, 3, 0x7ffe, &[9; 4]).is_err());
        assert!(h.write_sram(4, 0, 0, &[9; 4]).is_err());
        assert!(h.read_reg(0, 0, 0xF0401).is_err());
        assert!(h.read_reg(0, 0, 0x8000).is_err());
        assert!(h.write_dram(0x0200_0000 - 2, &[0; 4]).is_err());
        assert_eq!(h.stats(), before, "a refused call costs nothing");
        h.read_sram(3, 3, 0x7ffc, &mut b).unwrap();
        assert_eq!(b, [0; 4]);
        h.write_dram(16, b"abc").unwrap();
        // SAFETY: 32 MB of DRAM behind the pointer.
        let seen = unsafe { std::slice::from_raw_parts(h.dram_ptr().add(16), 3) };
        assert_eq!(seen, b"abc");
    }

    #[test]
    fn host_calls_cost_the_modelled_cycles_in_deterministic_mode() {
        let h = det();
        let t0 = h.now();
        h.write_sram(0, 0, 0, &[0; 64]).unwrap();
        assert_eq!(h.now() - t0, CALL_CYCLES + 8 * WRITE_TXN_CYCLES);
        let t1 = h.now();
        h.read_reg(0, 0, reg::COREID).unwrap();
        assert_eq!(h.now() - t1, CALL_CYCLES + READ_TXN_CYCLES);
        assert_eq!(h.read_reg(1, 2, reg::COREID).unwrap(), (33 << 6) | 10);
        h.run(1000);
        assert_eq!(h.now() - t1, 2 * (CALL_CYCLES + READ_TXN_CYCLES) + 1000);
    }

    fn dev_elf(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/dev")
            .join(name)
    }

    #[test]
    fn config_words_go_to_the_sections_even_over_a_loaded_segment() {
        let h = det();
        let g = Workgroup {
            row: 2,
            col: 1,
            rows: 1,
            cols: 2,
        };
        h.load(&dev_elf("cfg_dev.elf"), g, &[(0, 1)], false)
            .unwrap();
        let mut b = [0u8; 64];
        h.read_sram(2, 2, 0x28, &mut b).unwrap();
        let w: Vec<u32> = b
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let id = (34 << 6) | 9;
        assert_eq!(
            w[..13],
            [3, 0, id, 34, 9, 1, 2, 0, 1, 0xdead_beef, 5, 0x8e00_0000, 1]
        );
        // In external memory: the words are written there.
        h.load(&dev_elf("cfg_dev_dram.elf"), g, &[(0, 0)], false)
            .unwrap();
        h.read_dram(0x0110_0000, &mut b).unwrap();
        assert_eq!(b[8..12], id.to_le_bytes());
        assert_eq!(b[0x30..0x34], 1u32.to_le_bytes());
        h.read_sram(2, 1, 0x28, &mut b).unwrap();
        assert_eq!(
            b, [0; 64],
            "nothing at 0x28 when the sections are elsewhere"
        );
    }

    #[test]
    fn config_sections_that_cannot_be_written_refuse_the_load() {
        let h = det();
        h.write_sram(0, 0, 0x100, &[7; 4]).unwrap();
        let before = h.stats();
        let g = Workgroup {
            row: 0,
            col: 0,
            rows: 1,
            cols: 1,
        };
        let e = h
            .load(&dev_elf("cfg_dev_oncore.elf"), g, &[(0, 0)], true)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("cfg_dev_oncore.elf: section workgroup_cfg at 0x80807000")
                && e.contains("global SRAM address"),
            "{e}"
        );
        assert_eq!(h.stats(), before, "a refused load costs nothing");
        let mut b = [0; 4];
        h.read_sram(0, 0, 0x100, &mut b).unwrap();
        assert_eq!(b, [7; 4], "a refused load changes nothing");
    }

    #[test]
    fn halt_and_resume_go_through_debugcmd() {
        let h = det();
        h.halt(0, 1).unwrap();
        assert_eq!(h.run_state(0, 1).unwrap(), RunState::Halted);
        assert_eq!(h.read_reg(0, 1, reg::DEBUGSTATUS).unwrap() & 1, 1);
        h.resume(0, 1).unwrap();
        assert_eq!(h.read_reg(0, 1, reg::DEBUGSTATUS).unwrap() & 1, 0);
        h.reset_cores(&[(0, 1)]).unwrap();
        assert_eq!(h.run_state(0, 1).unwrap(), RunState::Idle);
    }
}
