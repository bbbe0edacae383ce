//! A core waiting for its own timer: a loop whose iteration reads CTIMER0
//! or CTIMER1 once (e-lib's `e_wait`: `bl e_ctimer_get; sub; bne`, the
//! getter being `movfs r0, ctimer0; rts`), while the timers count only
//! clock cycles (`timing::lazy_limit`).
//!
//! Under lazy timers a replayed block stops before the MOVFS and the
//! detailed model runs it (`CoreBus::timer_stall`), so the loop's head is
//! taken to be that MOVFS. Two heads in a row one iteration apart, whose
//! path (the blocks run between them, no memory access among them, no
//! other special register, nothing for the system's attention) is the
//! same, are compared: the pipeline the same moved by the iteration's `p`
//! cycles (`Pipeline::steady_after`), the state the same but for the
//! timers and for registers the timer's value flows into. The iteration
//! is run again on a copy of the earlier head's state with the value the
//! MOVFS read ([`check`]), and each instruction's use of that value is
//! followed: it may only be moved (MOV) or offset (ADD/SUB of an
//! immediate or of a register it does not flow into), and flags set from
//! it may only be read by a conditional branch. Each iteration then reads
//! `p` less than the one before (the timer counts every cycle and the
//! MOVFS issues at the same point of each), so the registers the value
//! flows into are `p` less at each head, and the flags set from it are
//! the same in the next `n` iterations if they are at both ends of them
//! and no value between wraps or changes its sign bit (an offset value
//! is monotonic between its ends, so Z, N, C and V of its ADD/SUB stay as
//! they are). The core is then moved `n` iterations on at once: cycles,
//! instructions, dual issues and stalls `n` times one iteration's, the
//! pipeline shifted, those registers `n·p` lower. Only up to the first
//! cycle a timer could fire (`lazy_limit`): the timers count the
//! iterations' cycles when the detailed model next runs the MOVFS, as
//! they count any replayed block's, so it reads exactly what
//! instruction-by-instruction timing gives. Both heads and the move are
//! in one run (a run starts afresh), not traced, not in strict order.

use epsim_isa::exec::exec_ref;
use epsim_isa::state::sreg;
use epsim_isa::{ArchState, Op, Sreg, Step};

use super::CoreStats;
use crate::block::BlockCache;
use crate::timing::{Moves, Pipeline, NSTALL};

/// The most blocks one iteration may run.
const PATH: usize = 16;

/// The most flag-setting uses of the timer's value one iteration may make.
const CHECKS: usize = 4;

/// The flag-setting uses of the timer's value in an iteration: the state
/// before the instruction, the instruction, its operand register that
/// holds the value (offset) and its result.
type Checks = [Option<(ArchState, Op, u32, u32)>; CHECKS];

/// One iteration of a timer-waiting loop, found by [`TimerWait::head`].
#[derive(Clone, Debug)]
pub(super) struct Period {
    /// Its cycles, instructions, dual issues and stall cycles by reason.
    pub(super) p: u64,
    pub(super) instret: u64,
    pub(super) dual: u64,
    pub(super) stalls: [u64; NSTALL],
    pub(super) moves: Moves,
    /// The registers the timer's value flows into (bit `r`: `r[r]`), each
    /// `p` lower at every head.
    pub(super) regs: u64,
    /// The flag-setting uses of the value ([`fits`]).
    checks: Checks,
    nchecks: usize,
}

/// What a core knows of the timer-waiting loop it may be in.
#[derive(Clone, Debug)]
pub(super) struct TimerWait {
    /// The loop's head (the PC of the MOVFS; `u32::MAX`: none).
    head: u32,
    /// A head is saved (its state, pipeline, counters, cycle).
    saved: bool,
    state: ArchState,
    pipe: Option<Pipeline>,
    stats: CoreStats,
    instret: u64,
    now: u64,
    writes: u64,
    /// Since the saved head: only blocks the loop may run, recorded in
    /// `path` (entry, instructions run).
    clean: bool,
    path: [(u32, u16); PATH],
    n: usize,
    /// Heads to let pass before looking again, and failed looks in a row
    /// (code that reads the timer but is no such loop: looked at ever
    /// less often).
    skip: u32,
    fails: u32,
    /// Iterations moved on at once (a count for profiles; nothing reads
    /// it yet).
    pub(super) moved: u64,
}

impl TimerWait {
    pub(super) fn new() -> TimerWait {
        TimerWait {
            head: u32::MAX,
            saved: false,
            state: ArchState::new(),
            pipe: None,
            stats: CoreStats::default(),
            instret: 0,
            now: 0,
            writes: 0,
            clean: false,
            path: [(0, 0); PATH],
            n: 0,
            skip: 0,
            fails: 0,
            moved: 0,
        }
    }

    /// Forgets the saved head (a run starts: anything may have reached
    /// the core since).
    pub(super) fn forget(&mut self) {
        self.saved = false;
        self.clean = false;
        self.n = 0;
    }

    /// A block starting at `entry` ran `done` instructions; `ok` says it
    /// did nothing an iteration may not.
    #[inline(always)]
    pub(super) fn piece(&mut self, entry: u32, done: usize, ok: bool) {
        if !self.clean {
            return;
        }
        if !ok || self.n == PATH && done > 0 {
            self.clean = false;
            return;
        }
        if done > 0 {
            self.path[self.n] = (entry, done as u16);
            self.n += 1;
        }
    }

    /// The detailed model is about to run the timer read at `entry`, the
    /// core's state, pipeline and counters being these, `read` the value
    /// the last timer read gave (the previous head's): one iteration of the
    /// loop if the previous head was this one's one iteration earlier
    /// ([`check`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn head(
        &mut self,
        entry: u32,
        s: &ArchState,
        pipe: &Pipeline,
        stats: &CoreStats,
        instret: u64,
        now: u64,
        writes: u64,
        read: u32,
        blocks: &BlockCache,
    ) -> Option<Period> {
        let mut found = None;
        if entry == self.head && self.saved && self.clean && writes == self.writes {
            if self.skip > 0 {
                self.skip -= 1;
            } else {
                found = self.look(s, pipe, stats, instret, now, read, blocks);
                if found.is_some() {
                    self.fails = 0;
                } else {
                    self.fails += 1;
                    self.skip = (1u32 << self.fails.min(10)) - 1;
                }
            }
        } else if entry != self.head {
            self.head = entry;
            self.fails = 0;
            self.skip = 0;
        }
        // This head is the one the next is compared with.
        self.state.clone_from(s);
        match &mut self.pipe {
            Some(p) => p.copy_from(pipe),
            None => self.pipe = Some(pipe.clone()),
        }
        self.stats = *stats;
        self.instret = instret;
        self.now = now;
        self.writes = writes;
        self.saved = found.is_none();
        self.clean = true;
        self.n = 0;
        found
    }

    /// Whether the saved head is this one's one iteration earlier, the
    /// iteration having read `read` at the saved head.
    #[allow(clippy::too_many_arguments)]
    fn look(
        &self,
        s: &ArchState,
        pipe: &Pipeline,
        stats: &CoreStats,
        instret: u64,
        now: u64,
        read: u32,
        blocks: &BlockCache,
    ) -> Option<Period> {
        let prev = self.pipe.as_ref()?;
        let p = now
            .checked_sub(self.now)
            .filter(|&p| p > 0 && p < 1 << 31)?;
        if !pipe.steady_after(prev, p) {
            return None;
        }
        let (regs, checks, nchecks) = check(
            &self.state,
            s,
            self.head,
            &self.path[..self.n],
            read,
            p,
            blocks,
        )?;
        let mut stalls = stats.stalls;
        for (d, &b) in stalls.iter_mut().zip(&self.stats.stalls) {
            *d -= b;
        }
        Some(Period {
            p,
            instret: instret - self.instret,
            dual: stats.dual - self.stats.dual,
            stalls,
            moves: pipe.moves(prev),
            regs,
            checks,
            nchecks,
        })
    }
}

/// The CONFIG code of the timer a MOVFS of `sr` reads (`None`: not a
/// timer).
fn timer_of(sr: Sreg) -> Option<u32> {
    if sr == Sreg::new(0, sreg::CTIMER0) {
        Some(0)
    } else if sr == Sreg::new(0, sreg::CTIMER1) {
        Some(1)
    } else {
        None
    }
}

/// Answers the one timer read of an iteration run again ([`check`]) and
/// refuses everything else a bus does.
struct Probe {
    value: Option<u32>,
}

impl epsim_isa::Bus for Probe {
    fn load(&mut self, _: &mut ArchState, _: u32, _: epsim_isa::Size) -> epsim_isa::Access<u64> {
        epsim_isa::Access::Busy
    }
    fn store(
        &mut self,
        _: &mut ArchState,
        _: u32,
        _: epsim_isa::Size,
        _: u64,
    ) -> epsim_isa::Access<()> {
        epsim_isa::Access::Busy
    }
    fn testset(&mut self, _: &mut ArchState, _: u32, _: u32) -> epsim_isa::Access<u32> {
        epsim_isa::Access::Busy
    }
    fn read_sreg(&mut self, _: &mut ArchState, sr: Sreg) -> epsim_isa::Access<u32> {
        match (timer_of(sr), self.value.take()) {
            (Some(_), Some(v)) => epsim_isa::Access::Ready(v),
            _ => epsim_isa::Access::Busy,
        }
    }
    fn write_sreg(&mut self, _: &mut ArchState, _: Sreg, _: u32) -> epsim_isa::Access<()> {
        epsim_isa::Access::Busy
    }
}

/// Whether `b` follows `a` by one iteration of the loop at `head` that ran
/// the blocks `path` and read `read` at `head`, `p` cycles long, with every
/// further iteration doing the same (the module's rules): the registers
/// the timer's value flows into (each `p` less in `b` than in `a`).
/// Also what [`fits`] needs to tell how many further iterations do the same.
pub(super) fn check(
    a: &ArchState,
    b: &ArchState,
    head: u32,
    path: &[(u32, u16)],
    read: u32,
    p: u64,
    blocks: &BlockCache,
) -> Option<(u64, Checks, usize)> {
    if a.lc != 0 || a.ilat & !a.imask != 0 || b.ilat & !b.imask != 0 {
        return None;
    }
    let p32 = p as u32;
    // Registers that differ between the heads: the timer's value of the
    // previous iteration; none may be read before it is written.
    let mut stale = 0u64;
    for k in 0..64 {
        if a.r[k] != b.r[k] {
            stale |= 1 << k;
        }
    }
    let mut st = a.clone();
    let mut probe = Probe { value: Some(read) };
    // The registers the value read flows into, each the value plus `off`.
    let mut tainted = 0u64;
    let mut off = [0u32; 64];
    // The integer flags: set from the value (`flags_t`), not yet written
    // in this iteration (`flags_stale`).
    let mut flags_t = false;
    let mut flags_stale = true;
    // The flag-setting uses of the value: the state before, the operand
    // register and the value it held.
    let mut checks: Checks = Default::default();
    let mut nchecks = 0;
    let mut pc = head;
    let mut first = true;
    for &(entry, done) in path {
        if entry != pc {
            return None;
        }
        let f = blocks.lookup(entry)?;
        let code = blocks.code(f).get(..usize::from(done))?;
        for insn in code {
            if insn.pc != pc {
                return None;
            }
            let op = insn.op;
            let d = op.deps();
            let reads_t = d.reads & tainted;
            if d.reads & stale != 0 {
                return None;
            }
            let aflags = d.flags_read & epsim_isa::deps::AFLAGS != 0;
            if aflags && flags_stale {
                return None;
            }
            if aflags && flags_t && !matches!(op, Op::Bcond { .. }) {
                return None;
            }
            let before = (reads_t != 0 && d.flags_written != 0).then(|| st.clone());
            // The result's offset from the value read, if it is one.
            let t = match op {
                Op::Movfs { sreg: sr, .. } if timer_of(sr).is_some() => {
                    // Only the head's, of a timer counting clock cycles.
                    let code = (a.config >> (4 + 4 * timer_of(sr)?)) & 0xf;
                    if !first || code != 1 {
                        return None;
                    }
                    Some((0u32, 0))
                }
                _ if reads_t == 0 => None,
                Op::MovCond {
                    cond: epsim_isa::Cond::Always,
                    rn,
                    ..
                } => Some((off[usize::from(rn)], rn)),
                Op::AddImm { rn, imm, .. } => {
                    Some((off[usize::from(rn)].wrapping_add(imm as u32), rn))
                }
                Op::SubImm { rn, imm, .. } => {
                    Some((off[usize::from(rn)].wrapping_sub(imm as u32), rn))
                }
                Op::Add { rn, rm, .. } | Op::Sub { rn, rm, .. }
                    if tainted & 1 << rm == 0 && tainted & 1 << rn != 0 =>
                {
                    let m = st.r[usize::from(rm)];
                    let o = off[usize::from(rn)];
                    Some((
                        if matches!(op, Op::Add { .. }) {
                            o.wrapping_add(m)
                        } else {
                            o.wrapping_sub(m)
                        },
                        rn,
                    ))
                }
                _ => return None,
            };
            let step = exec_ref(&mut st, &mut probe, &op, insn.pc, u32::from(insn.len));
            first = false;
            let w = d.writes();
            stale &= !w;
            tainted &= !w;
            if let Some((o, rn)) = t {
                // (One register written: MOV, ADD, SUB, MOVFS.)
                let rd = w.trailing_zeros() as usize;
                if w.count_ones() != 1 {
                    return None;
                }
                tainted |= 1 << rd;
                off[rd] = o;
                if let Some(st0) = before {
                    if nchecks == CHECKS {
                        return None;
                    }
                    checks[nchecks] = Some((st0, op, u32::from(rn), st.r[rd]));
                    nchecks += 1;
                }
            }
            if d.flags_written & epsim_isa::deps::AFLAGS != 0 {
                flags_stale = false;
                flags_t = t.is_some() && !matches!(op, Op::Movfs { .. });
            }
            pc = match step {
                Step::Next => insn.pc.wrapping_add(u32::from(insn.len)),
                Step::Jump { target } => target,
                _ => return None,
            };
        }
    }
    if pc != head || probe.value.is_some() {
        return None;
    }
    // The run again gives `b`: the path is the loop's, `read` its value.
    if st.r != b.r || !super::same_but_timers(&st, b) {
        return None;
    }
    if tainted != stale_of(a, b) || tainted == 0 {
        return None;
    }
    for k in 0..64 {
        if tainted & 1 << k != 0 && b.r[k] != a.r[k].wrapping_sub(p32) {
            return None;
        }
    }
    Some((tainted, checks, nchecks))
}

/// Whether the iterations `1..=n` after the one checked ([`check`]), `p`
/// cycles each, read values that stay above zero and on the same side of
/// the sign bit, as do the operands and results of the flag-setting uses
/// of the value, which set the same flags at both ends: each iteration
/// then does what the checked one did.
pub(super) fn fits(per: &Period, read: u32, n: u64) -> bool {
    let Some(span) = n.checked_mul(per.p).filter(|&x| x < 1 << 31) else {
        return false;
    };
    let same_side =
        |x: u32| u64::from(x) > span && (x >> 31) == (x.wrapping_sub(span as u32) >> 31);
    if !same_side(read) {
        return false;
    }
    for c in per.checks.iter().take(per.nchecks) {
        let Some((st0, op, rn, result)) = c.as_ref() else {
            return false;
        };
        let rn = *rn as usize;
        let x = st0.r[rn];
        if !same_side(x) || !same_side(*result) {
            return false;
        }
        let mut probe = Probe { value: None };
        let (mut now, mut end) = (st0.clone(), st0.clone());
        end.r[rn] = x.wrapping_sub(span as u32);
        exec_ref(&mut now, &mut probe, op, 0, 4);
        exec_ref(&mut end, &mut probe, op, 0, 4);
        if now.flags != end.flags {
            return false;
        }
    }
    true
}

/// The registers whose values differ between `a` and `b`.
fn stale_of(a: &ArchState, b: &ArchState) -> u64 {
    (0..64)
        .filter(|&k| a.r[k] != b.r[k])
        .fold(0, |m, k| m | 1 << k)
}
