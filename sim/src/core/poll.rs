//! A core polling another core's memory with a remote read (a TESTSET
//! answered "taken", a load of a flag), each answer the same.
//!
//! Such a loop stops the core at the read (`CoreExit::Remote`); the
//! machine sends it, the answer comes back, and the core runs the loop's
//! instructions up to the same read again. When the core's state where it
//! stopped (registers, other registers, SRAM, counters and pipeline, one
//! moved by the iteration's cycles: [`Pipeline::steady_after`]) is the same
//! at two stops, and the answer in between was delivered with nothing
//! else reaching the core, that run is one *period*: given the same state
//! and the same answer (value and latency) again, the run is the same,
//! moved in time. The scheduler then moves the core to its next stop at
//! once ([`Core::poll_apply`]), without running its instructions: cycles,
//! instructions, dual issues, stall and idle cycles advanced by the
//! period's, the pipeline moved as the run moved it (`Pipeline::shift`),
//! timers counting clock cycles counted. Only where the run would not
//! reach a cycle a timer could fire in, with the core's DMA engine idle,
//! not traced and not in strict order (which proves it exact).

use epsim_isa::exec::pending_interrupt;
use epsim_isa::{ArchState, MemFault};

use super::{Core, CoreStats, OtherRegs, RemoteAccess, RunState};
use crate::timing::{count_clock, lazy_limit, timers_on, Moves, Pipeline, NSTALL};

/// The most periods kept per core (one per answer latency seen).
const PERIODS: usize = 4;

/// The core where it stopped at a remote read.
#[derive(Clone, Debug)]
struct Stop {
    access: RemoteAccess,
    /// The read's issue cycle.
    issue: u64,
    state: ArchState,
    regs: OtherRegs,
    pipe: Pipeline,
    stats: CoreStats,
    timer_at: u64,
    /// The SRAM's write count.
    writes: u64,
    /// The scheduler's count of what reached the core (`touched`) and of
    /// loads from DRAM timed in runs (`solo`), at the stop.
    touched: u64,
    solo: u64,
}

impl Stop {
    /// Saves the core's state, registers and pipeline here (the pipeline
    /// copied as checkpoints copy it, `Pipeline::copy_from`).
    fn save(&mut self, state: &ArchState, regs: &OtherRegs, pipe: &Pipeline) {
        self.state.clone_from(state);
        self.regs.clone_from(regs);
        self.pipe.copy_from(pipe);
    }
}

/// One run from a stop to the next, the answer given.
#[derive(Clone, Debug)]
struct Period {
    value: Result<u64, MemFault>,
    latency: u32,
    p: u64,
    instret: u64,
    dual: u64,
    idle: u64,
    stalls: [u64; NSTALL],
    moves: Moves,
    /// The stop it ended at: a stop whose state is this one's (its
    /// pipeline moved by some cycles) runs the same.
    end: Box<Stop>,
}

/// What [`Poll::stop`] holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Have {
    /// Nothing.
    #[default]
    None,
    /// The access and counts only (the first stop at an access: the
    /// state is saved only if the next stop is at the same).
    Light,
    /// Everything.
    Full,
    /// The access and counts, the core having been moved there at once
    /// (`Core::poll_apply`): its state, registers and pipeline are the
    /// core's own until it runs (saved then: `Core::poll_find`).
    Moved,
}

/// What the core knows of a polling loop ([`Core::poll_stop`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct Poll {
    /// The last stop at an eligible remote read (kept allocated), and what
    /// of it is there.
    stop: Option<Box<Stop>>,
    have: Have,
    /// The answer to it, given with nothing else reaching the core.
    answer: Option<(Result<u64, MemFault>, u32)>,
    /// `stop` is a stop of `periods[k]` (its end, moved).
    trusted: Option<usize>,
    periods: Vec<Period>,
    /// Where the next period replaces one when all places are taken.
    next: usize,
    /// Stops whose state is not saved before it is again, and the looks
    /// at two stops that found no period, in a row (a loop whose state
    /// changes, or reads that are not a loop's, looked at ever less
    /// often, as `Spin` does).
    skip: u32,
    fails: u32,
    /// Runs done at once.
    pub(crate) repeats: u64,
}

impl Poll {
    /// Forgets the stop (the core went back in time, or was reset, or
    /// stopped at anything else).
    pub(crate) fn clear(&mut self) {
        self.have = Have::None;
        self.answer = None;
        self.trusted = None;
    }
}

/// `a` is `b` with its timers counted from `from` to `to` (timers that
/// count only clock cycles, none firing by then).
fn counted_to(b: &ArchState, from: u64, to: u64, a: &ArchState) -> bool {
    if !timers_on(b.config) || from == to {
        return a == b;
    }
    if lazy_limit(b, from).is_none_or(|l| to > l) {
        return false;
    }
    let mut s = b.clone();
    let mut at = from;
    count_clock(&mut s, &mut at, to);
    s == *a
}

impl Core {
    /// The core stopped at `access`, a read of another core's memory
    /// issuing at `issue` (`None`: at anything else), `touched` and `solo`
    /// being the scheduler's counts then: a period is found if the run
    /// from the last stop was one.
    pub(crate) fn poll_stop(
        &mut self,
        access: Option<RemoteAccess>,
        issue: u64,
        touched: u64,
        solo: u64,
    ) {
        let poll = &mut self.poll;
        let answer = poll.answer.take();
        poll.trusted = None;
        let Some(access) = access else {
            poll.have = Have::None;
            return;
        };
        let last = poll.stop.as_deref().filter(|_| poll.have == Have::Full);
        if let (Some(last), Some((value, latency))) = (last, answer) {
            let idle = !self.dma.is_busy() && self.dma.next_ready().is_none();
            let p = issue.wrapping_sub(last.issue);
            let known = poll
                .periods
                .iter()
                .any(|k| k.value == value && k.latency == latency && k.end.access == access);
            let found = !known
                && idle
                && touched == last.touched + 1
                && solo == last.solo
                && last.access == access
                && issue > last.issue
                && self.stats.cycles.wrapping_sub(issue)
                    == last.stats.cycles.wrapping_sub(last.issue)
                && self.timer_at.wrapping_sub(issue) == last.timer_at.wrapping_sub(last.issue)
                && self.sram.writes() == last.writes
                && self.regs == last.regs
                && counted_to(&last.state, last.timer_at, self.timer_at, &self.state)
                && self.pipe.steady_after(&last.pipe, p);
            if !known && !found {
                poll.fails += 1;
                poll.skip = (1u32 << poll.fails.min(10)) - 1;
            }
            if found {
                poll.fails = 0;
                let mut stalls = self.stats.stalls;
                for (d, &b) in stalls.iter_mut().zip(&last.stats.stalls) {
                    *d -= b;
                }
                let period = Period {
                    value,
                    latency,
                    p,
                    instret: self.stats.instret - last.stats.instret,
                    dual: self.stats.dual - last.stats.dual,
                    idle: self.stats.idle - last.stats.idle,
                    stalls,
                    moves: self.pipe.moves(&last.pipe),
                    end: Box::new(Stop {
                        access,
                        issue,
                        state: self.state.clone(),
                        regs: self.regs.clone(),
                        pipe: self.pipe.clone(),
                        stats: self.stats,
                        timer_at: self.timer_at,
                        writes: self.sram.writes(),
                        touched,
                        solo,
                    }),
                };
                let k = if poll.periods.len() < PERIODS {
                    poll.periods.push(period);
                    poll.periods.len() - 1
                } else {
                    let k = poll.next;
                    poll.next = (k + 1) % PERIODS;
                    poll.periods[k] = period;
                    k
                };
                poll.trusted = Some(k);
            }
        }
        // (The state is saved only at the second stop in a row at the
        // same access: a loop's.)
        let mut again =
            poll.have != Have::None && poll.stop.as_deref().is_some_and(|s| s.access == access);
        if again && poll.skip > 0 {
            poll.skip -= 1;
            again = false;
        }
        self.keep_stop(access, issue, touched, solo, again);
    }

    /// Saves the core, stopped at `access` issuing at `issue`, as the last
    /// stop: its state too if `full`.
    fn keep_stop(&mut self, access: RemoteAccess, issue: u64, touched: u64, solo: u64, full: bool) {
        let writes = self.sram.writes();
        match self.poll.stop.as_deref_mut() {
            Some(s) => {
                s.access = access;
                s.issue = issue;
                s.stats = self.stats;
                s.timer_at = self.timer_at;
                s.writes = writes;
                s.touched = touched;
                s.solo = solo;
                if full {
                    s.save(&self.state, &self.regs, &self.pipe);
                }
            }
            None => {
                self.poll.stop = Some(Box::new(Stop {
                    access,
                    issue,
                    state: self.state.clone(),
                    regs: self.regs.clone(),
                    pipe: self.pipe.clone(),
                    stats: self.stats,
                    timer_at: self.timer_at,
                    writes,
                    touched,
                    solo,
                }));
            }
        }
        self.poll.have = if full { Have::Full } else { Have::Light };
    }

    /// The core, moved to its last stop at once and not run since, saves
    /// its state there.
    fn keep_moved(&mut self) {
        if self.poll.have != Have::Moved {
            return;
        }
        if let Some(s) = self.poll.stop.as_deref_mut() {
            s.save(&self.state, &self.regs, &self.pipe);
            self.poll.have = Have::Full;
        }
    }

    /// At the start of the core's turn, `touched` being the scheduler's
    /// count: if the core is at its last stop, answered (nothing else
    /// having reached it since), and a period runs from there with this
    /// answer, that period (its index) and the cycle the run would end at
    /// (the core's cycle at the next stop).
    pub(crate) fn poll_find(&mut self, touched: u64) -> Option<(usize, u64)> {
        let ans = self.answer?;
        let poll = &mut self.poll;
        let stop = poll.stop.as_deref().filter(|_| poll.have != Have::None)?;
        if touched != stop.touched + 1 || ans.addr != stop.access.addr {
            poll.answer = None;
            poll.trusted = None;
            if poll.have == Have::Moved {
                // (Not the core's state at the stop any more.)
                poll.have = Have::Light;
            }
            return None;
        }
        poll.answer = Some((ans.value, ans.latency));
        let found = poll.periods.iter().position(|k| {
            k.value == ans.value && k.latency == ans.latency && k.end.access == stop.access
        });
        let fits = found.and_then(|k| {
            let per = &poll.periods[k];
            let end = self.stats.cycles.checked_add(per.p)?;
            let ok = self.run == RunState::Running
                && pending_interrupt(&self.state).is_none()
                && !self.dma.is_busy()
                && self.dma.next_ready().is_none()
                && self.sram.writes() == stop.writes
                && lazy_limit(&self.state, self.timer_at)
                    .is_some_and(|l| end <= l && self.timer_at + per.p <= l);
            ok.then_some((k, end))
        });
        let Some((k, end)) = fits else {
            // The core runs from its stop: saved as it stands.
            self.keep_moved();
            return None;
        };
        if self.poll.trusted != Some(k) {
            self.keep_moved();
            if self.poll.have != Have::Full {
                return None;
            }
        }
        let poll = &mut self.poll;
        let (Some(stop), Some(per)) = (poll.stop.as_deref(), poll.periods.get(k)) else {
            return None;
        };
        if poll.trusted != Some(k) {
            // Is the stop the period's end, moved?
            let e = &per.end;
            let d = stop.issue.wrapping_sub(e.issue);
            let same = stop.issue > e.issue
                && stop.access == e.access
                && stop.stats.cycles.wrapping_sub(stop.issue)
                    == e.stats.cycles.wrapping_sub(e.issue)
                && stop.timer_at.wrapping_sub(stop.issue) == e.timer_at.wrapping_sub(e.issue)
                && stop.writes == e.writes
                && stop.regs == e.regs
                && counted_to(&e.state, e.timer_at, stop.timer_at, &stop.state)
                && stop.pipe.steady_after(&e.pipe, d);
            if !same {
                return None;
            }
            poll.trusted = Some(k);
        }
        Some((k, end))
    }

    /// Runs period `k` ([`Core::poll_find`]) at once: the core is at its
    /// next stop, which is saved; the read and its issue cycle.
    pub(crate) fn poll_apply(
        &mut self,
        k: usize,
        touched: u64,
        solo: u64,
    ) -> Option<(RemoteAccess, u64)> {
        let per = self.poll.periods.get(k)?;
        let p = per.p;
        let (access, issue) = self.poll.stop.as_deref().map(|s| (s.access, s.issue + p))?;
        self.answer = None;
        self.poll.answer = None;
        self.stats.cycles += p;
        self.stats.instret += per.instret;
        self.stats.dual += per.dual;
        self.stats.idle += per.idle;
        for (a, d) in self.stats.stalls.iter_mut().zip(per.stalls) {
            *a += d;
        }
        self.pipe.shift(&per.moves, p);
        // (Its fetches are not made one by one: any bank may have been
        // looked at, `Machine::read_in_past`.)
        self.pipe.fetched = 0xf;
        let to = self.timer_at + p;
        count_clock(&mut self.state, &mut self.timer_at, to);
        self.poll.repeats += 1;
        // (Its STATUS on the way not looked at: the flag counts as clear
        // from the run's end only.)
        self.wand_clear_from = self.wand_clear_here();
        self.keep_stop(access, issue, touched, solo, false);
        self.poll.have = Have::Moved;
        self.poll.trusted = Some(k);
        Some((access, issue))
    }
}
