//! Simulated instructions per second, all cores together, of a multi-core
//! workload on the 4x4 E16G301 and the 8x8 E64G401 (`firmware/multi/
//! compute.c`: every core multiplies integer matrices in its SRAM, then
//! reports to core (0,0) through the mesh), in exact timed mode and in
//! functional mode.
//!
//! `dma_stream` (issue 16): the 16 cores each write a region of DRAM,
//! then stream it back into SRAM by DMA, double buffered, checksumming
//! each block while the next arrives; its cost is the scheduler's work for
//! stalled stores, refused injections and DMA engines, not instructions.
//! `dma_stream_long` is the same with 64 blocks per core (16 times the
//! work), for comparing the two modes.
//!
//! `poll16` (issue 16): the 16 cores pass messages as ePython's runtime
//! does, each spinning on a flag in its own SRAM; timed mode, run ahead,
//! its throughput in simulated cycles (elements = cycles of the slowest
//! core) per second.
//!
//! `mutex_work` (issues 15, 16): the 16 cores take one TESTSET lock on
//! core (0,0) as e-lib's `e_mutex_lock` does, the waiting cores polling
//! it through the mesh while the holder works on a list in DRAM (Epiphany
//! BSP's `ebsp_ext_malloc`); timed mode.
//!
//! Run: `cargo bench -p epsim-sim --bench multicore`. Criterion reports
//! the throughput in elements (= simulated instructions, all cores) per
//! second.

use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use epsim_sim::{Config, CoreId, Machine, Mode, StopReason, Syscalls};

fn machine(elf: &str, config: &Config) -> Machine {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../firmware/multi")
        .join(elf);
    let plan = epsim_loader::load_file(&path, &config.load_target()).expect("bench ELF loads");
    let group: Vec<CoreId> = (0..config.rows * config.cols)
        .map(|i| config.core_at(i as usize))
        .collect();
    let mut m = Machine::new(
        config.clone(),
        Syscalls::captured(vec![elf.into()], Vec::new()),
    )
    .expect("a valid configuration");
    m.load_group(&plan, &path, &group).expect("bench ELF fits");
    m
}

fn bench(c: &mut Criterion, group: &str, elf: &str, mut config: Config, mode: Mode) {
    config.mode = mode;
    let mut probe = machine(elf, &config);
    let stop = probe.run(None);
    assert!(
        matches!(stop, StopReason::Exit { status: 0, .. }),
        "{elf} ended with {stop:?}"
    );
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    g.throughput(Throughput::Elements(probe.instret()));
    g.bench_function(elf.trim_end_matches(".elf"), |b| {
        b.iter_batched(
            || machine(elf, &config),
            |mut m| {
                let stop = m.run(None);
                assert!(matches!(stop, StopReason::Exit { status: 0, .. }));
                m
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

fn e16(c: &mut Criterion) {
    bench(
        c,
        "e16_timed",
        "compute.elf",
        Config::parallella16(),
        Mode::Timed,
    );
    bench(
        c,
        "e16_functional",
        "compute.elf",
        Config::parallella16(),
        Mode::Functional,
    );
}

fn e64(c: &mut Criterion) {
    bench(c, "e64_timed", "compute64.elf", Config::e64(), Mode::Timed);
    bench(
        c,
        "e64_functional",
        "compute64.elf",
        Config::e64(),
        Mode::Functional,
    );
}

fn dma_stream(c: &mut Criterion) {
    bench(
        c,
        "dma_stream_timed",
        "dma_stream.elf",
        Config::parallella16(),
        Mode::Timed,
    );
    bench(
        c,
        "dma_stream_functional",
        "dma_stream.elf",
        Config::parallella16(),
        Mode::Functional,
    );
    // 64 blocks per core: the functional run well above set-up costs.
    for (group, mode) in [
        ("dma_stream_timed", Mode::Timed),
        ("dma_stream_functional", Mode::Functional),
    ] {
        bench(
            c,
            group,
            "dma_stream_long.elf",
            Config::parallella16(),
            mode,
        );
    }
}

fn poll16(c: &mut Criterion) {
    let config = Config::parallella16();
    let mut probe = machine("poll16.elf", &config);
    let stop = probe.run(None);
    assert!(
        matches!(stop, StopReason::Exit { status: 0, .. }),
        "poll16.elf ended with {stop:?}"
    );
    let cycles = probe.group().map(|c| c.stats.cycles).max().unwrap_or(0);
    let mut g = c.benchmark_group("poll16_timed_cycles");
    g.sample_size(10);
    g.throughput(Throughput::Elements(cycles));
    g.bench_function("poll16", |b| {
        b.iter_batched(
            || machine("poll16.elf", &config),
            |mut m| {
                let stop = m.run(None);
                assert!(matches!(stop, StopReason::Exit { status: 0, .. }));
                m
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

fn mutex_work(c: &mut Criterion) {
    bench(
        c,
        "mutex_work_timed",
        "mutex_work.elf",
        Config::parallella16(),
        Mode::Timed,
    );
}

criterion_group!(benches, e16, e64, dma_stream, poll16, mutex_work);
criterion_main!(benches);
