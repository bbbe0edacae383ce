//! A run stopped at a cycle limit and resumed ends as one run does (the
//! `epsim` binary runs in slices so that it can stop on a signal, as the
//! TUI and libe-hal's `epsim_run` do).

mod common;

use epsim_sim::core::RunState;
use epsim_sim::{Config, Machine, StopReason, Syscalls};

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

/// Runs `m` in slices of `slice` cycles; with `tolerate`, an AllHalted or
/// AllIdle stop while a core of the group is still running is taken for
/// the cycle limit it should have been (what the `epsim` binary does).
fn sliced(m: &mut Machine, slice: u64, tolerate: bool) -> StopReason {
    loop {
        let to = m.now + slice;
        match m.run(Some(to)) {
            StopReason::CycleLimit { .. } => {}
            StopReason::AllHalted | StopReason::AllIdle
                if tolerate && m.group().any(|c| c.run == RunState::Running) => {}
            other => return other,
        }
    }
}

#[test]
#[ignore = "sched.rs: in timed mode, run(Some(limit)) with the limit inside a stall (argv_check \
            -- a: cycles 458738..=458752, an ext-fetch stall at pc 0x8e000594) returns \
            AllHalted while the core is Running; reported with issue 14"]
fn a_run_resumed_after_a_cycle_limit_ends_as_one_run() {
    let mut whole = argv_check("a");
    let end = whole.run(None);
    for limit in [458_738, 458_752] {
        let mut m = argv_check("a");
        assert_eq!(m.run(Some(limit)), StopReason::CycleLimit { cycles: limit });
        assert_eq!(m.run(None), end);
    }
    let mut m = argv_check("a");
    assert_eq!(sliced(&mut m, 1 << 16, false), end);
}

#[test]
#[ignore = "sched.rs: timed runs resumed after a cycle limit are not exact (argv_check -- a: \
            2398038 cycles in one run, 2397986 in slices of 10000); reported with issue 14"]
fn sliced_runs_end_as_one_run() {
    let mut whole = argv_check("a");
    let end = whole.run(None);
    assert!(matches!(end, StopReason::Exit { status: 0, .. }), "{end:?}");
    for slice in [1u64 << 20, 1 << 16, 10_000, 4096, 1000] {
        let mut m = argv_check("a");
        assert_eq!(sliced(&mut m, slice, true), end, "slices of {slice}");
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
fn the_binarys_slices_end_the_run_as_it_should() {
    // What `epsim run` does: slices of 2^20 cycles at fixed boundaries,
    // an AllHalted with a core still running taken for the slice's end.
    let mut whole = argv_check("a");
    let end = whole.run(None);
    let mut m = argv_check("a");
    assert_eq!(sliced(&mut m, 1 << 20, true), end);
    assert_eq!(m.now, whole.now);
    assert_eq!(m.instret(), whole.instret());
    assert_eq!(m.sys.stdout.captured(), whole.sys.stdout.captured());
}
