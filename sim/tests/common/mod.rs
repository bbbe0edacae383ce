//! Shared by the sim crate's integration tests: a machine running raw
//! bytes or a committed firmware ELF, and the `epsim` binary. (Each test
//! crate uses only some of these.)
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

use epsim_loader::{Flags, LoadPlan, Region, Segment};
use epsim_sim::{Config, CoreId, FaultPolicy, Machine, StopReason, Syscalls};

/// A single-core machine with `code` loaded at local address 0 (the entry
/// point), captured standard streams and no access to host files.
pub fn machine_with_code(code: Vec<u8>, policy: FaultPolicy) -> Machine {
    let seg = Segment {
        index: 0,
        vaddr: 0,
        region: Region::Local { offset: 0 },
        flags: Flags {
            read: true,
            write: true,
            exec: true,
        },
        data: code,
        zero_fill: 0,
    };
    let plan = LoadPlan::new(0, vec![seg], Vec::new());
    let mut config = Config::parallella16();
    config.fault_policy = policy;
    let mut m = Machine::new(config, Syscalls::captured(vec!["test".into()], Vec::new()))
        .expect("a valid configuration");
    m.load(&plan, std::path::Path::new("test.elf"))
        .expect("loads");
    m
}

/// A single-core machine configured by `config` with `firmware/REL`
/// loaded, captured standard streams and no access to host files.
pub fn machine_with_elf(rel: &str, config: Config) -> Machine {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../firmware")
        .join(rel);
    let plan = epsim_loader::load_file(&path, &config.load_target())
        .unwrap_or_else(|e| panic!("{rel} loads: {e}"));
    let name = path
        .file_name()
        .and_then(|f| f.to_str())
        .unwrap_or("test")
        .to_string();
    let mut m = Machine::new(config, Syscalls::captured(vec![name], Vec::new()))
        .expect("a valid configuration");
    m.load(&plan, &path).expect("fits");
    m
}

/// A machine configured by `config` with `firmware/REL` loaded onto
/// `group` (chip-relative rows x cols from the first core), captured
/// standard streams.
pub fn machine_with_group(rel: &str, config: Config, rows: u32, cols: u32) -> Machine {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../firmware")
        .join(rel);
    let plan = epsim_loader::load_file(&path, &config.load_target())
        .unwrap_or_else(|e| panic!("{rel} loads: {e}"));
    let group: Vec<CoreId> = (0..rows)
        .flat_map(|r| (0..cols).map(move |c| (r, c)))
        .map(|(r, c)| CoreId::new(config.first_row + r, config.first_col + c))
        .collect();
    let mut m = Machine::new(config, Syscalls::captured(vec![rel.into()], Vec::new()))
        .expect("a valid configuration");
    m.load_group(&plan, &path, &group).expect("fits");
    m
}

/// Runs the `epsim` binary with `args` in the crate directory.
pub fn epsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_epsim"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("epsim runs")
}

/// Runs `m` until its program exits with status 0: in one run of up to
/// `limit` cycles, or (`slice`) in runs of that many cycles each, the
/// machine stopping and going on between them; panics naming `what` on
/// any other stop.
pub fn run_to_exit(m: &mut Machine, limit: u64, slice: Option<u64>, what: &str) {
    let mut to = slice.unwrap_or(limit);
    loop {
        match m.run(Some(to)) {
            StopReason::Exit { status: 0, .. } => return,
            StopReason::CycleLimit { .. } if slice.is_some() && to < limit => {
                to += slice.unwrap_or(limit);
            }
            stop => panic!("{what}: {stop:?}"),
        }
    }
}

/// What the program printed.
pub fn output(m: &Machine) -> String {
    String::from_utf8_lossy(m.sys.stdout.captured()).into_owned()
}

/// Each core of the group's (cycles, instructions, stall cycles by
/// reason).
pub fn counters(m: &Machine) -> Vec<(u64, u64, Vec<u64>)> {
    m.group()
        .map(|c| (c.stats.cycles, c.stats.instret, c.stats.stalls.to_vec()))
        .collect()
}

/// Each core's (cycles, instructions, stall cycles by reason).
pub type PerCore = Vec<(u64, u64, Vec<u64>)>;

/// Runs firmware/multi/NAME.elf on the 4x4 chip in timed mode: with the
/// scheduler's run-ahead (`strict` false) or one cycle at a time, in one
/// run or (`slice`) in runs of that many cycles. The output and each
/// core's counters.
pub fn timed(name: &str, strict: bool, slice: Option<u64>) -> (String, PerCore) {
    let mut m = machine_with_group(&format!("multi/{name}.elf"), Config::parallella16(), 4, 4);
    m.strict = strict;
    let what = format!("{name} (strict {strict}, slice {slice:?})");
    run_to_exit(&mut m, 5_000_000, slice, &what);
    (output(&m), counters(&m))
}

/// Runs NAME fast, fast in slices of 997 cycles, and strict; asserts the
/// three agree on the output and on every core's counters; returns the
/// output.
pub fn fast_is_strict(name: &str) -> String {
    let strict = timed(name, true, None);
    let fast = timed(name, false, None);
    let sliced = timed(name, false, Some(997));
    for (how, run) in [("fast", &fast), ("fast in slices", &sliced)] {
        assert_eq!(run.0, strict.0, "{name}: output, {how} against strict");
        for (i, (a, b)) in run.1.iter().zip(&strict.1).enumerate() {
            assert_eq!(
                a, b,
                "{name}: core {i}'s (cycles, instructions, stalls), {how} against strict"
            );
        }
    }
    strict.0
}

/// A run's `--stats` lines (its stderr) but the host-side counts of
/// replayed block schedules and roll-backs, which depend on how the
/// scheduler ran ahead, not on what it simulated.
pub fn stats_lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter(|l| !l.contains("block schedules") && !l.contains("rolled back"))
        .map(str::to_string)
        .collect()
}

/// Runs `epsim run --stats ARGS` with the scheduler's run-ahead and with
/// `--strict`, and asserts the same exit status, output and statistics
/// ([`stats_lines`]); returns the first run's.
pub fn same_as_strict(args: &[&str]) -> Output {
    let with = |extra: &[&str]| {
        let mut all = vec!["run", "--stats"];
        all.extend_from_slice(extra);
        all.extend_from_slice(args);
        epsim(&all)
    };
    let (fast, strict) = (with(&[]), with(&["--strict"]));
    assert_eq!(fast.status.code(), strict.status.code(), "{args:?}");
    assert_eq!(
        String::from_utf8_lossy(&fast.stdout),
        String::from_utf8_lossy(&strict.stdout),
        "{args:?}"
    );
    assert_eq!(stats_lines(&fast), stats_lines(&strict), "{args:?}");
    fast
}
