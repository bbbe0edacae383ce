//! Attaching to a host program that has not started yet, or whose socket
//! file was left by one that ended (issue 14): `Remote::connect` says what
//! a leftover file means, `Remote::connect_waiting` (`epsim tui --attach
//! PATH --wait`) waits for the program, and the socket file goes with the
//! program's chip.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use e_hal::{Host, Platform, RunMode};
use epsim_sim::{Mode, Syscalls};
use epsim_tui::remote::Remote;

fn socket(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("epsim-tui-wait-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let p = dir.join(name);
    let _ = std::fs::remove_file(&p);
    p
}

#[test]
fn the_view_waits_for_a_host_program_that_starts_later() {
    let sock = socket("late.sock");
    // A socket file nobody serves, as a killed host program leaves.
    stale_socket(&sock);
    let err = Remote::connect(&sock).err().expect("nothing to attach to");
    assert!(err.contains("no program serves it"), "{err}");
    assert!(
        err.contains("EPSIM_TUI_WAIT=1") && err.contains("--wait"),
        "{err}"
    );
    assert!(
        Remote::connect_waiting(
            &sock,
            Duration::from_millis(10),
            Some(Duration::from_millis(100))
        )
        .is_err(),
        "gives up when told"
    );

    // The host program starts 300 ms after the view began to wait.
    let path = sock.clone();
    let starter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        // (The only test of this binary sets the variable.)
        std::env::set_var("EPSIM_TUI", &path);
        let h = Host::with_syscalls(
            Platform::parallella16(),
            RunMode::Deterministic,
            Mode::Timed,
            Syscalls::captured(Vec::new(), Vec::new()),
        )
        .expect("the chip opens");
        std::env::remove_var("EPSIM_TUI");
        h
    });
    let start = Instant::now();
    let remote = Remote::connect_waiting(&sock, Duration::from_millis(10), None);
    assert!(remote.is_ok(), "{:?}", remote.err());
    assert!(start.elapsed() >= Duration::from_millis(250));
    let h = starter.join().expect("the host opened");

    // The chip closes (e_finalize): its socket file goes.
    drop(h);
    let start = Instant::now();
    while sock.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "socket left behind"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    if let Some(dir) = sock.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn waiting_needs_attach_and_a_terminal() {
    let tui = env!("CARGO_BIN_EXE_epsim-tui");
    let o = Command::new(tui)
        .args(["--wait", "x.elf"])
        .stdin(Stdio::null())
        .output()
        .expect("epsim-tui runs");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--attach"));
    // Without a terminal it says so at once rather than wait.
    let o = Command::new(tui)
        .args(["--attach", "/nonexistent/epsim.sock", "--wait"])
        .stdin(Stdio::null())
        .output()
        .expect("epsim-tui runs");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("needs a terminal"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
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
