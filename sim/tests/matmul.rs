//! firmware/multi/matmul: a 64x64 single-precision matrix multiply on the
//! 4x4 chip by Cannon's algorithm, the blocks moved by DMA with double
//! buffering and flag synchronisation. Every core checks its block of the
//! result; core (0,0) prints the verdict and the cycles of the multiply.

mod common;

use common::epsim;

const ELF: &str = "../firmware/multi/matmul.elf";

/// The verdict line: the checksum (sum over C of C[r][c]^2 weighted by
/// 1 + (64r + c) mod 13) is what the generating formulas give.
const OK_LINE: &str = "[32,8] matmul 64x64 on 16 cores: ok, checksum 89552443";

/// Runs matmul on the 4x4 group with `extra` options, asserts exit status
/// 0, and returns standard output.
fn run(extra: &[&str]) -> String {
    let mut args = vec!["run", "--group", "4x4"];
    args.extend_from_slice(extra);
    args.push(ELF);
    let o = epsim(&args);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(
        o.status.code(),
        Some(0),
        "matmul {extra:?} failed: {out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

/// The verdict and the cycle count from core (0,0)'s two lines (nothing
/// else is printed).
fn check(out: &str) -> u64 {
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(lines[0], OK_LINE, "{out}");
    let cycles = lines[1]
        .strip_prefix("[32,8] cycles: ")
        .unwrap_or_else(|| panic!("no cycles line: {out}"));
    let cycles: u64 = cycles.parse().expect("cycles is a number");
    assert!(cycles > 0, "{out}");
    cycles
}

#[test]
fn cannon_matmul_is_right_in_both_modes() {
    for mode in ["functional", "timed"] {
        check(&run(&["--mode", mode]));
    }
}

#[test]
fn cannon_matmul_strict_order_prints_what_the_default_scheduler_prints() {
    let fast = run(&[]);
    let strict = run(&["--strict"]);
    check(&fast);
    assert_eq!(fast, strict);
}
