//! The eLink side of the chip (mesh/MESH.md, "The eLink receiver's remap",
//! "The chip's eLink registers" and "Loopback"): external addresses outside
//! the DRAM window reach DRAM as the Parallella's FPGA folds them, in every
//! mode and for loads, stores and DMA; addresses leaving through an edge
//! with nothing attached still fault; the chip's link registers keep what
//! is written to them; a write through a link in loopback mode comes back
//! into the chip at the same place of the chip, timed through the link.

mod common;

use common::{epsim, same_as_strict, stats_lines};

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
    for (name, o) in [("functional", &functional), ("strict", &strict)] {
        assert_eq!(o.status.code(), timed.status.code(), "{name} {args:?}");
        assert_eq!(text(o).0, text(&timed).0, "{name} {args:?}");
    }
    assert_eq!(stats_lines(&timed), stats_lines(&strict), "{args:?}");
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
fn a_write_north_comes_back_through_the_looped_link_and_faults_once_the_loop_is_off() {
    // e-loopback-test's first write: 0x40804000 lands at 0x4000 of the
    // writing core (32,8); with the north link out of loopback mode the
    // next write north faults, as before loopback was modelled.
    let o = all_modes(&["../firmware/multi/elink_loopback.elf"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(125), "{out}{err}");
    let tail = [
        "elink registers: ok",
        "looped back to 0x4000: 1431655765",
        "north LINKDEBUG: 0",
    ];
    assert!(out.ends_with(&(tail.join("\n") + "\n")), "{out}");
    assert!(
        err.contains("access to unmapped address 0x40804004"),
        "{err}"
    );
}

#[test]
fn writes_through_looped_links_land_in_the_writers_own_sram_timed_through_the_link() {
    // firmware/multi/loopback.c: each core writes 16 words through the
    // north and the south link, each waited for in its own SRAM. Alone
    // (1x1): the first north write lands 48 cycles after its store issues
    // plus the program's own 15 (to the link 3, the link's transmit side
    // 18 + 8 for a write not continuing the last, 1 between the sides, its
    // receive side 18, back 0 hops); the first south write 57 + 15 (3 hops
    // to the south edge and 3 back). With 16 cores sharing each link, the
    // link takes their writes one at a time.
    let alone = same_as_strict(&["../firmware/multi/loopback.elf"]);
    let (out, err) = text(&alone);
    assert_eq!(alone.status.code(), Some(0), "{out}{err}");
    assert_eq!(
        out,
        "north, first word landed after: 63\n\
         south, first word landed after: 72\n\
         all words, cycles: 4821\n\
         loopback: ok\n"
    );
    let all = same_as_strict(&["--group", "4x4", "../firmware/multi/loopback.elf"]);
    let (out, err) = text(&all);
    assert_eq!(all.status.code(), Some(0), "{out}{err}");
    assert_eq!(
        out,
        "[32,8] north, first word landed after: 135\n\
         [32,8] south, first word landed after: 126\n\
         [32,8] all words, cycles: 25782\n\
         [32,8] loopback: ok\n"
    );
    assert!(err.contains("simulated cycles:     29260 "), "{err}");
    // Functional mode: the same words land, each at once.
    let f = epsim(&[
        "run",
        "--mode",
        "functional",
        "--group",
        "4x4",
        "../firmware/multi/loopback.elf",
    ]);
    assert_eq!(f.status.code(), Some(0));
    assert!(text(&f).0.contains("[32,8] loopback: ok"), "{}", text(&f).0);
}
