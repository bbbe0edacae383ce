//! `EPSIM_PROGRESS=SECONDS`: how far the chip has come, on standard error,
//! every so many seconds of real time, and once more when the chip is
//! closed.
//!
//! A long run under a host program gives no sign of life of its own: a
//! program that waits for its cores prints nothing until they are done, and
//! a user cannot tell a slow run from a stuck one. With the setting, the
//! library writes a line such as
//!
//! ```text
//! epsim: progress: 10.0 s: cycle 24117248, 2.41 M cycles/s (2.41 M overall); 48.2 M instructions; cores: 4 running, 12 idle, 0 halted; stalls: ext-fetch 41 %, remote 12 %, branch 3.0 %
//! ```
//!
//! (the three largest kinds of stall since the line before, as shares of
//! the cycles the cores spent on instructions meanwhile, issuing or
//! stalled; a parked core's count may lag)
//! whenever at least that much real time has passed since the last one (it
//! looks when a slice of the chip's run or a host call ends), and an `end`
//! line with the totals (every kind of stall) when the chip is closed (`e_finalize`, or the
//! process ending with it open). The lines are written whatever `EPSIM_LOG`
//! says (the setting is the request); they say nothing a run's results
//! depend on, and reading the real-time clock is all the setting costs.
//!
//! The clock is libc's own (`hosttime::real_monotonic_ns`), not
//! `std::time::Instant`: with host time on, the library's `clock_gettime`
//! answers the host thread with simulated time, and a report read from it
//! measured the chip against itself (Adapteva's `matmul-16`, a minute of
//! real time: "end after 0.2 s" and no line before it).

use std::time::Duration;

use epsim_sim::core::RunState;
use epsim_sim::machine::Machine;
use epsim_sim::timing::{Stall, NSTALL};

/// Real time, as a duration since an arbitrary start.
fn real_now() -> Duration {
    Duration::from_nanos(crate::hosttime::real_monotonic_ns())
}

/// The environment variable.
pub const VAR: &str = "EPSIM_PROGRESS";

/// Reads `EPSIM_PROGRESS`: `None` when unset or empty, else the period (a
/// number of seconds above zero, fractions allowed), or an error naming the
/// bad value.
pub fn from_env() -> Result<Option<Duration>, String> {
    match std::env::var(VAR) {
        Ok(v) if !v.trim().is_empty() => parse(&v).map(Some),
        Ok(_) | Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(v)) => Err(format!(
            "{VAR}={v:?}: expected a number of seconds above zero"
        )),
    }
}

/// Parses a period of `EPSIM_PROGRESS`.
pub fn parse(v: &str) -> Result<Duration, String> {
    match v.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s < 1e9 => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!(
            "{VAR}={v:?}: expected a number of seconds above zero (e.g. 10 or 0.5)"
        )),
    }
}

/// The reporter of one open chip.
#[derive(Debug)]
pub(crate) struct Progress {
    every: Duration,
    start: Duration,
    last: Duration,
    last_cycle: u64,
    /// The cores' cycles and stall cycles, summed, at the last line.
    last_spent: Spent,
}

/// The cores' cycles spent on instructions (issuing or stalled) and stall
/// cycles of each kind, summed over the cores.
#[derive(Clone, Copy, Debug, Default)]
struct Spent {
    cycles: u64,
    stalls: [u64; NSTALL],
}

impl Spent {
    fn of(m: &Machine) -> Spent {
        let mut s = Spent::default();
        for c in &m.cores {
            // Cycles issuing (a dual issue is one) plus cycles stalled: the
            // cycles the core spent on its instructions (a halted core's
            // clock and IDLE are not counted).
            s.cycles +=
                c.stats.instret.saturating_sub(c.stats.dual) + c.stats.stalls.iter().sum::<u64>();
            for (t, v) in s.stalls.iter_mut().zip(c.stats.stalls) {
                *t += v;
            }
        }
        s
    }

    fn since(self, before: Spent) -> Spent {
        let mut d = Spent {
            cycles: self.cycles.saturating_sub(before.cycles),
            ..Spent::default()
        };
        for ((t, a), b) in d.stalls.iter_mut().zip(self.stalls).zip(before.stalls) {
            *t = a.saturating_sub(b);
        }
        d
    }

    /// The `most` largest kinds of stall, as shares of the cores' cycles
    /// spent on instructions (figures under 10 % with a decimal):
    /// `; stalls: ext-fetch 41 %, remote 12 %` (empty if none).
    fn shares(&self, most: usize) -> String {
        let mut kinds: Vec<(Stall, u64)> = Stall::ALL
            .iter()
            .map(|&k| (k, self.stalls[k as usize]))
            .filter(|&(_, v)| v > 0)
            .collect();
        if kinds.is_empty() || self.cycles == 0 {
            return String::new();
        }
        kinds.sort_by_key(|&(_, v)| std::cmp::Reverse(v));
        let parts: Vec<String> = kinds
            .iter()
            .take(most)
            .map(|&(k, v)| {
                let p = 100.0 * v as f64 / self.cycles as f64;
                let digits = usize::from(p < 10.0);
                format!("{} {p:.digits$} %", k.name())
            })
            .collect();
        format!("; stalls: {}", parts.join(", "))
    }
}

impl Progress {
    pub(crate) fn new(every: Duration, now: u64) -> Progress {
        let t = real_now();
        Progress {
            every,
            start: t,
            last: t,
            last_cycle: now,
            last_spent: Spent::default(),
        }
    }

    /// Writes a line if the period has passed since the last one.
    pub(crate) fn tick(&mut self, m: &Machine, now: u64) {
        let t = real_now();
        let since = t.saturating_sub(self.last);
        if since < self.every {
            return;
        }
        let rate = per_second(now.saturating_sub(self.last_cycle), since);
        let spent = Spent::of(m);
        eprintln!(
            "epsim: progress: {:.1} s: cycle {now}, {} cycles/s ({} overall); {}{}",
            t.saturating_sub(self.start).as_secs_f64(),
            si(rate),
            si(per_second(now, t.saturating_sub(self.start))),
            chip(m),
            spent.since(self.last_spent).shares(3)
        );
        self.last = t;
        self.last_cycle = now;
        self.last_spent = spent;
    }

    /// Writes the closing line.
    pub(crate) fn end(&self, m: &Machine, now: u64) {
        let took = real_now().saturating_sub(self.start);
        eprintln!(
            "epsim: progress: end after {:.1} s: cycle {now}, {} cycles/s overall; {}{}",
            took.as_secs_f64(),
            si(per_second(now, took)),
            chip(m),
            Spent::of(m).shares(NSTALL)
        );
    }
}

fn per_second(cycles: u64, over: Duration) -> f64 {
    let s = over.as_secs_f64();
    if s > 0.0 {
        cycles as f64 / s
    } else {
        0.0
    }
}

/// `x` with a k, M or G multiplier, three significant figures (whole
/// below a thousand).
fn si(x: f64) -> String {
    if x < 1e3 {
        return format!("{x:.0}");
    }
    let (v, unit) = if x >= 1e9 {
        (x / 1e9, " G")
    } else if x >= 1e6 {
        (x / 1e6, " M")
    } else {
        (x / 1e3, " k")
    };
    let digits = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.digits$}{unit}")
}

/// The instructions retired and what the cores are doing.
fn chip(m: &Machine) -> String {
    let (mut running, mut idle, mut halted) = (0, 0, 0);
    for c in &m.cores {
        match c.run {
            RunState::Running => running += 1,
            RunState::Idle => idle += 1,
            RunState::Halted => halted += 1,
        }
    }
    format!(
        "{} instructions; cores: {running} running, {idle} idle, {halted} halted",
        si(m.instret() as f64)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_parse_and_bad_ones_are_named() {
        assert_eq!(parse("10"), Ok(Duration::from_secs(10)));
        assert_eq!(parse(" 0.5 "), Ok(Duration::from_millis(500)));
        for bad in ["0", "-1", "ten", "inf", "NaN", ""] {
            let e = parse(bad).unwrap_err();
            assert!(e.starts_with(&format!("EPSIM_PROGRESS={bad:?}")), "{e}");
        }
    }

    #[test]
    fn figures_carry_their_multiplier() {
        assert_eq!(si(0.0), "0");
        assert_eq!(si(950.0), "950");
        assert_eq!(si(2_410_000.0), "2.41 M");
        assert_eq!(si(48_200_000.0), "48.2 M");
        assert_eq!(si(123_400.0), "123 k");
        assert_eq!(si(3.2e9), "3.20 G");
    }
}

#[cfg(test)]
mod shares {
    use super::*;

    #[test]
    fn the_largest_stalls_come_first_as_shares_of_the_cycles() {
        let mut s = Spent {
            cycles: 1000,
            ..Spent::default()
        };
        s.stalls[Stall::Remote as usize] = 120;
        s.stalls[Stall::ExtFetch as usize] = 410;
        s.stalls[Stall::Branch as usize] = 30;
        s.stalls[Stall::Dependency as usize] = 5;
        assert_eq!(s.shares(2), "; stalls: ext-fetch 41 %, remote 12 %");
        assert_eq!(
            s.shares(4),
            "; stalls: ext-fetch 41 %, remote 12 %, branch 3.0 %, dependency 0.5 %"
        );
        let before = Spent {
            cycles: 500,
            stalls: s.stalls,
        };
        assert_eq!(s.since(before).shares(3), "");
        assert_eq!(Spent::default().shares(3), "");
    }
}
