//! The `epsim` command line: exit statuses, output forwarding, and the
//! messages a user sees when a program faults or cannot be loaded.

mod common;

use std::path::PathBuf;
use std::process::Output;

use common::epsim;

/// A firmware path relative to the directory `epsim` runs in (the crate
/// directory), so messages that name the file are the same in every
/// checkout.
fn firmware(rel: &str) -> PathBuf {
    PathBuf::from("../firmware").join(rel)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn run_fault(name: &str) -> (i32, String) {
    let path = firmware(&format!("small/{name}.elf"));
    let o = epsim(&[
        "run",
        "--max-cycles",
        "1000000",
        path.to_str().expect("utf-8 path"),
    ]);
    (o.status.code().expect("exit code"), stderr(&o))
}

#[test]
fn unmapped_store_names_core_pc_instruction_and_address() {
    let (code, err) = run_fault("unmapped_store");
    assert_eq!(code, 125);
    insta::assert_snapshot!(err);
}

#[test]
fn misaligned_load_is_a_guest_fault() {
    let (code, err) = run_fault("misaligned_load");
    assert_eq!(code, 125);
    insta::assert_snapshot!(err);
}

#[test]
fn illegal_instruction_is_a_guest_fault() {
    let (code, err) = run_fault("illegal");
    assert_eq!(code, 125);
    insta::assert_snapshot!(err);
}

#[test]
fn fetch_from_unmapped_memory_is_a_guest_fault() {
    let (code, err) = run_fault("fetch_unmapped");
    assert_eq!(code, 125);
    insta::assert_snapshot!(err);
}

#[test]
fn max_cycles_stops_a_runaway_program_with_status_124() {
    let path = firmware("small/spin.elf");
    let o = epsim(&[
        "run",
        "--max-cycles",
        "5000",
        "--stats",
        path.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(124));
    insta::assert_snapshot!(stderr(&o));
}

#[test]
fn raise_policy_hands_the_fault_to_the_program() {
    // With --on-fault raise the exception is only latched (EXCAUSE, ILAT[1]);
    // the reset IMASK masks it and this crt0 never unmasks it, so the program
    // carries on past the faulting load and exits normally.
    let path = firmware("small/misaligned_load.elf");
    let o = epsim(&[
        "run",
        "--on-fault",
        "raise",
        "--max-cycles",
        "100000",
        path.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
}

#[test]
fn a_file_that_is_not_elf_is_a_load_error_with_status_126() {
    let dir = std::env::temp_dir().join(format!("epsim-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bad = dir.join("not-an-elf.elf");
    std::fs::write(&bad, b"#!/bin/sh\necho hi\n").expect("write");
    let o = epsim(&["run", bad.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(126));
    let err = stderr(&o).replace(dir.to_str().expect("utf-8"), "[TMP]");
    std::fs::remove_dir_all(&dir).expect("clean up");
    insta::assert_snapshot!(err);
}

#[test]
fn a_missing_file_is_a_load_error() {
    let o = epsim(&["run", "/nonexistent/prog.elf"]);
    assert_eq!(o.status.code(), Some(126));
    insta::assert_snapshot!(stderr(&o));
}

#[test]
fn self_modifying_code_sees_its_own_rewrites() {
    // selfmod.S rewrites a called function and a hot loop body after both
    // have been decoded; exit status 22 only if every rewrite is executed.
    let path = firmware("small/selfmod.elf");
    let o = epsim(&[
        "run",
        "--max-cycles",
        "100000",
        path.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(22), "{}", stderr(&o));
}

#[test]
fn a_program_linked_without_our_scripts_gets_a_hint() {
    let (code, err) = run_fault("default_link");
    assert_eq!(code, 126);
    insta::assert_snapshot!(err);
}

#[test]
fn arguments_after_double_dash_reach_main() {
    // Our crt0 (firmware/sysroot/lib/crt0.o) asks for them with SYS_argc,
    // SYS_argnlen and SYS_argn; argv[0] is the program path as given.
    let path = firmware("tests/argv_check-O2.elf");
    let o = epsim(&["run", path.to_str().expect("utf-8"), "--", "a", "b", "c"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "argc: 4\n\
         argv[0] names the program: yes\n\
         argv[1]: \"a\" (1 bytes)\n\
         argv[2]: \"b\" (1 bytes)\n\
         argv[3]: \"c\" (1 bytes)\n\
         argv well formed: yes\n\
         argv_check: PASS\n"
    );
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
}
