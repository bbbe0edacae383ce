//! End to end: every program of the C corpus (`firmware/tests`, listed in
//! `manifest.txt`), at each optimisation level it was built with, runs on
//! one simulated core, with the manifest's stdin and arguments, and must
//! print exactly its expected stdout (and stderr, where a `.stderr` file
//! exists) and exit with its expected status.
//! The expectations come from building the same sources with the host's C
//! compiler (`make -C firmware expected`). The expectations are checked in
//! functional mode; every run must then retire the same instructions with
//! the same results in timed mode.

use std::path::{Path, PathBuf};

use epsim_sim::{Config, Machine, Mode, StopReason, Syscalls};

/// No corpus program needs more instructions; hitting the limit is a
/// failure, not a hang.
const MAX_CYCLES: u64 = 400_000_000;
/// Timed mode: code and data in DRAM cost hundreds of cycles per access,
/// which costs the simulator nothing; the limit is in cycles.
const MAX_CYCLES_TIMED: u64 = 400_000_000_000;

/// What a run produced.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    status: i32,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    instret: u64,
    cycles: u64,
}

struct Entry {
    name: String,
    status: i32,
    stdin: Option<PathBuf>,
    /// Arguments after argv[0], from the file the args column names (one
    /// per line).
    args: Vec<String>,
}

impl Entry {
    /// The bytes the program reads on stdin.
    fn stdin_bytes(&self) -> Vec<u8> {
        self.stdin
            .as_ref()
            .map(|p| std::fs::read(p).expect("stdin file"))
            .unwrap_or_default()
    }
}

/// Calls `f` with every build of every corpus program, its argv and its
/// stdin; returns how many runs that was.
fn each_run(mut f: impl FnMut(&Path, Vec<String>, Vec<u8>)) -> usize {
    let mut runs = 0;
    for e in manifest() {
        let stdin = e.stdin_bytes();
        for elf in builds(&e.name) {
            runs += 1;
            f(&elf, argv_for(&elf, &e.args), stdin.clone());
        }
    }
    runs
}

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../firmware/tests")
}

fn manifest() -> Vec<Entry> {
    let dir = corpus_dir();
    let text = std::fs::read_to_string(dir.join("manifest.txt")).expect("manifest.txt");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert!(f.len() >= 3, "manifest line `{l}`");
            Entry {
                name: f[0].to_string(),
                status: f[2].parse().expect("status is a number"),
                stdin: f.get(3).filter(|s| **s != "-").map(|s| dir.join(s)),
                args: f
                    .get(4)
                    .filter(|s| **s != "-")
                    .map(|s| {
                        std::fs::read_to_string(dir.join(s))
                            .unwrap_or_else(|e| panic!("args file {s}: {e}"))
                            .lines()
                            .map(str::to_string)
                            .collect()
                    })
                    .unwrap_or_default(),
            }
        })
        .collect()
}

/// The ELFs built from `name`: `NAME-<opt>.elf`, sorted.
fn builds(name: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("corpus dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let f = p.file_name().and_then(|f| f.to_str()).unwrap_or("");
            f.strip_prefix(name)
                .and_then(|r| r.strip_prefix('-'))
                .is_some_and(|r| r.ends_with(".elf") && !r[..r.len() - 4].contains('-'))
        })
        .collect();
    v.sort();
    v
}

/// argv for a run of `elf`: its file name, then `args`.
fn argv_for(elf: &Path, args: &[String]) -> Vec<String> {
    std::iter::once(
        elf.file_name()
            .and_then(|f| f.to_str())
            .unwrap_or("prog")
            .to_string(),
    )
    .chain(args.iter().cloned())
    .collect()
}

/// Runs `elf` in functional mode with the host serving `argv`
/// (`SYS_argc`/`SYS_argn`) and returns (status, stdout, stderr) or a
/// description of how it failed to finish.
fn run(elf: &Path, argv: Vec<String>, stdin: Vec<u8>) -> Result<(i32, Vec<u8>, Vec<u8>), String> {
    let (o, _, _) = run_with(elf, argv, stdin, Mode::Functional, true)?;
    Ok((o.status, o.stdout, o.stderr))
}

/// Runs `elf` in `mode`, replaying recorded block schedules or not
/// (`memoise`); also returns the core's statistics.
fn run_with(
    elf: &Path,
    argv: Vec<String>,
    stdin: Vec<u8>,
    mode: Mode,
    memoise: bool,
) -> Result<(Outcome, epsim_sim::core::CoreStats, u64), String> {
    let mut config = Config::parallella16();
    config.mode = mode;
    config.memoise = memoise;
    let plan = epsim_loader::load_file(elf, &config.load_target()).map_err(|e| e.to_string())?;
    let mut sys = Syscalls::captured(argv, stdin);
    // fileio creates and removes a scratch file in the current directory
    sys.allow_files = true;
    let mut m = Machine::new(config, sys).expect("a valid configuration");
    m.load(&plan, elf).map_err(|e| e.to_string())?;
    let limit = match mode {
        Mode::Functional => MAX_CYCLES,
        Mode::Timed => MAX_CYCLES_TIMED,
    };
    let stop = m.run(Some(limit));
    let status = match stop {
        StopReason::Exit { status, .. } => status,
        StopReason::Signalled { signal, .. } => 128 + signal as i32,
        other => return Err(format!("did not exit: {other:?}")),
    };
    Ok((
        Outcome {
            status,
            stdout: m.sys.stdout.captured().to_vec(),
            stderr: m.sys.stderr.captured().to_vec(),
            instret: m.instret(),
            cycles: m.now,
        },
        m.cores[0].stats,
        m.cores[0].memo.hits,
    ))
}

/// `known-divergent.txt`: run label (`NAME-OPT`) to reason.
fn known_divergent() -> std::collections::BTreeMap<String, String> {
    let text = std::fs::read_to_string(corpus_dir().join("known-divergent.txt"))
        .expect("known-divergent.txt");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (run, reason) = l.split_once(char::is_whitespace).expect("run and reason");
            (run.to_string(), reason.trim().to_string())
        })
        .collect()
}

#[test]
fn every_corpus_program_prints_its_expected_output_at_every_optimisation_level() {
    let dir = corpus_dir();
    let entries = manifest();
    let known = known_divergent();
    let mut diverged = std::collections::BTreeSet::new();
    assert!(
        entries.len() >= 40,
        "the corpus has {} programs",
        entries.len()
    );
    let mut failures = Vec::new();
    let mut runs = 0;
    for e in &entries {
        let expected = std::fs::read(dir.join(format!("{}.expected", e.name)))
            .unwrap_or_else(|_| panic!("{}.expected exists", e.name));
        let expected_err = std::fs::read(dir.join(format!("{}.stderr", e.name))).ok();
        let stdin = e.stdin_bytes();
        let elfs = builds(&e.name);
        assert!(
            elfs.len() >= 2,
            "{}: expected two optimisation levels, found {elfs:?}",
            e.name
        );
        for elf in elfs {
            runs += 1;
            let label = elf
                .file_name()
                .and_then(|f| f.to_str())
                .unwrap_or("?")
                .to_string();
            let run_name = label.trim_end_matches(".elf").to_string();
            let before = failures.len();
            match run(&elf, argv_for(&elf, &e.args), stdin.clone()) {
                Err(why) => failures.push(format!("{label}: {why}")),
                Ok((status, out, err)) => {
                    if out != expected {
                        failures.push(format!(
                            "{label}: stdout differs\n--- expected\n{}\n--- got\n{}",
                            String::from_utf8_lossy(&expected),
                            String::from_utf8_lossy(&out)
                        ));
                    }
                    if let Some(want) = &expected_err {
                        if &err != want {
                            failures.push(format!(
                                "{label}: stderr differs\n--- expected\n{}\n--- got\n{}",
                                String::from_utf8_lossy(want),
                                String::from_utf8_lossy(&err)
                            ));
                        }
                    }
                    if status != e.status {
                        failures.push(format!(
                            "{label}: exit status {status}, expected {}",
                            e.status
                        ));
                    }
                }
            }
            if known.contains_key(&run_name) {
                // A known divergence must still diverge; its details are
                // not failures.
                if failures.len() == before {
                    failures.push(format!(
                        "{label}: listed in known-divergent.txt ({}) but now matches: remove it",
                        known[&run_name]
                    ));
                } else {
                    failures.truncate(before);
                    diverged.insert(run_name);
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {runs} runs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn crt0_calls_main_without_arguments_when_the_host_has_none() {
    // SYS_argc answers 0: crt0 falls back to main(0, NULL, NULL), as the
    // toolchain's crt0 always did.
    let elfs = builds("argv_check");
    assert!(elfs.len() >= 2, "argv_check builds: {elfs:?}");
    for elf in elfs {
        let (status, out, _) = run(&elf, Vec::new(), Vec::new()).expect("argv_check runs");
        assert_eq!(
            String::from_utf8_lossy(&out),
            "argc: 0\nargv well formed: yes\nargv_check: PASS\n",
            "{}",
            elf.display()
        );
        assert_eq!(status, 0, "{}", elf.display());
    }
}

#[test]
fn timed_mode_retires_the_same_instructions_with_the_same_results() {
    let mut failures = Vec::new();
    let runs = each_run(|elf, argv, stdin| {
        let label = elf.display().to_string();
        let functional = run_with(elf, argv.clone(), stdin.clone(), Mode::Functional, true);
        let timed = run_with(elf, argv, stdin, Mode::Timed, true);
        match (functional, timed) {
            (Ok((f, _, _)), Ok((t, _, _))) => {
                let same = (f.status, &f.stdout, &f.stderr, f.instret)
                    == (t.status, &t.stdout, &t.stderr, t.instret);
                if !same {
                    failures.push(format!(
                        "{label}: functional {:?} / timed {:?} (status, instructions)",
                        (f.status, f.instret),
                        (t.status, t.instret)
                    ));
                } else if t.cycles < t.instret / 2 {
                    failures.push(format!(
                        "{label}: {} cycles for {} instructions: more than dual issue allows",
                        t.cycles, t.instret
                    ));
                }
            }
            (f, t) => failures.push(format!("{label}: {f:?} / {t:?}")),
        }
    });
    assert!(
        failures.is_empty(),
        "{} of {runs} runs differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn replayed_block_schedules_time_exactly_as_the_detailed_model() {
    // Timed mode replays a block's recorded schedule when it runs again
    // from the same pipeline state (sim/src/memo.rs); cycle counts and
    // every statistic must be those of timing each instruction.
    let mut failures = Vec::new();
    let mut hits = 0;
    let runs = each_run(|elf, argv, stdin| {
        let label = elf.display().to_string();
        let replayed = run_with(elf, argv.clone(), stdin.clone(), Mode::Timed, true);
        let detailed = run_with(elf, argv, stdin, Mode::Timed, false);
        match (replayed, detailed) {
            (Ok((ro, rs, h)), Ok((d_o, ds, 0))) if (&ro, &rs) == (&d_o, &ds) => hits += h,
            (r, d) => failures.push(format!(
                "{label}: replayed {:?} / detailed {:?}",
                r.map(|(o, s, _)| (o.status, o.instret, o.cycles, s)),
                d.map(|(o, s, _)| (o.status, o.instret, o.cycles, s))
            )),
        }
    });
    assert!(hits > 100_000, "only {hits} blocks were replayed");
    assert!(
        failures.is_empty(),
        "{} of {runs} runs differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
