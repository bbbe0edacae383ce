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
//! epsim: progress: 10.0 s: cycle 24117248, 2.41 M cycles/s (2.41 M overall); 48.2 M instructions; cores: 4 running, 12 idle, 0 halted
//! ```
//!
//! whenever at least that much real time has passed since the last one (it
//! looks when a slice of the chip's run or a host call ends), and an `end`
//! line with the totals when the chip is closed (`e_finalize`, or the
//! process ending with it open). The lines are written whatever `EPSIM_LOG`
//! says (the setting is the request); they say nothing a run's results
//! depend on, and reading the real-time clock is all the setting costs.

use std::time::{Duration, Instant};

use epsim_sim::core::RunState;
use epsim_sim::machine::Machine;

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
    start: Instant,
    last: Instant,
    last_cycle: u64,
}

impl Progress {
    pub(crate) fn new(every: Duration, now: u64) -> Progress {
        let t = Instant::now();
        Progress {
            every,
            start: t,
            last: t,
            last_cycle: now,
        }
    }

    /// Writes a line if the period has passed since the last one.
    pub(crate) fn tick(&mut self, m: &Machine, now: u64) {
        let t = Instant::now();
        let since = t.duration_since(self.last);
        if since < self.every {
            return;
        }
        let rate = per_second(now.saturating_sub(self.last_cycle), since);
        eprintln!(
            "epsim: progress: {:.1} s: cycle {now}, {} cycles/s ({} overall); {}",
            t.duration_since(self.start).as_secs_f64(),
            si(rate),
            si(per_second(now, t.duration_since(self.start))),
            chip(m)
        );
        self.last = t;
        self.last_cycle = now;
    }

    /// Writes the closing line.
    pub(crate) fn end(&self, m: &Machine, now: u64) {
        let took = self.start.elapsed();
        eprintln!(
            "epsim: progress: end after {:.1} s: cycle {now}, {} cycles/s overall; {}",
            took.as_secs_f64(),
            si(per_second(now, took)),
            chip(m)
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
