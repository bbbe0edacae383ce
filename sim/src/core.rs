//! One e-core: architectural state, its SRAM with the decode cache, its
//! memory-mapped registers, and the functional execution loop.
//!
//! Model decisions owned here: how a core's addresses are classified
//! (local SRAM, its own registers, its own global window, external DRAM,
//! anything else unmapped), how each `Step` the semantics report is acted
//! on, and when interrupts are taken (between instructions).

use epsim_isa::exec::{enter_interrupt, exec_ref, fallthrough, pending_interrupt};
use epsim_isa::state::{irq, sreg, status};
use epsim_isa::{decode, Access, ArchState, Bus, Excause, MemFault, OpClass, Size, Sreg, Step};

use crate::block::{ends_block, BlockCache, Insn, MAX_BLOCK};
use crate::config::Mode;
use crate::config::{CoreId, FaultPolicy};
use crate::memo::Memo;
use crate::memory::CodeMem;
use crate::syscall::GuestMemory;
use crate::timing::{
    events, idle_wakeup, tick_timers, timers_on, Done, Events, Issue, Params, Pipeline,
    Place as TPlace, Stall, Timing,
};
use crate::trace::{Before, MemAccess, Record, Trace};

/// Start of the memory-mapped register window in a core's local space.
pub const MMR_BASE: u32 = 0xF0000;
/// End (exclusive) of the memory-mapped register window.
pub const MMR_END: u32 = 0xF1000;

/// Indexes into [`OtherRegs::mem`] (0xF0600, 0xF0604, 0xF0608).
const MEMSTATUS: usize = 1;
const MEMPROTECT: usize = 2;
/// MEMPROTECT: the core may not write off-chip; raise the memory fault.
const PROTECT_CORE_XWR: u32 = 1 << 14;
const PROTECT_EXC_EN: u32 = 1 << 15;
/// MEMSTATUS: a fault happened; a write to a protected page; a write
/// off-chip while forbidden.
const MEMSTATUS_FAULT: u32 = 1 << 2;
const MEMSTATUS_WRITE_BREACH: u32 = 1 << 11;
const MEMSTATUS_XWRITE_BREACH: u32 = 1 << 13;

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

/// Memory-mapped registers that are not part of [`ArchState`]: DMA,
/// memory-protection and mesh-node registers (groups 1-3), kept so software
/// reads back what it wrote.
#[derive(Clone, Debug, Default)]
pub struct OtherRegs {
    pub dma: [u32; 16],
    pub mem: [u32; 3],
    pub meshconfig: u32,
    pub multicast: u32,
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
    pub stalls: [u64; 6],
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

/// Where an address leads, seen from one core.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Sram(u32),
    Mmr(u32),
    Dram(u32),
    Unmapped,
}

/// The memories a core reaches besides its own.
pub struct Shared<'a> {
    pub dram: &'a mut CodeMem,
    pub ext_base: u32,
}

/// The bus of one core during one execution batch. With `REC` it records
/// the access each instruction makes, for traces.
pub struct CoreBus<'a, const REC: bool = false> {
    id_bits: u32,
    sram: &'a mut CodeMem,
    regs: &'a mut OtherRegs,
    dram: &'a mut CodeMem,
    ext_base: u32,
    /// Set when a register write asks the core to halt.
    halt_requested: bool,
    /// Set when a store reached a memory-mapped register or decoded code:
    /// the running block must end after this instruction.
    attention: bool,
    /// The last access (only with `REC`).
    rec: Option<MemAccess>,
}

impl<const REC: bool> CoreBus<'_, REC> {
    #[inline(always)]
    fn place(&self, addr: u32, len: u32) -> Place {
        let hi = addr >> 20;
        if hi == 0 || hi == self.id_bits {
            let off = addr & 0xF_FFFF;
            if self.sram.contains(off, len) {
                return Place::Sram(off);
            }
            if (MMR_BASE..MMR_END).contains(&off) {
                return Place::Mmr(off);
            }
            return Place::Unmapped;
        }
        let ext = addr.wrapping_sub(self.ext_base);
        if self.dram.contains(ext, len) {
            return Place::Dram(ext);
        }
        Place::Unmapped
    }

    /// A store the memory-protection register forbids: it is dropped,
    /// MEMSTATUS records it, and with EXC_EN the memory-fault interrupt is
    /// latched (isa.md §3.6). Not a guest fault: the program asked for it.
    #[cold]
    #[inline(never)]
    fn breach(&mut self, s: &mut ArchState, what: u32) {
        self.regs.mem[MEMSTATUS] |= MEMSTATUS_FAULT | what;
        if self.regs.mem[MEMPROTECT] & PROTECT_EXC_EN != 0 {
            s.ilat |= 1 << irq::MEMFAULT;
        }
        self.attention = true;
    }

    fn mmr_read(&mut self, s: &mut ArchState, off: u32) -> Option<u32> {
        let w = (off - MMR_BASE) / 4;
        match off - MMR_BASE {
            0x000..=0x0FF => Some(s.r[w as usize]),
            0x400..=0x4FF => {
                let i = w - 0x100;
                s.read_core_sreg(i).or(match i {
                    // write-only registers read as zero
                    sreg::ILATST | sreg::ILATCL | sreg::FSTATUS | sreg::DEBUGCMD => Some(0),
                    _ => None,
                })
            }
            0x500..=0x53F => Some(self.regs.dma[(w - 0x140) as usize]),
            0x600..=0x60B => Some(self.regs.mem[(w - 0x180) as usize]),
            0x700 => Some(self.regs.meshconfig),
            0x704 => Some(self.id_bits),
            0x708 => Some(self.regs.multicast),
            0x70C => Some(0),
            _ => None,
        }
    }

    fn mmr_write(&mut self, s: &mut ArchState, off: u32, v: u32) -> bool {
        // A register write can halt the core or make an interrupt pending:
        // the running block ends after this instruction.
        self.attention = true;
        let w = (off - MMR_BASE) / 4;
        match off - MMR_BASE {
            0x000..=0x0FF => s.r[w as usize] = v,
            0x400..=0x4FF => {
                let i = w - 0x100;
                if !s.write_core_sreg(i, v) {
                    match i {
                        sreg::PC => s.pc = v,
                        sreg::DEBUGCMD => {
                            if v & 3 == 1 {
                                s.debugstatus |= DEBUG_HALT;
                                self.halt_requested = true;
                            } else if v & 3 == 0 {
                                s.debugstatus &= !DEBUG_HALT;
                            }
                        }
                        _ => return false,
                    }
                }
            }
            0x500..=0x53F => self.regs.dma[(w - 0x140) as usize] = v,
            0x600..=0x60B => self.regs.mem[(w - 0x180) as usize] = v,
            0x700 => self.regs.meshconfig = v,
            0x708 => self.regs.multicast = v & 0xfff,
            0x70C => {}
            _ => return false,
        }
        true
    }
}

impl<const REC: bool> Bus for CoreBus<'_, REC> {
    #[inline(always)]
    fn load(&mut self, s: &mut ArchState, addr: u32, size: Size) -> Access<u64> {
        let len = size.bytes();
        let access = match self.place(addr, len) {
            Place::Sram(off) => Access::Ready(self.sram.read(off, len)),
            Place::Dram(off) => Access::Ready(self.dram.read(off, len)),
            Place::Mmr(off) if size == Size::Word => match self.mmr_read(s, off) {
                Some(v) => Access::Ready(v as u64),
                None => Access::Fault(MemFault::Unmapped),
            },
            Place::Mmr(_) => Access::Fault(MemFault::Protected),
            Place::Unmapped => Access::Fault(MemFault::Unmapped),
        };
        if REC {
            if let Access::Ready(value) = access {
                self.rec = Some(MemAccess {
                    store: false,
                    addr,
                    size,
                    value,
                });
            }
        }
        access
    }

    #[inline(always)]
    fn store(&mut self, s: &mut ArchState, addr: u32, size: Size, value: u64) -> Access<()> {
        let len = size.bytes();
        match self.place(addr, len) {
            Place::Sram(off) => {
                if off < 0x8000 && self.regs.mem[MEMPROTECT] & 1 << (off >> 12) != 0 {
                    // Dropped: no memory effect to record.
                    self.breach(s, MEMSTATUS_WRITE_BREACH);
                    return Access::Ready(());
                } else {
                    self.attention |= self.sram.write(off, len, value);
                }
            }
            Place::Dram(off) => {
                if self.regs.mem[MEMPROTECT] & PROTECT_CORE_XWR != 0 {
                    self.breach(s, MEMSTATUS_XWRITE_BREACH);
                    return Access::Ready(());
                } else {
                    self.attention |= self.dram.write(off, len, value);
                }
            }
            Place::Mmr(off) if size == Size::Word => {
                if !self.mmr_write(s, off, value as u32) {
                    return Access::Fault(MemFault::Unmapped);
                }
            }
            Place::Mmr(_) => return Access::Fault(MemFault::Protected),
            Place::Unmapped => return Access::Fault(MemFault::Unmapped),
        }
        if REC {
            self.rec = Some(MemAccess {
                store: true,
                addr,
                size,
                value,
            });
        }
        Access::Ready(())
    }

    fn testset(&mut self, _s: &mut ArchState, addr: u32, value: u32) -> Access<u32> {
        // TESTSET needs a global address (isa.md §2.6).
        if addr >> 20 == 0 {
            return Access::Fault(MemFault::Protected);
        }
        let (mem, off) = match self.place(addr, 4) {
            Place::Sram(off) => (&mut *self.sram, off),
            Place::Dram(off) => (&mut *self.dram, off),
            Place::Mmr(_) => return Access::Fault(MemFault::Protected),
            Place::Unmapped => return Access::Fault(MemFault::Unmapped),
        };
        let old = mem.read(off, 4) as u32;
        if old == 0 {
            self.attention |= mem.write(off, 4, value as u64);
        }
        // (TESTSET needs a global address; only another core's SRAM or
        // DRAM would be protected from this core, which is not modelled
        // for TESTSET yet.)
        if REC {
            // TESTSET reads the old word and writes only if it was zero:
            // the record shows the write when there was one.
            self.rec = Some(MemAccess {
                store: old == 0,
                addr,
                size: Size::Word,
                value: if old == 0 { value as u64 } else { old as u64 },
            });
        }
        Access::Ready(old)
    }

    fn read_sreg(&mut self, s: &mut ArchState, sreg: Sreg) -> u32 {
        // Reserved special registers read as zero.
        self.mmr_read(s, sreg.mmr_addr()).unwrap_or(0)
    }

    fn write_sreg(&mut self, s: &mut ArchState, sreg: Sreg, value: u32) {
        // Writes to reserved or read-only special registers are ignored.
        let _ = self.mmr_write(s, sreg.mmr_addr(), value);
    }
}

impl<const REC: bool> GuestMemory for CoreBus<'_, REC> {
    fn read_guest(&mut self, addr: u32, len: u32) -> Option<Vec<u8>> {
        match self.place(addr, len.max(1)) {
            Place::Sram(off) => Some(self.sram.read_bytes(off, len).to_vec()),
            Place::Dram(off) => Some(self.dram.read_bytes(off, len).to_vec()),
            _ => None,
        }
    }

    fn write_guest(&mut self, addr: u32, data: &[u8]) -> bool {
        match self.place(addr, (data.len() as u32).max(1)) {
            Place::Sram(off) => self.attention |= self.sram.write_bytes(off, data),
            Place::Dram(off) => self.attention |= self.dram.write_bytes(off, data),
            _ => return false,
        }
        true
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
        }
    }

    /// A bus for this core over the shared memories.
    pub fn bus<'a>(&'a mut self, shared: &'a mut Shared<'_>) -> (&'a mut ArchState, CoreBus<'a>) {
        (
            &mut self.state,
            CoreBus {
                id_bits: self.id.bits(),
                sram: &mut self.sram,
                regs: &mut self.regs,
                dram: shared.dram,
                ext_base: shared.ext_base,
                halt_requested: false,
                attention: false,
                rec: None,
            },
        )
    }

    /// Starts the core at `pc` as a reset does: running, interrupts enabled
    /// at the global level, IMASK as e-hal leaves it.
    pub fn start(&mut self, pc: u32) {
        self.state.pc = pc;
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
        let id = self.id;
        let cycle0 = self.stats.cycles;
        let limit = cycle0.saturating_add(budget);
        let mut retired = 0u64;
        // Timed: the cycle count after the last instruction (last issue + 1).
        let mut now = cycle0;
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
                ..
            } = self;
            let mut bus = CoreBus::<REC> {
                id_bits: id.bits(),
                sram,
                regs,
                dram: shared.dram,
                ext_base: shared.ext_base,
                halt_requested: false,
                attention: false,
                rec: None,
            };
            // Code may have been written since this core last ran (the
            // loader, a system call, another agent); within the loop only
            // a store that sets `attention` can write it.
            blocks.validate([bus.sram.epoch(), bus.dram.epoch()]);
            while now < limit {
                let entry = s.pc;
                let block = match blocks.lookup(entry) {
                    Some(b) => b,
                    None => match build_block(blocks, &mut bus, entry) {
                        Ok(b) => b,
                        Err(fault) => {
                            break 'run CoreExit::Fault(GuestFault {
                                core: id,
                                pc: entry,
                                word: 0,
                                kind: FaultKind::Fetch { fault },
                            })
                        }
                    },
                };
                let (insns, deps) = blocks.insns(block);
                let mut n = insns.len();
                if !TIMED {
                    n = n.min((limit - now) as usize);
                }
                if s.lc != 0 {
                    n = n.min(upto_loop_end(insns, entry, s.le));
                }
                // CONFIG changes only at block ends (MOVTS, or a store that
                // sets `attention`).
                let timers = timers_on(s.config);
                if TIMED {
                    pipe.set_rounding(s.config);
                }
                // Run the block's instructions back to back while each one
                // simply falls through; stop at the first that does not, or
                // after a store that needs the system's attention. The
                // hardware-loop rule applies to the last one run only: the
                // block was cut after the loop's last instruction above.
                bus.attention = false;
                let (done, pc, len, last, issued) = if !TIMED && !TRACE && !timers {
                    let (done, pc, len, last) = plain_block(s, &mut bus, &insns[..n], entry);
                    now += done as u64;
                    (done, pc, len, last, None)
                } else if TIMED && !TRACE && !timers && *memoise && limit - now >= MEMO_MARGIN {
                    memo.validate(blocks.generation);
                    memo_block(
                        s,
                        &mut bus,
                        &insns[..n],
                        &deps[..n],
                        blocks.live(block),
                        entry,
                        pipe,
                        stats,
                        memo,
                        &mut now,
                    )
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
                        },
                        &mut now,
                    )
                };
                retired += done as u64;
                if done == 0 {
                    // The budget ran out before the block's first issue.
                    now = limit;
                    break;
                }
                let step = last.unwrap_or(Step::Next);
                let seq = pc.wrapping_add(len);
                if let Some(exit) = settle(s, &mut bus, run, id, policy, step, pc, len) {
                    break 'run exit;
                }
                if TIMED && matches!(step, Step::Next) && s.pc != seq {
                    // A hardware loop went back to its start.
                    if let Some(i) = issued {
                        pipe.loop_back(s.pc, i.cycle);
                    }
                }
                if bus.attention {
                    if bus.halt_requested {
                        *run = RunState::Halted;
                        break 'run CoreExit::Halted;
                    }
                    blocks.validate([bus.sram.epoch(), bus.dram.epoch()]);
                }
                if s.ilat & !s.imask != 0 {
                    if let Some(n) = pending_interrupt(s) {
                        let ret = s.pc;
                        enter_interrupt(s, n, ret);
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
        self.pipe.skip_to(self.stats.cycles);
        if self.wake() {
            let (cycle, pc) = (self.stats.cycles, self.state.pc);
            self.pipe.interrupt(pc, cycle);
            true
        } else {
            false
        }
    }

    /// An idle core takes a pending interrupt if it can; true if it woke.
    fn wake(&mut self) -> bool {
        if wake_now(&mut self.state) {
            self.run = RunState::Running;
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
        if kind == FaultKind::Fpu {
            s.pc = pc.wrapping_add(len);
        }
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

/// Runs `insns` (a block's first ones, from `entry`) back to back while each
/// falls through, in functional mode without trace or timers: nothing per
/// instruction but the instruction. Returns how many ran, the address and
/// length of the last, and its outcome unless it fell through.
#[inline(always)]
fn plain_block<const REC: bool>(
    s: &mut ArchState,
    bus: &mut CoreBus<'_, REC>,
    insns: &[Insn],
    entry: u32,
) -> (usize, u32, u32, Option<Step>) {
    let mut pc = entry;
    let mut len = 0;
    for (done, insn) in insns.iter().enumerate() {
        pc = pc.wrapping_add(len);
        len = insn.len as u32;
        let step = exec_ref(s, bus, &insn.op, pc, len);
        if step != Step::Next {
            return (done + 1, pc, len, Some(step));
        }
        if bus.attention {
            return (done + 1, pc, len, None);
        }
    }
    (insns.len(), pc, len, None)
}

/// Timed blocks are memoised only this many cycles or more before the
/// budget ends (a memoised block is executed before it is timed, so it must
/// not be able to reach the end of the budget; no memoisable block takes
/// this long).
const MEMO_MARGIN: u64 = 1 << 11;

/// Runs `insns` (a block's first ones, from `entry`) in timed mode without
/// trace or timers: executes them as [`plain_block`] does, recording their
/// memory accesses, then times them: by replaying the record of an earlier
/// run from the same pipeline state, or with the detailed model (recording
/// the result). Returns as [`general_block`].
#[inline(never)]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn memo_block<const REC: bool>(
    s: &mut ArchState,
    bus: &mut CoreBus<'_, REC>,
    insns: &[Insn],
    timing: &[Timing],
    live: &[(u8, u8)],
    entry: u32,
    pipe: &mut Pipeline,
    stats: &mut CoreStats,
    memo: &mut Memo,
    now: &mut u64,
) -> (usize, u32, u32, Option<Step>, Option<Issue>) {
    // Execute, recording where each load/store went: its bank (4: a
    // register, 5: external memory), | 8 for a store, | 16 for a byte or
    // half.
    let mut codes = [0u8; MAX_BLOCK];
    let mut nmem = 0;
    let mut external = false;
    let mut pc = entry;
    let mut len = 0;
    let mut done = 0;
    let mut last = None;
    for insn in insns {
        pc = pc.wrapping_add(len);
        len = insn.len as u32;
        let step = exec_ref(s, bus, &insn.op, pc, len);
        done += 1;
        if insn.class == OpClass::LoadStore {
            if let Some(m) = bus.rec.take() {
                let place = match pipe.place(m.addr) {
                    TPlace::Local(Some(b)) => b,
                    TPlace::Local(None) => 4,
                    TPlace::External => {
                        external = true;
                        5
                    }
                };
                let sub = matches!(m.size, Size::Byte | Size::Half);
                codes[nmem] = place | (m.store as u8) << 3 | (sub as u8) << 4;
                nmem += 1;
            }
        }
        if step != Step::Next {
            last = Some(step);
            break;
        }
        if bus.attention {
            break;
        }
    }
    let target = match last {
        Some(Step::Jump { target }) => Some(target),
        _ => None,
    };
    let base = pipe.next_issue();
    let memoisable = !external
        && pipe.key(
            &mut memo.key,
            entry,
            done,
            live,
            timing[0].touches,
            target.is_some(),
            &codes[..nmem],
        );
    if memoisable {
        if let Some(r) = memo.get() {
            let last_issue = pipe.replay(r, target);
            stats.dual += r.dual();
            for (a, b) in stats.stalls.iter_mut().zip(r.stalls()) {
                *a += b;
            }
            memo.hits += 1;
            *now = last_issue + 1;
            let issue = Issue {
                cycle: last_issue,
                stall: 0,
                reason: Stall::Dependency,
                dual: false,
            };
            return (done, pc, len, last, Some(issue));
        }
        memo.misses += 1;
    }
    // The detailed model over what ran.
    let (dual0, stalls0) = (stats.dual, stats.stalls);
    let mut ipc = entry;
    let mut issue = None;
    let mut redirect = None;
    let mut k = 0;
    for i in 0..done {
        let ilen = insns[i].len as u32;
        let is = pipe.issue(&timing[i], ipc, ilen);
        let code = if insns[i].class == OpClass::LoadStore && k < nmem {
            k += 1;
            Some(codes[k - 1])
        } else {
            None
        };
        let jumped_to = if i + 1 == done { target } else { None };
        let info = Done {
            mem: code.map(|c| {
                let place = match c & 7 {
                    5 => TPlace::External,
                    4 => TPlace::Local(None),
                    b => TPlace::Local(Some(b)),
                };
                (place, c & 8 != 0)
            }),
            sub_word: code.is_some_and(|c| c & 16 != 0),
            jumped_to,
        };
        pipe.complete(&is, &timing[i], ipc, &info);
        stats.count(&is);
        if jumped_to.is_some() {
            redirect = Some(is.cycle + 1 + pipe.params.branch_taken);
        }
        issue = Some(is);
        ipc = ipc.wrapping_add(ilen);
    }
    let last_issue = issue.map_or(base, |i| i.cycle);
    *now = last_issue + 1;
    if memoisable {
        let mut stalls = stats.stalls;
        for (a, b) in stalls.iter_mut().zip(stalls0) {
            *a -= b;
        }
        let r = pipe.record(
            base,
            &timing[..done],
            last_issue,
            stats.dual - dual0,
            stalls,
            redirect,
        );
        memo.put(r);
    }
    (done, pc, len, last, issue)
}

/// What the general block loop needs besides the core's state and bus.
struct Env<'a> {
    pipe: &'a mut Pipeline,
    stats: &'a mut CoreStats,
    trace: Option<&'a mut Trace>,
    id: CoreId,
    /// Functional mode: the cycle of the block's first instruction.
    first_cycle: u64,
    /// No instruction issues in this cycle or later.
    limit: u64,
    /// A core timer counts something.
    timers: bool,
}

/// Runs `insns` (a block's first ones, from `entry`) with the timing model
/// (`TIMED`), the trace (`TRACE`) and the core timers as asked: the same
/// stop rules as [`plain_block`]; also stops before an instruction that
/// would issue at or after `env.limit`. `now` becomes the cycle after the
/// last instruction. Returns as [`plain_block`] plus the last one's issue.
#[inline(never)]
#[allow(clippy::type_complexity)]
fn general_block<const TIMED: bool, const TRACE: bool, const REC: bool>(
    s: &mut ArchState,
    bus: &mut CoreBus<'_, REC>,
    insns: &[Insn],
    deps: &[Timing],
    entry: u32,
    env: Env<'_>,
    now: &mut u64,
) -> (usize, u32, u32, Option<Step>, Option<Issue>) {
    let Env {
        pipe,
        stats,
        mut trace,
        id,
        first_cycle,
        limit,
        timers,
    } = env;
    let mut pc = entry;
    let mut len = 0;
    let mut done = 0;
    let mut last = None;
    let mut issued = None;
    for (insn, d) in insns.iter().zip(deps) {
        let ipc = pc.wrapping_add(len);
        let class = insn.class;
        let issue = if TIMED {
            let issue = pipe.issue(d, ipc, insn.len as u32);
            if issue.cycle >= limit {
                pipe.unissue();
                break;
            }
            Some(issue)
        } else {
            None
        };
        pc = ipc;
        len = insn.len as u32;
        let before = TRACE.then(|| Before::of(s));
        let step = exec_ref(s, bus, &insn.op, pc, len);
        done += 1;
        if let Some(issue) = issue {
            let mem = if class == OpClass::LoadStore {
                bus.rec
            } else {
                None
            };
            let done_info = Done {
                mem: mem.map(|m| (pipe.place(m.addr), m.store)),
                sub_word: mem.is_some_and(|m| matches!(m.size, Size::Byte | Size::Half)),
                jumped_to: match step {
                    Step::Jump { target } => Some(target),
                    _ => None,
                },
            };
            pipe.complete(&issue, d, pc, &done_info);
            stats.count(&issue);
            issued = Some(issue);
        }
        let cycle = match issue {
            Some(i) => i.cycle,
            None => first_cycle + done as u64 - 1,
        };
        if timers {
            let ev = events(issue, class, cycle + 1 - *now);
            if tick_timers(s, &ev) {
                bus.attention = true;
            }
        }
        *now = cycle + 1;
        if let (Some(before), Some(t)) = (before, trace.as_deref_mut()) {
            let word = instruction_word(bus, pc);
            let mem = bus.rec.take();
            let mut rec = Record::new(cycle, id, pc, word, insn.len, &before, s, mem);
            if let Some(i) = issue {
                if i.stall > 0 {
                    rec.stall = Some((i.stall as u32, i.reason.name()));
                }
            }
            t.record(&rec);
        }
        if REC {
            bus.rec = None;
        }
        if !matches!(step, Step::Next) {
            last = Some(step);
            break;
        }
        if bus.attention {
            break;
        }
    }
    (done, pc, len, last, issued)
}

/// How many of a block's instructions (from `entry`) to run so that the
/// hardware loop's last instruction, at `le`, is the last one run: all of
/// them unless `le` is one of their addresses.
#[inline]
fn upto_loop_end(insns: &[Insn], entry: u32, le: u32) -> usize {
    let mut pc = entry;
    for (k, insn) in insns.iter().enumerate() {
        if pc == le {
            return k + 1;
        }
        pc = pc.wrapping_add(insn.len as u32);
    }
    insns.len()
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
    match step {
        Step::Next => s.pc = fallthrough(s, pc, len),
        Step::Jump { target } => s.pc = target,
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
        Step::Wand => {
            // A single core is its own group: the barrier is complete as
            // soon as it arrives.
            s.pc = fallthrough(s, pc, len);
            s.ilat |= 1 << irq::WAND;
        }
        Step::Sync => {
            s.pc = fallthrough(s, pc, len);
            s.ilat |= 1 << irq::SYNC;
        }
        Step::LoadPending { .. } | Step::Stall => {
            unreachable!("invariant: the functional bus never defers an access")
        }
    }
    None
}

/// Decodes the block that starts at `pc` into `blocks`, marking its bytes
/// as code in the memory that holds them. Only local SRAM (either address)
/// and DRAM hold fetchable code; an odd or unmapped `pc` is a fetch fault.
#[cold]
#[inline(never)]
fn build_block<const REC: bool>(
    blocks: &mut BlockCache,
    bus: &mut CoreBus<'_, REC>,
    pc: u32,
) -> Result<u32, MemFault> {
    if pc & 1 != 0 {
        return Err(MemFault::Unaligned);
    }
    let (mem, start) = match bus.place(pc, 2) {
        Place::Sram(off) => (&mut *bus.sram, off),
        Place::Dram(off) => (&mut *bus.dram, off),
        _ => return Err(MemFault::Unmapped),
    };
    let mut insns = [Insn {
        op: epsim_isa::Op::Nop,
        len: 2,
        class: OpClass::Control,
    }; MAX_BLOCK];
    let mut n = 0;
    let mut off = start;
    while n < MAX_BLOCK && mem.contains(off, 2) {
        let d = decode(mem.word_for_decode(off));
        insns[n] = Insn {
            op: d.op,
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

/// The instruction word at `pc` for diagnostics (0 if unreadable).
fn instruction_word<const REC: bool>(bus: &CoreBus<'_, REC>, pc: u32) -> u32 {
    match bus.place(pc, 2) {
        Place::Sram(off) => bus.sram.word_for_decode(off),
        Place::Dram(off) => bus.dram.word_for_decode(off),
        _ => 0,
    }
}
