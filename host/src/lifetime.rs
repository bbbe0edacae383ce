//! When the host process ends.
//!
//! Model decision owned here: on the board a host process ends when its
//! last thread does; the chip runs on by itself and keeps nothing alive.
//! Here the free-running chip is a thread of the process, and so are the
//! threads serving `epsim tui --attach`; all are named with
//! [`THREAD_PREFIX`]. A program whose main thread ends with `pthread_exit`
//! (ePython's host does) would otherwise never end. So the chip thread
//! looks, every [`CHECK_EVERY`] of wall time, whether any thread of the
//! process other than epsim's is still alive (a main thread that called
//! `pthread_exit` is a zombie: it does not count); when none is, it writes
//! out what the host would have had written (the cores' unfinished lines,
//! the trace) and ends the process as glibc does when the last thread
//! exits: `exit(0)`, which runs the program's `atexit` handlers and
//! flushes its stdio buffers.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The name prefix of every thread the library starts.
pub const THREAD_PREFIX: &str = "epsim-";

/// How often (wall time) the chip thread looks at the process's threads.
pub const CHECK_EVERY: Duration = Duration::from_millis(20);

/// Set when the library ends the process (an `atexit` handler calling
/// `e_finalize` must then not wait for the chip thread: it is the caller).
static ENDING: AtomicBool = AtomicBool::new(false);

/// Whether the library is ending the process (see [`end_process`]).
pub fn ending() -> bool {
    ENDING.load(Ordering::Acquire)
}

/// Whether every live thread of this process is one of epsim's. False if
/// that cannot be told (no `/proc`): the process then lives on.
pub fn only_epsim_threads_left() -> bool {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return false;
    };
    let mut ours = 0;
    for task in tasks.flatten() {
        let dir = task.path();
        let Ok(stat) = std::fs::read_to_string(dir.join("stat")) else {
            // The thread ended while we looked.
            continue;
        };
        // "tid (comm) S ...": the state follows the last ')'.
        let state = stat
            .rfind(')')
            .and_then(|i| stat[i + 1..].split_whitespace().next());
        if matches!(state, Some("Z" | "X" | "x")) {
            continue;
        }
        let comm = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
        if !comm.starts_with(THREAD_PREFIX) {
            return false;
        }
        ours += 1;
    }
    ours > 0
}

/// The chip thread's look at the process's threads, every [`CHECK_EVERY`].
pub struct Watch {
    last: Instant,
}

impl Default for Watch {
    fn default() -> Self {
        Watch::new()
    }
}

impl Watch {
    pub fn new() -> Watch {
        Watch {
            last: Instant::now(),
        }
    }

    /// True when it is time to look and only epsim's threads are left.
    pub fn all_others_gone(&mut self) -> bool {
        if self.last.elapsed() < CHECK_EVERY {
            return false;
        }
        self.last = Instant::now();
        only_epsim_threads_left()
    }
}

/// Ends the process as its last thread's exit would (`exit(0)`), after
/// flushing Rust's standard streams.
pub fn end_process() -> ! {
    use std::io::Write;
    ENDING.store(true, Ordering::Release);
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    std::process::exit(0)
}
