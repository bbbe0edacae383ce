//! A run stopped at a cycle limit and resumed ends as one run does (the
//! `epsim` binary runs in slices so that it can stop on a signal, as the
//! TUI and libe-hal's `epsim_run` do).

mod common;

use std::sync::{Arc, Mutex};

use epsim_isa::ArchState;
use epsim_sim::core::{CoreStats, RunState};
use epsim_sim::trace::{Trace, TraceFilter, TraceFormat};
use epsim_sim::{Config, Machine, Mode, StopReason, Syscalls};

fn argv_check(arg: &str) -> Machine {
    let config = Config::parallella16();
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../firmware/tests/argv_check-O2.elf");
    let plan = epsim_loader::load_file(&path, &config.load_target()).expect("loads");
    let sys = Syscalls::captured(vec!["argv_check".into(), arg.into()], Vec::new());
    let mut m = Machine::new(config, sys).expect("config");
    m.load(&plan, &path).expect("fits");
    m
}

/// Two cycles in which argv_check's only core waits for a load from DRAM
/// (at pc 0x8e000594), with nothing but the request or its response in
/// the mesh: the first and last cycles of the mesh's spells before and
/// after the DRAM read (the timing model of sim/TIMING.md). With another
/// model they are ordinary cycles, and the test still holds.
const LIMIT_IN_STALL: (u64, u64) = (458_564, 459_087);

/// Runs `m` in slices of `slice` cycles.
fn sliced(m: &mut Machine, slice: u64) -> StopReason {
    loop {
        let to = m.now + slice;
        match m.run(Some(to)) {
            StopReason::CycleLimit { .. } => {}
            other => return other,
        }
    }
}

#[test]
fn a_run_stopped_inside_a_stall_stops_at_its_limit_and_resumes() {
    // A limit in the cycles a core waits for a load from DRAM (nothing
    // but the request in flight: the core is running, no agent acts
    // before the response arrives) is where the run stops.
    let mut whole = argv_check("a");
    let end = whole.run(None);
    for limit in [LIMIT_IN_STALL.0, LIMIT_IN_STALL.1] {
        let mut m = argv_check("a");
        assert_eq!(m.run(Some(limit)), StopReason::CycleLimit { cycles: limit });
        assert_eq!(m.now, limit);
        assert!(m.group().all(|c| c.run == RunState::Running));
        assert_eq!(m.run(None), end);
        assert_eq!((m.now, m.instret()), (whole.now, whole.instret()));
    }
}

#[test]
fn sliced_runs_end_as_one_run() {
    let mut whole = argv_check("a");
    let end = whole.run(None);
    assert!(matches!(end, StopReason::Exit { status: 0, .. }), "{end:?}");
    for slice in [1u64 << 20, 1 << 16, 10_000, 4096, 1000] {
        let mut m = argv_check("a");
        assert_eq!(sliced(&mut m, slice), end, "slices of {slice}");
        assert_eq!(m.now, whole.now, "slices of {slice}");
        assert_eq!(m.instret(), whole.instret(), "slices of {slice}");
        assert_eq!(
            m.sys.stdout.captured(),
            whole.sys.stdout.captured(),
            "slices of {slice}"
        );
    }
}

#[test]
fn running_ahead_fetches_code_from_dram_as_strict_order_does() {
    // An instruction whose two halves lie in two lines of DRAM code,
    // reached while the core runs ahead (the machine times both lines),
    // issues when it does cycle by cycle (the core times them).
    let mut fast = argv_check("a");
    let mut strict = argv_check("a");
    strict.strict = true;
    assert_eq!(fast.run(None), strict.run(None));
    assert_eq!((fast.now, fast.instret()), (strict.now, strict.instret()));
    let (f, s) = (fast.group().next(), strict.group().next());
    assert_eq!(f.map(|c| c.stats), s.map(|c| c.stats));
}

/// What a run shows: why it stopped, the machine's cycle, its output,
/// each core's state and counters, and its trace.
#[derive(Debug, PartialEq)]
struct Observed {
    stop: StopReason,
    now: u64,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    cores: Vec<(RunState, CoreStats, ArchState)>,
    trace: Vec<u8>,
}

/// A trace sink the test reads back.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Buffer {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("trace buffer").extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// How a machine is run: its mode, the timed scheduler's `strict`,
/// whether it is traced, and the cycle it stops at if it has not ended.
#[derive(Clone, Copy, Debug)]
struct Way {
    mode: Mode,
    strict: bool,
    traced: bool,
    max: u64,
}

/// A program of the test: a single-core corpus ELF with its arguments,
/// or a multi-core one on a group of rows x columns from the chip's first
/// core.
#[derive(Clone, Copy, Debug)]
enum Program {
    Single(&'static str, &'static [&'static str]),
    Multi(&'static str, u32, u32),
}

impl Program {
    fn machine(self, way: Way) -> Machine {
        let mut config = Config::parallella16();
        config.mode = way.mode;
        let mut m = match self {
            Program::Single(rel, args) => {
                let mut m = common::machine_with_elf(rel, config);
                let mut argv = vec![rel.to_string()];
                argv.extend(args.iter().map(|a| a.to_string()));
                m.sys = Syscalls::captured(argv, Vec::new());
                m
            }
            Program::Multi(rel, rows, cols) => common::machine_with_group(rel, config, rows, cols),
        };
        m.strict = way.strict;
        m
    }
}

/// Runs `m` to its end (at most `way.max` cycles) in slices whose
/// lengths repeat `slices` (none: in one run), and what it shows.
fn observe(mut m: Machine, way: Way, slices: &[u64]) -> Observed {
    let max = way.max;
    let buf = Buffer::default();
    if way.traced {
        m.trace = Some(Trace::new(
            Box::new(buf.clone()),
            TraceFormat::Text,
            TraceFilter::default(),
        ));
    }
    let stop = if slices.is_empty() {
        m.run(Some(max))
    } else {
        let mut k = 0;
        loop {
            let to = (m.now + slices[k % slices.len()]).min(max);
            k += 1;
            match m.run(Some(to)) {
                StopReason::CycleLimit { cycles } if cycles < max => {
                    assert_eq!(cycles, to, "the run stopped at its limit");
                    assert_eq!(m.now, to, "the machine's cycle is the limit");
                }
                other => break other,
            }
        }
    };
    if let Some(t) = m.trace.as_mut() {
        t.finish().expect("trace written");
    }
    let cores = m
        .group()
        .map(|c| (c.run, c.stats, c.state.clone()))
        .collect();
    let trace = buf.0.lock().expect("trace buffer").clone();
    Observed {
        stop,
        now: m.now,
        stdout: m.sys.stdout.captured().to_vec(),
        stderr: m.sys.stderr.captured().to_vec(),
        cores,
        trace,
    }
}

/// Where two observations first differ, for the failure message.
fn first_difference(a: &Observed, b: &Observed) -> String {
    if a.stop != b.stop || a.now != b.now {
        return format!(
            "stop {:?} at {} vs {:?} at {}",
            a.stop, a.now, b.stop, b.now
        );
    }
    if a.stdout != b.stdout || a.stderr != b.stderr {
        return "output".into();
    }
    for (k, (x, y)) in a.cores.iter().zip(&b.cores).enumerate() {
        if x != y {
            return format!("core {k}: {x:?} vs {y:?}");
        }
    }
    let (ta, tb) = (
        String::from_utf8_lossy(&a.trace),
        String::from_utf8_lossy(&b.trace),
    );
    match ta.lines().zip(tb.lines()).position(|(x, y)| x != y) {
        Some(n) => format!(
            "trace line {}: {:?} vs {:?}",
            n + 1,
            ta.lines().nth(n),
            tb.lines().nth(n)
        ),
        None => format!(
            "trace lengths {} vs {}",
            ta.lines().count(),
            tb.lines().count()
        ),
    }
}

/// The longest run of the test (every program ends before it).
const END: u64 = 20_000_000;

/// Runs `program` once and in slices of several lengths, in timed mode
/// (running ahead and in strict order, traced and not) and functional
/// mode (traced and not), and asserts that every split run ends as the
/// one run does: the same stop, cycle, output, per-core state and
/// counters, and trace. Strict order and traces are slow: those runs
/// stop at `slow` cycles (a cycle limit, the same for the split runs) if
/// the program has not ended by then.
fn splits_end_as_one_run(program: Program, slow: u64) {
    let ways = [
        Way {
            mode: Mode::Timed,
            strict: false,
            traced: false,
            max: END,
        },
        Way {
            mode: Mode::Timed,
            strict: true,
            traced: false,
            max: slow,
        },
        Way {
            mode: Mode::Timed,
            strict: false,
            traced: true,
            max: slow,
        },
        Way {
            mode: Mode::Functional,
            strict: false,
            traced: false,
            max: END,
        },
        Way {
            mode: Mode::Functional,
            strict: false,
            traced: true,
            max: slow,
        },
    ];
    // Slice lengths, taken in turn: single cycles and odd lengths, which
    // fall anywhere (in stalls, in a core's run ahead, between a packet's
    // hops), and lengths longer than the run-ahead window.
    let schedules: [&[u64]; 5] = [
        &[1000],
        &[10_000],
        &[65_536 + 3],
        &[1, 1, 2, 1, 3, 5_003],
        &[7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 9_973],
    ];
    for way in ways {
        let whole = observe(program.machine(way), way, &[]);
        assert!(
            whole.stop != StopReason::CycleLimit { cycles: END },
            "{program:?} {way:?}: ends",
        );
        for slices in schedules {
            let part = observe(program.machine(way), way, slices);
            assert!(
                part == whole,
                "{program:?} {way:?} in slices of {slices:?}: {}",
                first_difference(&part, &whole)
            );
        }
    }
}

#[test]
fn single_core_runs_split_anywhere_end_as_one_run() {
    // Code and data in DRAM (fetches timed by the core or by the machine,
    // a line or two per instruction, loads waiting on the mesh), system
    // calls that read the clock or find no input.
    splits_end_as_one_run(Program::Single("tests/argv_check-O2.elf", &["a"]), 100_000);
    splits_end_as_one_run(Program::Single("tests/time_of_day-O2.elf", &[]), 100_000);
    splits_end_as_one_run(Program::Single("tests/stdin_empty-O2.elf", &[]), 100_000);
}

#[test]
fn multi_core_runs_split_anywhere_end_as_one_run() {
    // Barriers, interrupts, TESTSET, DRAM shared and fetched from by every
    // core, code fetched from another core, DMA, multicast stores; lines
    // of output split across runs.
    for (name, rows, cols, slow) in [
        ("multi/barrier.elf", 4, 4, END),
        ("multi/message.elf", 4, 4, END),
        ("multi/mutex.elf", 4, 4, 30_000),
        ("multi/dram_share.elf", 4, 4, 30_000),
        ("multi/dram_fetch.elf", 4, 4, 20_000),
        ("multi/remote_fetch.elf", 4, 4, END),
        ("multi/dma_copy.elf", 2, 2, 30_000),
        ("multi/multicast.elf", 4, 4, 5_000),
    ] {
        splits_end_as_one_run(Program::Multi(name, rows, cols), slow);
    }
}
