//! Host time is simulated time (README "The e-hal drop-in", "Host time"):
//! `host/tests/c/hosttime.c`, built with the system `cc` against the
//! freshly built libe-hal (the `ehal_so` example target), sleeps, reads the
//! clocks and polls a core running `host/tests/dev/tick_dev.elf` (which
//! stores the cycles its timer counted and a message number every 16384
//! cycles), unchanged, in both run modes; this file checks the figures it
//! prints against the model. (`cargo test -p epsim-host --test hosttime`
//! alone does not build the example target: run the package's tests.)

// Tests unwrap freely (clippy.toml's allow-unwrap-in-tests does not reach
// integration tests, rust-clippy#13981).
#![allow(clippy::unwrap_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use e_hal::host::{CALL_CYCLES, READ_TXN_CYCLES, WRITE_TXN_CYCLES};

fn host_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `host/tests/c/hosttime.c` built against the `ehal_so` example, as
/// `libe-hal.so` in a directory of this test binary's own.
fn program() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        common::build_with(
            &host_dir().join("tests/c/hosttime.c"),
            "hosttime",
            &[],
            &["-le-hal"],
        )
    })
}

/// Runs the program's `what` in run mode `mode` with `env` set.
fn run(what: &str, mode: &str, env: &[(&str, &str)]) -> Output {
    run_with(what, mode, &[], env)
}

/// Runs the program's `what` with more arguments, in run mode `mode`.
fn run_args(what: &str, mode: &str, args: &[&str]) -> Output {
    run_with(what, mode, args, &[])
}

fn run_with(what: &str, mode: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(program());
    cmd.arg(host_dir().join("tests/dev/tick_dev.elf"))
        .arg(what)
        .args(args)
        .env("EPSIM_MODE", mode)
        .env_remove("EPIPHANY_HDF")
        .env_remove("EPIPHANY_HOME")
        .env_remove("EPSIM_VERBOSE")
        .env_remove("EPSIM_TIMING")
        .env_remove("EPSIM_HOSTTIME");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("the host program runs")
}

/// Its standard output, after checking that it succeeded.
fn stdout(o: &Output, what: &str) -> String {
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "hosttime {what}: {}\nstdout:\n{out}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

/// The numbers after each of `keys` on the line that starts with `prefix`.
fn numbers(out: &str, prefix: &str, keys: &[&str]) -> Vec<f64> {
    let line = out
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line {prefix:?} in:\n{out}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    keys.iter()
        .map(|k| {
            let i = words
                .iter()
                .position(|w| w == k)
                .unwrap_or_else(|| panic!("no {k:?} in {line:?}"));
            words[i + 1]
                .parse()
                .unwrap_or_else(|_| panic!("{:?} in {line:?}", words[i + 1]))
        })
        .collect()
}

/// The sleeps `hosttime sleep` makes: how, and microseconds.
const SLEEPS: [(&str, f64); 4] = [
    ("usleep", 1000.0),
    ("nanosleep", 2000.0),
    ("clock_nanosleep", 500.0),
    ("clock_nanosleep_abs", 700.0),
];

/// One `e_read` of a word: the host's clock advances this much.
const READ: f64 = (CALL_CYCLES + READ_TXN_CYCLES) as f64;

/// The timer slack (microseconds) the program's thread had, as it printed
/// it: every sleep takes this much more, as on Linux.
fn slack_us(out: &str) -> f64 {
    numbers(out, "slack ", &["slack"])[0] / 1000.0
}

#[test]
fn a_sleeping_host_sees_the_chip_advance_by_the_time_slept_in_both_modes() {
    for mode in ["deterministic", "free"] {
        let out = stdout(&run("sleep", mode, &[]), "sleep");
        let slack = slack_us(&out);
        assert!(
            slack > 0.0,
            "a thread that is not real-time has slack:\n{out}"
        );
        // Before anything is loaded (nothing can run): every clock moves by
        // exactly the time slept and the slack.
        let v = numbers(&out, "sleep 2 s:", &["ns", "us", "s"]);
        assert_eq!(
            v,
            [2e9 + slack * 1000.0, 2e6 + slack, 2.0],
            "{mode}:\n{out}"
        );
        for (how, us) in SLEEPS {
            let v = numbers(&out, &format!("{how} "), &["cycles", "ns"]);
            let (cycles, ns) = (v[0], v[1]);
            // The core's timer counts from the first read (its cost, then
            // the sleep and its slack) to the second, give or take its
            // loop (a store every few cycles).
            let expected = (us + slack) * 600.0 + READ;
            if mode == "deterministic" {
                assert!((cycles - expected).abs() <= 16.0, "{mode} {how}:\n{out}");
                // The clock: the sleep and both reads, at 600 MHz.
                let want = (us + slack) * 1000.0 + 2.0 * READ * 5.0 / 3.0;
                assert!((ns - want).abs() <= 1.0, "{mode} {how}: {ns} ns:\n{out}");
            } else {
                // The free-running chip runs on while the host is not in a
                // call or a sleep (for a moment, when the machine is
                // loaded): at least the time slept, not much more.
                assert!(
                    cycles >= expected - 16.0 && cycles <= 2.0 * expected + 100_000.0,
                    "{mode} {how}:\n{out}"
                );
                assert!(ns >= (us + slack) * 1000.0, "{mode} {how}:\n{out}");
            }
        }
        assert!(
            out.contains("after e_finalize: the clock goes on"),
            "{mode}:\n{out}"
        );
    }
}

#[test]
fn deterministic_sleeps_give_the_same_figures_every_time() {
    let a = stdout(&run("sleep", "deterministic", &[]), "sleep");
    let b = stdout(&run("sleep", "deterministic", &[]), "sleep");
    assert_eq!(a, b);
}

#[test]
fn epsim_hosttime_real_gives_real_time_back() {
    let out = stdout(
        &run("sleep", "deterministic", &[("EPSIM_HOSTTIME", "real")]),
        "sleep",
    );
    // A real sleep advances nothing in deterministic mode: only the read.
    for (how, us) in SLEEPS {
        let v = numbers(&out, &format!("{how} "), &["cycles", "ns"]);
        assert!((v[0] - READ).abs() <= 16.0, "{how}:\n{out}");
        assert!(v[1] >= us * 1000.0, "{how}:\n{out}");
    }
    let v = numbers(&out, "sleep 2 s:", &["ns"]);
    assert!(v[0] >= 2e9, "{out}");
    // A value that means nothing is refused, by name.
    let o = run(
        "sleep",
        "deterministic",
        &[("EPSIM_HOSTTIME", "fast"), ("EPSIM_VERBOSE", "1")],
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("EPSIM_HOSTTIME=\"fast\"") && err.contains("\"real\""),
        "{err}"
    );
}

#[test]
fn host_bandwidth_measured_with_the_clock_is_the_modelled_one() {
    // 64 writes of 8 KB (1024 transactions each), 16 reads of 2 KB.
    let write_cycles = (CALL_CYCLES + 1024 * WRITE_TXN_CYCLES) as f64;
    let write = 8192.0 / (write_cycles / 600.0);
    let read_cycles = (CALL_CYCLES + 256 * READ_TXN_CYCLES) as f64;
    let read = 2048.0 / (read_cycles / 600.0);
    for (mode, tolerance) in [("deterministic", 0.001), ("free", 0.02)] {
        let out = stdout(&run("bandwidth", mode, &[]), "bandwidth");
        let w = numbers(
            &out,
            "write MB/s:",
            &["clock_gettime", "gettimeofday", "clock"],
        );
        for got in w {
            assert!(
                (got - write).abs() <= write * tolerance,
                "{mode}: write {got} MB/s, the model {write}:\n{out}"
            );
        }
        let r = numbers(&out, "read MB/s:", &["clock_gettime"])[0];
        assert!(
            (r - read).abs() <= read * tolerance,
            "{mode}: read {r} MB/s, the model {read}:\n{out}"
        );
    }
}

#[test]
fn a_polling_host_polls_as_often_as_on_a_board() {
    // A new message every 16384 cycles; one poll (an e_read of a word)
    // costs READ cycles: at most 16384 / READ + 2 polls per message.
    let per_message = 16384 / (CALL_CYCLES + READ_TXN_CYCLES) + 2;
    for mode in ["deterministic", "free"] {
        let out = stdout(&run("poll", mode, &[]), "poll");
        let v = numbers(&out, "poll:", &["poll:", "polls,"]);
        let (polls, seen) = (v[0] as u64, v[1] as u64);
        assert!(
            polls <= 16 * per_message,
            "{mode}: {polls} polls for 16 messages:\n{out}"
        );
        if mode == "deterministic" {
            // Every message is seen, once, in order.
            let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("message")).collect();
            let want: Vec<String> = (1..=16).map(|k| format!("message {k}")).collect();
            assert_eq!(lines, want, "{out}");
            assert_eq!(seen, 16);
            assert!(polls >= 16 * (per_message - 3), "{polls} polls:\n{out}");
        } else {
            assert!((1..=16).contains(&seen), "{out}");
        }
    }
}

#[test]
fn a_host_that_polls_with_short_sleeps_looks_once_per_timer_slack() {
    // Epiphany BSP's host loop: a sleep of 1 us, then an e_read. On a
    // board the sleep takes the thread's timer slack more (50 us by
    // default), so the loop looks once per ~51 us, not once per 1 us +
    // the read; with the slack set to 1 ns (prctl) it looks ~30 times as
    // often.
    let finish = 16.0 * 16384.0; // message 16 appears at this cycle
    for (mode, set) in [
        ("deterministic", None),
        ("free", None),
        ("deterministic", Some("1")),
    ] {
        let out = match set {
            Some(s) => stdout(&run_args("sleeppoll", mode, &[s]), "sleeppoll"),
            None => stdout(&run("sleeppoll", mode, &[]), "sleeppoll"),
        };
        let slack = slack_us(&out);
        if let Some(s) = set {
            assert_eq!(slack * 1000.0, s.parse::<f64>().unwrap(), "{out}");
        }
        let v = numbers(&out, "poll:", &["poll:", "polls,"]);
        let (polls, seen) = (v[0], v[1]);
        let per_loop = (1.0 + slack) * 600.0 + READ;
        let want = finish / per_loop;
        if mode == "deterministic" {
            assert!(
                (polls - want).abs() <= 3.0,
                "{mode}: {polls} polls, about {want} expected:\n{out}"
            );
            assert!(seen >= 1.0 && seen <= polls, "{out}");
        } else {
            // The chip also runs while the host is between calls.
            assert!(polls <= want + 3.0, "{mode}: {polls} polls:\n{out}");
        }
    }
}

#[test]
fn progress_lines_count_real_seconds_while_the_host_clock_is_simulated() {
    // EPSIM_PROGRESS reads the real clock: the program computes for 0.3 s
    // of real time (0.3 s of host time too) and the chip has run a few
    // microseconds of simulated time when it is closed; the end line says
    // at least 0.3 s, and the line of the sleep's slice came after the
    // 0.1 s period. (Read from the library's `clock_gettime`, which
    // answers the host thread with simulated time, the end line said
    // "end after 0.0 s" in deterministic mode.)
    for mode in ["deterministic", "free"] {
        let o = run("busy", mode, &[("EPSIM_PROGRESS", "0.1")]);
        stdout(&o, "busy");
        let err = String::from_utf8_lossy(&o.stderr);
        let end = err
            .lines()
            .find_map(|l| l.strip_prefix("epsim: progress: end after "))
            .unwrap_or_else(|| panic!("{mode}: no end line:\n{err}"));
        let secs: f64 = end[..end.find(" s:").unwrap()].parse().unwrap();
        assert!(secs >= 0.3, "{mode}: {err}");
        let ticks = err
            .lines()
            .filter(|l| l.starts_with("epsim: progress: ") && !l.contains(" end after "))
            .count();
        assert!(ticks >= 1, "{mode}: no line before the end:\n{err}");
    }
}
