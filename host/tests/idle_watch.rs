//! `Host::run_until_cores_idle` (the C ABI's `epsim_run_until_cores_idle`)
//! and the trace with host records: the run stops in the first cycle the
//! cores are idle, found independently by stepping the chip a cycle at a
//! time (timed mode) or from each core's IDLE in a trace (functional
//! mode); the fast and the strict timed scheduler agree on it and on every
//! core's state; any vs all; the limit; bad arguments; trace contents.

// Tests unwrap freely (clippy.toml's allow-unwrap-in-tests does not reach
// integration tests, rust-clippy#13981).
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use e_hal::host::reg;
use e_hal::{Host, HostError, Platform, RunMode, Workgroup};
use epsim_sim::trace::TraceFormat;
use epsim_sim::{Mode, Syscalls};

/// The word in SRAM where the host puts a job's length (loop turns).
const MAILBOX: u32 = 0x80;

/// The guest, hand-assembled (its listing is checked below): started by
/// SYNC it leaves the interrupt (RTI to 0x40), unmasks every interrupt,
/// then forever: loads N from the mailbox, counts it down, adds one to r5
/// and stores r5 to external memory at 0x8e000000, and sleeps in IDLE
/// until the user interrupt (`e_signal`, whose handler just returns).
#[rustfmt::skip]
const GUEST: [(u32, &[u16], &str); 16] = [
    (0x00, &[0x0803], "mov r0,0x40"),
    (0x02, &[0x010f, 0x0402], "movts iret,r0"),
    (0x06, &[0x01d2], "rti"),
    (0x24, &[0x01d2], "rti"),
    (0x40, &[0x0003], "mov r0,0x0"),
    (0x42, &[0x050f, 0x0402], "movts imask,r0"),
    (0x46, &[0x4003], "mov r2,0x0"),
    (0x48, &[0x400b, 0x18e2], "movt r2,0x8e00"),
    (0x4c, &[0x7003], "mov r3,0x80"),
    (0x4e, &[0x2c44], "ldr r1,[r3]"),
    (0x50, &[0x24b3], "sub r1,r1,1"),
    (0x52, &[0xff10], "bne 0x50"),
    (0x54, &[0xb493], "add r5,r5,1"),
    (0x56, &[0xa854], "str r5,[r2]"),
    (0x58, &[0x01b2], "idle"),
    (0x5a, &[0xf9e0], "b 0x4c"),
];

/// Where the guest's IDLE is.
const IDLE_PC: u32 = 0x58;

/// The guest's variant that stores r5 into its own SRAM, at 0x90.
#[rustfmt::skip]
const LOCAL_STORE: [(u32, &[u16], &str); 2] = [
    (0x46, &[0x5203], "mov r2,0x90"),
    (0x48, &[0x400b, 0x1002], "movt r2,0x0"),
];

fn host(timing: Mode, strict: bool) -> Host {
    let h = Host::with_syscalls(
        Platform::parallella16(),
        RunMode::Deterministic,
        timing,
        Syscalls::captured(Vec::new(), Vec::new()),
    )
    .unwrap();
    h.set_strict(strict);
    h
}

/// The guest's code, storing into external memory or (`local`) its SRAM.
fn guest_bytes(local: bool) -> Vec<(u32, Vec<u8>)> {
    let patch = if local { &LOCAL_STORE[..] } else { &[] };
    GUEST
        .iter()
        .chain(patch)
        .map(|(at, hw, _)| (*at, hw.iter().flat_map(|h| h.to_le_bytes()).collect()))
        .collect()
}

#[test]
fn the_guest_listing_is_what_it_says() {
    for (at, hw, want) in GUEST.iter().chain(&LOCAL_STORE) {
        let (at, hw, want) = (*at, *hw, *want);
        let word = u32::from(hw[0]) | hw.get(1).map_or(0, |&h| u32::from(h) << 16);
        let d = epsim_isa::decode(word);
        assert_eq!(usize::from(d.len), 2 * hw.len(), "{at:#x}: {want}");
        let got = d.disasm(at, word);
        assert_eq!(
            got.split_whitespace().collect::<Vec<_>>(),
            want.split_whitespace().collect::<Vec<_>>(),
            "{at:#x}"
        );
    }
}

/// Writes the guest into each core (made part of the running group, then
/// reset: idle with only SYNC unmasked, as after e_load) with its job
/// length, and starts them.
fn launch(h: &Host, cores: &[(u32, u32)], turns: &[u32]) {
    launch_guest(h, cores, turns, false);
}

fn launch_guest(h: &Host, cores: &[(u32, u32)], turns: &[u32], local: bool) {
    let ids: Vec<_> = cores
        .iter()
        .map(|&(r, c)| h.core_id(r, c).unwrap())
        .collect();
    let nothing = epsim_loader::LoadPlan::new(0, Vec::new(), Vec::new());
    h.with_machine(|m| m.load_group(&nothing, Path::new("guest"), &ids))
        .unwrap();
    h.reset_cores(cores).unwrap();
    for (&(r, c), &n) in cores.iter().zip(turns) {
        for (at, bytes) in guest_bytes(local) {
            h.write_sram(r, c, at, &bytes).unwrap();
        }
        h.write_sram(r, c, MAILBOX, &n.to_le_bytes()).unwrap();
    }
    h.start(cores).unwrap();
}

/// Gives each core a new job and signals it.
fn next_job(h: &Host, cores: &[(u32, u32)], turns: &[u32]) {
    for (&(r, c), &n) in cores.iter().zip(turns) {
        h.write_sram(r, c, MAILBOX, &n.to_le_bytes()).unwrap();
        h.signal(r, c).unwrap();
    }
}

/// The condition, looked at between runs.
fn holds(h: &Host, cores: &[(u32, u32)], any: bool) -> bool {
    let idle = |&(r, c): &(u32, u32)| h.core_idle(r, c).unwrap();
    if any {
        cores.iter().any(idle)
    } else {
        cores.iter().all(idle)
    }
}

/// The timed oracle: steps the chip one cycle at a time until the
/// condition holds; the host's clock then. (Not for functional mode, where
/// a run goes on with the turn of the core the last run's limit cut short,
/// so that runs split at any cycle are one run: between one-cycle runs the
/// cores are not all at the host's clock.)
fn step_until(h: &Host, cores: &[(u32, u32)], any: bool) -> u64 {
    for _ in 0..200_000 {
        if holds(h, cores, any) {
            return h.now();
        }
        h.run(1);
    }
    panic!("never idle");
}

/// What every core has: cycles, instructions, PC, registers, run state.
fn chip_state(h: &Host) -> Vec<String> {
    h.with_machine(|m| {
        m.cores
            .iter()
            .map(|c| {
                format!(
                    "{} cycles={} instret={} pc={:#x} r={:?} run={:?}",
                    c.id, c.stats.cycles, c.stats.instret, c.state.pc, c.state.r, c.run
                )
            })
            .collect()
    })
}

const FOUR: [(u32, u32); 4] = [(0, 0), (1, 2), (2, 1), (3, 3)];

/// Three launches on four cores with different job lengths, waiting for
/// all (or any) after each: the stop cycles, then the chip's state at
/// each stop.
fn launches(timing: Mode, strict: bool, any: bool, oracle: bool) -> (Vec<u64>, Vec<String>) {
    launches_on(&host(timing, strict), any, oracle)
}

fn launches_on(h: &Host, any: bool, oracle: bool) -> (Vec<u64>, Vec<String>) {
    let jobs: [[u32; 4]; 3] = [
        [800, 500, 600, 1000],
        [520, 900, 700, 560],
        [754, 620, 480, 880],
    ];
    let mut stops = Vec::new();
    let mut states = Vec::new();
    for (k, job) in jobs.iter().enumerate() {
        if k == 0 {
            launch(h, &FOUR, job);
        } else {
            next_job(h, &FOUR, job);
        }
        let t0 = h.now();
        let t = if oracle {
            step_until(h, &FOUR, any)
        } else {
            assert!(h.run_until_cores_idle(&FOUR, any, 1_000_000).unwrap());
            h.now()
        };
        assert!(t > t0, "launch {k}: {t} after {t0}");
        stops.push(t);
        states.extend(chip_state(h));
        if any {
            // Let the others finish before the next job.
            assert!(h.run_until_cores_idle(&FOUR, false, 1_000_000).unwrap());
            stops.push(h.now());
            states.extend(chip_state(h));
        }
    }
    // Every job ran: r5 counts them.
    h.with_machine(|m| {
        for &(r, c) in &FOUR {
            assert_eq!(m.cores[(r * 4 + c) as usize].state.r[5], 3, "({r},{c})");
        }
    });
    (stops, states)
}

#[test]
fn all_stops_in_the_first_cycle_every_core_is_idle_in_timed_mode() {
    let (oracle, _) = launches(Mode::Timed, true, false, true);
    let (fast, fast_state) = launches(Mode::Timed, false, false, false);
    let (strict, strict_state) = launches(Mode::Timed, true, false, false);
    assert_eq!(fast, oracle);
    assert_eq!(strict, oracle);
    assert_eq!(fast_state, strict_state);
}

#[test]
fn any_stops_in_the_first_cycle_one_core_is_idle_in_timed_mode() {
    let (oracle, _) = launches(Mode::Timed, true, true, true);
    let (fast, fast_state) = launches(Mode::Timed, false, true, false);
    let (strict, strict_state) = launches(Mode::Timed, true, true, false);
    assert_eq!(fast, oracle);
    assert_eq!(strict, oracle);
    assert_eq!(fast_state, strict_state);
    // (Any is earlier than all for these jobs.)
    assert!(fast[0] < fast[1], "{fast:?}");
}

/// Functional mode: the oracle is the trace. The four cores do not
/// interact, and a core is idle from the cycle after its IDLE (it stores
/// at once in functional mode), so each launch's "any" stop is the cycle
/// after the first of the four cores' IDLEs of that launch, its "all" stop
/// the cycle after the last. Each core issues one IDLE per launch, none
/// before the launch's start (the previous "all" stop). An untraced run
/// stops at the same cycles with the same chip.
#[test]
fn all_and_any_stop_exactly_in_functional_mode() {
    for any in [false, true] {
        let h = host(Mode::Functional, false);
        let path = tmp(&format!("functional-any-{any}.txt"));
        h.trace_start(&path, TraceFormat::Text).unwrap();
        let (stops, states) = launches_on(&h, any, false);
        h.trace_stop().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let by_core = idle_cycles_by_core(&text);
        let idles: Vec<&Vec<u64>> = FOUR
            .iter()
            .map(|&(r, c)| {
                let id = h.core_id(r, c).unwrap();
                &by_core[&format!("{},{}", id.row, id.col)]
            })
            .collect();
        assert_eq!(by_core.len(), 4, "{by_core:?}");
        assert!(
            idles.iter().all(|v| v.len() == 3),
            "one IDLE per launch: {idles:?}"
        );
        let mut want = Vec::new();
        let mut start = 0;
        for k in 0..3 {
            let of_launch: Vec<u64> = idles.iter().map(|v| v[k]).collect();
            assert!(
                of_launch.iter().all(|&t| t >= start),
                "launch {k} starts at {start}: {of_launch:?}"
            );
            let (first, last) = (
                of_launch.iter().min().unwrap(),
                of_launch.iter().max().unwrap(),
            );
            if any {
                want.push(first + 1);
            }
            want.push(last + 1);
            start = last + 1;
        }
        assert_eq!(stops, want, "any={any}: {idles:?}");

        let (plain, plain_states) = launches(Mode::Functional, false, any, false);
        assert_eq!(plain, stops, "any={any}: untraced");
        assert_eq!(plain_states, states, "any={any}: untraced");
    }
}

/// The cycles the traced core's IDLE issued in, from a text trace.
fn idle_cycles(trace: &str) -> Vec<u64> {
    trace
        .lines()
        .filter(|l| l.contains(&format!("{IDLE_PC:08x}")) && l.contains(" idle"))
        .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
        .collect()
}

/// Each core's IDLE cycles, from a text trace, by the core as the trace
/// names it (`row,col` on the mesh).
fn idle_cycles_by_core(trace: &str) -> BTreeMap<String, Vec<u64>> {
    let mut out: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for l in trace.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() >= 4 && f[2] == format!("{IDLE_PC:08x}") && l.contains(" idle") {
            out.entry(f[1].to_string())
                .or_default()
                .push(f[0].parse().unwrap());
        }
    }
    out
}

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    dir.join(format!("idle_watch-{}-{name}", std::process::id()))
}

#[test]
fn a_core_that_stores_nothing_outside_is_idle_from_the_cycle_after_its_idle() {
    for (timing, strict) in [
        (Mode::Timed, false),
        (Mode::Timed, true),
        (Mode::Functional, false),
    ] {
        let h = host(timing, strict);
        let path = tmp(&format!("local-{timing:?}-{strict}.txt"));
        h.trace_start(&path, TraceFormat::Text).unwrap();
        let one = [(3, 1)];
        launch_guest(&h, &one, &[40], true);
        assert!(h.run_until_cores_idle(&one, false, 100_000).unwrap());
        let t1 = h.now();
        next_job(&h, &one, &[120]);
        assert!(h.run_until_cores_idle(&one, true, 100_000).unwrap());
        let t2 = h.now();
        h.trace_stop().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(idle_cycles(&text), [t1 - 1, t2 - 1], "{timing:?}:\n{text}");
        let mut w = [0; 4];
        h.read_sram(3, 1, 0x90, &mut w).unwrap();
        assert_eq!(u32::from_le_bytes(w), 2);
    }
}

/// Timed mode: the core's store into external memory lands some cycles
/// after its IDLE; it is idle (the result is there for the host) from the
/// cycle after.
#[test]
fn the_trace_shows_host_and_core_accesses_and_results_in_dram_are_there_at_the_stop() {
    for timing in [Mode::Timed, Mode::Functional] {
        let h = host(timing, false);
        let path = tmp(&format!("{timing:?}.txt"));
        h.trace_start(&path, TraceFormat::Text).unwrap();
        let one = [(1, 2)];
        launch(&h, &one, &[40]);
        assert!(h.run_until_cores_idle(&one, false, 100_000).unwrap());
        let t1 = h.now();
        next_job(&h, &one, &[120]);
        assert!(h.run_until_cores_idle(&one, false, 100_000).unwrap());
        let t2 = h.now();
        let mut w = [0; 4];
        h.read_dram(0, &mut w).unwrap();
        assert_eq!(u32::from_le_bytes(w), 2);
        h.trace_stop().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let idles = idle_cycles(&text);
        assert_eq!(idles.len(), 2, "{text}");
        for (idle, t) in idles.into_iter().zip([t1, t2]) {
            if timing == Mode::Functional {
                assert_eq!(t, idle + 1);
            } else {
                assert!(idle + 1 < t && t < idle + 100, "{idle} {t}");
            }
        }

        // The host's writes into the core's SRAM (the guest, the job), its
        // start and signal, and its read of DRAM, at the host's clock.
        let host_lines: Vec<&str> = text.lines().filter(|l| l.contains(" host ")).collect();
        let job = format!("host  write  33,10 {MAILBOX:08x} len=4");
        assert_eq!(
            host_lines.iter().filter(|l| l.ends_with(&job)).count(),
            2,
            "{text}"
        );
        assert!(host_lines
            .iter()
            .any(|l| l.ends_with("host  write  33,10 00000042 len=4")));
        assert!(host_lines
            .iter()
            .any(|l| l.ends_with("host  start  33,10 000f042c len=4")));
        assert!(host_lines
            .iter()
            .any(|l| l.ends_with("host  signal 33,10 000f042c len=4")));
        assert!(host_lines
            .iter()
            .any(|l| l.ends_with("host  read   dram  8e000000 len=4")));
        let signal: u64 = host_lines
            .iter()
            .find(|l| l.contains("signal"))
            .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
            .unwrap();
        assert!(t1 < signal && signal < t2);
        // The core's loads of the job and stores into DRAM.
        let ld = text
            .lines()
            .filter(|l| l.contains("ldr r1,[r3]") && l.contains("ld4[0x00000080]=0x00000028"));
        assert_eq!(ld.count(), 1, "{text}");
        for n in 1..=2 {
            let st = "str r5,[r2]";
            let val = format!("st4[0x8e000000]=0x{n:08x}");
            assert!(
                text.lines().any(|l| l.contains(st) && l.contains(&val)),
                "{val}:\n{text}"
            );
        }
        // In cycle order.
        let cycles: Vec<u64> = text
            .lines()
            .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
            .collect();
        assert!(cycles.windows(2).all(|w| w[0] <= w[1]), "{text}");
    }
}

#[test]
fn json_host_records_name_the_target_and_length() {
    let h = host(Mode::Timed, false);
    let path = tmp("trace.jsonl");
    h.trace_start(&path, TraceFormat::Json).unwrap();
    let one = [(0, 0)];
    launch(&h, &one, &[5]);
    assert!(h.run_until_cores_idle(&one, false, 100_000).unwrap());
    let mut b = [0; 8];
    h.read_dram(16, &mut b).unwrap();
    h.read_reg(0, 0, reg::STATUS).unwrap();
    h.trace_stop().unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let host: Vec<&serde_json::Value> = lines.iter().filter(|v| v.get("host").is_some()).collect();
    let last = host[host.len() - 1];
    assert_eq!(last["host"], "read");
    assert_eq!(last["core"], serde_json::json!([32, 8]));
    assert_eq!(last["addr"], 0xF0404);
    assert_eq!(last["len"], 4);
    let dram = host[host.len() - 2];
    assert_eq!(dram["host"], "read");
    assert_eq!(dram["core"], serde_json::Value::Null);
    assert_eq!(dram["addr"], 0x8e00_0010u32);
    assert_eq!(dram["len"], 8);
    assert!(host.iter().any(|v| v["host"] == "start"));
    // The core's store into DRAM, with its memory access.
    assert!(lines.iter().any(|v| v["asm"] == "str r5,[r2]"
        && v["mem"]["op"] == "st"
        && v["mem"]["addr"] == 0x8e00_0000u32
        && v["mem"]["value"] == 1));
}

#[test]
fn the_limit_comes_first_with_false_and_the_run_goes_on_from_there() {
    let h = host(Mode::Timed, false);
    let one = [(2, 2)];
    launch(&h, &one, &[250]);
    let t0 = h.now();
    assert!(!h.run_until_cores_idle(&one, false, 100).unwrap());
    assert_eq!(h.now(), t0 + 100);
    assert!(!h.core_idle(2, 2).unwrap());
    assert!(h.run_until_cores_idle(&one, false, 100_000).unwrap());
    let t = h.now();
    // Already idle: at once, the clock unchanged.
    assert!(h.run_until_cores_idle(&one, true, 100_000).unwrap());
    assert_eq!(h.now(), t);
    // A core never started is idle.
    assert!(h.core_idle(3, 3).unwrap());
    assert!(h.run_until_cores_idle(&[(3, 3)], false, 10).unwrap());
    assert_eq!(h.now(), t);
}

#[test]
fn bad_arguments_are_refused_and_change_nothing() {
    let h = host(Mode::Timed, false);
    let t = h.now();
    assert!(matches!(
        h.run_until_cores_idle(&[], false, 10),
        Err(HostError::NoCores)
    ));
    assert!(matches!(
        h.run_until_cores_idle(&[(0, 0), (4, 0)], false, 10),
        Err(HostError::NoCore { row: 4, .. })
    ));
    assert!(h.core_idle(0, 4).is_err());
    assert_eq!(h.now(), t);
    let bad = Path::new("/nonexistent-dir/trace.txt");
    let e = h.trace_start(bad, TraceFormat::Text).unwrap_err();
    assert!(e.to_string().contains("/nonexistent-dir/trace.txt"), "{e}");
    // No trace open: stopping is fine.
    h.trace_stop().unwrap();
}

/// The committed multi-core program firmware/multi/message.elf on the
/// whole chip, loaded as a host program does: core (0,0) wakes every other
/// core out of IDLE through its ILATST, each answers with a remote store
/// and exits. Waiting for the fifteen with all (or any): the same cycle as
/// stepping, in the fast and the strict scheduler.
#[test]
fn cores_woken_by_another_core_end_the_wait_only_when_really_idle() {
    let elf = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../firmware/multi/message.elf");
    let all: Vec<(u32, u32)> = (0..16).map(|k| (k / 4, k % 4)).collect();
    let workers = &all[1..];
    for any in [false, true] {
        let run = |strict: bool, oracle: bool| {
            let h = host(Mode::Timed, strict);
            let g = Workgroup {
                row: 0,
                col: 0,
                rows: 4,
                cols: 4,
            };
            h.load(&elf, g, &all, true).unwrap();
            let t = if oracle {
                step_until(&h, workers, any)
            } else {
                assert!(h.run_until_cores_idle(workers, any, 10_000_000).unwrap());
                h.now()
            };
            assert!(h.run_until_idle(10_000_000));
            let out =
                h.with_machine(|m| String::from_utf8_lossy(m.sys.stdout.captured()).into_owned());
            assert_eq!(out, "[32,8] answers: 15\n");
            (t, chip_state(&h))
        };
        let (oracle, _) = run(true, true);
        let (fast, fast_state) = run(false, false);
        let (strict, strict_state) = run(true, false);
        assert_eq!(fast, oracle, "any={any}");
        assert_eq!(strict, oracle, "any={any}");
        assert_eq!(fast_state, strict_state, "any={any}");
    }
}

/// Launches per second on 16 cores (jobs of about 3000 cycles), as the
/// Python package makes them: a job word and a signal per core, wait for
/// all, read each core's result. `cargo test --release -p epsim-host
/// --test idle_watch launch_rate -- --ignored --nocapture`; with
/// `LAUNCH_RATE_PLAIN_RUN=1` a plain run of the same length replaces the
/// wait, to compare.
#[test]
#[ignore = "a measurement, not a check"]
fn launch_rate() {
    let all: Vec<(u32, u32)> = (0..16).map(|k| (k / 4, k % 4)).collect();
    for (timing, turns) in [
        (Mode::Timed, 600),
        (Mode::Functional, 1500),
        (Mode::Timed, 1),
        (Mode::Functional, 1),
    ] {
        let h = host(timing, false);
        launch(&h, &all, &[turns; 16]);
        assert!(h.run_until_cores_idle(&all, false, 1_000_000).unwrap());
        let n = 2000;
        let (c0, t0) = (h.now(), std::time::Instant::now());
        let mut waited = std::time::Duration::ZERO;
        for _ in 0..n {
            next_job(&h, &all, &[turns; 16]);
            let w = std::time::Instant::now();
            if std::env::var_os("LAUNCH_RATE_PLAIN_RUN").is_some() {
                // The same simulated time with a plain run, to compare.
                h.run(3050);
            } else {
                assert!(h.run_until_cores_idle(&all, false, 1_000_000).unwrap());
            }
            waited += w.elapsed();
            let mut b = [0; 4];
            h.read_dram(0, &mut b).unwrap();
        }
        let s = t0.elapsed().as_secs_f64();
        println!(
            "{timing:?}, {turns} turns: {:.0} launches/s, {:.0} simulated cycles each, \
             {:.1} us per wait",
            n as f64 / s,
            (h.now() - c0) as f64 / n as f64,
            waited.as_secs_f64() * 1e6 / n as f64
        );
    }
}
