//! Instruction traces: one record per retired instruction, as text or JSON
//! lines, filtered by core and cycle window.
//!
//! The format is a stable interface (users snapshot-test it); README.md,
//! "Traces", documents it and every change to it is a breaking change.
//!
//! A record holds what the instruction did to the architectural state:
//! each general register it changed, each special register whose value
//! changed (STATUS includes the flags), and the memory access it made. The
//! core compares its state before and after the instruction, and its bus
//! records the access, only when tracing: the untraced loop is compiled
//! without any of it (`Core::run_functional`'s `TRACE` parameter).

use std::fmt::Write as _;
use std::io::{self, Write};

use epsim_isa::disasm::gpr_name;
use epsim_isa::{decode, ArchState, Size};
use serde::Serialize;

use crate::config::CoreId;
use crate::timing::Place;

/// How records are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    /// One aligned text line per instruction.
    Text,
    /// One JSON object per line.
    Json,
}

/// Which records are written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceFilter {
    /// Only these cores (empty: every core).
    pub cores: Vec<CoreId>,
    /// First cycle traced.
    pub from: u64,
    /// Last cycle traced (inclusive).
    pub to: u64,
}

impl Default for TraceFilter {
    fn default() -> Self {
        TraceFilter {
            cores: Vec::new(),
            from: 0,
            to: u64::MAX,
        }
    }
}

impl TraceFilter {
    /// Whether an instruction of `core` at `cycle` is traced.
    #[inline]
    pub fn wants(&self, core: CoreId, cycle: u64) -> bool {
        (self.from..=self.to).contains(&cycle)
            && (self.cores.is_empty() || self.cores.contains(&core))
    }
}

/// A memory access made by an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemAccess {
    pub store: bool,
    pub addr: u32,
    pub size: Size,
    /// The value loaded or stored (zero-extended).
    pub value: u64,
    /// Where it went, as the core's bus classified the address.
    pub place: Place,
}

/// The special registers a record reports, with their trace names.
const SREGS: [&str; 12] = [
    "config",
    "status",
    "lc",
    "ls",
    "le",
    "iret",
    "imask",
    "ilat",
    "ipend",
    "ctimer0",
    "ctimer1",
    "debugstatus",
];

fn sreg_values(s: &ArchState) -> [u32; 12] {
    [
        s.config,
        s.status(),
        s.lc,
        s.ls,
        s.le,
        s.iret,
        s.imask,
        s.ilat,
        s.ipend,
        s.ctimer0,
        s.ctimer1,
        s.debugstatus,
    ]
}

/// The architectural state before an instruction, to compare with after.
#[derive(Clone)]
pub struct Before {
    r: [u32; 64],
    sregs: [u32; 12],
}

impl Before {
    pub fn of(s: &ArchState) -> Before {
        Before {
            r: s.r,
            sregs: sreg_values(s),
        }
    }
}

/// One retired instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The cycle the instruction issued in (0 is the first of the run).
    pub cycle: u64,
    pub core: CoreId,
    pub pc: u32,
    /// The instruction word (first halfword low); `len` says how much of it
    /// is the instruction.
    pub word: u32,
    pub len: u8,
    /// General registers written (or changed), in register order, with
    /// their new value.
    pub regs: Vec<(u8, u32)>,
    /// Special registers whose value changed, with the new value.
    pub sregs: Vec<(&'static str, u32)>,
    pub mem: Option<MemAccess>,
    /// Cycles the instruction waited before issuing, and why (none in
    /// functional mode).
    pub stall: Option<(u32, &'static str)>,
}

impl Record {
    /// The record of the instruction at `pc` that took the state from
    /// `before` to `after`, writing the registers `written` (a bit mask;
    /// a register whose value changed is shown even if not in it).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        cycle: u64,
        core: CoreId,
        pc: u32,
        word: u32,
        len: u8,
        before: &Before,
        after: &ArchState,
        written: u64,
        mem: Option<MemAccess>,
    ) -> Record {
        let regs = (0..64u8)
            .filter(|&n| written & 1 << n != 0 || before.r[n as usize] != after.r[n as usize])
            .map(|n| (n, after.r[n as usize]))
            .collect();
        let now = sreg_values(after);
        let sregs = SREGS
            .iter()
            .zip(before.sregs.iter().zip(now))
            .filter(|(_, (b, a))| **b != *a)
            .map(|(name, (_, a))| (*name, a))
            .collect();
        Record {
            cycle,
            core,
            pc,
            word,
            len,
            regs,
            sregs,
            mem,
            stall: None,
        }
    }

    /// The instruction's halfwords in memory order, as objdump prints them.
    fn word_hex(&self) -> String {
        if self.len == 2 {
            format!("{:04x}", self.word & 0xffff)
        } else {
            format!("{:04x} {:04x}", self.word & 0xffff, self.word >> 16)
        }
    }

    fn asm(&self) -> String {
        decode(self.word).disasm(self.pc, self.word)
    }

    /// The text line (without the newline).
    pub fn text(&self) -> String {
        let mut line = format!(
            "{:>10} {:>2},{:<2} {:08x} {:<9} {:<28}",
            self.cycle,
            self.core.row,
            self.core.col,
            self.pc,
            self.word_hex(),
            self.asm()
        );
        for &(n, v) in &self.regs {
            let _ = write!(line, " {}={v:#010x}", gpr_name(n));
        }
        for &(name, v) in &self.sregs {
            let _ = write!(line, " {name}={v:#010x}");
        }
        if let Some(m) = self.mem {
            let op = if m.store { "st" } else { "ld" };
            let width = 2 * m.size.bytes() as usize;
            let _ = write!(
                line,
                " {op}{}[{:#010x}]={:#0w$x}",
                m.size.bytes(),
                m.addr,
                m.value,
                w = width + 2
            );
        }
        if let Some((n, why)) = self.stall {
            let _ = write!(line, " stall={n}:{why}");
        }
        line.trim_end().to_string()
    }

    /// The JSON line (without the newline).
    pub fn json(&self) -> String {
        #[derive(Serialize)]
        struct Mem {
            op: &'static str,
            addr: u32,
            size: u32,
            value: u64,
        }
        #[derive(Serialize)]
        struct Stall {
            cycles: u32,
            reason: &'static str,
        }
        #[derive(Serialize)]
        struct Line {
            cycle: u64,
            core: [u32; 2],
            pc: u32,
            word: String,
            asm: String,
            regs: Pairs,
            sregs: Pairs,
            mem: Option<Mem>,
            stall: Option<Stall>,
        }
        let line = Line {
            cycle: self.cycle,
            core: [self.core.row, self.core.col],
            pc: self.pc,
            word: self.word_hex(),
            asm: self.asm(),
            regs: Pairs(self.regs.iter().map(|&(n, v)| (gpr_name(n), v)).collect()),
            sregs: Pairs(self.sregs.clone()),
            mem: self.mem.map(|m| Mem {
                op: if m.store { "st" } else { "ld" },
                addr: m.addr,
                size: m.size.bytes(),
                value: m.value,
            }),
            stall: self.stall.map(|(cycles, reason)| Stall { cycles, reason }),
        };
        serde_json::to_string(&line).unwrap_or_default()
    }
}

/// Name-value pairs serialised as a JSON object in their own order
/// (registers in register order, not sorted by name).
struct Pairs(Vec<(&'static str, u32)>);

impl Serialize for Pairs {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = ser.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// An access the host made to the chip (through e-hal), a record of its
/// own in the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostRecord {
    /// What it did: `write`, `read`, `start`, `signal`, `halt`,
    /// `resume`, `reset`, `load`.
    pub kind: &'static str,
    /// The core it reached (`addr` is an offset in its window: SRAM or a
    /// register), or None for external memory (`addr` is the device
    /// address).
    pub core: Option<CoreId>,
    pub addr: u32,
    /// Bytes moved.
    pub len: u64,
}

impl HostRecord {
    /// The text line (without the newline).
    pub fn text(&self, cycle: u64) -> String {
        let target = match self.core {
            Some(c) => format!("{:>2},{:<2}", c.row, c.col),
            None => "dram ".to_string(),
        };
        format!(
            "{cycle:>10} host  {:<6} {target} {:08x} len={}",
            self.kind, self.addr, self.len
        )
    }

    /// The JSON line (without the newline).
    pub fn json(&self, cycle: u64) -> String {
        #[derive(Serialize)]
        struct Line {
            cycle: u64,
            host: &'static str,
            core: Option<[u32; 2]>,
            addr: u32,
            len: u64,
        }
        serde_json::to_string(&Line {
            cycle,
            host: self.kind,
            core: self.core.map(|c| [c.row, c.col]),
            addr: self.addr,
            len: self.len,
        })
        .unwrap_or_default()
    }
}

/// Where trace records go.
pub struct Trace {
    out: Box<dyn Write + Send>,
    pub format: TraceFormat,
    pub filter: TraceFilter,
    /// The first write error; writing stops there.
    error: Option<io::Error>,
    /// Several cores: lines wait here, keyed by (cycle, core id, order of
    /// arrival), until the machine releases the cycles no core can still
    /// write, so that the trace is in cycle order (then core order)
    /// whatever order the scheduler ran the cores in.
    merging: bool,
    pending: std::collections::BTreeMap<(u64, u32, u64), String>,
    seq: u64,
}

impl Trace {
    pub fn new(out: Box<dyn Write + Send>, format: TraceFormat, filter: TraceFilter) -> Trace {
        Trace {
            out,
            format,
            filter,
            error: None,
            merging: false,
            pending: std::collections::BTreeMap::new(),
            seq: 0,
        }
    }

    /// Orders the lines of several cores by cycle (see [`Trace::release`]).
    pub fn merge_cores(&mut self, on: bool) {
        self.merging = on;
    }

    /// Writes the waiting lines of cycles before `upto` (no core can write
    /// one any more).
    pub fn release(&mut self, upto: u64) {
        if self.pending.is_empty() {
            return;
        }
        let later = self.pending.split_off(&(upto, 0, 0));
        let ready = std::mem::replace(&mut self.pending, later);
        for line in ready.into_values() {
            self.write_line(&line);
        }
    }

    fn write_line(&mut self, line: &str) {
        if self.error.is_none() {
            if let Err(e) = writeln!(self.out, "{line}") {
                self.error = Some(e);
            }
        }
    }

    /// Writes the line `line` makes in the trace's format, if the filter
    /// wants `core` and `cycle` and no write has failed yet.
    fn emit(&mut self, core: CoreId, cycle: u64, line: impl FnOnce(TraceFormat) -> String) {
        if self.error.is_some() || !self.filter.wants(core, cycle) {
            return;
        }
        if self.merging {
            self.seq += 1;
            self.pending
                .insert((cycle, core.bits(), self.seq), line(self.format));
            return;
        }
        if let Err(e) = writeln!(self.out, "{}", line(self.format)) {
            self.error = Some(e);
        }
    }

    /// Records the host's access `rec` at the host's `cycle` (ahead of the
    /// cores' records of that cycle), if the filter wants the cycle and,
    /// for an access to a core, that core.
    pub fn host(&mut self, cycle: u64, rec: &HostRecord) {
        if self.error.is_some() || !(self.filter.from..=self.filter.to).contains(&cycle) {
            return;
        }
        if let Some(c) = rec.core {
            if !self.filter.wants(c, cycle) {
                return;
            }
        }
        let line = match self.format {
            TraceFormat::Text => rec.text(cycle),
            TraceFormat::Json => rec.json(cycle),
        };
        if self.merging {
            self.seq += 1;
            self.pending.insert((cycle, 0, self.seq), line);
        } else {
            self.write_line(&line);
        }
    }

    /// Writes `rec` if the filter wants it.
    pub fn record(&mut self, rec: &Record) {
        self.emit(rec.core, rec.cycle, |format| match format {
            TraceFormat::Text => rec.text(),
            TraceFormat::Json => rec.json(),
        });
    }

    /// Records that `core` took interrupt `irq` in `cycle` (to `vector`,
    /// returning to `iret`), if the filter wants that core and cycle.
    pub fn interrupt(&mut self, cycle: u64, core: CoreId, irq: u32, vector: u32, iret: u32) {
        self.emit(core, cycle, |format| match format {
            TraceFormat::Text => format!(
                "{cycle:>10} {:>2},{:<2} interrupt {irq} -> {vector:08x} iret={iret:#010x}",
                core.row, core.col
            ),
            TraceFormat::Json => {
                #[derive(Serialize)]
                struct Line {
                    cycle: u64,
                    core: [u32; 2],
                    interrupt: u32,
                    vector: u32,
                    iret: u32,
                }
                serde_json::to_string(&Line {
                    cycle,
                    core: [core.row, core.col],
                    interrupt: irq,
                    vector,
                    iret,
                })
                .unwrap_or_default()
            }
        });
    }

    /// Records that the host serviced `core`'s TRAP `num` (a system call)
    /// after `cycle`, leaving the registers `regs` (those it changed).
    pub fn trap(&mut self, cycle: u64, core: CoreId, num: u8, regs: &[(u8, u32)]) {
        self.emit(core, cycle, |format| match format {
            TraceFormat::Text => {
                let mut line = format!(
                    "{cycle:>10} {:>2},{:<2} trap {num} serviced",
                    core.row, core.col
                );
                for &(n, v) in regs {
                    let _ = write!(line, " {}={v:#010x}", gpr_name(n));
                }
                line
            }
            TraceFormat::Json => {
                #[derive(Serialize)]
                struct Line {
                    cycle: u64,
                    core: [u32; 2],
                    trap: u8,
                    regs: Pairs,
                }
                serde_json::to_string(&Line {
                    cycle,
                    core: [core.row, core.col],
                    trap: num,
                    regs: Pairs(regs.iter().map(|&(n, v)| (gpr_name(n), v)).collect()),
                })
                .unwrap_or_default()
            }
        });
    }

    /// Flushes the output; the first error of the whole trace, if any.
    pub fn finish(&mut self) -> io::Result<()> {
        self.release(u64::MAX);
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()
    }
}
