//! Multi-core programs (firmware/multi) on the 4x4 chip: output prefixed by
//! core, remote loads, stores and TESTSET, WAND barriers, interrupts raised
//! through another core's ILATST, in both modes; determinism; bad groups.

mod common;

use common::{epsim, machine_with_group};
use epsim_sim::{Config, Mode, StopReason};

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Runs firmware/multi/NAME.elf on the whole 4x4 chip in both modes and
/// returns the output of each (asserting exit status 0).
fn run_both(name: &str) -> [String; 2] {
    ["functional", "timed"].map(|mode| {
        let elf = format!("../firmware/multi/{name}.elf");
        let o = epsim(&["run", "--mode", mode, "--group", "4x4", &elf]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{name} ({mode}) failed: {}{}",
            stdout(&o),
            String::from_utf8_lossy(&o.stderr)
        );
        stdout(&o)
    })
}

#[test]
fn every_core_says_hello_with_its_coordinates() {
    for out in run_both("hello") {
        let mut lines: Vec<&str> = out.lines().collect();
        lines.sort();
        let mut want = Vec::new();
        for r in 0..4 {
            for c in 0..4 {
                want.push(format!(
                    "[{},{}] hello from rank {}",
                    32 + r,
                    8 + c,
                    r * 4 + c
                ));
            }
        }
        want.sort();
        assert_eq!(lines, want);
    }
}

#[test]
fn testset_mutex_serialises_sixteen_cores() {
    for out in run_both("mutex") {
        assert_eq!(out, "[32,8] counter: 320\n");
    }
}

#[test]
fn wand_barrier_orders_remote_writes() {
    for out in run_both("barrier") {
        assert_eq!(out, "[32,8] phases passed: 5\n");
    }
}

#[test]
fn ilatst_writes_wake_idle_cores_into_their_handlers() {
    for out in run_both("message") {
        assert_eq!(out, "[32,8] answers: 15\n");
    }
}

#[test]
fn all_to_one_hot_spot_delivers_every_word() {
    for out in run_both("hotspot") {
        assert_eq!(out, "[32,8] words checked: 960\n");
    }
}

#[test]
fn ping_pong_between_neighbours_and_corners_completes() {
    for name in ["pingpong", "pingpong_corner"] {
        for out in run_both(name) {
            assert!(out.contains("round trip cycles"), "{out}");
        }
    }
}

#[test]
fn the_same_program_twice_gives_the_same_cycles_per_core() {
    let run = || {
        let mut config = Config::parallella16();
        config.mode = Mode::Timed;
        let mut m = machine_with_group("multi/mutex.elf", config, 4, 4);
        let stop = m.run(Some(50_000_000));
        assert!(
            matches!(stop, StopReason::Exit { status: 0, .. }),
            "{stop:?}"
        );
        m.group()
            .map(|c| (c.stats.cycles, c.stats.instret))
            .collect::<Vec<_>>()
    };
    assert_eq!(run(), run());
}

#[test]
fn a_group_larger_than_the_chip_is_a_clear_error() {
    let o = epsim(&["run", "--group", "5x4", "../firmware/multi/hello.elf"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("group 5x4 at (0,0) does not fit the 4x4 chip"),
        "{err}"
    );
    let o = epsim(&["run", "--chip", "65x2", "../firmware/multi/hello.elf"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("at most 64x64"), "{err}");
}

#[test]
fn touching_a_core_that_does_not_exist_is_a_guest_fault() {
    // hello on a 1x1 chip: fine. mutex on a 1x1 chip reaches core (0,0)
    // only. pingpong's partner (0,1) does not exist on a 1x1 chip.
    let o = epsim(&["run", "--chip", "1x1", "../firmware/multi/pingpong.elf"]);
    assert_eq!(o.status.code(), Some(125), "{}", stdout(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("access to unmapped address 0x809"), "{err}");
}
