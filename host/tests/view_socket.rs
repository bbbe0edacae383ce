//! The socket `EPSIM_TUI=PATH` serves the chip's view on: it lives as long
//! as the chip (gone after `e_finalize`, at the program's exit, and when
//! SIGTERM ends it), and `EPSIM_TUI_WAIT=1` holds `e_init` until a viewer
//! attaches. Each case runs a host program in a child process: this test
//! binary again, running one of the ignored `child_*` tests.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use e_hal::{Host, Platform, RunMode};
use epsim_sim::{Mode, Syscalls};

fn socket(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("epsim-view-socket-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path
}

/// This binary, running the ignored test `name` with `EPSIM_TUI=sock`.
fn child(name: &str, sock: &Path, wait: bool) -> Child {
    let mut cmd = Command::new(std::env::current_exe().expect("the test binary"));
    cmd.args([
        "--ignored",
        "--exact",
        name,
        "--nocapture",
        "--test-threads",
        "1",
    ])
    .env("EPSIM_TUI", sock)
    .env_remove("EPSIM_LOG")
    .env_remove("EPSIM_PROGRESS")
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    if wait {
        cmd.env("EPSIM_TUI_WAIT", "1");
    } else {
        cmd.env_remove("EPSIM_TUI_WAIT");
    }
    cmd.spawn().expect("the test binary runs")
}

/// Waits up to 10 s for `cond`.
fn eventually(what: &str, cond: impl Fn() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "timed out: {what}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The child's host, made from the environment (`EPSIM_TUI`, …).
fn open() -> Host {
    Host::with_syscalls(
        Platform::parallella16(),
        RunMode::Deterministic,
        Mode::Timed,
        Syscalls::captured(Vec::new(), Vec::new()),
    )
    .expect("the chip opens")
}

fn say(line: &str) {
    let mut out = std::io::stdout();
    let _ = writeln!(out, "child: {line}");
    let _ = out.flush();
}

#[test]
#[ignore = "a host program for view_socket's tests"]
fn child_exits_without_finalizing() {
    let h = open();
    say("opened");
    std::mem::forget(h);
    std::process::exit(0);
}

#[test]
#[ignore = "a host program for view_socket's tests"]
fn child_exits_at_a_line_of_input() {
    let h = open();
    say("opened");
    let mut line = String::new();
    let _ = std::io::stdin().read_line(&mut line);
    std::mem::forget(h);
    std::process::exit(0);
}

#[test]
#[ignore = "a host program for view_socket's tests"]
fn child_waits_forever() {
    let _h = open();
    say("opened");
    // Not forever: a failed test must not leave it behind.
    std::thread::sleep(Duration::from_secs(60));
    std::process::exit(1);
}

#[test]
#[ignore = "a host program for view_socket's tests"]
fn child_finalizes_then_idles() {
    let h = open();
    say("opened");
    drop(h);
    say("closed");
    // Not forever: a failed test must not leave it behind.
    std::thread::sleep(Duration::from_secs(60));
    std::process::exit(1);
}

/// The child's next line said with `say` (the test harness says more).
fn said(lines: &mut impl Iterator<Item = std::io::Result<String>>) -> String {
    for line in lines.map_while(Result::ok) {
        // (The harness's `test NAME ... ` may start the line.)
        if let Some(at) = line.find("child: ") {
            return line[at + "child: ".len()..].to_string();
        }
    }
    String::new()
}

fn first_line(c: &mut Child) -> String {
    said(&mut BufReader::new(c.stdout.take().expect("piped")).lines())
}

#[test]
fn the_socket_is_gone_when_the_host_program_exits_without_finalizing() {
    let sock = socket("exit.sock");
    let c = child("child_exits_without_finalizing", &sock, false);
    let out = c.wait_with_output().expect("it ends");
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("opened"));
    assert!(!sock.exists(), "{} left behind", sock.display());
}

#[test]
fn the_socket_is_gone_after_e_finalize_while_the_program_goes_on() {
    let sock = socket("finalize.sock");
    let mut c = child("child_finalizes_then_idles", &sock, false);
    let out = c.stdout.take().expect("piped");
    let mut lines = BufReader::new(out).lines();
    assert_eq!(said(&mut lines), "opened");
    assert_eq!(said(&mut lines), "closed");
    eventually("the socket file removed after e_finalize", || {
        !sock.exists()
    });
    let _ = c.kill();
    let _ = c.wait();
}

#[test]
fn the_socket_is_gone_when_sigterm_ends_the_host_program() {
    let sock = socket("term.sock");
    let mut c = child("child_waits_forever", &sock, false);
    assert_eq!(first_line(&mut c).trim(), "opened");
    assert!(sock.exists());
    let killed = Command::new("kill")
        .args(["-TERM", &c.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let status = c.wait().expect("it ends");
    assert_eq!(status.signal(), Some(15), "{status:?}: ended by the signal");
    assert!(!sock.exists(), "{} left behind", sock.display());
}

#[test]
fn a_stale_socket_file_is_replaced() {
    let sock = socket("stale.sock");
    // A socket file nobody listens on, as a killed program leaves.
    stale_socket(&sock);
    assert!(sock.exists());
    let mut c = child("child_exits_without_finalizing", &sock, false);
    assert_eq!(first_line(&mut c).trim(), "opened");
    assert!(c.wait().expect("it ends").success());
    assert!(!sock.exists());
}

#[test]
fn epsim_tui_wait_holds_e_init_until_a_viewer_attaches() {
    let sock = socket("wait.sock");
    let mut c = child("child_exits_at_a_line_of_input", &sock, true);
    eventually("the socket is served", || sock.exists());
    // It says why it waits, on standard error.
    let mut err = BufReader::new(c.stderr.take().expect("piped"));
    let mut line = String::new();
    err.read_line(&mut line).expect("readable");
    assert!(
        line.contains("EPSIM_TUI_WAIT") && line.contains("epsim tui --attach"),
        "{line}"
    );
    assert!(line.contains(&sock.display().to_string()), "{line}");
    // e_init has not returned: the child said nothing yet.
    let (tx, rx) = std::sync::mpsc::channel();
    let out = c.stdout.take().expect("piped");
    std::thread::spawn(move || {
        let mut lines = BufReader::new(out).lines();
        let _ = tx.send(said(&mut lines));
    });
    assert!(
        rx.recv_timeout(Duration::from_millis(300)).is_err(),
        "e_init returned with no viewer"
    );
    // A viewer attaches: e_init returns, and the view is of cycle 0.
    let mut conn = UnixStream::connect(&sock).expect("it accepts a viewer");
    assert_eq!(
        rx.recv_timeout(Duration::from_secs(10)).as_deref(),
        Ok("opened")
    );
    writeln!(conn, r#"{{"op":"view"}}"#).expect("request");
    let mut answer = String::new();
    BufReader::new(conn.try_clone().expect("clone"))
        .read_line(&mut answer)
        .expect("answer");
    let view: serde_json::Value = serde_json::from_str(&answer).expect("JSON");
    assert_eq!(view["cycle"], 0, "{answer}");
    // The program ends: the socket goes with it.
    writeln!(c.stdin.take().expect("piped")).expect("a line to the child");
    assert!(c.wait().expect("it ends").success());
    assert!(!sock.exists(), "{} left behind", sock.display());
}

/// Leaves a socket file at `path` that nobody serves, as a killed host
/// program does. The listener is bound and closed; a child that another
/// test forks in between holds a copy of it until that child execs, so this
/// waits until connecting is refused.
fn stale_socket(path: &std::path::Path) {
    drop(std::os::unix::net::UnixListener::bind(path).expect("bind"));
    let start = std::time::Instant::now();
    while std::os::unix::net::UnixStream::connect(path).is_ok() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "{} still served",
            path.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}
