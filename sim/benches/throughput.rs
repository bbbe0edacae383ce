//! Simulated instructions per second of a long single-core compute program
//! (recursive Fibonacci, `firmware/bench/fib-internal.elf`, entirely in
//! SRAM), in functional mode, in timed mode, and in timed mode with a trace
//! written to a sink (the cost of tracing when it is on; when it is off the
//! loop is compiled without it). The groups `dram_timed` and
//! `dram_functional` run the programs with their code in DRAM
//! (`fib-dram`, `vla-dram`, `strcmp-dram`: code and data in DRAM, stack in
//! SRAM, 29-32 M instructions each) in both modes.
//!
//! Run: `cargo bench -p epsim-sim --bench throughput`. Criterion reports
//! the throughput in elements (= simulated instructions) per second.

use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use epsim_sim::trace::{Trace, TraceFilter, TraceFormat};
use epsim_sim::{Config, Machine, Mode, StopReason, Syscalls};

fn firmware(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../firmware/bench")
        .join(name)
}

fn machine(path: &PathBuf, mode: Mode) -> Machine {
    let mut config = Config::parallella16();
    config.mode = mode;
    let plan = epsim_loader::load_file(path, &config.load_target()).expect("bench ELF loads");
    let mut m = Machine::new(config, Syscalls::captured(vec!["fib".into()], Vec::new()))
        .expect("a valid configuration");
    m.load(&plan, path).expect("bench ELF fits");
    m
}

fn bench(c: &mut Criterion, group: &str, elf: &str, mode: Mode, traced: bool) {
    let path = firmware(elf);
    // One run to learn the instruction count (the throughput unit).
    let mut probe = machine(&path, mode);
    let stop = probe.run(None);
    assert!(
        matches!(stop, StopReason::Exit { status: 0, .. }),
        "{elf} ended with {stop:?}"
    );
    let instructions = probe.instret();
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    g.throughput(Throughput::Elements(instructions));
    g.bench_function(elf.trim_end_matches(".elf"), |b| {
        b.iter_batched(
            || {
                let mut m = machine(&path, mode);
                if traced {
                    m.trace = Some(Trace::new(
                        Box::new(std::io::sink()),
                        TraceFormat::Text,
                        TraceFilter::default(),
                    ));
                }
                m
            },
            |mut m| {
                let stop = m.run(None);
                assert!(matches!(stop, StopReason::Exit { .. }));
                m
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

fn functional(c: &mut Criterion) {
    bench(c, "functional", "fib-internal.elf", Mode::Functional, false);
}

fn timed(c: &mut Criterion) {
    bench(c, "timed", "fib-internal.elf", Mode::Timed, false);
}

fn traced(c: &mut Criterion) {
    bench(c, "timed_traced", "fib-short.elf", Mode::Timed, true);
}

const DRAM_CODE: [&str; 3] = ["fib-dram.elf", "vla-dram.elf", "strcmp-dram.elf"];

fn dram_timed(c: &mut Criterion) {
    for elf in DRAM_CODE {
        bench(c, "dram_timed", elf, Mode::Timed, false);
    }
}

fn dram_functional(c: &mut Criterion) {
    for elf in DRAM_CODE {
        bench(c, "dram_functional", elf, Mode::Functional, false);
    }
}

criterion_group!(
    benches,
    functional,
    timed,
    traced,
    dram_timed,
    dram_functional
);
criterion_main!(benches);
