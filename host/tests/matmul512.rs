//! examples/matmul512 at 128x128 (issue 16's DMA double-buffered matrix
//! multiply on 16 cores, the host polling the done words in DRAM with
//! `e_read`), deterministic timed mode: it finishes, its own exact check
//! of C passes, and it takes the cycles README's table gives, every run.

// Tests unwrap freely (clippy.toml's allow-unwrap-in-tests does not reach
// integration tests, rust-clippy#13981).
#![allow(clippy::unwrap_used)]

mod common;

use common::run_example;

#[test]
fn matmul512_at_128_is_exact_and_takes_the_cycles_the_readme_gives() {
    let (out, _) = run_example("matmul512", "128");
    let mut lines = out.lines();
    let check = lines.next().unwrap_or("");
    assert!(
        check.starts_with(
            "matmul512 128x128 on 16 cores: 16 done, 0 of 16384 elements wrong, checksum "
        ),
        "{out}"
    );
    // Deterministic mode: the same cycles (and polls) every run.
    let cycles = lines.next().unwrap_or("");
    assert!(
        cycles.starts_with("matmul512: 3469920 cycles from start to the last done word,"),
        "{out}"
    );
    assert!(cycles.ends_with("polls)"), "{out}");
}
