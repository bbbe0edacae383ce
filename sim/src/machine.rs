//! The machine: cores, external DRAM, the host side of the system calls,
//! and the loop that runs them.
//!
//! This is the functional machine of the foundation: one core runs at a
//! time in batches, one cycle per instruction. The cycle-accurate pipeline
//! and the mesh are layers that come on top of it.

use std::path::Path;

use epsim_loader::{LoadPlan, Region};

use crate::config::{Config, CoreId};
use crate::core::{Core, CoreExit, GuestFault, Shared};
use crate::memory::CodeMem;
use crate::syscall::{SyscallOutcome, Syscalls};
use crate::trace::Trace;

/// Instructions a core runs between checks of the cycle limit.
const BATCH: u64 = 1 << 20;

/// Why a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The program called exit (or returned from main) with this status.
    Exit { core: CoreId, status: i32 },
    /// The program killed itself with a signal (abort → 6).
    Signalled { core: CoreId, signal: u32 },
    /// The cycle limit was reached.
    CycleLimit { cycles: u64 },
    /// Every core is idle and nothing can wake it.
    AllIdle,
    /// A core executed BKPT/MBKPT.
    Breakpoint { core: CoreId, pc: u32 },
    /// Every core is halted.
    AllHalted,
    /// A guest fault stopped the run.
    Fault(GuestFault),
}

/// Errors setting up a machine.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error(transparent)]
    Load(#[from] epsim_loader::LoadError),
    #[error("{path}: segment at {addr:#010x} ({len:#x} bytes) is for core ({row},{col}), which this machine does not simulate")]
    CoreNotSimulated {
        path: String,
        addr: u32,
        len: u32,
        row: u32,
        col: u32,
    },
}

/// A whole simulated system.
pub struct Machine {
    pub config: Config,
    pub cores: Vec<Core>,
    pub dram: CodeMem,
    pub sys: Syscalls,
    /// Simulated cycles since reset.
    pub now: u64,
    /// Where retired instructions are traced, if anywhere.
    pub trace: Option<Trace>,
}

impl Machine {
    /// A machine with one core, the chip's first (row 32, col 8 on a
    /// Parallella), and the given system-call host.
    pub fn single_core(config: Config, sys: Syscalls) -> Machine {
        let core = Core::new(config.first_core(), config.sram_size);
        Machine {
            dram: CodeMem::new(config.ext_size),
            cores: vec![core],
            sys,
            now: 0,
            trace: None,
            config,
        }
    }

    /// Loads `plan` (from `path`, named in errors) into the machine and
    /// starts every core at the entry point.
    pub fn load(&mut self, plan: &LoadPlan, path: &Path) -> Result<(), SimError> {
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
                    for core in &mut self.cores {
                        core.sram.zero(offset, len);
                        core.sram.write_bytes(offset, data);
                    }
                }
                Region::OnChip {
                    row, col, offset, ..
                } => {
                    let id = CoreId::new(row.into(), col.into());
                    let Some(core) = self.cores.iter_mut().find(|c| c.id == id) else {
                        return Err(SimError::CoreNotSimulated {
                            path: path.display().to_string(),
                            addr: seg.vaddr,
                            len,
                            row: id.row,
                            col: id.col,
                        });
                    };
                    core.sram.zero(offset, len);
                    core.sram.write_bytes(offset, data);
                }
            }
        }
        for core in &mut self.cores {
            core.start(plan.entry);
        }
        Ok(())
    }

    /// Simulated nanoseconds since reset.
    pub fn now_ns(&self) -> u64 {
        (self.now as u128 * 1_000_000_000 / self.config.clock_hz as u128) as u64
    }

    /// Runs until the program ends, faults, or `max_cycles` pass.
    pub fn run(&mut self, max_cycles: Option<u64>) -> StopReason {
        let limit = max_cycles.unwrap_or(u64::MAX);
        let policy = self.config.fault_policy;
        loop {
            if self.now >= limit {
                return StopReason::CycleLimit { cycles: self.now };
            }
            let budget = (limit - self.now).min(BATCH);
            let now_ns = self.now_ns();
            let core = &mut self.cores[0];
            core.memoise = self.config.memoise;
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
            self.now += core.stats.cycles - before;
            match exit {
                CoreExit::Budget => {}
                CoreExit::Trap { num, pc } => {
                    let id = core.id;
                    let cycle = core.stats.cycles.saturating_sub(1);
                    let (s, mut bus) = core.bus(&mut shared);
                    let before = s.r;
                    let outcome = self.sys.service(num, &mut s.r, &mut bus, now_ns);
                    if let Some(t) = self.trace.as_mut() {
                        let changed: Vec<(u8, u32)> = (0..64u8)
                            .filter(|&n| before[n as usize] != s.r[n as usize])
                            .map(|n| (n, s.r[n as usize]))
                            .collect();
                        t.trap(cycle, id, num, &changed);
                    }
                    match outcome {
                        SyscallOutcome::Continue => {}
                        SyscallOutcome::Exit(status) => {
                            // The core halts at the trap, as on hardware.
                            s.pc = pc;
                            core.halt();
                            return StopReason::Exit { core: id, status };
                        }
                        SyscallOutcome::Signalled(signal) => {
                            core.halt();
                            return StopReason::Signalled { core: id, signal };
                        }
                    }
                }
                CoreExit::Idle => {
                    if !core.sleep_until_timer() {
                        return StopReason::AllIdle;
                    }
                    self.now = core.stats.cycles;
                }
                CoreExit::Fault(f) => {
                    core.halt();
                    return StopReason::Fault(f);
                }
                CoreExit::Breakpoint { pc } => return StopReason::Breakpoint { core: core.id, pc },
                CoreExit::Halted => return StopReason::AllHalted,
            }
        }
    }

    /// Total instructions retired by all cores.
    pub fn instret(&self) -> u64 {
        self.cores.iter().map(|c| c.stats.instret).sum()
    }
}
