//! The `epsim` command line against careless and hostile use (issue 14):
//! closed pipes, endless files, absurd geometry, signals, and the quiet
//! surprises made loud. Each test runs the real binary.

mod common;

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::epsim;

const SIGPIPE: i32 = 13;

fn firmware(rel: &str) -> String {
    PathBuf::from("../firmware")
        .join(rel)
        .to_str()
        .expect("utf-8")
        .to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn spawn(args: &[&str], stdin: Stdio, stdout: Stdio) -> Child {
    Command::new(env!("CARGO_BIN_EXE_epsim"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(stdin)
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("epsim runs")
}

/// Waits for `child` at most `limit`; kills it and panics if it is still
/// running then.
fn wait_within(mut child: Child, limit: Duration) -> Output {
    let start = Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            return child.wait_with_output().expect("output");
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let o = child.wait_with_output().expect("output");
            panic!("still running after {limit:?}; stderr: {}", stderr(&o));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Runs epsim with its standard output a pipe whose reading end is closed
/// at once: it must end as `cat` does, killed by SIGPIPE, saying nothing.
fn into_closed_pipe(args: &[&str]) -> Output {
    // The reading end is closed before epsim starts, so its first write
    // finds the pipe closed, whatever the timing.
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let child = spawn(args, Stdio::null(), Stdio::from(writer));
    wait_within(child, Duration::from_secs(20))
}

#[test]
fn a_closed_pipe_ends_every_command_quietly() {
    let fib = firmware("bench/fib.elf");
    let hello = firmware("tests/hello_write-O2.elf");
    let spin = firmware("small/spin.elf");
    let cases: [&[&str]; 4] = [
        &["disasm", &fib],
        &["run", &hello],
        // A trace to standard output of a program that never ends: only the
        // closed pipe can stop it.
        &["run", "--trace", "-", &spin],
        &["run", "--trace", "-", "--trace-format", "json", &hello],
    ];
    for args in cases {
        let o = into_closed_pipe(args);
        assert_eq!(o.status.signal(), Some(SIGPIPE), "{args:?}: {:?}", o.status);
        // With the trace on standard output, the program's own output goes
        // to standard error; epsim itself says nothing.
        let err = stderr(&o);
        assert!(!err.contains("epsim"), "{args:?}: {err}");
        if !args.contains(&"-") {
            assert_eq!(err, "", "{args:?}");
        }
    }
}

#[test]
fn a_pipe_closed_after_some_lines_ends_disasm_quietly() {
    // As `epsim disasm fib.elf | head -2`: the reader takes a little, then
    // closes.
    let mut child = spawn(
        &["disasm", &firmware("bench/fib.elf")],
        Stdio::null(),
        Stdio::piped(),
    );
    let mut out = child.stdout.take().expect("piped");
    let mut first = [0u8; 64];
    out.read_exact(&mut first).expect("some output");
    drop(out);
    let o = wait_within(child, Duration::from_secs(20));
    assert_eq!(o.status.signal(), Some(SIGPIPE));
    assert_eq!(stderr(&o), "");
}

#[test]
fn endless_files_are_refused_at_their_header() {
    for (cmd, dev) in [
        ("run", "/dev/zero"),
        ("disasm", "/dev/zero"),
        ("disasm", "/dev/urandom"),
    ] {
        let child = spawn(&[cmd, dev], Stdio::null(), Stdio::piped());
        let o = wait_within(child, Duration::from_secs(10));
        assert_eq!(o.status.code(), Some(126), "{cmd} {dev}");
        assert!(
            stderr(&o).contains(&format!("epsim: {dev}: not an ELF file")),
            "{}",
            stderr(&o)
        );
    }
}

#[test]
fn bad_geometry_is_a_usage_error_naming_the_option() {
    let hello = firmware("tests/hello_write-O2.elf");
    let load = |g: &str| format!("{g}:{hello}");
    #[rustfmt::skip]
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["--group".into(), "4294967295x1@1,0".into()], "'--group <"),
        (vec!["--group".into(), "1x1@4294967295,0".into()], "'--group <"),
        (vec!["--group".into(), "65x1".into()], "'--group <"),
        (vec!["--group".into(), "0x1".into()], "'--group <"),
        (vec!["--load".into(), load("4294967295x1@1,0")], "'--load <"),
        (vec!["--load".into(), load("1x1@1,4294967295")], "'--load <"),
        (vec!["--chip".into(), "4294967295x2".into()], "'--chip <"),
        (vec!["--group".into(), "2x2@3,3".into()], "epsim: --group 2x2@3,3 (for ../firmware/tests/hello_write-O2.elf): group 2x2 at (3,3) does not fit the 4x4 chip (chip-relative rows 0..=3, columns 0..=3)"),
        (vec!["--group".into(), "1x1@63,63".into()], "does not fit the 4x4 chip"),
        (vec!["--load".into(), load("1x1@0,4")], "epsim: --load 1x1@0,4:"),
    ];
    for (opts, want) in cases {
        let mut args = vec!["run".to_string()];
        args.extend(opts.iter().cloned());
        args.push(hello.clone());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = epsim(&args);
        assert_eq!(o.status.code(), Some(2), "{opts:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(want), "{opts:?}: {}", stderr(&o));
    }
}

#[test]
fn overlapping_groups_are_refused() {
    let hello = firmware("tests/hello_write-O2.elf");
    let o = epsim(&[
        "run",
        "--group",
        "2x2",
        "--load",
        &format!("1x2@1,1:{hello}"),
        &hello,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "epsim: --load 1x2@1,1:../firmware/tests/hello_write-O2.elf overlaps --group 2x2@0,0 \
         (for ../firmware/tests/hello_write-O2.elf) at chip-relative core (1,1): a core runs one \
         program\n"
    );
    let o = epsim(&[
        "run",
        "--load",
        &format!("1x1@0,3:{hello}"),
        "--load",
        &format!("2x1@0,3:{hello}"),
        &hello,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(
            "--load 2x1@0,3:../firmware/tests/hello_write-O2.elf overlaps --load 1x1@0,3:"
        ),
        "{}",
        stderr(&o)
    );
}

/// Starts `epsim run ARGS`, lets it run for `after`, sends `signal`.
fn signalled(args: &[&str], signal: &str, after: Duration) -> Output {
    let child = spawn(args, Stdio::null(), Stdio::piped());
    std::thread::sleep(after);
    let sent = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    wait_within(child, Duration::from_secs(10))
}

#[test]
fn sigint_stops_at_an_instruction_boundary_with_trace_and_stats() {
    let dir = std::env::temp_dir().join(format!("epsim-sigint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let trace = dir.join("trace.txt");
    let o = signalled(
        &[
            "run",
            "--stats",
            "--trace",
            trace.to_str().expect("utf-8"),
            &firmware("small/spin.elf"),
        ],
        "-INT",
        Duration::from_millis(500),
    );
    let text = std::fs::read_to_string(&trace).expect("the trace");
    std::fs::remove_dir_all(&dir).expect("clean up");
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    assert!(
        lines[0].starts_with("epsim: interrupted by SIGINT at cycle "),
        "{err}"
    );
    let cycle: u64 = lines[0]
        .rsplit(' ')
        .next()
        .and_then(|c| c.parse().ok())
        .expect("a cycle");
    assert!(err.contains("epsim: instructions retired: "), "{err}");
    assert!(
        err.contains(&format!("epsim: simulated cycles:     {cycle} ")),
        "{err}"
    );
    let last = lines.last().expect("a line");
    assert!(
        last.starts_with("epsim: core (32,8) 0x808 at pc 0x000002f") && last.contains(" <_main"),
        "{err}"
    );
    assert!(last.contains(", running, "), "{err}");
    // The trace was flushed and closed: whole lines, up to the stop.
    assert!(text.ends_with('\n'), "the trace ends mid-line");
    let last_cycle: u64 = text
        .lines()
        .last()
        .and_then(|l| l.split_whitespace().next())
        .and_then(|c| c.parse().ok())
        .expect("a trace line");
    assert!(
        last_cycle < cycle && cycle - last_cycle < 8,
        "{last_cycle} vs {cycle}"
    );
}

#[test]
fn sigterm_stops_with_status_143() {
    let o = signalled(
        &["run", "--mode", "functional", &firmware("small/spin.elf")],
        "-TERM",
        Duration::from_millis(300),
    );
    assert_eq!(o.status.code(), Some(143), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.starts_with("epsim: interrupted by SIGTERM at cycle "),
        "{err}"
    );
    assert!(err.contains("epsim: core (32,8) 0x808 at pc "), "{err}");
}

#[test]
fn a_second_sigint_ends_the_process_at_once() {
    // The program waits for standard input that never comes, inside a
    // system call, where the run cannot stop: the first Ctrl-C waits for
    // it, the second ends epsim there and then.
    let mut child = spawn(
        &["run", &firmware("tests/stdin_read-O2.elf")],
        Stdio::piped(),
        Stdio::piped(),
    );
    std::thread::sleep(Duration::from_millis(300));
    let kill = |c: &Child| {
        let ok = Command::new("kill")
            .args(["-INT", &c.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(ok.success());
    };
    kill(&child);
    std::thread::sleep(Duration::from_millis(300));
    assert!(child.try_wait().expect("wait").is_none(), "blocked in read");
    kill(&child);
    let stdin = child.stdin.take();
    let o = wait_within(child, Duration::from_secs(2));
    drop(stdin);
    assert_eq!(o.status.code(), Some(130));
}

#[test]
fn trace_core_is_chip_relative_and_must_be_on_the_chip() {
    let hello = firmware("tests/hello_write-O2.elf");
    let o = epsim(&[
        "run",
        "--trace",
        "-",
        "--trace-core",
        "0,0",
        "--trace-to",
        "0x10",
        &hello,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let trace = String::from_utf8_lossy(&o.stdout);
    assert!(trace.lines().count() > 3, "{trace}");
    assert!(trace.lines().all(|l| l.contains(" 32,8 ")), "{trace}");
    for core in ["32,8", "4,0", "0,4"] {
        let o = epsim(&["run", "--trace", "-", "--trace-core", core, &hello]);
        assert_eq!(o.status.code(), Some(2), "{core}");
        assert!(
            stderr(&o).contains(&format!(
                "epsim: --trace-core: core {core} is not on the 4x4 chip"
            )),
            "{}",
            stderr(&o)
        );
    }
}

#[test]
fn cycle_numbers_take_hex_as_dram_sizes_do() {
    let spin = firmware("small/spin.elf");
    let o = epsim(&["run", "--max-cycles", "0x1388", &spin]);
    assert_eq!(o.status.code(), Some(124));
    assert_eq!(
        stderr(&o),
        "epsim: stopped after 5000 cycles (--max-cycles); the program did not finish\n"
    );
    let o = epsim(&["run", "--max-cycles", "5_000", &spin]);
    assert_eq!(o.status.code(), Some(124), "{}", stderr(&o));
    let o = epsim(&["run", "--max-cycles", "5k", &spin]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("`5k` is not a number (decimal, or hexadecimal after 0x)"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_trace_on_stdout_gets_no_program_output() {
    let o = epsim(&["run", "--trace", "-", &firmware("tests/hello_write-O2.elf")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let trace = String::from_utf8_lossy(&o.stdout);
    assert!(!trace.contains("Hello"), "program output in the trace");
    assert!(trace.lines().all(|l| l.contains(" 32,8 ")));
    assert_eq!(stderr(&o), "Hello, Epiphany!\nhello_write: PASS\n");
}

#[test]
fn arguments_too_long_for_the_stack_are_refused() {
    let long = "x".repeat(30_000);
    let path = firmware("tests/argv_check-O2.elf");
    let o = epsim(&["run", &path, "--", &long]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.starts_with(
            "epsim: ../firmware/tests/argv_check-O2.elf: the program's arguments need 30072 \
             bytes of its stack (argv and 2 strings, the longest 30000 bytes), but it has room for "
        ),
        "{err}"
    );
    // A long argument that fits still reaches main.
    let fits = "y".repeat(4000);
    let o = epsim(&["run", "--mode", "functional", &path, "--", &fits]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("argv[1]: \"yyyy"));
}

#[test]
fn a_chip_covering_the_dram_window_says_why_a_dram_program_does_not_load() {
    let o = epsim(&[
        "run",
        "--chip",
        "64x64",
        // fast.ld: newlib in DRAM, 47 KB of it, more than the SRAM of the
        // core whose id the address now names.
        &firmware("tests/abort_call-O2.elf"),
    ]);
    assert_eq!(o.status.code(), Some(126), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(
            "hint: the 64x64 chip covers the core ids of the DRAM window (0x8e0, 0x8e1), so it \
             has no external memory"
        ),
        "{err}"
    );
    assert!(!err.contains("0x80000000"), "{err}");
}

#[test]
fn a_long_run_on_a_terminal_shows_progress_unless_quiet() {
    // `script` gives epsim a terminal for standard error.
    let epsim = env!("CARGO_BIN_EXE_epsim");
    let spin = firmware("small/spin.elf");
    let run = |quiet: &str| {
        // Ended by a SIGINT after 2.5 s, long enough for the line to
        // appear.
        let cmd = format!(
            "timeout -s INT 2.5 {epsim} run {quiet} --mode functional --max-cycles 0x7fffffff {spin}"
        );
        let mut child = Command::new("script")
            .args(["-qec", &cmd, "/dev/null"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            // A pipe kept open: at the end of its input `script` would end
            // the session early.
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("script runs");
        let stdin = child.stdin.take();
        let o = wait_within(child, Duration::from_secs(10));
        drop(stdin);
        o
    };
    let o = run("");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("epsim: cycle "), "{out:?}");
    assert!(out.contains(" M cycles/s)"), "{out:?}");
    let o = run("--quiet");
    let out = String::from_utf8_lossy(&o.stdout);
    // (The progress line would have been written a second before the end;
    // what is written just before epsim exits can be lost by `script`.)
    assert!(!out.contains("M cycles/s"), "{out:?}");
}
