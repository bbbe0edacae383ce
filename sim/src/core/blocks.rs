//! The three ways a decoded block runs: plainly (functional mode),
//! timed by replaying or recording its schedule (timed mode's fast path),
//! or instruction by instruction with the timing model, the trace and the
//! core timers as asked.

use epsim_isa::exec::{exec_next, exec_ref};
use epsim_isa::{ArchState, OpClass, Size, Step};

use super::solo::{Outcome as SoloOutcome, Sent, SoloLoads, BLOCK_LOADS};
use super::{instruction_word, CoreBus, CoreStats, MemCodes, RemoteAccess, RemoteKind};
use crate::block::{BlockCache, Insn, MAX_BLOCK};
use crate::config::CoreId;
use crate::memo::{Chain, Memo, Run};
use crate::timing::{
    count_before, events, events_at, tick_timers, timers_on, Done, Issue, Pipeline,
    Place as TPlace, Stall, Times, Timing,
};
use crate::trace::{Before, Record, Trace};

/// Runs `insns` (a block's first ones, from `entry`) back to back while each
/// falls through, in functional mode without trace or timers: nothing per
/// instruction but the instruction. Returns how many ran, the address and
/// length of the last, and its outcome unless it fell through.
#[inline(always)]
pub(super) fn plain_block<const REC: bool>(
    s: &mut ArchState,
    bus: &mut CoreBus<'_, REC>,
    insns: &[Insn],
    entry: u32,
) -> (usize, u32, u32, Option<Step>) {
    if insns.is_empty() {
        return (0, entry, 0, None);
    }
    let mut step = Step::Next;
    let ran = plain_run(s, bus, insns, &mut step);
    outcome(insns, ran, step)
}

/// How [`plain_run`] ended, with the index of the last instruction it
/// executed or tried.
#[derive(Clone, Copy)]
enum Ran {
    /// It fell through: the block's end, or a store that needs the
    /// system's attention.
    Fell(usize),
    /// It jumped to the address.
    Jumped(usize, u32),
    /// Any other outcome, in the step.
    Stopped(usize),
}

/// The loop of [`plain_block`] over `insns` (not empty). A jump's target
/// comes back by itself, taken from the step where the jump left it, so
/// that [`plain_chain`] needs nothing packed to go on.
#[inline(always)]
fn plain_run<const REC: bool>(
    s: &mut ArchState,
    bus: &mut CoreBus<'_, REC>,
    insns: &[Insn],
    step: &mut Step,
) -> Ran {
    let mut i = 0;
    while let Some(insn) = insns.get(i) {
        if !exec_next(s, bus, &insn.op, insn.pc, insn.len as u32, step) {
            return match *step {
                Step::Jump { target } => Ran::Jumped(i, target),
                _ => Ran::Stopped(i),
            };
        }
        if bus.attention {
            break;
        }
        i += 1;
    }
    Ran::Fell(i.min(insns.len() - 1))
}

/// [`plain_block`]'s result from [`plain_run`]'s.
#[inline(always)]
fn outcome(insns: &[Insn], ran: Ran, step: Step) -> (usize, u32, u32, Option<Step>) {
    match ran {
        Ran::Fell(k) => (k + 1, insns[k].pc, insns[k].len as u32, None),
        Ran::Jumped(k, target) => (
            k + 1,
            insns[k].pc,
            insns[k].len as u32,
            Some(Step::Jump { target }),
        ),
        Ran::Stopped(k) => {
            // A stalled instruction did not execute.
            let ran = k + usize::from(step != Step::Stall);
            (ran, insns[k].pc, insns[k].len as u32, Some(step))
        }
    }
}

/// Functional mode's fast path: runs `insns` (a block's first ones, from
/// `entry`; not empty) as [`plain_block`] does and then, while a block ends
/// simply (jumping, or falling through with nothing for the system to look
/// at) and no hardware loop is active, no interrupt pending and the timers
/// off, and the block it goes to is cached and fits in the budget, settles
/// it here (its cycles into `now` and `retired`, the PC) and runs that one.
/// Returns the outcome of the last block run, which it has not settled, as
/// [`plain_block`]: settling it is the caller's, exactly as if only that
/// block had run.
///
/// Only MOVTS (which ends its block falling through) or a store that needs
/// the system's attention can start a hardware loop, latch or unmask an
/// interrupt, or start a timer; so after a block that ended with a jump
/// those conditions need no new look.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(super) fn plain_chain<'b, const REC: bool>(
    s: &mut ArchState,
    bus: &mut CoreBus<'_, REC>,
    blocks: &'b BlockCache,
    mut insns: &'b [Insn],
    now: &mut u64,
    retired: &mut u64,
    limit: u64,
) -> (usize, u32, u32, Option<Step>) {
    let quiet = |s: &ArchState| s.lc == 0 && s.ilat & !s.imask == 0 && !timers_on(s.config);
    let budget = limit - *now;
    // Instructions of the blocks settled here.
    let mut settled = 0u64;
    let mut free = quiet(s);
    let mut step = Step::Next;
    let ran = loop {
        let ran = plain_run(s, bus, insns, &mut step);
        let (k, next) = match ran {
            Ran::Jumped(k, target) if free => (k, target),
            Ran::Fell(k) if free && !bus.attention => {
                free = quiet(s);
                if !free {
                    break ran;
                }
                (k, insns[k].pc.wrapping_add(insns[k].len as u32))
            }
            _ => break ran,
        };
        let Some(code) = blocks.lookup(next).map(|found| blocks.code(found)) else {
            break ran;
        };
        let after = settled + k as u64 + 1;
        if after + code.len() as u64 > budget {
            break ran;
        }
        settled = after;
        s.pc = next;
        insns = code;
    };
    *now += settled;
    *retired += settled;
    outcome(insns, ran, step)
}

/// Timed blocks of `n` instructions are memoised only `memo_margin(n,
/// local)` cycles or more before the budget ends: a memoised block is
/// executed before it is timed, so it must not be able to reach the end of
/// the budget. A block that runs here touches local memory only (timed mode
/// sends every external and remote access through the machine, which ends
/// the block there), and a memoisable one starts with every operand and its
/// fetch ready within `memo::HORIZON` cycles. So when its code is in local
/// SRAM, each instruction issues at most [`MEMO_CYCLES_PER_INSN`] cycles
/// after the one before: one cycle to issue, the longest result latency it
/// can wait for (an FPU result in round-to-nearest mode, 5), a fetch of a
/// new line (2) and a bank conflict of that fetch with a load or store (1);
/// a taken branch ends the block. A debug assertion checks the bound on
/// every replay. Code elsewhere (each line fetched from DRAM) keeps a fixed
/// margin of 2048. The margin counts from the cycle the pipeline's state
/// delays nothing any more (`Pipeline::settled`), the latency of an access
/// the machine answered for the block's first instruction on top: a block
/// that is not memoisable is timed here too, by the detailed model, and one
/// entered while a load's data is still on its way from DRAM (hundreds of
/// cycles) waits for it. (Counted from the core's cycle instead, such a
/// block ran past the budget, read its SRAM before a store that lands
/// earlier, and was timed without it: `firmware/multi/late_data.c`.)
#[inline(always)]
pub(super) fn memo_margin(n: usize, local: bool) -> u64 {
    if local {
        MEMO_ENTRY + MEMO_CYCLES_PER_INSN * n as u64
    } else {
        1 << 11
    }
}

/// Cycles a memoisable block's entry state can delay its first issue by
/// (`memo::HORIZON` is 15; a taken branch's refill and a pending fetch
/// come on top).
const MEMO_ENTRY: u64 = 64;
/// A bound on the cycles one instruction of a memoisable block in local
/// SRAM adds (1 + 5 + 2 + 1 = 9, rounded up).
const MEMO_CYCLES_PER_INSN: u64 = 12;

/// Runs `insns` (a block's first ones, from `entry`) in timed mode without
/// trace or timers: executes them as [`plain_block`] does, recording their
/// memory accesses, then times them: by replaying the record of an earlier
/// run from the same pipeline state, or with the detailed model (recording
/// the result). Returns as [`general_block`].
#[inline(always)]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub(super) fn memo_block<const REC: bool>(
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
    id: CoreId,
    limit: u64,
) -> (usize, u32, u32, Option<Step>, Option<Issue>) {
    // Execute as plainly as functional mode does; the bus records where
    // each load/store went as its replay-key code (`MemCodes`). In a run
    // lent the network, loads from DRAM are answered as they execute
    // (`solo::InBlock`; not with the timers on, nor after an access the
    // machine answered).
    bus.full_rec = false;
    bus.codes.clear();
    let solo_on = !bus.lazy_timers
        && bus.answer.is_none()
        && match bus.solo.as_deref_mut() {
            Some(solo) if solo.until > 0 => {
                solo.block.n = 0;
                solo.block.npre = 0;
                true
            }
            _ => false,
        };
    bus.solo_on = solo_on;
    let (done, pc, len, last) = plain_block(s, bus, insns, entry);
    bus.solo_on = false;
    bus.full_rec = true;
    if std::mem::take(&mut bus.solo_loaded) {
        return solo_block(
            s, bus, insns, timing, live, entry, pipe, stats, memo, now, id, limit, done, pc, len,
            last,
        );
    }
    let MemCodes {
        ref codes,
        n: nmem,
        external,
        remote,
    } = bus.codes;
    let target = match last {
        Some(Step::Jump { target }) => Some(target),
        _ => None,
    };
    if done == 0 {
        return (0, pc, len, last, None);
    }
    let base = pipe.next_issue();
    let chain = pipe.chain.take();
    let quiet = pipe.quiet;
    let run = if external {
        None
    } else {
        Run::of(entry, done, target.is_some(), &codes[..nmem])
    };
    let Found {
        record,
        follow_hit,
        memoisable,
    } = find_record(
        pipe,
        memo,
        chain,
        base,
        run,
        !external,
        (entry, done, live, timing[0].touches, target.is_some()),
        &codes[..nmem],
    );
    memo.followed += u64::from(follow_hit);
    if let Some((id, followed)) = record {
        if !followed {
            memo.link(chain, base, run, id);
        }
        let issue = replay_record(pipe, stats, memo, id, base, target, quiet, now);
        debug_assert!(
            entry >> 20 != 0 || issue.cycle < base + memo_margin(done, true),
            "a memoised block outran its margin"
        );
        return (done, pc, len, last, Some(issue));
    }
    if memoisable {
        memo.misses += 1;
    }
    // The detailed model over what ran.
    let (dual0, stalls0) = (stats.dual, stats.stalls);
    pipe.dram_log_start();
    let mut issue = None;
    let mut redirect = None;
    let mut k = 0;
    for i in 0..done {
        let (ipc, ilen) = (insns[i].pc, insns[i].len as u32);
        let is = pipe.issue(&timing[i], ipc, ilen);
        let code = if insns[i].class == OpClass::LoadStore && k < nmem {
            k += 1;
            Some(codes[k - 1])
        } else {
            None
        };
        let jumped_to = if i + 1 == done { target } else { None };
        let info = Done {
            mem: code.map(|c| code_place(c, remote)),
            sub_word: code.is_some_and(|c| c & 16 != 0),
            jumped_to,
        };
        pipe.complete(&is, &timing[i], ipc, &info);
        stats.count(&is);
        if jumped_to.is_some() {
            redirect = Some(is.cycle + 1 + pipe.params.branch_taken);
        }
        issue = Some(is);
    }
    let last_issue = issue.map_or(base, |i| i.cycle);
    *now = last_issue + 1;
    let needed = pipe.take_need();
    debug_assert!(!needed, "a memoised block of DRAM code needed the machine");
    if memoisable && pipe.dram_log.clean {
        debug_assert!(
            entry >> 20 != 0 || last_issue < base + memo_margin(done, true),
            "a memoisable block outran its margin"
        );
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
            &[],
        );
        let chains = r.chains_at(base);
        let id = memo.put(r, entry);
        memo.link(chain, base, run, id);
        if chains {
            pipe.chain = Some(memo.chain(id, quiet));
        }
    }
    (done, pc, len, last, issue)
}

/// What [`find_record`] found for a block's run.
struct Found {
    /// The record to replay, and whether it was found by following the
    /// chain (else by the full key: the caller links it to the chain).
    record: Option<(u32, bool)>,
    /// Whether following the chain found a record, replayable now or not
    /// (`Memo::followed` counts these).
    follow_hit: bool,
    /// Whether the block has a replay key: a record can be made for it.
    memoisable: bool,
}

/// The record to replay for a block's `run` from `base`: the one that
/// followed the last replayed one (`chain`) for the same run, else the
/// one the full replay key finds (built only when `keyed`, from the
/// block's `(entry, done, live, touches, jumped)` and memory `codes`);
/// either only if it is replayable now (DRAM code whose lines could meet
/// another read is not).
#[inline(always)]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn find_record(
    pipe: &Pipeline,
    memo: &mut Memo,
    chain: Option<Chain>,
    base: u64,
    run: Option<Run>,
    keyed: bool,
    (entry, done, live, touches, jumped): (u32, usize, &[(u8, u8)], u64, bool),
    codes: &[u8],
) -> Found {
    let followed = memo.follow(chain, base, run);
    let follow_hit = followed.is_some();
    let mut record = followed
        .filter(|&id| memo.record(id).replayable(pipe))
        .map(|id| (id, true));
    let memoisable = record.is_some()
        || (keyed && pipe.key(&mut memo.key, entry, done, live, touches, jumped, codes));
    if memoisable && record.is_none() {
        record = memo
            .get()
            .filter(|&id| memo.record(id).replayable(pipe))
            .map(|id| (id, false));
    }
    Found {
        record,
        follow_hit,
        memoisable,
    }
}

/// The timing place and store flag of a replay-key memory code
/// ([`MemCodes`]; `remote`: the latency and externality of an access
/// through the mesh).
fn code_place(c: u8, remote: (u32, bool)) -> (TPlace, bool) {
    let place = match c & 7 {
        5 => TPlace::External,
        6 => TPlace::Remote {
            latency: remote.0,
            external: remote.1,
        },
        4 => TPlace::Local(None),
        b => TPlace::Local(Some(b)),
    };
    (place, c & 8 != 0)
}

/// How many of `insns`, from the first, change nothing but the core's
/// own registers (its [`ArchState`]) when they run: integer and FPU
/// operations, loads, branches and jumps. Those, run plainly, are undone
/// by putting the state back ([`memo_block_before`]).
#[inline(always)]
pub(super) fn undoable(insns: &[Insn]) -> usize {
    use epsim_isa::Op;
    insns
        .iter()
        .take_while(|i| {
            i.op.is_load()
                || matches!(
                    i.op,
                    Op::Bcond { .. } | Op::Jr { .. } | Op::Jalr { .. } | Op::Nop
                )
                || matches!(i.class, OpClass::Ialu | OpClass::Fpu)
        })
        .count()
}

/// How often a core tries [`memo_block_before`]: after each run of it
/// that found no record, the next few blocks near a limit go straight to
/// the detailed model, twice as many after each such miss in a row (up to
/// [`NearTries::MAX_SKIP`]); a replay starts over. Which way a block runs
/// changes nothing but the simulator's own work.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct NearTries {
    skip: u32,
    misses: u32,
}

impl NearTries {
    const MAX_SKIP: u32 = 64;

    /// Whether to try this block (counting the ones left alone).
    #[inline(always)]
    pub(super) fn try_now(&mut self) -> bool {
        if self.skip > 0 {
            self.skip -= 1;
            false
        } else {
            true
        }
    }

    /// What the try gave: replayed, no record (`Err(true)`), or neither.
    #[inline(always)]
    pub(super) fn note<T>(&mut self, r: &Result<T, bool>) {
        match r {
            Ok(_) => self.misses = 0,
            Err(true) => {
                self.skip = (1 << self.misses.min(6)).min(Self::MAX_SKIP);
                self.misses += 1;
            }
            Err(false) => {}
        }
    }
}

/// [`memo_block`] for a block of local code too near `limit` for its
/// margin (`memo_margin`), of [`undoable`] instructions (the block's
/// first ones: a run of them that jumps is a whole run), without timers,
/// answered access or loads from DRAM answered in the block: runs it
/// plainly and replays the record its run finds if that record's last
/// issue comes before `limit`, as the detailed model would run and time
/// every instruction of it then. Otherwise (no record, a load that left
/// the core, the last issue at or past the limit) it puts the core's
/// state back as it was and returns an error: the block is then run by
/// [`general_block`], which stops at the limit. The record's schedule is
/// the detailed model's from the same entry state (`memo`), so the
/// result is the same either way.
///
/// `Err(true)`: no record was found for the run (a block that always runs
/// near a limit is never recorded; [`NearTries`] then tries it less often);
/// `Err(false)`: anything else.
#[inline(never)]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub(super) fn memo_block_before<const REC: bool>(
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
    limit: u64,
) -> Result<(usize, u32, u32, Option<Step>, Option<Issue>), bool> {
    let saved = s.clone();
    bus.full_rec = false;
    bus.codes.clear();
    bus.solo_on = false;
    let (done, pc, len, last) = plain_block(s, bus, insns, entry);
    bus.full_rec = true;
    if done == 0 || last == Some(Step::Stall) {
        // (Nothing ran, or an access the machine must make: the detailed
        // model's.)
        *s = saved;
        return Err(false);
    }
    let MemCodes {
        ref codes,
        n: nmem,
        external,
        ..
    } = bus.codes;
    // Loads from the core's own SRAM banks only (a read of its DMA
    // registers is noted by the spin watch: not undone).
    let local = !external
        && !bus.direct
        && !bus.attention
        && codes[..nmem].iter().all(|&k| k & 8 == 0 && k & 7 < 4);
    let target = match last {
        Some(Step::Jump { target }) => Some(target),
        _ => None,
    };
    let base = pipe.next_issue();
    let found = if local {
        let run = Run::of(entry, done, target.is_some(), &codes[..nmem]);
        find_record(
            pipe,
            memo,
            pipe.chain,
            base,
            run,
            true,
            (entry, done, live, timing[0].touches, target.is_some()),
            &codes[..nmem],
        )
        .record
    } else {
        None
    };
    match found {
        Some((id, followed)) if (base as i64 + memo.record(id).last_issue()) < limit as i64 => {
            let chain = pipe.chain.take();
            let quiet = pipe.quiet;
            if followed {
                memo.followed += 1;
            } else {
                let run = Run::of(entry, done, target.is_some(), &codes[..nmem]);
                memo.link(chain, base, run, id);
            }
            let issue = replay_record(pipe, stats, memo, id, base, target, quiet, now);
            debug_assert!(
                issue.cycle < limit,
                "a block replayed near the limit passed it"
            );
            Ok((done, pc, len, last, Some(issue)))
        }
        late => {
            *s = saved;
            Err(late.is_none() && local)
        }
    }
}

/// Replays record `id` from `base` (the block's last instruction jumped
/// to `target` if it jumped; `quiet` the pipeline's before it): the
/// pipeline, the counters, the chain and `now` as the detailed model
/// would leave them; the last instruction's issue.
#[allow(clippy::too_many_arguments)]
fn replay_record(
    pipe: &mut Pipeline,
    stats: &mut CoreStats,
    memo: &mut Memo,
    id: u32,
    base: u64,
    target: Option<u32>,
    quiet: u64,
    now: &mut u64,
) -> Issue {
    let r = memo.record(id);
    let chains = r.chains_at(base);
    let last_issue = pipe.replay(r, target);
    stats.dual += r.dual();
    for (a, b) in stats.stalls.iter_mut().zip(r.stalls()) {
        *a += b;
    }
    if chains {
        pipe.chain = Some(memo.chain(id, quiet));
    }
    memo.hits += 1;
    *now = last_issue + 1;
    Issue {
        cycle: last_issue,
        stall: 0,
        reason: Stall::Dependency,
        dual: false,
        waits: crate::timing::Waits::NONE,
    }
}

/// What the general block loop needs besides the core's state and bus.
pub(super) struct Env<'a> {
    pub(super) pipe: &'a mut Pipeline,
    pub(super) stats: &'a mut CoreStats,
    pub(super) trace: Option<&'a mut Trace>,
    pub(super) id: CoreId,
    /// Functional mode: the cycle of the block's first instruction.
    pub(super) first_cycle: u64,
    /// No instruction issues in this cycle or later.
    pub(super) limit: u64,
    /// A core timer counts something.
    pub(super) timers: bool,
    /// The cycle up to which the timers have counted.
    pub(super) timer_at: &'a mut u64,
    /// Timed: bit 0 set by a load from a local SRAM bank, bit 1 by any
    /// other load or store (a loop polling local memory, `Spin`).
    pub(super) mem: &'a mut u8,
}

/// Runs `insns` (a block's first ones, from `entry`) with the timing model
/// (`TIMED`), the trace (`TRACE`) and the core timers as asked: the same
/// stop rules as [`plain_block`]; also stops before an instruction that
/// would issue at or after `env.limit`. `now` becomes the cycle after the
/// last instruction. Returns as [`plain_block`] plus the last one's issue.
#[inline(never)]
#[allow(clippy::type_complexity)]
pub(super) fn general_block<const TIMED: bool, const TRACE: bool, const REC: bool>(
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
        timer_at,
        mem: mem_seen,
    } = env;
    let mut pc = entry;
    let mut len = 0;
    let mut done = 0;
    let mut last = None;
    let mut issued = None;
    for (insn, d) in insns.iter().zip(deps) {
        let ipc = insn.pc;
        let class = insn.class;
        let issue = if TIMED {
            let issue = pipe.issue(d, ipc, insn.len as u32);
            if pipe.take_need() {
                // A line of DRAM code the machine must time first.
                pipe.unissue();
                if let Some((addr, _)) = pipe.pending_fetch() {
                    bus.deferred = Some(RemoteAccess {
                        addr,
                        size: Size::Double,
                        kind: RemoteKind::Fetch,
                    });
                    pc = ipc;
                    len = insn.len as u32;
                    last = Some(Step::Stall);
                }
                break;
            }
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
        // The timers count the cycles before this instruction's issue
        // (its stall) first: a MOVFS of a timer reads them.
        let mut fired = false;
        if TIMED && timers {
            if let Some(i) = issue {
                fired = count_before(s, timer_at, i);
            }
        }
        let before = TRACE.then(|| Before::of(s));
        if REC {
            // What this instruction's access records (nothing if it
            // faults), not what an earlier one left: an access answered
            // by the machine records itself also in a replayed block.
            bus.rec = None;
        }
        let step = exec_ref(s, bus, &insn.op, pc, len);
        if step == Step::Stall {
            // Not executed: the machine performs its access first.
            if TIMED {
                pipe.unissue();
            }
            last = Some(step);
            break;
        }
        done += 1;
        if let Some(issue) = issue {
            let mem = if class == OpClass::LoadStore {
                bus.rec
            } else {
                None
            };
            // (A read of the core's own DMA registers answered at once
            // counts as a local load: `CoreBus::direct_dma`.)
            let direct = std::mem::take(&mut bus.direct);
            if let Some(m) = mem {
                // (Bits 4-7: the bank of a load from SRAM, `Spin::piece`.)
                *mem_seen |= match m.place {
                    _ if m.store => 2,
                    _ if direct => 1,
                    TPlace::Local(Some(b)) => 1 | 16 << b,
                    _ => 2,
                };
            } else if direct {
                *mem_seen |= 1;
            }
            let done_info = Done {
                mem: mem.map(|m| (m.place, m.store)),
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
            let ev = match issue {
                Some(i) => events_at(i, class, (cycle + 1).saturating_sub(*timer_at)),
                None => events(None, class, 1),
            };
            if tick_timers(s, &ev) || fired {
                bus.attention = true;
            }
            *timer_at = cycle + 1;
        }
        *now = cycle + 1;
        if let (Some(before), Some(t)) = (before, trace.as_deref_mut()) {
            let word = instruction_word(bus, pc);
            let mem = bus.rec.take();
            // A faulting access changed nothing; anything else wrote what
            // it writes (even the value the register already had).
            let written = if matches!(step, Step::Fault { .. }) {
                0
            } else {
                d.writes_mask
            };
            let mut rec = Record::new(cycle, id, pc, word, insn.len, &before, s, written, mem);
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

/// Executes `insns` again from the core's state before the first load
/// from DRAM answered in the block (`solo::InBlock::snap`; `insns` run from
/// that load up to a later one taken back): each such load answered again
/// from DRAM, nothing noted of any access. They executed so before, so
/// they all fall through.
#[cold]
#[inline(never)]
fn again<const REC: bool>(s: &mut ArchState, bus: &mut CoreBus<'_, REC>, insns: &[Insn]) {
    let (codes, full_rec, attention) = (bus.codes, bus.full_rec, bus.attention);
    let set = |bus: &mut CoreBus<'_, REC>, on: bool| {
        if let Some(solo) = bus.solo.as_deref_mut() {
            solo.block.again = on;
        }
        bus.solo_on = on;
    };
    set(bus, true);
    bus.full_rec = false;
    bus.attention = false;
    let mut step = Step::Next;
    let ran = plain_run(s, bus, insns, &mut step);
    debug_assert!(
        matches!(ran, Ran::Fell(k) if k + 1 == insns.len()) && !bus.attention,
        "a block executed again up to a load taken back ran otherwise"
    );
    set(bus, false);
    bus.codes = codes;
    bus.full_rec = full_rec;
    bus.attention = attention;
}

/// [`memo_block`] for a block that loaded from DRAM as it executed
/// (`solo::InBlock`; `done`, `pc`, `len`, `last` as its execution ended):
/// its key holds also the read port's busy time relative to the entry, so
/// that each load's issue and the port's state it meets are functions of
/// the key. A replay sends each load's trips at the issue the record
/// holds and checks that each arrives as recorded; from the first that
/// does not, the detailed model times the block, taking the trips already
/// sent as they are. A load whose trips cannot be timed at its issue (the
/// network or the run's end) takes the core's state back to before it and
/// stops the block there, the load deferred to the machine as usual.
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
#[inline(never)]
fn solo_block<const REC: bool>(
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
    id: CoreId,
    limit: u64,
    mut done: usize,
    mut pc: u32,
    mut len: u32,
    mut last: Option<Step>,
) -> (usize, u32, u32, Option<Step>, Option<Issue>) {
    let MemCodes {
        codes,
        n: nmem,
        external,
        remote,
    } = bus.codes;
    let target = match last {
        Some(Step::Jump { target }) => Some(target),
        _ => None,
    };
    let (Some(solo), dram) = (bus.solo.as_deref_mut(), &*bus.dram) else {
        unreachable!("invariant: loads answered in a block have a lent run");
    };
    let nsolo = solo.block.n;
    // (For `steady`: the cycle the block starts at, and whether it leaves
    // the polling watch so for the next block, replayed: only loads from
    // DRAM, each answered here, no DMA register read, and not the run's
    // first block to answer loads here, which may be the rest of a block
    // the last run cut short.)
    let now0 = *now;
    let clean = !std::mem::replace(&mut solo.fresh, false)
        && nsolo == nmem
        && !external
        && !bus.direct
        && bus.dma_reads == 0;
    let base = pipe.next_issue();
    let chain = pipe.chain.take();
    // Each load is answered in the block only if its response is back
    // this long before the run ends (and before anything else acts): the
    // rest of the block then fits as `dram_block_fits` reckons a block.
    let margin = {
        let (first, lastl) = (
            insns[0].pc >> 3,
            (insns[done - 1].pc + insns[done - 1].len as u32 - 1) >> 3,
        );
        let lines = u64::from(lastl.wrapping_sub(first)).min(done as u64) + 1;
        let p = &pipe.port;
        let per_line = p.out + p.back + pipe.params.dram_read_interval + 64;
        64 + 16 * done as u64 + lines * per_line
    };
    // The record that followed the last one for the same run, if that one
    // left the read port's state as a function of itself, else the one
    // the full key finds.
    let run = if external {
        None
    } else {
        Run::of(entry, done, target.is_some(), &codes[..nmem])
            .filter(|_| chain.is_some_and(|c| memo.pins_port(c)))
    };
    let fits = |memo: &Memo, pipe: &Pipeline, r: u32| {
        let r = memo.record(r);
        r.solo().len() == nsolo && r.replayable(pipe)
    };
    let mut found = memo
        .follow(chain, base, run)
        .filter(|&r| fits(memo, pipe, r));
    let followed = found.is_some();
    memo.followed += u64::from(followed);
    // The key: the entry state, and the read port's busy time relative
    // to it (none before it matters: every read the block makes arrives
    // after its entry, or at the first fetch, which `replayable` finds
    // the port free for).
    let key = |memo: &mut Memo, pipe: &Pipeline| {
        let port_rel = pipe.port.busy as i64 - base as i64;
        !external
            && port_rel < 1 << 16
            && pipe.key(
                &mut memo.key,
                entry,
                done,
                live,
                timing[0].touches,
                target.is_some(),
                &codes[..nmem],
            )
            && memo.key.push_word(port_rel.max(0) as u64 | 1 << 32)
    };
    let mut memoisable = found.is_some() || key(memo, pipe);
    if memoisable && found.is_none() {
        found = memo.get().filter(|&r| fits(memo, pipe, r));
        if let Some(r) = found {
            memo.link(chain, base, run, r);
        }
    }
    if let Some(rid) = found {
        // Send each load's trips as the record has them.
        let r = memo.record(rid);
        // All of them at once, as a replay of the record sent them before
        // (`SoloLoads::rounds_again`).
        if solo.rounds_again(rid, memo.epoch(), r.solo().len(), base, limit, margin) {
            let quiet = pipe.quiet;
            let mut issue = replay_record(pipe, stats, memo, rid, base, target, quiet, now);
            if target == Some(entry) && steady(solo, now0) {
                done += solo_repeat(
                    s,
                    bus,
                    insns,
                    entry,
                    pipe,
                    stats,
                    memo,
                    now,
                    limit,
                    (rid, done, last, margin, true),
                    &mut issue,
                );
            }
            if let Some(solo) = bus.solo.as_deref_mut() {
                solo.pass = clean.then_some(*now);
            }
            return (done, pc, len, last, Some(issue));
        }
        let mark = solo.mesh.solo_mark();
        let mut leave1 = 0;
        let b = base as i64;
        let mut ok = true;
        for (j, e) in r.solo().iter().enumerate() {
            let issue = (b + e.issue) as u64;
            let mut busy = (b + e.busy).max(0) as u64;
            let (access, off) = (solo.block.access(j), solo.block.off[j]);
            let (outcome, arrive) = solo.trip_to(
                id,
                &pipe.params,
                &mut busy,
                dram,
                access,
                off,
                false,
                issue,
                limit,
                margin,
            );
            let sent = Sent {
                issue: issue as i64,
                busy: 0,
                arrive: arrive as i64,
                latency: 0,
                busy_after: busy,
            };
            match outcome {
                SoloOutcome::Answered(a) => {
                    solo.block.pre[j] = Sent {
                        latency: a.latency,
                        ..sent
                    };
                    if arrive as i64 != b + e.arrive || a.latency != e.latency {
                        solo.block.npre = j + 1;
                        ok = false;
                        break;
                    }
                    if j == 0 {
                        leave1 = solo.mesh.solo_last_leave();
                    }
                }
                SoloOutcome::Waits => {
                    solo.block.pre[j] = sent;
                    solo.block.npre = j + 1;
                    ok = false;
                    break;
                }
                SoloOutcome::No => {
                    solo.block.npre = j;
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            if let Some(mark) = mark {
                solo.rounds_learn(
                    &pipe.params,
                    rid,
                    memo.epoch(),
                    r.solo(),
                    &mark,
                    base,
                    leave1,
                    limit,
                    margin,
                );
            }
            let quiet = pipe.quiet;
            let mut issue = replay_record(pipe, stats, memo, rid, base, target, quiet, now);
            if target == Some(entry) && steady(solo, now0) {
                done += solo_repeat(
                    s,
                    bus,
                    insns,
                    entry,
                    pipe,
                    stats,
                    memo,
                    now,
                    limit,
                    (rid, done, last, margin, false),
                    &mut issue,
                );
            }
            if let Some(solo) = bus.solo.as_deref_mut() {
                solo.pass = clean.then_some(*now);
            }
            return (done, pc, len, last, Some(issue));
        }
    }
    if followed {
        // (The record found without its key was off: the key is built
        // now, for the record the detailed model makes.)
        memoisable = key(memo, pipe);
    }
    if memoisable {
        memo.misses += 1;
    }
    // The detailed model over what ran, each load from DRAM timed at its
    // issue.
    let quiet = pipe.quiet;
    let (dual0, stalls0) = (stats.dual, stats.stalls);
    pipe.dram_log_start();
    let mut issue = None;
    let mut redirect = None;
    let mut sent = [Sent::default(); BLOCK_LOADS];
    let mut k = 0;
    let mut j = 0;
    // The first load's instruction (`InBlock::snap`).
    let mut i0 = 0;
    let mut stopped = false;
    let ran = done;
    for i in 0..ran {
        let (ipc, ilen) = (insns[i].pc, insns[i].len as u32);
        let mut is = pipe.issue(&timing[i], ipc, ilen);
        let code = if insns[i].class == OpClass::LoadStore && k < nmem {
            k += 1;
            Some(codes[k - 1])
        } else {
            None
        };
        let mut mem = code.map(|c| code_place(c, remote));
        if code.is_some_and(|c| c & 7 == 7) {
            // As the machine would: the issue that finds the access
            // (taken back if the instruction spans two lines), its
            // trips, and the issue again with the data there.
            let c1 = is.cycle;
            if j == 0 {
                i0 = i;
            }
            let spans = ipc >> 3 != (ipc + ilen - 1) >> 3;
            if spans {
                pipe.unissue();
            }
            let busy0 = pipe.port.busy;
            let answered = if j < solo.block.npre {
                let p = solo.block.pre[j];
                debug_assert_eq!(
                    p.issue, c1 as i64,
                    "a load's issue moved in its replay's check"
                );
                pipe.port.busy = p.busy_after;
                (p.latency != 0).then_some((p.arrive as u64, p.latency))
            } else {
                let mut busy = pipe.port.busy;
                let (access, off) = (solo.block.access(j), solo.block.off[j]);
                let (outcome, arrive) = solo.trip_to(
                    id,
                    &pipe.params,
                    &mut busy,
                    dram,
                    access,
                    off,
                    false,
                    c1,
                    limit,
                    margin,
                );
                pipe.port.busy = busy;
                match outcome {
                    SoloOutcome::Answered(a) => Some((arrive, a.latency)),
                    _ => None,
                }
            };
            let Some((arrive, latency)) = answered else {
                // Back to before the load: the machine sends it (or, if
                // its request went, waits for the response).
                if !spans {
                    pipe.unissue();
                }
                let access = solo.block.access(j);
                s.clone_from(&solo.block.snap);
                if j > 0 {
                    // Before the first load, then on to this one.
                    again(s, bus, &insns[i0..i]);
                }
                s.pc = ipc;
                bus.deferred = Some(access);
                bus.solo_split = false;
                bus.codes.n = k - 1;
                done = i;
                pc = ipc;
                len = ilen;
                last = Some(Step::Stall);
                stopped = true;
                break;
            };
            sent[j] = Sent {
                issue: c1 as i64 - base as i64,
                busy: busy0 as i64 - base as i64,
                arrive: arrive as i64 - base as i64,
                latency,
                busy_after: 0,
            };
            j += 1;
            if spans {
                // (Lines found again that the first issue read keep the
                // block's fetch timing a function of its entry.)
                let (log, busy) = (pipe.dram_log, pipe.port.busy);
                is = pipe.issue(&timing[i], ipc, ilen);
                if pipe.port.busy == busy {
                    pipe.dram_log = log;
                }
            }
            mem = Some((
                TPlace::Remote {
                    latency,
                    external: true,
                },
                false,
            ));
        }
        let jumped_to = if i + 1 == ran { target } else { None };
        let info = Done {
            mem,
            sub_word: code.is_some_and(|c| c & 16 != 0),
            jumped_to,
        };
        pipe.complete(&is, &timing[i], ipc, &info);
        stats.count(&is);
        if jumped_to.is_some() {
            redirect = Some(is.cycle + 1 + pipe.params.branch_taken);
        }
        issue = Some(is);
    }
    if done == 0 {
        return (0, pc, len, last, None);
    }
    let last_issue = issue.map_or(base, |i| i.cycle);
    *now = last_issue + 1;
    let needed = pipe.take_need();
    debug_assert!(!needed, "a memoised block of DRAM code needed the machine");
    if memoisable && !stopped && pipe.dram_log.clean {
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
            &sent[..j],
        );
        let chains = r.chains_at(base);
        let rid = memo.put(r, entry);
        memo.link(chain, base, run, rid);
        if chains {
            pipe.chain = Some(memo.chain(rid, quiet));
        }
    }
    (done, pc, len, last, issue)
}

/// Whether nothing the run loop (`Core::run_mode`) does between two
/// passes of a block that loaded from DRAM only and jumped back to itself
/// (this one starting at cycle `now0`) would do anything but what it did
/// after this one, so that [`solo_repeat`] may take the next passes in
/// its place. The timers are off (a block answers loads from DRAM only
/// then: [`memo_block`]); a hardware loop's rule is not applied after a
/// jump (`settle`), and LC changes only by it; an interrupt not taken
/// before the first pass (masked, STATUS.GID, a more urgent one under
/// way) is not taken after any other, which changes no STATUS, IMASK,
/// ILAT or IPEND (`firmware/multi/dram_repeat.c` runs such passes). What
/// is left is the polling watch (`Core::spin`), which must be in the
/// state each pass leaves it: so when the block before this one in the
/// run was replayed here and read nothing but DRAM (`SoloLoads::pass`,
/// its end cycle: this one's start). The watch's head for this block then
/// found no SRAM bank or DMA register read since the last head, nor the
/// middle of a block, and set its entry with nothing saved, as for every
/// later pass (its `Spin::piece` leaves the watch unclean). Asked only
/// at such a block's replay, so the run loop pays nothing for it (the
/// watch is not passed down for it). (In a run whose loop's iterations
/// are not watched, `Core::spin_skip` off, the run loop leaves the watch
/// as it is, as the passes taken here do.)
#[inline(always)]
fn steady(solo: &SoloLoads, now0: u64) -> bool {
    solo.pass == Some(now0)
}

/// Whether the first `n` (at most [`BLOCK_LOADS`]) access codes of two
/// blocks (`MemCodes::codes`) are the same: one word compared, not a call
/// to `memcmp` (in each pass of [`solo_repeat`]).
#[inline(always)]
fn first_codes_same(a: &[u8; MAX_BLOCK], b: &[u8; MAX_BLOCK], n: usize) -> bool {
    const _: () = assert!(BLOCK_LOADS <= 4 && MAX_BLOCK >= 4);
    debug_assert!(n <= BLOCK_LOADS);
    let word = |c: &[u8; MAX_BLOCK]| u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    let mask = (1u64 << (8 * n.min(4))) - 1;
    u64::from(word(a) ^ word(b)) & mask == 0
}

/// After `rid` was replayed for a block of `insns` from `entry` that ran
/// `done` instructions (undoable ones: [`undoable`]), loaded only from
/// DRAM, each load answered in the block, and jumped back to `entry`
/// (`last`; `margin` as [`solo_block`] asks of its loads' trips, `again`
/// whether its trips were taken by `SoloLoads::rounds_again`): the next
/// passes of the core's run loop over the same block, as long as each
/// runs the same way, taken here without going back to that loop
/// (`Core::run_mode`, which found nothing there for it to do between two
/// such blocks: [`steady`]). Each pass asks what the run loop asks of
/// a block before replaying it (the run's limit, the replay margin, the
/// DRAM code's fit), executes the block as [`memo_block`] does, and
/// replays `rid` as [`solo_block`] would: found by following the chain
/// for the same run, its loads' round trips taken again at once
/// (`SoloLoads::rounds_again`), or, once the network is known to let
/// each pass's trips go so, left for later and taken at once for a run of
/// passes (`SoloLoads::rounds_more`). A pass that runs otherwise or
/// cannot be replayed so is taken back (the core's state and what the
/// bus noted put back as before it; a pass only changes the core's
/// registers: loads answered in the block end it before any store or
/// write of a special register) and left to the run loop, which runs it
/// afresh. Returns the instructions of the passes taken; `issue` becomes
/// the last one's last issue.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn solo_repeat<const REC: bool>(
    s: &mut ArchState,
    bus: &mut CoreBus<'_, REC>,
    insns: &[Insn],
    entry: u32,
    pipe: &mut Pipeline,
    stats: &mut CoreStats,
    memo: &mut Memo,
    now: &mut u64,
    limit: u64,
    (rid, done, last, margin, again): (u32, usize, Option<Step>, u64, bool),
    issue: &mut Issue,
) -> usize {
    let n = insns.len();
    let codes0 = bus.codes;
    let nsolo = bus.solo.as_deref().map_or(0, |x| x.block.n);
    // (No record is made or forgotten here.)
    let epoch = memo.epoch();
    if last != Some(Step::Jump { target: entry })
        || codes0.external
        || codes0.n != nsolo
        || nsolo == 0
        || codes0.codes[..codes0.n].iter().any(|&c| c & 15 != 7)
        || bus.attention
        || bus.answer.is_some()
        || bus.deferred.is_some()
        || bus.solo_split
        || undoable(&insns[..done]) != done
    {
        return 0;
    }
    let run = Run::of(entry, done, true, &codes0.codes[..codes0.n]);
    let (local, dram_code) = (entry >> 20 == 0, pipe.fetches_from_dram(entry));
    let lines = {
        let (first, end) = (insns[0].pc, insns[n - 1].pc + insns[n - 1].len as u32);
        u64::from(((end - 1) >> 3) - (first >> 3)) + 1
    };
    // The core's state before the passes, and (`saved_r`, `saved_flags`)
    // what changes of it before each pass: a pass that runs as the first
    // did executes `undoable` instructions only, each of its loads
    // answered from DRAM (`same`), so it changes the registers, the flags
    // and the PC, nothing else; one that runs otherwise is taken back to
    // this state with the registers and flags from before it.
    let saved = s.clone();
    let (mut saved_r, mut saved_flags);
    let mut extra = 0;
    // The round trips of the loads of the passes: taken by
    // `SoloLoads::rounds_again`, or (`deferred` of them, the last from
    // `last_base`, its last load `last_load`) left to be taken at once
    // after the pass before (`SoloLoads::rounds_more`). Each pass starts
    // the record's `next` after the one before (its replay sets the
    // pipeline's next issue so), and the network before it is what the
    // writes of `rounds_again` for the pass before left. Once a pass whose
    // trips `rounds_again` took found clear the network that those writes
    // for the pass before left (`clear`: every time it checks is one the
    // writes set, relative to the pass, or one they keep as the greatest,
    // which only falls behind), so does every later pass, as far as the
    // network goes: what is left to check is each pass's own loads and
    // end (`SoloLoads::rounds_fit`).
    let mut written = again;
    let mut clear = false;
    let (mut deferred, mut last_base, mut last_load) = (0u64, 0u64, None);
    let next_of = |l: Option<(u32, u8)>| l.map(|(a, b)| a.wrapping_add(u32::from(b)));
    let mut next = bus
        .solo
        .as_deref()
        .and_then(|x| x.block.loads[..x.block.n].last().copied())
        .map(|(a, b)| a.wrapping_add(u32::from(b)));
    // Passes replayed lazily (`Lazy`): once the network is known to let
    // each pass's trips go as the kept way has them (`clear`), a pass that
    // `rounds_fit` finds fitting is replayed only in the times the checks
    // of the next pass read (`Record::times_step`), and the replays are
    // made at once (`Lazy::replay`) before anything else reads the
    // pipeline.
    let step = memo.record(rid).times_step(Some(entry));
    let mut lazy = Lazy {
        m: 0,
        times: pipe.times(),
        now: 0,
        base: 0,
        quiet: 0,
        chain: None,
        writer: None,
        #[cfg(debug_assertions)]
        check: None,
    };
    loop {
        // (The pipeline's times and cycle after the passes before, lazily
        // replayed or not.)
        let (t, now_t) = if lazy.m > 0 {
            (lazy.times, lazy.now)
        } else {
            (pipe.times(), *now)
        };
        debug_assert!(
            lazy.m > 0
                || (pipe.settled_at(&t, now_t) == pipe.settled(now_t)
                    && pipe.dram_block_fits_at(&t, now_t, limit, n, lines, 0)
                        == pipe.dram_block_fits(now_t, limit, n, lines, 0)
                    && memo.record(rid).replayable_at(pipe, &t)
                        == memo.record(rid).replayable(pipe)),
            "the pipeline's checks on its times differ from its own"
        );
        if !(now_t < limit
            && limit.saturating_sub(pipe.settled_at(&t, now_t)) >= memo_margin(n, local)
            && (!dram_code || pipe.dram_block_fits_at(&t, now_t, limit, n, lines, 0)))
        {
            break;
        }
        // The jump back (`settle`), and the block as `memo_block` runs it.
        s.pc = entry;
        (saved_r, saved_flags) = (s.r, s.flags);
        let kept = (
            bus.direct,
            bus.dma_reads,
            bus.timer_touched,
            bus.timer_stall,
            bus.rec,
        );
        bus.full_rec = false;
        bus.codes.clear();
        let Some(solo) = bus.solo.as_deref_mut() else {
            break;
        };
        solo.block.n = 0;
        solo.block.npre = 0;
        solo.block.nosnap = true;
        bus.solo_on = true;
        let (d, _, _, l) = plain_block(s, bus, insns, entry);
        bus.solo_on = false;
        if let Some(solo) = bus.solo.as_deref_mut() {
            solo.block.nosnap = false;
        }
        bus.full_rec = true;
        let loaded = std::mem::take(&mut bus.solo_loaded);
        let c = &bus.codes;
        let same = loaded
            && d == done
            && l == last
            && !c.external
            && c.n == codes0.n
            && first_codes_same(&c.codes, &codes0.codes, c.n)
            && !bus.attention
            && bus.answer.is_none()
            && bus.deferred.is_none()
            && !bus.solo_split
            && (
                bus.direct,
                bus.dma_reads,
                bus.timer_touched,
                bus.timer_stall,
            ) == (kept.0, kept.1, kept.2, kept.3);
        if same && clear {
            // As below, on the times the passes before left: the record
            // followed, its fetches replayable, its loads' trips fitting.
            let Some(solo) = bus.solo.as_deref() else {
                unreachable!("invariant: checked above")
            };
            let b = t.next;
            let chain = if lazy.m > 0 { lazy.chain } else { pipe.chain };
            let r = memo.record(rid);
            let load = solo.block.loads[..solo.block.n].last().copied();
            let run = run.filter(|_| chain.is_some_and(|c| memo.pins_port(c)));
            if memo.follow(chain, b, run) == Some(rid)
                && r.solo().len() == nsolo
                && r.replayable_at(pipe, &t)
                && solo.block.n == nsolo
                && solo.rounds_fit(rid, b, limit, margin, next)
            {
                deferred += 1;
                (last_base, last_load) = (b, load);
                next = next_of(load);
                let (after, writes) = step.after(&t);
                lazy.chain = r.chains_at(b).then(|| memo.chain(rid, t.quiet));
                lazy.now = (b as i64 + r.last_issue()) as u64 + 1;
                (lazy.times, lazy.base, lazy.quiet) = (after, b, t.quiet);
                if writes {
                    lazy.writer = Some((b, lazy.quiet));
                }
                #[cfg(debug_assertions)]
                {
                    let c = lazy.check.get_or_insert_with(|| (pipe.clone(), Vec::new()));
                    c.1.push((b, t.quiet));
                }
                lazy.m += 1;
                memo.followed += 1;
                extra += done;
                continue;
            }
        }
        if lazy.m > 0 {
            *issue = lazy.replay(pipe, stats, memo, rid, entry, now);
        }
        // As `solo_block` finds and replays it.
        let base = pipe.next_issue();
        let chain = pipe.chain.take();
        let replayed = same && {
            let run = run.filter(|_| chain.is_some_and(|c| memo.pins_port(c)));
            let Some(solo) = bus.solo.as_deref_mut() else {
                unreachable!("invariant: checked above")
            };
            memo.follow(chain, base, run) == Some(rid) && {
                let r = memo.record(rid);
                let load = solo.block.loads[..solo.block.n].last().copied();
                r.solo().len() == nsolo
                    && r.replayable(pipe)
                    && solo.block.n == nsolo
                    && if clear && solo.rounds_fit(rid, base, limit, margin, next) {
                        deferred += 1;
                        (last_base, last_load) = (base, load);
                        next = next_of(load);
                        true
                    } else {
                        if deferred > 0 {
                            solo.rounds_more(rid, last_base, deferred, last_load);
                            deferred = 0;
                        }
                        if solo.rounds_again(rid, epoch, nsolo, base, limit, margin) {
                            clear = written;
                            written = true;
                            next = next_of(load);
                            true
                        } else {
                            false
                        }
                    }
            }
        };
        if !replayed {
            // Taken back: the run loop runs it.
            pipe.chain = chain;
            s.clone_from(&saved);
            (s.r, s.flags, s.pc) = (saved_r, saved_flags, entry);
            bus.codes = codes0;
            bus.attention = false;
            bus.answer = None;
            bus.deferred = None;
            bus.solo_split = false;
            (
                bus.direct,
                bus.dma_reads,
                bus.timer_touched,
                bus.timer_stall,
                bus.rec,
            ) = kept;
            break;
        }
        memo.followed += 1;
        let quiet = pipe.quiet;
        *issue = replay_record(pipe, stats, memo, rid, base, Some(entry), quiet, now);
        extra += done;
    }
    if lazy.m > 0 {
        *issue = lazy.replay(pipe, stats, memo, rid, entry, now);
    }
    if deferred > 0 {
        if let Some(solo) = bus.solo.as_deref_mut() {
            solo.rounds_more(rid, last_base, deferred, last_load);
        }
    }
    extra
}

/// Passes of [`solo_repeat`] replayed lazily: `m` replays of one record
/// after the pipeline's last, each from the `next` the one before set
/// (the record's `next` later), known only by the times they set
/// (`memo::TimesStep::after`: `times`, the last one's from `base` on a
/// pipeline whose `quiet` was `quiet`, leaving the core at `now` and the
/// chain `chain`) and by the last of them to write the scoreboard
/// (`writer`: its base and the `quiet` before it).
///
/// Replaying the last of them on the pipeline gives what replaying each
/// in turn gives: every time a replay sets is a function of its base
/// (each later one overwrites it), but the scoreboard's slots, written only
/// when the greatest readiness ever written is past the record's settling
/// point (`Pipeline::replay`), the readiness only grows (the greatest of
/// the pipeline's before them and the last one's), and the slots the
/// record writes are functions of the base; SRAM banks fetched from
/// accumulate the same bits. Whether a replay writes the slots depends on
/// `max(quiet - base, max_ready) > settled` with `quiet` the pipeline's
/// before them: true for the first few of them or none, then for all or
/// none, so the last to write (`writer`), replayed before the last, leaves
/// the slots as the one that wrote last.
struct Lazy {
    m: u64,
    times: Times,
    now: u64,
    base: u64,
    quiet: u64,
    chain: Option<Chain>,
    writer: Option<(u64, u64)>,
    /// (Debug builds: the pipeline before the passes and each one's base
    /// and `quiet` before it, to replay them in turn and compare.)
    #[cfg(debug_assertions)]
    check: Option<(Pipeline, Vec<(u64, u64)>)>,
}

impl Lazy {
    /// Makes the `m` replays on the pipeline and the counters as replaying
    /// each in turn would (`replay_record`); the last one's last issue.
    fn replay(
        &mut self,
        pipe: &mut Pipeline,
        stats: &mut CoreStats,
        memo: &mut Memo,
        rid: u32,
        entry: u32,
        now: &mut u64,
    ) -> Issue {
        // (Each pass took the chain: the last replay sets it if its base
        // lets it.)
        pipe.chain = None;
        #[cfg(debug_assertions)]
        let check = self.check.take().map(|(mut p, passes)| {
            let r = memo.record(rid);
            for (b, quiet) in passes {
                p.chain = None;
                debug_assert_eq!(p.next, b, "a pass replayed lazily from another base");
                p.replay(r, Some(entry));
                if r.chains_at(b) {
                    p.chain = Some(memo.chain(rid, quiet));
                }
            }
            p
        });
        let mut made = 0;
        if let Some((b, quiet)) = self.writer.filter(|&(b, _)| b != self.base) {
            pipe.next = b;
            replay_record(pipe, stats, memo, rid, b, Some(entry), quiet, now);
            made += 1;
        }
        pipe.next = self.base;
        let issue = replay_record(
            pipe,
            stats,
            memo,
            rid,
            self.base,
            Some(entry),
            self.quiet,
            now,
        );
        made += 1;
        let k = self.m - made;
        let r = memo.record(rid);
        stats.dual += r.dual() * k;
        for (a, b) in stats.stalls.iter_mut().zip(r.stalls()) {
            *a += b * k;
        }
        memo.hits += k;
        debug_assert!(
            pipe.times() == self.times && *now == self.now && pipe.chain == self.chain,
            "passes replayed lazily left the pipeline otherwise"
        );
        #[cfg(debug_assertions)]
        if let Some(p) = check {
            debug_assert!(
                p == *pipe,
                "passes replayed lazily left the pipeline otherwise than in turn"
            );
        }
        self.m = 0;
        self.writer = None;
        issue
    }
}
