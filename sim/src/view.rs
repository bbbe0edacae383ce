//! A read-only snapshot of the machine for front ends (the TUI): what each
//! core is doing, its counters, the mesh's link loads, and on request the
//! full state of one core. Taking a view changes nothing, and nothing in
//! the simulation loop knows views exist: a run without a front end pays
//! nothing for them.
//!
//! Model decisions owned here:
//! * a core's *activity* as a front end shows it: exited (with its
//!   status), halted, idle, waiting for a remote read, in an interrupt
//!   handler, or running. Whether a running core is stalled, and why, is
//!   a matter of its recent counters ([`CoreView::stalls`]), which only a
//!   front end that keeps two views can tell;
//! * the code shown around a PC is decoded from memory as it is now (not
//!   from the decode cache).

use epsim_dma::regs as dma_regs;
use epsim_isa::{decode, insn_len};
use epsim_mesh::{LinkLoad, Net};
use serde::{Deserialize, Serialize};

use crate::config::{CoreId, Mode};
use crate::core::RunState;
use crate::machine::Machine;
use crate::timing::NSTALL;

/// What a core is doing, as far as one snapshot tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Activity {
    /// Not part of any loaded program (never started).
    Unused,
    Running,
    /// In an interrupt handler (IPEND not zero).
    Interrupt,
    /// Stopped until the answer of a read from another core or from
    /// external memory arrives.
    RemoteWait,
    /// Executed IDLE; waits for an interrupt.
    Idle,
    /// Halted (breakpoint, DEBUGCMD).
    Halted,
    /// Its program exited with this status.
    Exited(i32),
}

impl Activity {
    /// A short name for displays.
    pub fn name(self) -> &'static str {
        match self {
            Activity::Unused => "unused",
            Activity::Running => "running",
            Activity::Interrupt => "interrupt",
            Activity::RemoteWait => "remote wait",
            Activity::Idle => "idle",
            Activity::Halted => "halted",
            Activity::Exited(_) => "exited",
        }
    }
}

/// One core in a [`MachineView`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoreView {
    pub id: CoreId,
    pub activity: Activity,
    pub pc: u32,
    pub instret: u64,
    /// Cycles since reset.
    pub cycles: u64,
    pub idle: u64,
    pub dual: u64,
    /// Stall cycles by reason (`Stall::ALL` order).
    pub stalls: [u64; NSTALL],
}

/// The load of one link, cumulative since reset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Load {
    pub packets: u64,
    /// Half-cycles the link carried data.
    pub busy_half_cycles: u64,
}

impl From<LinkLoad> for Load {
    fn from(l: LinkLoad) -> Load {
        Load {
            packets: l.packets,
            busy_half_cycles: l.busy_half_cycles,
        }
    }
}

/// Link loads of the mesh, cumulative since reset.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeshLoad {
    /// Per network (cMesh, rMesh, xMesh): node `n`'s output towards
    /// `Dir::ALL[d]` is entry `n * 5 + d` (nodes in row-major order).
    pub links: [Vec<Load>; 3],
    /// The eLink out of the chip and into it.
    pub elink_tx: Load,
    pub elink_rx: Load,
}

impl MeshLoad {
    /// The load of `net`'s links.
    pub fn net(&self, net: Net) -> &[Load] {
        &self.links[net.index()]
    }
}

/// The machine at one moment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MachineView {
    /// Simulated cycles since reset (the furthest any core has run).
    pub cycle: u64,
    /// The same in nanoseconds at the chip's clock.
    pub ns: u64,
    pub mode: Mode,
    pub first_row: u32,
    pub first_col: u32,
    pub rows: u32,
    pub cols: u32,
    /// Every core of the chip, row-major from the first.
    pub cores: Vec<CoreView>,
    /// Timed mode, once the mesh exists (after the first run).
    pub mesh: Option<MeshLoad>,
}

impl MachineView {
    /// The view of core `id`, if it is on the chip.
    pub fn core(&self, id: CoreId) -> Option<&CoreView> {
        let (r, c) = (
            id.row.wrapping_sub(self.first_row),
            id.col.wrapping_sub(self.first_col),
        );
        (r < self.rows && c < self.cols).then(|| &self.cores[(r * self.cols + c) as usize])
    }
}

/// One DMA channel's registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DmaChannelView {
    pub config: u32,
    pub stride: u32,
    pub count: u32,
    pub src: u32,
    pub dst: u32,
    pub status: u32,
}

impl DmaChannelView {
    /// STATUS\[3:0\], the channel's state.
    pub fn state(&self) -> u32 {
        self.status & 0xF
    }

    /// A name for the state (isa.md §8.2).
    pub fn state_name(&self) -> &'static str {
        match self.state() {
            0 => "idle",
            0xD => "error",
            1..=7 => "active",
            _ => "busy",
        }
    }

    /// The descriptor the channel loaded last (STATUS\[31:16\]).
    pub fn descriptor(&self) -> u32 {
        self.status >> 16
    }
}

/// One instruction of the code around a PC.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeLine {
    pub addr: u32,
    pub word: u32,
    pub len: u8,
    pub text: String,
}

/// A core's registers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Registers {
    /// r0-r63.
    pub r: Vec<u32>,
    pub pc: u32,
    /// STATUS as software reads it (the flags are its bits,
    /// `epsim_isa::state::status`).
    pub status: u32,
    pub config: u32,
    pub ilat: u32,
    pub imask: u32,
    pub ipend: u32,
    pub ctimer0: u32,
    pub ctimer1: u32,
    pub lc: u32,
    pub ls: u32,
    pub le: u32,
    pub iret: u32,
}

/// The full state of one core.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoreDetail {
    pub id: CoreId,
    pub regs: Registers,
    pub dma: [DmaChannelView; 2],
    /// Instructions from a little before the PC on.
    pub code: Vec<CodeLine>,
}

impl Machine {
    /// A snapshot of every core and the mesh.
    pub fn view(&self) -> MachineView {
        let c = &self.config;
        let cores = self
            .cores
            .iter()
            .enumerate()
            .map(|(i, core)| CoreView {
                id: core.id,
                activity: self.activity(i),
                pc: core.state.pc,
                instret: core.stats.instret,
                cycles: core.stats.cycles,
                idle: core.stats.idle,
                dual: core.stats.dual,
                stalls: core.stats.stalls,
            })
            .collect();
        let mesh = self.timed.as_ref().map(|t| {
            let s = t.mesh.stats();
            let net = |n| s.links(n).iter().map(|&l| Load::from(l)).collect();
            MeshLoad {
                links: [net(Net::CMesh), net(Net::RMesh), net(Net::XMesh)],
                elink_tx: s.elink().tx.into(),
                elink_rx: s.elink().rx.into(),
            }
        });
        MachineView {
            cycle: self.now,
            ns: self.now_ns(),
            mode: c.mode,
            first_row: c.first_row,
            first_col: c.first_col,
            rows: c.rows,
            cols: c.cols,
            cores,
            mesh,
        }
    }

    fn activity(&self, i: usize) -> Activity {
        let core = &self.cores[i];
        if let Some(&(_, status)) = self.exits.iter().find(|(id, _)| *id == core.id) {
            return Activity::Exited(status);
        }
        if !self.group.contains(&i) && core.stats.instret == 0 {
            return Activity::Unused;
        }
        match core.run {
            RunState::Halted => Activity::Halted,
            RunState::Idle => Activity::Idle,
            RunState::Running => {
                if self.timed.as_ref().is_some_and(|t| t.waits_for_read(i)) {
                    Activity::RemoteWait
                } else if core.state.ipend != 0 {
                    Activity::Interrupt
                } else {
                    Activity::Running
                }
            }
        }
    }

    /// The full state of core `id` with `before` instructions of code
    /// before its PC (as far as they decode back) and `after` from it.
    pub fn core_detail(&self, id: CoreId, before: usize, after: usize) -> Option<CoreDetail> {
        let i = self.config.core_index(id)?;
        let core = &self.cores[i];
        let reg = |ch: u32, r: u32| core.dma.read_reg(ch * dma_regs::CHANNEL_STRIDE + r);
        let channel = |ch: u32| DmaChannelView {
            config: reg(ch, dma_regs::CONFIG),
            stride: reg(ch, dma_regs::STRIDE),
            count: reg(ch, dma_regs::COUNT),
            src: reg(ch, dma_regs::SRCADDR),
            dst: reg(ch, dma_regs::DSTADDR),
            status: reg(ch, dma_regs::STATUS),
        };
        let st = &core.state;
        Some(CoreDetail {
            id,
            regs: Registers {
                r: st.r.to_vec(),
                pc: st.pc,
                status: st.status(),
                config: st.config,
                ilat: st.ilat,
                imask: st.imask,
                ipend: st.ipend,
                ctimer0: st.ctimer0,
                ctimer1: st.ctimer1,
                lc: st.lc,
                ls: st.ls,
                le: st.le,
                iret: st.iret,
            },
            dma: [channel(0), channel(1)],
            code: self.code_around(i, core.state.pc, before, after),
        })
    }

    /// The halfword at `addr` as core `i` fetches it, if it is in its SRAM
    /// or in external memory.
    fn code_half(&self, i: usize, addr: u32) -> Option<u16> {
        let core = &self.cores[i];
        let hi = addr >> 20;
        if hi == 0 || hi == core.id.bits() {
            let off = addr & 0xF_FFFF;
            return core
                .sram
                .contains(off, 2)
                .then(|| core.sram.read(off, 2) as u16);
        }
        let off = addr.wrapping_sub(self.config.ext_base);
        self.dram
            .contains(off, 2)
            .then(|| self.dram.read(off, 2) as u16)
    }

    fn code_line(&self, i: usize, addr: u32) -> Option<CodeLine> {
        let h0 = self.code_half(i, addr)?;
        let len = insn_len(h0);
        let word = if len == 4 {
            u32::from(h0) | u32::from(self.code_half(i, addr.wrapping_add(2))?) << 16
        } else {
            u32::from(h0)
        };
        Some(CodeLine {
            addr,
            word,
            len: len as u8,
            text: decode(word).disasm(addr, word),
        })
    }

    fn code_around(&self, i: usize, pc: u32, before: usize, after: usize) -> Vec<CodeLine> {
        // Instructions have no markers to decode backwards from: start at
        // the furthest address (up to 4 bytes per instruction back) from
        // which whole instructions, at most `before` of them, land exactly
        // on the PC.
        let mut start = (pc, 0);
        for k in (1..=2 * before as u32).rev() {
            let from = pc.wrapping_sub(2 * k);
            let (mut a, mut n) = (from, 0);
            while a < pc && n <= before {
                let Some(h) = self.code_half(i, a) else { break };
                a = a.wrapping_add(insn_len(h));
                n += 1;
            }
            if a == pc && n <= before {
                start = (from, n);
                break;
            }
        }
        let (mut a, n) = start;
        let mut lines = Vec::new();
        while lines.len() < n + after {
            let Some(line) = self.code_line(i, a) else {
                break;
            };
            a = a.wrapping_add(u32::from(line.len));
            lines.push(line);
        }
        lines
    }
}
