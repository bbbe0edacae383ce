//! Read requests from the mesh waiting for a core's memory
//! (`read_service_interval`): many cores polling one core's word with
//! TESTSET, as e-lib's `e_mutex_lock` does (`mutex_work`, `mutex`, and
//! `mutex_scan`, whose holder runs code from DRAM), or reading its SRAM
//! with DMA (`dma_bw`, `debugcmd`). The scheduler keeps
//! them in a queue answered one per interval (`Machine::serve_read`)
//! instead of putting each back in the inbox at every answer; the results
//! must be those of doing so, byte for byte. `answers_as_before` holds the
//! `epsim run --stats` figures of the scheduler before that change (every
//! core's cycles, instructions and stalls by reason, and the program's
//! output; the memo counters and the roll-back count left out), and
//! `fast_is_strict` compares running ahead with strict cycle order.
//! A fault that ends the run leaves every other core where strict order
//! leaves it (`fault_spin`, with pollers parked since long before it),
//! and of several cores faulting in one cycle the first in the machine's
//! order stops it (`elink_south`, `elink_loopback`, `dma_bad`: every
//! core faults alike).
//! `dma_bw` on 16 cores has a core act behind the network (its system
//! call waited for its DMA writes to DRAM to land) and start its DMA
//! engine and wake the moves other engines had refused from there: they
//! and its engine's first move wait for the cycle the network has
//! reached (`Machine::behind_network`); before, they were injected into
//! its past and faulted, and the fast scheduler stopped the other cores
//! 23 cycles before strict order did.

mod common;

use common::{counters, epsim, machine_with_group, output, stats_lines};
use epsim_sim::{Config, Machine};

/// `epsim run --group GROUP --stats ARGS`: the exit status, the program's
/// output and the figures (without the memo and roll-back counts, which
/// depend on how the scheduler ran ahead, not on what it simulated).
fn figures(group: &str, args: &[&str]) -> String {
    let mut all = vec!["run", "--group", group, "--stats"];
    all.extend_from_slice(args);
    let out = epsim(&all);
    let mut s = format!("status: {:?}\n", out.status.code());
    s.push_str(&String::from_utf8_lossy(&out.stdout));
    for line in stats_lines(&out) {
        s.push_str(&line);
        s.push('\n');
    }
    s
}

#[test]
fn answers_as_before() {
    for (name, args) in [
        ("mutex_work", vec!["../firmware/multi/mutex_work.elf"]),
        ("mutex_scan", vec!["../firmware/multi/mutex_scan.elf"]),
        ("mutex", vec!["../firmware/multi/mutex.elf"]),
        ("dma_bw", vec!["../firmware/multi/dma_bw.elf"]),
        (
            "debugcmd",
            vec!["--max-cycles", "3000000", "../firmware/multi/debugcmd.elf"],
        ),
    ] {
        insta::assert_snapshot!(name, figures("4x4", &args));
    }
}

/// `mutex_scan`'s variants (firmware/multi/Makefile): the lock in another
/// SRAM bank with the holder writing the word beside it while the others
/// poll, and five waiters instead of fifteen. The figures are main
/// daea9be's (the scheduler before a read's response went into the mesh
/// in the step that served it, `Machine::serve_read`); `poll_remote`'s
/// main 7a3c98b's (before a poll's runs were done at once, `core::poll`).
#[test]
fn variants_answer_as_before() {
    for (name, group) in [
        ("mutex_scan_near", "4x4"),
        ("mutex_scan_2x3", "2x3"),
        ("poll_remote", "4x4"),
    ] {
        let elf = format!("../firmware/multi/{name}.elf");
        insta::assert_snapshot!(name, figures(group, &[&elf]));
    }
}

/// What a run shows: how it stopped, the output, each core's (cycles,
/// instructions, stalls), the mesh's loads.
type Seen = (String, String, Vec<(u64, u64, Vec<u64>)>, String);

/// firmware/multi/NAME.elf loaded on a group of `rows` x `cols` cores,
/// in strict cycle order or not.
fn machine_on(name: &str, (rows, cols): (u32, u32), strict: bool) -> Machine {
    let mut m: Machine = machine_with_group(
        &format!("multi/{name}.elf"),
        Config::parallella16(),
        rows,
        cols,
    );
    m.strict = strict;
    m
}

/// (On a group of `rows` x `cols` cores.)
fn run_on(name: &str, group: (u32, u32), strict: bool, slice: Option<u64>) -> Seen {
    let mut m = machine_on(name, group, strict);
    let limit = 5_000_000;
    let mut to = slice.unwrap_or(limit);
    let stop = loop {
        let stop = m.run(Some(to));
        match stop {
            epsim_sim::StopReason::CycleLimit { .. } if to < limit => {
                to = (to + slice.unwrap_or(limit)).min(limit);
            }
            stop => break stop,
        }
    };
    (
        format!("{stop:?}"),
        output(&m),
        counters(&m),
        format!("{:?}", m.view().mesh),
    )
}

#[test]
fn fast_is_strict() {
    for (name, group) in [
        ("mutex_work", (4, 4)),
        ("mutex_scan", (4, 4)),
        ("mutex", (4, 4)),
        ("mutex_scan_near", (4, 4)),
        ("mutex_scan_2x3", (2, 3)),
        ("poll_remote", (4, 4)),
        ("fault_spin", (4, 4)),
        ("fault_spin5", (4, 4)),
        ("elink_south", (4, 4)),
        ("elink_loopback", (4, 4)),
        ("dma_bad", (4, 4)),
        ("dma_bw", (4, 4)),
    ] {
        let strict = run_on(name, group, true, None);
        assert!(!strict.0.contains("CycleLimit"), "{name}: {}", strict.0);
        for (how, slice) in [("fast", None), ("fast in slices of 997", Some(997))] {
            let fast = run_on(name, group, false, slice);
            assert_eq!(fast.0, strict.0, "{name}: stop, {how} against strict");
            assert_eq!(fast.1, strict.1, "{name}: output, {how}");
            assert_eq!(fast.2, strict.2, "{name}: per-core counters, {how}");
            assert_eq!(fast.3, strict.3, "{name}: mesh statistics, {how}");
        }
    }
}

/// The programs above whose cores poll another core's memory have runs of
/// their polling loops done at once (`core::poll`) in fast mode, so
/// `fast_is_strict` compares that with strict order; strict order does
/// none.
#[test]
fn polls_done_at_once() {
    for (name, group) in [("mutex_scan", (4, 4)), ("poll_remote", (4, 4))] {
        for strict in [false, true] {
            let mut m = machine_on(name, group, strict);
            m.run(Some(5_000_000));
            let n = m.poll_repeats();
            assert_eq!(
                n > 0,
                !strict,
                "{name}: {n} runs done at once, strict {strict}"
            );
        }
    }
}
