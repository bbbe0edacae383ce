//! The Rust host API: host and device see each other's writes through
//! external memory in both run modes, host writes of code into external
//! memory are executed (not stale decodes), and deterministic mode repeats
//! itself exactly.

// Tests unwrap freely (clippy.toml's allow-unwrap-in-tests does not reach
// integration tests, rust-clippy#13981).
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use e_hal::{Host, Platform, RunMode, Workgroup};
use epsim_sim::{Mode, Syscalls};

const FLAG_OFF: u32 = 0x0090_0000;
const CODE_OFF: u32 = 0x0090_0100;
/// `mov r0,#7; rts` and `mov r0,#9; rts`.
const RETURN_7: [u8; 6] = [0xe3, 0x00, 0x4f, 0x19, 0x02, 0x04];
const RETURN_9: [u8; 6] = [0x23, 0x01, 0x4f, 0x19, 0x02, 0x04];

fn elf() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/dev/dram_call.elf")
}

fn host(mode: RunMode) -> Host {
    Host::with_syscalls(
        Platform::parallella16(),
        mode,
        Mode::Timed,
        Syscalls::captured(Vec::new(), Vec::new()),
    )
    .unwrap()
}

fn one_core() -> Workgroup {
    Workgroup {
        row: 1,
        col: 2,
        rows: 1,
        cols: 1,
    }
}

/// Writes through the host pointer, as a C host program does with
/// `e_alloc`'s `base`.
fn poke(h: &Host, off: u32, data: &[u8]) {
    // SAFETY: the range lies inside the 32 MB of DRAM.
    unsafe {
        let p = h.dram_ptr().add(off as usize);
        for (i, b) in data.iter().enumerate() {
            p.add(i).write_volatile(*b);
        }
    }
}

fn peek_word(h: &Host, off: u32) -> u32 {
    // SAFETY: as above; 4-aligned.
    unsafe { (h.dram_ptr().add(off as usize) as *const u32).read_volatile() }
}

fn output(h: &Host) -> String {
    h.with_machine(|m| String::from_utf8_lossy(m.sys.stdout.captured()).into_owned())
}

/// Deterministic mode: advances the chip until the core acknowledges
/// `round` (read with `read_dram`, which costs time as a host poll does).
fn wait_ack(h: &Host, round: u32) {
    for _ in 0..10_000 {
        let mut w = [0; 4];
        h.read_dram(FLAG_OFF + 4, &mut w).unwrap();
        if u32::from_le_bytes(w) == round {
            return;
        }
        h.run(2_000);
    }
    panic!("round {round} never acknowledged:\n{}", output(h));
}

/// The three rounds in deterministic mode; what the core printed, the
/// final cycle and the instructions retired.
fn deterministic_rounds() -> (String, u64, u64) {
    let h = host(RunMode::Deterministic);
    poke(&h, CODE_OFF, &RETURN_7);
    poke(&h, FLAG_OFF, &1u32.to_le_bytes());
    h.load(&elf(), one_core(), &[(0, 0)], true).unwrap();
    wait_ack(&h, 1);
    // Through the host call: the decoded block of the old code goes.
    h.write_dram(CODE_OFF, &RETURN_9).unwrap();
    poke(&h, FLAG_OFF, &2u32.to_le_bytes());
    wait_ack(&h, 2);
    // Through the pointer, then halt and resume: decoded again.
    h.halt(1, 2).unwrap();
    poke(&h, CODE_OFF, &RETURN_7);
    h.resume(1, 2).unwrap();
    poke(&h, FLAG_OFF, &3u32.to_le_bytes());
    wait_ack(&h, 3);
    assert!(h.run_until_idle(1_000_000));
    let s = h.stats();
    (output(&h), s.now, s.instret)
}

#[test]
fn code_the_host_writes_into_dram_runs_and_deterministic_mode_repeats() {
    let (out, cycles, instret) = deterministic_rounds();
    assert_eq!(
        out,
        "round 1: f() = 7\nround 2: f() = 9\nround 3: f() = 7\n"
    );
    assert_eq!(deterministic_rounds(), (out, cycles, instret));
}

#[test]
fn free_mode_runs_while_the_host_sleeps_and_sees_pointer_writes() {
    let h = host(RunMode::Free);
    poke(&h, CODE_OFF, &RETURN_9);
    h.load(&elf(), one_core(), &[(0, 0)], true).unwrap();
    let start = Instant::now();
    for round in 1..=3u32 {
        // Only pointer accesses here: the chip advances by itself.
        poke(&h, FLAG_OFF, &round.to_le_bytes());
        while peek_word(&h, FLAG_OFF + 4) != round {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "round {round} not acknowledged:\n{}",
                output(&h)
            );
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    let t0 = h.now();
    std::thread::sleep(Duration::from_millis(20));
    assert!(h.run_state(1, 2).is_ok());
    assert_eq!(
        output(&h),
        "round 1: f() = 9\nround 2: f() = 9\nround 3: f() = 9\n"
    );
    // Time went on by itself.
    assert!(h.now() > t0 || h.stats().instret > 0);
    let mut w = [0; 4];
    h.read_dram(FLAG_OFF + 4, &mut w).unwrap();
    assert_eq!(u32::from_le_bytes(w), 3);
}

#[test]
fn switching_modes_keeps_the_chip() {
    let mut h = host(RunMode::Free);
    h.write_sram(0, 0, 0x100, b"kept").unwrap();
    h.set_mode(RunMode::Deterministic);
    assert_eq!(h.mode(), RunMode::Deterministic);
    let t = h.now();
    h.run(500);
    assert_eq!(h.now(), t + 500);
    h.set_mode(RunMode::Free);
    let mut b = [0; 4];
    h.read_sram(0, 0, 0x100, &mut b).unwrap();
    assert_eq!(&b, b"kept");
}
