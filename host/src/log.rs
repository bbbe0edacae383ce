//! What the library says on the host program's standard error, and when.
//!
//! Model decision owned here: the board's e-hal is silent except for a
//! line when a call fails (`warnx`), so by default epsim's library says
//! only that and its own failures; what only a simulator can say (a core
//! stopped by a fault or a breakpoint, which on the board just stops) is
//! said on request. The level is the higher of two settings:
//!
//! * `EPSIM_LOG` (read once, at the first message or `e_init`): `off`
//!   (nothing), `error` (epsim's own failures: an internal error, a trace
//!   that could not be written), `warn` (the default: also why an e-hal or
//!   e-loader call failed, as the ESDK's e-hal prints), `info` (also each
//!   core the chip stops: guest fault, breakpoint, signal, DMA error), or
//!   `debug` (also notes such as a second `e_init` keeping the chip). The
//!   old `EPSIM_VERBOSE=1` is `info`.
//! * `e_set_host_verbosity`: `H_D1` is `info`, `H_D2` and up `debug`.
//!
//! Every line starts with `e-hal: CALL: ` (about a call) or `epsim: `
//! (about the chip or the library).

use std::ffi::c_int;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::OnceLock;

/// How much the library says, least first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Off = 0,
    Error = 1,
    Warn = 2,
    Info = 3,
    Debug = 4,
}

impl Level {
    /// Parses an `EPSIM_LOG` value.
    pub fn parse(s: &str) -> Option<Level> {
        Some(match s.to_ascii_lowercase().as_str() {
            "off" | "quiet" | "none" => Level::Off,
            "error" => Level::Error,
            "warn" | "warning" => Level::Warn,
            "info" => Level::Info,
            "debug" | "all" => Level::Debug,
            _ => return None,
        })
    }
}

/// The default: what the board's e-hal prints.
pub const DEFAULT: Level = Level::Warn;

/// `EPSIM_LOG` as set: its level, or the bad value (then [`DEFAULT`]).
fn env_setting() -> &'static Result<Level, String> {
    static SETTING: OnceLock<Result<Level, String>> = OnceLock::new();
    SETTING.get_or_init(
        || match std::env::var("EPSIM_LOG").ok().filter(|v| !v.is_empty()) {
            Some(v) => Level::parse(&v).ok_or(v),
            None if std::env::var_os("EPSIM_VERBOSE").is_some_and(|v| !v.is_empty()) => {
                Ok(Level::Info)
            }
            None => Ok(DEFAULT),
        },
    )
}

/// An error naming a bad `EPSIM_LOG`, for `e_init` to refuse.
pub fn check_env() -> Result<(), String> {
    match env_setting() {
        Ok(_) => Ok(()),
        Err(v) => Err(format!(
            "EPSIM_LOG={v:?}: expected off, error, warn, info or debug"
        )),
    }
}

/// `e_set_host_verbosity`'s level (an `e_hal_diag_t`).
static HOST_VERBOSITY: AtomicI32 = AtomicI32::new(0);

/// Sets the host verbosity (`e_set_host_verbosity`); the previous one.
pub fn set_host_verbosity(v: c_int) -> c_int {
    HOST_VERBOSITY.swap(v, Ordering::Relaxed)
}

/// The level in force.
pub fn level() -> Level {
    let env = *env_setting().as_ref().unwrap_or(&DEFAULT);
    let from_verbosity = match HOST_VERBOSITY.load(Ordering::Relaxed) {
        v if v >= 2 => Level::Debug,
        1 => Level::Info,
        _ => Level::Off,
    };
    env.max(from_verbosity)
}

/// Whether messages of `level` are written.
pub fn enabled(level: Level) -> bool {
    level != Level::Off && self::level() >= level
}

/// Writes `msg` (one line) on standard error if `level` is enabled.
pub fn say(level: Level, msg: std::fmt::Arguments<'_>) {
    if enabled(level) {
        eprintln!("{msg}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse_and_order() {
        assert_eq!(Level::parse("OFF"), Some(Level::Off));
        assert_eq!(Level::parse("warn"), Some(Level::Warn));
        assert_eq!(Level::parse("debug"), Some(Level::Debug));
        assert_eq!(Level::parse("loud"), None);
        assert!(Level::Error < Level::Warn && Level::Warn < Level::Info);
    }
}
