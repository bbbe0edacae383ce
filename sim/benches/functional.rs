//! Simulated instructions per second of a long single-core compute program
//! (recursive Fibonacci, `firmware/bench/fib-internal.elf`, entirely in SRAM)
//! in functional mode.
//!
//! Run: `cargo bench -p epsim-sim --bench functional`. Criterion reports
//! the throughput in elements (= simulated instructions) per second.

use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use epsim_sim::{Config, Machine, StopReason, Syscalls};

fn firmware(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../firmware/bench")
        .join(name)
}

fn machine(path: &PathBuf) -> Machine {
    let config = Config::parallella16();
    let plan = epsim_loader::load_file(path, &config.load_target()).expect("bench ELF loads");
    let mut m = Machine::single_core(config, Syscalls::captured(vec!["fib".into()], Vec::new()));
    m.load(&plan, path).expect("bench ELF fits");
    m
}

fn fib(c: &mut Criterion) {
    let path = firmware("fib-internal.elf");
    // One run to learn the instruction count (the throughput unit).
    let mut probe = machine(&path);
    let stop = probe.run(None);
    assert!(
        matches!(stop, StopReason::Exit { status: 0, .. }),
        "fib ended with {stop:?}"
    );
    let instructions = probe.instret();

    let mut g = c.benchmark_group("functional");
    g.sample_size(10);
    g.throughput(Throughput::Elements(instructions));
    g.bench_function("fib_1core", |b| {
        b.iter_batched(
            || machine(&path),
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

criterion_group!(benches, fib);
criterion_main!(benches);
