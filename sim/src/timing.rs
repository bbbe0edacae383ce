//! The timing model of one e-core: when each instruction issues.
//!
//! A layer over the `isa` semantics (DESIGN rule 1): the execution loop asks
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
//!   to it are posted into a queue that the eLink drains at a fixed rate.

use epsim_isa::deps::{Deps, AFLAGS, BFLAGS};
use epsim_isa::state::irq;
use epsim_isa::{ArchState, OpClass};

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
    /// Round trip of a core load from external memory (the core waits).
    pub ext_load: u64,
    /// Cycles to fetch one 8-byte line from external memory.
    pub ext_fetch_line: u64,
    /// Cycles the eLink takes per store transaction to external memory.
    pub ext_store_interval: u64,
    /// Store transactions the core's network interface buffers before the
    /// core stalls.
    pub ext_store_queue: u64,
}

impl Params {
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
        ext_load: 540,
        ext_fetch_line: 540,
        ext_store_interval: 17,
        ext_store_queue: 4,
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
}

impl Stall {
    pub const ALL: [Stall; 6] = [
        Stall::Dependency,
        Stall::Branch,
        Stall::FetchBank,
        Stall::ExtFetch,
        Stall::ExtLoad,
        Stall::ExtStore,
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
    /// The fetch state after fetching it (committed by
    /// [`Pipeline::complete`], so an issue that is not followed through
    /// changes nothing).
    fetch: Fetch,
}

/// The line instructions are being issued from (address >> 3), the cycle
/// they can issue from, the cycle the first instruction starting in it
/// issued, and why `ready` is what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fetch {
    line: u32,
    ready: u64,
    first: u64,
    reason: Stall,
}

/// Where an instruction's memory access went, for timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Local SRAM, this bank (or a memory-mapped register: no bank).
    Local(Option<u8>),
    /// External memory (DRAM).
    External,
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
const NONE: u64 = u64::MAX;

/// The pipeline state of one core.
#[derive(Clone, Debug)]
pub struct Pipeline {
    pub params: Params,
    /// Per register: first cycle an integer-side consumer (IALU, address,
    /// branch) may issue.
    ready_int: [u64; 64],
    /// Per register: first cycle an FPU consumer may issue.
    ready_fpu: [u64; 64],
    /// Per register: first cycle a store may issue with it as data.
    ready_st: [u64; 64],
    aflags_ready: u64,
    bflags_ready: u64,
    /// Cycle of the last issue, its class, and whether the next may pair
    /// with it.
    last: u64,
    /// The first cycle an instruction not paired with the last may issue.
    next: u64,
    last_class: OpClass,
    last_writes: u64,
    can_pair: bool,
    /// The line being issued from.
    fetch: Fetch,
    /// Recent SRAM bank uses by loads and stores: (cycle, bank).
    bank_use: [(u64, u8); 4],
    bank_next: usize,
    /// The core may not issue before this cycle (a blocking load, a full
    /// store queue), and why.
    blocked_until: u64,
    blocked_reason: Stall,
    /// When the eLink has drained every store queued so far.
    ext_busy_until: u64,
    /// Local SRAM: addresses below `sram_size` or in `id_bits << 20`.
    sram_size: u32,
    id_bits: u32,
}

impl Pipeline {
    pub fn new(params: Params, sram_size: u32, id_bits: u32) -> Pipeline {
        Pipeline {
            params,
            ready_int: [0; 64],
            ready_fpu: [0; 64],
            ready_st: [0; 64],
            aflags_ready: 0,
            bflags_ready: 0,
            last: 0,
            next: 0,
            last_class: OpClass::Control,
            last_writes: 0,
            can_pair: false,
            fetch: Fetch {
                line: u32::MAX,
                ready: 0,
                first: NONE,
                reason: Stall::Branch,
            },
            bank_use: [(NONE, 0); 4],
            bank_next: 0,
            blocked_until: 0,
            blocked_reason: Stall::ExtLoad,
            ext_busy_until: 0,
            sram_size,
            id_bits,
        }
    }

    /// Where a data access to `addr` goes, for timing.
    #[inline]
    pub fn place(&self, addr: u32) -> Place {
        let hi = addr >> 20;
        if hi == 0 || hi == self.id_bits {
            let off = addr & 0xF_FFFF;
            if off < self.sram_size {
                Place::Local(Some(Pipeline::bank(off)))
            } else {
                Place::Local(None)
            }
        } else {
            Place::External
        }
    }

    /// Whether `addr` is in this core's SRAM (either address).
    #[inline]
    fn local(&self, addr: u32) -> bool {
        let hi = addr >> 20;
        (hi == 0 || hi == self.id_bits) && (addr & 0xF_FFFF) < self.sram_size
    }

    /// The SRAM bank of a local address (four 8 KB banks).
    #[inline]
    pub fn bank(addr: u32) -> u8 {
        ((addr >> 13) & 3) as u8
    }

    /// Whether a load or store uses `bank` in `cycle`.
    #[inline]
    fn bank_busy(&self, cycle: u64, bank: u8) -> bool {
        self.bank_use.iter().any(|&(c, b)| c == cycle && b == bank)
    }

    /// When instructions from line `l`, the line after `f`'s, can issue:
    /// `f` becomes that line.
    #[cold]
    #[inline(never)]
    fn fetch_next(&self, f: &mut Fetch, l: u32) {
        let p = &self.params;
        let after = if f.first == NONE {
            f.ready + 1
        } else {
            (f.ready + 1).max(f.first)
        };
        let addr = l << 3;
        let (ready, reason) = if self.local(addr) {
            let bank = Pipeline::bank(addr);
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
        } else {
            (after - 1 + p.ext_fetch_line, Stall::ExtFetch)
        };
        *f = Fetch {
            line: l,
            ready,
            first: NONE,
            reason,
        };
    }

    /// The fetch state once the instruction at `pc` (`len` bytes) has been
    /// fetched; its `ready` is when the instruction can issue.
    #[inline(always)]
    fn fetched(&self, pc: u32, len: u32) -> Fetch {
        let l0 = pc >> 3;
        let l1 = (pc + len - 1) >> 3;
        let mut f = self.fetch;
        if l0 != f.line {
            self.fetch_next(&mut f, l0);
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
        let local = self.local(target & !7);
        self.fetch = Fetch {
            line: target >> 3,
            ready: if local {
                cycle
            } else {
                cycle + self.params.ext_fetch_line
            },
            first: NONE,
            reason: if local {
                Stall::Branch
            } else {
                Stall::ExtFetch
            },
        };
        self.can_pair = false;
    }

    /// The cycle the instruction at `pc` issues in.
    #[inline(always)]
    pub fn issue(&mut self, d: &Deps, class: OpClass, pc: u32, len: u32) -> Issue {
        // Operands, flags, and earlier writes to the same registers.
        let mut ready = 0;
        let mut reads = d.reads & !d.data;
        let table = if class == OpClass::Fpu {
            &self.ready_fpu
        } else {
            &self.ready_int
        };
        while reads != 0 {
            let r = reads.trailing_zeros() as usize;
            ready = ready.max(table[r]);
            reads &= reads - 1;
        }
        let mut data = d.data;
        while data != 0 {
            let r = data.trailing_zeros() as usize;
            ready = ready.max(self.ready_st[r]);
            data &= data - 1;
        }
        if d.flags_read & AFLAGS != 0 {
            ready = ready.max(self.aflags_ready);
        }
        if d.flags_read & BFLAGS != 0 {
            ready = ready.max(self.bflags_ready);
        }
        let mut writes = d.writes();
        while writes != 0 {
            let r = writes.trailing_zeros() as usize;
            ready = ready.max(self.ready_int[r]);
            writes &= writes - 1;
        }
        let fetched = self.fetched(pc, len);
        let fetch = fetched.ready;
        let pair = self.can_pair
            && pairs(self.last_class, class)
            && (d.reads | d.writes()) & self.last_writes == 0;
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
            fetched.reason
        } else {
            Stall::Dependency
        };
        Issue {
            cycle,
            stall,
            reason,
            dual,
            fetch: fetched,
        }
    }

    /// Records the effects of the instruction that issued as `issue`. `rnd`
    /// is 1 in round-to-nearest mode, 0 in truncate mode.
    #[inline(always)]
    pub fn complete(
        &mut self,
        issue: &Issue,
        d: &Deps,
        class: OpClass,
        pc: u32,
        rnd: u64,
        done: &Done,
    ) {
        let t = issue.cycle;
        let p = &self.params;
        let (ialu_int, ialu_fpu) = (p.ialu_to_int, p.ialu_to_fpu);
        let fpu_lat = p.fpu_to_any + rnd * p.fpu_round_extra;
        let fpu_st = p.fpu_to_store + rnd * p.fpu_round_extra;
        let (ld_int, ld_fpu, ld_sub, ext_load) =
            (p.load_to_int, p.load_to_fpu, p.load_sub_word, p.ext_load);
        let (mem_lead, ext_iv, ext_q, branch) = (
            p.mem_lead,
            p.ext_store_interval,
            p.ext_store_queue,
            p.branch_taken,
        );
        self.fetch = issue.fetch;
        if self.fetch.first == NONE && pc >> 3 == self.fetch.line {
            self.fetch.first = t;
        }
        let mut w = d.ialu;
        while w != 0 {
            let r = w.trailing_zeros() as usize;
            self.ready_int[r] = t + ialu_int;
            self.ready_st[r] = t + ialu_int;
            self.ready_fpu[r] = t + ialu_fpu;
            w &= w - 1;
        }
        let mut w = d.fpu;
        while w != 0 {
            let r = w.trailing_zeros() as usize;
            self.ready_int[r] = t + fpu_lat;
            self.ready_fpu[r] = t + fpu_lat;
            self.ready_st[r] = t + fpu_st;
            w &= w - 1;
        }
        if d.load != 0 {
            let ext = matches!(done.mem, Some((Place::External, false)));
            let (int, fpu) = if ext {
                (ext_load, ext_load)
            } else if done.sub_word {
                (ld_sub, ld_sub)
            } else {
                (ld_int, ld_fpu)
            };
            let mut w = d.load;
            while w != 0 {
                let r = w.trailing_zeros() as usize;
                self.ready_int[r] = t + int;
                self.ready_st[r] = t + int;
                self.ready_fpu[r] = t + fpu;
                w &= w - 1;
            }
        }
        if d.flags_written & AFLAGS != 0 {
            self.aflags_ready = t + ialu_int;
        }
        if d.flags_written & BFLAGS != 0 {
            self.bflags_ready = if class == OpClass::Fpu {
                t + fpu_lat
            } else {
                t + ialu_int
            };
        }
        match done.mem {
            Some((Place::Local(Some(bank)), _)) => {
                self.bank_use[self.bank_next] = (t + mem_lead, bank);
                self.bank_next = (self.bank_next + 1) % self.bank_use.len();
            }
            Some((Place::External, false)) => {
                // The core waits for the data.
                self.blocked_until = t + ext_load;
                self.blocked_reason = Stall::ExtLoad;
            }
            Some((Place::External, true)) => {
                let start = self.ext_busy_until.max(t);
                self.ext_busy_until = start + ext_iv;
                let room = ext_q * ext_iv;
                if self.ext_busy_until > t + room {
                    self.blocked_until = self.ext_busy_until - room;
                    self.blocked_reason = Stall::ExtStore;
                }
            }
            _ => {}
        }
        self.last = t;
        self.next = t + 1;
        self.last_class = class;
        self.last_writes = d.writes();
        self.can_pair = !issue.dual && class != OpClass::Control;
        if let Some(target) = done.jumped_to {
            self.redirect(target, t + 1 + branch);
        }
    }

    /// A hardware-loop jump back to `ls` after the instruction issued at
    /// `t`: no penalty (the loop start is refetched in time).
    pub fn loop_back(&mut self, ls: u32, t: u64) {
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
        self.next = self.next.max(cycle);
        self.redirect(vector, cycle + self.params.interrupt_entry);
    }

    /// Time passes with nothing issuing (IDLE, a halted core): the next
    /// instruction issues no earlier than `cycle`.
    pub fn skip_to(&mut self, cycle: u64) {
        if cycle > self.next {
            self.next = cycle;
            self.can_pair = false;
        }
    }
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
        match i.reason {
            Stall::Dependency => ev.ra = i.stall,
            Stall::FetchBank => ev.fetch_bank = i.stall,
            Stall::ExtFetch => ev.ext_fetch = i.stall,
            Stall::ExtLoad => {
                ev.ext_load = i.stall;
                ev.e1 = i.stall;
            }
            Stall::ExtStore => ev.e1 = i.stall,
            Stall::Branch => {}
        }
    }
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
        // off, reserved, local-memory load stalls (no mesh traffic into a
        // single core yet), mesh traffic monitors
        _ => 0,
    }
}

/// Counts `ev` down on CTIMER0 and CTIMER1 as CONFIG selects. A timer that
/// reaches zero latches its interrupt (CTIMER0 → ILAT[3], CTIMER1 →
/// ILAT[4]) and stays at zero (E16: no wrap). True if one fired.
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
