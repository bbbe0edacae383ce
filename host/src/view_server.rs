//! Serving the chip's view to `epsim tui --attach`: with `EPSIM_TUI=PATH`
//! set, the library listens on the Unix socket PATH; the TUI connects and
//! asks, one JSON line per request, for the machine's view, a core's
//! detail, a number of cycles, or that the free-running chip pause. Each
//! request takes the chip's lock like any host call, so the view is always
//! that of one moment and the host program never sees a half-done change.
//!
//! Model decisions owned here:
//! * a paused chip does not run by itself (free-running mode); the host's
//!   own calls still charge their cycles (deterministic mode);
//! * cycles the TUI asks for run the chip like `epsim_run`.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use epsim_sim::CoreId;
use serde::{Deserialize, Serialize};

use crate::host::Inner;

/// One request of the TUI.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// The machine's `MachineView`.
    View,
    /// `CoreDetail` of one core (absolute coordinates), with `before`
    /// and `after` instructions of code around its PC.
    Detail {
        row: u32,
        col: u32,
        before: usize,
        after: usize,
    },
    /// Run the chip for `cycles` cycles; answers the host's cycle after.
    Run { cycles: u64 },
    /// Hold (or release) the free-running chip; answers `null`.
    Pause { on: bool },
}

/// Listens on `path` (replacing a stale socket file) and serves every
/// connection in a thread of its own.
pub(crate) fn listen(inner: Arc<Inner>, path: &Path) -> std::io::Result<()> {
    if path.exists() {
        std::fs::remove_file(path)?;
    }
    let listener = UnixListener::bind(path)?;
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            if inner.closed.load(Ordering::Acquire) {
                break;
            }
            let inner = Arc::clone(&inner);
            std::thread::spawn(move || serve(&inner, conn));
        }
    });
    Ok(())
}

fn serve(inner: &Inner, conn: UnixStream) {
    let Ok(mut out) = conn.try_clone() else {
        return;
    };
    for line in BufReader::new(conn).lines() {
        let Ok(line) = line else { break };
        if inner.closed.load(Ordering::Acquire) {
            // The host closed the chip: hang up, as its exit would.
            break;
        }
        let answer = match serde_json::from_str::<Request>(&line) {
            Ok(req) => answer(inner, req),
            Err(e) => serde_json::json!({ "error": format!("bad request {line:?}: {e}") }),
        };
        if writeln!(out, "{answer}").is_err() {
            break;
        }
    }
    // The TUI went away: the chip must not stay held.
    inner.paused.store(false, Ordering::Release);
}

fn answer(inner: &Inner, req: Request) -> serde_json::Value {
    let json = |v: Result<serde_json::Value, serde_json::Error>| {
        v.unwrap_or_else(|e| serde_json::json!({ "error": e.to_string() }))
    };
    match req {
        Request::View => {
            let g = inner.lock();
            json(serde_json::to_value(g.machine.view()))
        }
        Request::Detail {
            row,
            col,
            before,
            after,
        } => {
            let g = inner.lock();
            json(serde_json::to_value(g.machine.core_detail(
                CoreId::new(row, col),
                before,
                after,
            )))
        }
        Request::Run { cycles } => {
            let mut g = inner.lock();
            let target = g.now.saturating_add(cycles);
            g.run_to(target);
            serde_json::json!(g.now)
        }
        Request::Pause { on } => {
            inner.paused.store(on, Ordering::Release);
            serde_json::Value::Null
        }
    }
}
