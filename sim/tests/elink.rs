//! The eLink side of the chip (mesh/MESH.md, "The eLink receiver's remap"
//! and "The chip's eLink registers"): external addresses outside the DRAM
//! window reach DRAM as the Parallella's FPGA folds them, in every mode and
//! for loads, stores and DMA; addresses leaving through an edge with nothing
//! attached still fault; the chip's link registers keep what is written to
//! them; loopback is not modelled.

mod common;

use common::epsim;

fn text(o: &std::process::Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Runs `epsim run --stats ARGS` in functional mode, in timed mode and in
/// timed `--strict` mode; asserts the same exit status and output in all
/// three and the same statistics fast and strict (but the host-side
/// counts of replayed schedules and roll-backs). Returns the timed run's.
fn all_modes(args: &[&str]) -> std::process::Output {
    let run = |extra: &[&str]| {
        let mut all = vec!["run", "--stats"];
        all.extend_from_slice(extra);
        all.extend_from_slice(args);
        epsim(&all)
    };
    let functional = run(&["--mode", "functional"]);
    let timed = run(&["--mode", "timed"]);
    let strict = run(&["--mode", "timed", "--strict"]);
    let stats = |o: &std::process::Output| {
        text(o)
            .1
            .lines()
            .filter(|l| !l.contains("block schedules") && !l.contains("rolled back"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    for (name, o) in [("functional", &functional), ("strict", &strict)] {
        assert_eq!(o.status.code(), timed.status.code(), "{name} {args:?}");
        assert_eq!(text(o).0, text(&timed).0, "{name} {args:?}");
    }
    assert_eq!(stats(&timed), stats(&strict), "{args:?}");
    timed
}

#[test]
fn addresses_outside_the_dram_window_fold_onto_it_as_the_fpga_remaps_them() {
    let o = all_modes(&["../firmware/multi/elink_remap.elf"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let expected = [
        format!("load 0x7e0f0000: {}", 0x1357_9bdf_u32),
        "restored 0x7e0f0000: 0".to_string(),
        "0x0ff00010 -> 0x8ff00010: 1111".to_string(),
        "0x4e0f0008 -> 0xce0f0008: 2222".to_string(),
        "dma from 0x7e0f0018: 3333".to_string(),
        "dma from 0x7e0f001c: 4444".to_string(),
        "dma 0x5e0f0020 -> 0x8e0f0020: 5555".to_string(),
        "dma 0x5e0f0024 -> 0x8e0f0024: 6666".to_string(),
        "elink remap: ok".to_string(),
    ];
    assert_eq!(out.lines().collect::<Vec<_>>(), expected, "{out}");
}

#[test]
fn an_address_leaving_through_an_edge_with_nothing_attached_still_faults() {
    let o = all_modes(&["../firmware/multi/elink_south.elf"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(125), "{out}{err}");
    assert!(
        err.contains("core (32,8) 0x808 at pc")
            && err.contains("access to unmapped address 0x90800000"),
        "{err}"
    );
    assert_eq!(out, "", "{out}");
}

#[test]
fn a_remap_folds_only_onto_memory_that_is_there() {
    // 24 MB of DRAM: the remap folds onto the 32 MB block, 0x0ff00010 onto
    // 0x8ff00010, past the memory's end.
    for mode in ["functional", "timed"] {
        let o = epsim(&[
            "run",
            "--mode",
            mode,
            "--dram",
            "0x8e000000:24M",
            "../firmware/multi/elink_remap.elf",
        ]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(125), "{mode}: {out}{err}");
        assert!(
            err.contains("access to unmapped address 0x0ff00010"),
            "{mode}: {err}"
        );
    }
}

#[test]
fn the_chips_link_registers_keep_what_is_written_to_them() {
    let o = all_modes(&["../firmware/multi/elink_regs.elf"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let expected = [
        "reset values, sum over 4 links: 0",
        "north LINKDEBUG: 16384",
        "south LINKDEBUG: 16384",
        "east link registers, sum: 1551",
        "west link registers, sum: 0",
        "elink registers: ok",
    ];
    assert_eq!(out.lines().collect::<Vec<_>>(), expected, "{out}");
}

#[test]
fn loopback_is_not_modelled_a_write_north_of_the_chip_faults() {
    let o = all_modes(&["../firmware/multi/elink_loopback.elf"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(125), "{out}{err}");
    assert!(out.contains("north LINKDEBUG: 16384"), "{out}");
    assert!(
        err.contains("access to unmapped address 0x40804000"),
        "{err}"
    );
}
