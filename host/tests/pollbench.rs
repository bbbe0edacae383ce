//! examples/pollbench (a host polling 16 cores with `e_read`, each round
//! waking them with a write of their go word), deterministic timed mode:
//! 40 rounds take the cycles and polls, and leave the checksum, that the
//! model gave before cores were left parked between runs
//! (`Machine::keep_parked`; e2eb769), every run.

// Tests unwrap freely (clippy.toml's allow-unwrap-in-tests does not reach
// integration tests, rust-clippy#13981).
#![allow(clippy::unwrap_used)]

mod common;

use std::process::Command;

use common::{build, root};

#[test]
fn pollbench_takes_the_cycles_it_took() {
    let dir = root().join("examples/pollbench");
    let exe = build(&dir.join("main.c"), "pollbench", std::slice::from_ref(&dir));
    let o = Command::new(&exe)
        .arg("40")
        .current_dir(&dir)
        .env("EPSIM_MODE", "deterministic")
        .env("EPSIM_TIMING", "timed")
        .env_remove("EPIPHANY_HDF")
        .env_remove("EPIPHANY_HOME")
        .env_remove("EPSIM_VERBOSE")
        .env_remove("EPSIM_LOG")
        .output()
        .expect("the host program runs");
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "pollbench 40 failed: {out}\n{err}");
    assert_eq!(
        out.trim_end(),
        "pollbench: 40 rounds on 16 cores, 471404 cycles, 745 polls, checksum b30a3f1d",
        "{err}"
    );
}
