//! Deterministic mode with a host that polls shared DRAM through its
//! `e_alloc` pointer, making no e-hal call while it waits (ePython's host
//! does; README "The e-hal drop-in", "Run modes", and `host/src/dramwatch.rs`):
//! `host/tests/c/dramwatch.c`, built with the system `cc` against the
//! freshly built libe-hal, with `host/tests/dev/flag_dev.elf`, a core that
//! computes, sets a flag in DRAM, waits for the host's ack there and sets
//! it again. Each access through the pointer is charged while anything on
//! the chip can act; while the chip is quiescent, the first access after
//! an e-hal call is charged and opens the view until the next call. (`cargo
//! test -p epsim-host --test dramwatch` alone does not build the example
//! target: run the package's tests.)

// Tests unwrap freely (clippy.toml's allow-unwrap-in-tests does not reach
// integration tests, rust-clippy#13981).
#![allow(clippy::unwrap_used)]

mod common;

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::Duration;

use e_hal::dramwatch::ACCESS_CYCLES;

fn program() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let c = common::root().join("host/tests/c");
        common::build(
            &c.join("dramwatch.c"),
            "dramwatch",
            std::slice::from_ref(&c),
        )
    })
}

/// Runs the program's `args` in run mode `mode` (with `env`), killing it
/// if it has not ended within 60 s (a host that waits for ever).
fn run(mode: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let elf = common::root().join("host/tests/dev/flag_dev.elf");
    let mut cmd = Command::new(program());
    cmd.arg(elf)
        .args(args)
        .env("EPSIM_MODE", mode)
        .env_remove("EPSIM_LOG")
        .env_remove("EPSIM_PROGRESS")
        .env_remove("EPSIM_TIMING")
        .env_remove("EPSIM_DRAMWATCH")
        .env_remove("EPIPHANY_HDF")
        .env_remove("EPIPHANY_HOME")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let child = cmd.spawn().expect("the host program runs");
    common::output_within(
        child,
        Duration::from_secs(60),
        &format!("dramwatch {args:?} in {mode} mode"),
    )
}

fn stdout(o: &Output, what: &str) -> String {
    assert!(
        o.status.success(),
        "{what}: {}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The numbers after `key` on its line of `out`.
fn numbers(out: &str, key: &str) -> Vec<u64> {
    let line = out
        .lines()
        .find(|l| l.starts_with(key))
        .unwrap_or_else(|| panic!("no line {key:?} in:\n{out}"));
    line.split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect()
}

#[test]
fn a_host_polling_dram_through_the_pointer_runs_in_deterministic_mode() {
    let first = stdout(&run("deterministic", &["poll", "20000"], &[]), "poll");
    assert!(
        first.contains("result ") && first.contains(" ok\nfinal "),
        "{first}"
    );
    assert!(!first.contains("WRONG"), "{first}");
    assert!(first.contains("\nfpu ok\n"), "{first}");
    // The set-up before the core ran (the mailbox, 16 KB of data written
    // word by word) was charged once: the chip was quiescent; the core
    // computed from what it wrote, and e_read sees the data.
    assert_eq!(numbers(&first, "setup ")[0], ACCESS_CYCLES, "{first}");
    assert!(first.contains("data seen right\n"), "{first}");
    let polls = numbers(&first, "polls ");
    let cycles = numbers(&first, "cycles ")[0];
    // The host saw the core's first flag only after its 20,000 iterations,
    // and each poll ran the chip by one access's cost: the core ran all
    // the while, so no poll was free.
    assert!(polls[0] > 0 && polls[1] > 0, "{first}");
    assert!(cycles >= (polls[0] + polls[1]) * ACCESS_CYCLES, "{first}");
    assert!(cycles > 20_000 * 3, "{first}");
    assert!(polls[0] * ACCESS_CYCLES > 20_000 * 3, "{first}");
    // The same output, cycle for cycle, every time, and again after
    // e_finalize and a new e_init in the same process.
    let again = stdout(&run("deterministic", &["poll", "20000"], &[]), "poll again");
    assert_eq!(again, first);
    let twice = stdout(
        &run("deterministic", &["poll", "20000", "2"], &[]),
        "poll, two rounds",
    );
    assert_eq!(twice, format!("{first}{first}"));
}

#[test]
fn free_mode_gives_the_same_results() {
    let out = stdout(&run("free", &["poll", "20000"], &[]), "poll");
    assert!(!out.contains("WRONG"), "{out}");
    // The result, the final value and the floating-point value kept in a
    // register across the first wait.
    assert_eq!(out.matches(" ok\n").count(), 3, "{out}");
    assert!(out.contains("\nfpu ok\n"), "{out}");
}

#[test]
fn copies_through_the_pointer_are_right_and_charged_per_access() {
    // A core runs meanwhile (it spins on a word in DRAM).
    let det = stdout(
        &run("deterministic", &["memcpy", "busy"], &[]),
        "memcpy busy",
    );
    assert!(det.contains("copy ok\n"), "{det}");
    let c = numbers(&det, "cycles ");
    // 8 KB in, 8 KB out, 4 KB within DRAM: at least one access per 64
    // bytes (the widest x86 access), each ACCESS_CYCLES.
    for (&cycles, bytes) in c.iter().zip([8192, 8192, 4096]) {
        assert!(cycles.is_multiple_of(ACCESS_CYCLES), "{det}");
        assert!(cycles >= bytes / 64 * ACCESS_CYCLES, "{det}");
    }
    assert_eq!(
        stdout(
            &run("deterministic", &["memcpy", "busy"], &[]),
            "memcpy busy"
        ),
        det
    );
    let free = stdout(&run("free", &["memcpy"], &[]), "memcpy");
    assert_eq!(free, "copy ok\ncycles in 0 out 0 within 0\n");
}

#[test]
fn on_a_quiescent_chip_only_the_first_access_after_a_call_is_charged() {
    // No core can act: each copy (thousands of accesses) costs one access,
    // the first after epsim_now.
    let det = stdout(&run("deterministic", &["memcpy"], &[]), "memcpy");
    let a = ACCESS_CYCLES;
    assert_eq!(det, format!("copy ok\ncycles in {a} out {a} within {a}\n"));
    // Every e-hal call closes the view again: 1001 accesses cost one,
    // the one after epsim_now one, and an access, an e_read of a word and
    // an access three; the same when a thread of its own makes the call.
    for args in [&["reopen"][..], &["reopen", "thread"]] {
        let out = stdout(&run("deterministic", args, &[]), "reopen");
        assert_eq!(
            out,
            format!("reopen {a} {a} {} sum 500501\n", 3 * a),
            "{args:?}"
        );
    }
    let free = stdout(&run("free", &["reopen"], &[]), "reopen");
    assert!(free.ends_with(" sum 500501\n"), "{free}");
}

#[test]
fn faults_and_traps_that_are_not_the_watchs_go_where_they_went() {
    for mode in ["deterministic", "free"] {
        let o = run(mode, &["segv"], &[]);
        assert_eq!(o.status.signal(), Some(11), "{mode}: {}", o.status);
        assert!(!String::from_utf8_lossy(&o.stdout).contains("still alive"));
        let out = stdout(&run(mode, &["trap"], &[]), "trap");
        assert_eq!(out, "trap handled\n", "{mode}");
    }
}

#[test]
fn epsim_dramwatch_is_on_or_off() {
    let o = run(
        "deterministic",
        &["memcpy"],
        &[("EPSIM_DRAMWATCH", "maybe")],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("EPSIM_DRAMWATCH=\"maybe\""), "{err}");
    // Off: the plain pointer, which costs nothing (and a poll on it would
    // wait for ever in deterministic mode).
    let out = stdout(
        &run("deterministic", &["memcpy"], &[("EPSIM_DRAMWATCH", "off")]),
        "memcpy, watch off",
    );
    assert_eq!(out, "copy ok\ncycles in 0 out 0 within 0\n");
}

#[test]
#[cfg(target_arch = "x86_64")]
fn plain_moves_are_done_in_the_handler_as_the_cpu_does_them() {
    // Every width of load and store, movzx/movsx, high byte and r8-r15
    // registers, SIB and 32-bit displacements, immediates, and one compare
    // with memory (stepped), through the pointer while a core runs: the
    // registers and bytes they leave are those of the same instructions on
    // a plain buffer.
    let o = run("deterministic", &["forms"], &[("EPSIM_LOG", "debug")]);
    let out = stdout(&o, "forms");
    assert_eq!(out, "forms 16 registers same bytes same\n");
    // The moves were done in the handler, not stepped; the compare (and
    // the C library's vector compares, for its own memcmp) were stepped.
    let err = String::from_utf8_lossy(&o.stderr);
    let n = numbers(&err, "epsim: the DRAM pointer's watch");
    let (charged, done, stepped) = (n[0], n[1], n[2]);
    assert!(done >= 26, "{err}");
    assert!(stepped >= 1, "{err}");
    assert!(charged >= done + stepped, "{err}");
}
