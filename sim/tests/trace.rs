//! `epsim run --trace`: the trace format (insta snapshots), its filters,
//! and that tracing changes nothing about the run.

mod common;

use std::process::Output;

use common::epsim;

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const SELFMOD: &str = "../firmware/small/selfmod.elf";

#[test]
fn text_trace_of_the_start_of_a_program() {
    let o = epsim(&["run", "--trace", "-", "--max-cycles", "40", SELFMOD]);
    assert_eq!(o.status.code(), Some(124));
    insta::assert_snapshot!(stdout(&o));
}

#[test]
fn json_trace_in_a_cycle_window() {
    let o = epsim(&[
        "run",
        "--trace",
        "-",
        "--trace-format",
        "json",
        "--trace-from",
        "10",
        "--trace-to",
        "29",
        "--max-cycles",
        "40",
        SELFMOD,
    ]);
    let out = stdout(&o);
    for line in out.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("each line is JSON");
        let cycle = v["cycle"].as_u64().expect("cycle");
        assert!((10..=29).contains(&cycle), "{line}");
    }
    assert!((1..=20).contains(&out.lines().count()));
    insta::assert_snapshot!(out);
}

#[test]
fn the_self_modifying_program_traces_its_rewrites() {
    // The rewritten instruction shows up in the trace with its new word.
    let dir = std::env::temp_dir().join(format!("epsim-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("selfmod.trace");
    let o = epsim(&["run", "--trace", file.to_str().expect("utf-8"), SELFMOD]);
    assert_eq!(o.status.code(), Some(22));
    let trace = std::fs::read_to_string(&file).expect("trace written");
    std::fs::remove_dir_all(&dir).ok();
    assert!(trace.contains(" mov r0,0x1 "), "first version ran");
    assert!(trace.contains(" mov r0,0x2 "), "rewritten version ran");
    assert!(trace.contains(" add r2,r2,3 "), "patched loop body ran");
    // One line per retired instruction: the --stats count matches.
    let stats = epsim(&["run", "--stats", SELFMOD]);
    let err = String::from_utf8_lossy(&stats.stderr);
    let retired: usize = err
        .lines()
        .find_map(|l| l.strip_prefix("epsim: instructions retired: "))
        .expect("stats line")
        .trim()
        .parse()
        .expect("number");
    // Instruction records: the third field is a PC (event lines name an
    // interrupt or a trap there).
    let records = trace
        .lines()
        .filter(|l| l.split_whitespace().nth(2).is_some_and(|f| f.len() == 8))
        .count();
    assert_eq!(records, retired);
    assert!(trace.lines().any(|l| l.contains(" trap 3 serviced")));
}

#[test]
fn tracing_another_core_writes_nothing_and_changes_nothing() {
    let o = epsim(&[
        "run",
        "--trace",
        "-",
        "--trace-core",
        "1,1",
        "--stats",
        SELFMOD,
    ]);
    assert_eq!(o.status.code(), Some(22));
    assert_eq!(stdout(&o), "");
    let untraced = epsim(&["run", "--stats", SELFMOD]);
    // Everything but how the schedules were obtained (a traced run times
    // every instruction, an untraced one replays recorded schedules).
    let stats = |o: &Output| -> Vec<String> {
        String::from_utf8_lossy(&o.stderr)
            .lines()
            .filter(|l| !l.starts_with("epsim: block schedules:"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(stats(&o), stats(&untraced), "same instructions and cycles");
    assert!(stats(&o).len() >= 4);
}

#[test]
fn a_bad_core_or_window_is_a_usage_error() {
    let o = epsim(&["run", "--trace", "-", "--trace-core", "32", SELFMOD]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is not ROW,COL"));
    let o = epsim(&[
        "run",
        "--trace",
        "-",
        "--trace-from",
        "9",
        "--trace-to",
        "3",
        SELFMOD,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--trace-from 9 is after --trace-to 3"));
}

#[test]
fn an_unwritable_trace_file_is_reported() {
    let o = epsim(&["run", "--trace", "/nonexistent-dir/x.trace", SELFMOD]);
    assert_eq!(o.status.code(), Some(2));
    insta::assert_snapshot!(String::from_utf8_lossy(&o.stderr));
}

#[test]
fn interrupt_entries_appear_in_the_trace() {
    let o = epsim(&["run", "--trace", "-", "../firmware/timing/irq_nested.elf"]);
    assert_eq!(o.status.code(), Some(8));
    insta::assert_snapshot!(stdout(&o));
}

#[test]
fn functional_mode_trace_has_one_cycle_per_instruction() {
    let o = epsim(&[
        "run",
        "--mode",
        "functional",
        "--trace",
        "-",
        "../firmware/timing/irq_masked.elf",
    ]);
    assert_eq!(o.status.code(), Some(7));
    insta::assert_snapshot!(stdout(&o));
}

#[test]
fn the_same_run_gives_the_same_trace_byte_for_byte() {
    for (prog, format) in [
        ("../firmware/tests/hello_write-O2.elf", "text"),
        ("../firmware/timing/irq_timer.elf", "json"),
    ] {
        let args = ["run", "--trace", "-", "--trace-format", format, prog];
        let a = epsim(&args);
        let b = epsim(&args);
        assert!(!a.stdout.is_empty(), "{prog}: traced");
        assert_eq!(a.stdout, b.stdout, "{prog}: traces differ");
        assert_eq!(a.status.code(), b.status.code());
    }
}
