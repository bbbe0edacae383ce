//! Watching a chip a host program drives: the host's libe-hal, started
//! with `EPSIM_TUI=PATH`, serves the view on the Unix socket PATH
//! (`epsim_host::view_server`); `epsim tui --attach PATH` connects. One JSON
//! request per line, one JSON answer per line.

use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

use epsim_sim::view::{CoreDetail, MachineView};
use epsim_sim::CoreId;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use crate::app::Driver;

/// A connection to a host program's chip.
pub struct Remote {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    /// The last view received (shown on after the host has gone).
    last: MachineView,
    /// Why the connection ended, once it has.
    gone: Option<String>,
}

impl Remote {
    /// Connects to the socket at `path` and takes a first view.
    pub fn connect(path: &Path) -> Result<Remote, String> {
        let writer = UnixStream::connect(path).map_err(|e| {
            let why = match e.kind() {
                ErrorKind::ConnectionRefused => {
                    ": no program serves it (a host program that ended left it?)"
                }
                _ => "",
            };
            format!(
                "cannot attach to {}: {e}{why}; start the host program with EPSIM_TUI={} \
                 (and EPSIM_TUI_WAIT=1 to have it wait for the view), or give --wait",
                path.display(),
                path.display()
            )
        })?;
        Remote::start(writer, path)
    }

    /// As [`Remote::connect`], but while nothing serves `path` (no socket
    /// file, or one left by a program that ended) tries again every
    /// `every`, up to `give_up` (forever if `None`).
    pub fn connect_waiting(
        path: &Path,
        every: Duration,
        give_up: Option<Duration>,
    ) -> Result<Remote, String> {
        let start = Instant::now();
        loop {
            match UnixStream::connect(path) {
                Ok(s) => return Remote::start(s, path),
                Err(e)
                    if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::ConnectionRefused)
                        && give_up.is_none_or(|g| start.elapsed() < g) =>
                {
                    std::thread::sleep(every);
                }
                Err(_) => return Remote::connect(path),
            }
        }
    }

    fn start(writer: UnixStream, path: &Path) -> Result<Remote, String> {
        let reader = BufReader::new(writer.try_clone().map_err(|e| e.to_string())?);
        let mut r = Remote {
            reader,
            writer,
            last: MachineView {
                cycle: 0,
                ns: 0,
                mode: Default::default(),
                first_row: 0,
                first_col: 0,
                rows: 0,
                cols: 0,
                cores: Vec::new(),
                mesh: None,
            },
            gone: None,
        };
        r.last = r
            .call(json!({ "op": "view" }))
            .ok_or_else(|| format!("{} answered no view", path.display()))?;
        Ok(r)
    }

    /// Sends `req` and decodes the answer; `None` once the host has gone
    /// (or answered something else).
    fn call<T: DeserializeOwned>(&mut self, req: Value) -> Option<T> {
        if self.gone.is_some() {
            return None;
        }
        let mut line = String::new();
        let ok = writeln!(self.writer, "{req}").is_ok()
            && self.reader.read_line(&mut line).is_ok_and(|n| n > 0);
        if !ok {
            self.gone = Some("the host program has ended".into());
            return None;
        }
        serde_json::from_str(&line).ok()
    }
}

impl Driver for Remote {
    fn view(&mut self) -> MachineView {
        if let Some(v) = self.call(json!({ "op": "view" })) {
            self.last = v;
        }
        self.last.clone()
    }

    fn detail(&mut self, id: CoreId, before: usize, after: usize) -> Option<CoreDetail> {
        self.call::<Option<CoreDetail>>(json!({
            "op": "detail", "row": id.row, "col": id.col, "before": before, "after": after
        }))
        .flatten()
    }

    fn run_to(&mut self, to: u64) -> Option<String> {
        let cycles = to.saturating_sub(self.last.cycle);
        let _: Option<u64> = self.call(json!({ "op": "run", "cycles": cycles }));
        self.gone.clone()
    }

    fn output(&mut self) -> Option<String> {
        None
    }

    fn first_core(&mut self) -> Option<CoreId> {
        self.last
            .cores
            .iter()
            .find(|c| c.activity != epsim_sim::view::Activity::Unused)
            .map(|c| c.id)
    }

    fn attached(&self) -> bool {
        true
    }

    fn hold(&mut self, on: bool) {
        let _: Option<Value> = self.call(json!({ "op": "pause", "on": on }));
    }

    fn gone(&self) -> Option<String> {
        self.gone.clone()
    }
}
