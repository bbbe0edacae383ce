//! The fuzz targets' regression run: every committed corpus file
//! (`fuzz/corpus/TARGET/`, seeds, inputs that reached new code, and the
//! minimal reproducers of past findings) goes through the target's body
//! (`epsim_tests::fuzzing`), as `cargo fuzz run` would run it. Each body
//! bounds its own work, so this takes seconds.

use std::path::{Path, PathBuf};
use std::time::Instant;

use epsim_tests::fuzzing::TARGETS;

/// `fuzz/KIND/TARGET`: KIND `corpus` (replayed), or `findings` (the
/// reproducers of findings not fixed yet, see [`open_findings`]).
fn fuzz_dir(kind: &str, target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz")
        .join(kind)
        .join(target)
}

/// The files of `dir`, sorted (so that failures name the same file first
/// every time).
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// Runs `body` on each of `files`; returns those whose run panicked.
fn failures(files: &[PathBuf], body: fn(&[u8])) -> Vec<String> {
    let mut failed = Vec::new();
    for path in files {
        let data = std::fs::read(path).expect("corpus file");
        if std::panic::catch_unwind(|| body(&data)).is_err() {
            failed.push(path.display().to_string());
        }
    }
    failed
}

/// Runs `body` on every file of `target`'s corpus; panics naming every
/// file whose run panicked.
fn replay(target: &str, body: fn(&[u8])) -> usize {
    let files = files(&fuzz_dir("corpus", target));
    assert!(
        !files.is_empty(),
        "the {target} corpus is empty: nothing would be replayed"
    );
    let failed = failures(&files, body);
    assert!(
        failed.is_empty(),
        "{target}: {} of {} corpus files fail (the panics are above):\n{}",
        failed.len(),
        files.len(),
        failed.join("\n")
    );
    files.len()
}

macro_rules! corpus_test {
    ($name:ident) => {
        #[test]
        fn $name() {
            let target = TARGETS
                .iter()
                .find(|t| t.name == stringify!($name))
                .expect("a target of that name");
            let start = Instant::now();
            let n = replay(target.name, target.body);
            eprintln!(
                "{}: {n} corpus files in {:.2?}",
                target.name,
                start.elapsed()
            );
        }
    };
}

corpus_test!(elf);
corpus_test!(decode);
corpus_test!(core);
corpus_test!(cli);
corpus_test!(hdf);

/// Every target has its test above (a new target without one would not be
/// replayed).
#[test]
fn every_target_is_replayed() {
    let tested = ["elf", "decode", "core", "cli", "hdf"];
    for t in &TARGETS {
        assert!(
            tested.contains(&t.name),
            "no corpus test for target {}",
            t.name
        );
    }
    assert_eq!(TARGETS.len(), tested.len());
}

/// The reproducers of findings that are not fixed yet (`fuzz/findings/
/// TARGET/`, each described in README.md, "Fuzzing"): every one must fail
/// until its fix lands; then it moves to `fuzz/corpus/TARGET/`, and this
/// test says so. Run with `cargo test -p epsim-tests --test fuzz_corpus --
/// --ignored`.
#[test]
#[ignore = "open fuzz findings: their reproducers fail until fixed"]
fn open_findings() {
    let mut fixed = Vec::new();
    for t in &TARGETS {
        let dir = fuzz_dir("findings", t.name);
        if !dir.is_dir() {
            continue;
        }
        let files = files(&dir);
        let failed = failures(&files, t.body);
        fixed.extend(
            files
                .iter()
                .map(|p| p.display().to_string())
                .filter(|p| !failed.contains(p)),
        );
    }
    assert!(
        fixed.is_empty(),
        "fixed: move these to fuzz/corpus/TARGET/:\n{}",
        fixed.join("\n")
    );
}
