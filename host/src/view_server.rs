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
//! * cycles the TUI asks for run the chip like `epsim_run`;
//! * with `EPSIM_TUI_WAIT=1` as well, opening the chip (`e_init`) waits,
//!   saying so on standard error, until a viewer attaches: the view then
//!   sees the program from cycle 0, however short the host program is;
//! * the socket file lives as long as the chip it serves: it is removed
//!   when the chip is closed (`e_finalize`, or the [`Host`] dropped), at
//!   the process's exit (an `atexit` handler), and when SIGHUP, SIGINT or
//!   SIGTERM ends the process (where the program left their default
//!   action: the handler removes the file and re-raises the signal). A
//!   `SIGKILL` or a crash leaves it; the next listener on that path
//!   replaces it, and `epsim tui --attach` says what a leftover file means.
//!
//! [`Host`]: crate::Host

use std::ffi::{c_char, c_int, CString};
use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Arc, Once};
use std::time::Duration;

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

/// How often the listening thread looks for a viewer and for the chip's
/// closing (which removes the socket file).
const POLL: Duration = Duration::from_millis(20);

/// Whether `EPSIM_TUI_WAIT` asks `e_init` to wait for a viewer: set and
/// neither empty nor `0`.
fn wait_requested() -> bool {
    std::env::var_os("EPSIM_TUI_WAIT").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Listens on `path` (replacing a stale socket file) and serves every
/// connection in a thread of its own; with `EPSIM_TUI_WAIT` set, first
/// waits for one (see the module).
pub(crate) fn listen(inner: Arc<Inner>, path: &Path) -> std::io::Result<()> {
    if path.exists() {
        std::fs::remove_file(path)?;
    }
    let listener = UnixListener::bind(path)?;
    let socket = SocketFile::new(path);
    // Named: crate::lifetime tells epsim's threads by name.
    let name = |what: &str| format!("{}{what}", crate::lifetime::THREAD_PREFIX);
    let conn_name = name("tui-conn");
    let spawn_serve = {
        let inner = Arc::clone(&inner);
        move |conn: UnixStream| {
            let inner = Arc::clone(&inner);
            let _ = conn.set_nonblocking(false);
            std::thread::Builder::new()
                .name(conn_name.clone())
                .spawn(move || serve(&inner, conn))
                .is_ok()
        }
    };
    if wait_requested() {
        crate::log::say(
            crate::log::Level::Warn,
            format_args!(
                "epsim: EPSIM_TUI_WAIT is set: waiting for a viewer on {} \
                 (epsim tui --attach {})",
                path.display(),
                path.display()
            ),
        );
        let (conn, _) = listener.accept()?;
        spawn_serve(conn);
    }
    listener.set_nonblocking(true)?;
    std::thread::Builder::new()
        .name(name("tui"))
        .spawn(move || {
            while !inner.closed.load(Ordering::Acquire) {
                match listener.accept() {
                    Ok((conn, _)) => {
                        if !spawn_serve(conn) {
                            break;
                        }
                    }
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    Err(_) => std::thread::sleep(POLL),
                }
            }
            drop(listener);
            drop(socket);
        })?;
    Ok(())
}

/// The socket file of a listener: removed when dropped (the chip closed),
/// and at the process's end if that comes first.
struct SocketFile {
    path: PathBuf,
    /// The file's inode: a later listener of this process may have
    /// replaced it, and its file must stay.
    ino: Option<u64>,
    /// Its slot in [`SOCKETS`].
    slot: Option<usize>,
}

impl SocketFile {
    fn new(path: &Path) -> SocketFile {
        SocketFile {
            path: path.to_path_buf(),
            ino: std::fs::symlink_metadata(path).ok().map(|m| m.ino()),
            slot: register(path),
        }
    }
}

impl Drop for SocketFile {
    fn drop(&mut self) {
        if let Some(slot) = self.slot {
            let p = SOCKETS[slot].swap(null_mut(), Ordering::AcqRel);
            if !p.is_null() {
                // SAFETY: made by CString::into_raw in `register`, and
                // taken out of the slot, so no handler can use it now.
                drop(unsafe { CString::from_raw(p) });
            }
        }
        let same = std::fs::symlink_metadata(&self.path).map(|m| Some(m.ino()));
        if same.is_ok_and(|ino| ino == self.ino) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// The socket files this process serves, as C strings for the exit and
/// signal handlers (which may only unlink: no locks, no allocation).
const SLOTS: usize = 16;
static SOCKETS: [AtomicPtr<c_char>; SLOTS] = [const { AtomicPtr::new(null_mut()) }; SLOTS];

const SIGHUP: c_int = 1;
const SIGINT: c_int = 2;
const SIGTERM: c_int = 15;
const SIG_DFL: usize = 0;
const SIG_ERR: usize = usize::MAX;

extern "C" {
    fn atexit(f: extern "C" fn()) -> c_int;
    fn unlink(path: *const c_char) -> c_int;
    fn signal(sig: c_int, handler: usize) -> usize;
    fn raise(sig: c_int) -> c_int;
}

/// Puts `path` in a free slot (the first time, installing the handlers);
/// `None` if all are taken (the file is then removed only at close).
fn register(path: &Path) -> Option<usize> {
    let c = CString::new(path.as_os_str().as_bytes()).ok()?.into_raw();
    for (i, slot) in SOCKETS.iter().enumerate() {
        if slot
            .compare_exchange(null_mut(), c, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            install_handlers();
            return Some(i);
        }
    }
    // SAFETY: from into_raw above, not shared.
    drop(unsafe { CString::from_raw(c) });
    None
}

/// Removes every registered socket file (at exit, or on a signal).
extern "C" fn remove_sockets() {
    for slot in &SOCKETS {
        let p = slot.swap(null_mut(), Ordering::AcqRel);
        if !p.is_null() {
            // SAFETY: a NUL-terminated path from `register`; unlink is
            // async-signal-safe. The string is left allocated (freeing is
            // not signal-safe, and the process is ending).
            unsafe { unlink(p) };
        }
    }
}

extern "C" fn on_fatal_signal(sig: c_int) {
    remove_sockets();
    // SAFETY: signal and raise are async-signal-safe; the default action
    // ends the process as the signal would have.
    unsafe {
        signal(sig, SIG_DFL);
        raise(sig);
    }
}

fn install_handlers() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: plain libc calls with valid function pointers; a signal
        // whose action the program chose is given its action back.
        unsafe {
            atexit(remove_sockets);
            for sig in [SIGHUP, SIGINT, SIGTERM] {
                let old = signal(sig, on_fatal_signal as extern "C" fn(c_int) as usize);
                if old != SIG_DFL && old != SIG_ERR {
                    signal(sig, old);
                }
            }
        }
    });
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
            let g = inner.look();
            json(serde_json::to_value(g.machine.view()))
        }
        Request::Detail {
            row,
            col,
            before,
            after,
        } => {
            let g = inner.look();
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
