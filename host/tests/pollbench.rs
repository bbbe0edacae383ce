//! examples/pollbench (a host polling 16 cores with `e_read`, each round
//! waking them with a write of their go word), deterministic timed mode:
//! 40 rounds take the cycles and polls, and leave the checksum, that the
//! model gave before cores were left parked between runs
//! (`Machine::keep_parked`; e2eb769), every run.

// Tests unwrap freely (clippy.toml's allow-unwrap-in-tests does not reach
// integration tests, rust-clippy#13981).
#![allow(clippy::unwrap_used)]

mod common;

use common::run_example;

#[test]
fn pollbench_takes_the_cycles_it_took() {
    let (out, err) = run_example("pollbench", "40");
    assert_eq!(
        out.trim_end(),
        "pollbench: 40 rounds on 16 cores, 471404 cycles, 745 polls, checksum b30a3f1d",
        "{err}"
    );
}
