//! e-loader's configuration words under `epsim run --group`/`--load`
//! (issue 15, defect 1): written as the host crate's e_load_group writes
//! them, at the ELF's workgroup_cfg/ext_mem_cfg/loader_cfg sections (over
//! a loaded segment, or in DRAM) or at e-lib's fixed addresses, for each
//! core of each group. The test programs are the host crate's cfg_dev*.elf
//! (host/tests/dev): each core prints what it reads there.

mod common;

use std::path::PathBuf;

use common::epsim;
use epsim_sim::setup::{ChipArg, GroupArg, Setup};
use epsim_sim::{FaultPolicy, Mode, Syscalls};

/// A host test program, relative to the directory `epsim` runs in.
const CFG_DEV: &str = "../host/tests/dev/cfg_dev.elf";
const CFG_DEV_DRAM: &str = "../host/tests/dev/cfg_dev_dram.elf";
const CFG_DEV_ONCORE: &str = "../host/tests/dev/cfg_dev_oncore.elf";

/// What cfg_dev prints on each core of a `rows` x `cols` group at mesh
/// (`row`, `col`) of a chip of type `chip`, its words at 0x28.
fn cfg_dev_lines(chip: u32, row: u32, col: u32, rows: u32, cols: u32) -> Vec<String> {
    let mut want = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            let at = format!("[{},{}] ", row + r, col + c);
            let id = (row << 6) | col;
            want.push(format!(
                "{at}at 28: type 3 chip {chip} group {id:x} at {row},{col} of {rows}x{cols}"
            ));
            want.push(format!(
                "{at}core {r},{c} pad deadbeef emem 5 8e000000 at 50 loader 1 at 58"
            ));
        }
    }
    want
}

fn sorted_lines(out: &[u8]) -> Vec<String> {
    let mut v: Vec<String> = String::from_utf8_lossy(out)
        .lines()
        .map(str::to_owned)
        .collect();
    v.sort();
    v
}

#[test]
fn run_group_writes_the_words_into_the_programs_own_sections() {
    for mode in ["timed", "functional"] {
        let o = epsim(&["run", "--mode", mode, "--group", "2x3@1,1", CFG_DEV]);
        assert!(o.status.success(), "{mode}: {o:?}");
        let mut want = cfg_dev_lines(0, 33, 9, 2, 3);
        want.sort();
        assert_eq!(sorted_lines(&o.stdout), want, "{mode}");
    }
}

#[test]
fn run_load_writes_them_too_and_in_dram_for_sections_there() {
    let load = format!("2x3@1,1:{CFG_DEV}");
    let o = epsim(&["run", "--group", "1x1@3,3", CFG_DEV_DRAM, "--load", &load]);
    assert!(o.status.success(), "{o:?}");
    let mut want = cfg_dev_lines(0, 33, 9, 2, 3);
    want.push("[35,11] at 8f100000: type 3 chip 0 group 8cb at 35,11 of 1x1".into());
    want.push(
        "[35,11] core 0,0 pad deadbeef emem 5 8e000000 at 8f100028 loader 1 at 8f100030".into(),
    );
    want.sort();
    assert_eq!(sorted_lines(&o.stdout), want);
}

#[test]
fn the_chip_type_is_the_e64s_on_a_larger_chip() {
    let o = epsim(&["run", "--chip", "e64", "--group", "1x2@5,6", CFG_DEV]);
    assert!(o.status.success(), "{o:?}");
    let mut want = cfg_dev_lines(1, 37, 14, 1, 2);
    want.sort();
    assert_eq!(sorted_lines(&o.stdout), want);
}

#[test]
fn a_section_the_words_cannot_go_to_refuses_the_run() {
    let o = epsim(&["run", "--group", "1x1", CFG_DEV_ONCORE]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(126), "{err}");
    assert!(
        err.contains(
            "cfg_dev_oncore.elf: section workgroup_cfg at 0x80807000 (40 bytes) cannot hold \
             e-loader's configuration words"
        ) && err.contains("global SRAM address"),
        "{err}"
    );
    assert!(o.stdout.is_empty());
}

/// A program linked with our scripts (no configuration sections, nothing
/// loaded in 0x28..0x68) gets the words at e-lib's fixed addresses, on
/// every core of its group, as the host gives them.
#[test]
fn a_program_without_the_sections_gets_them_at_the_fixed_addresses() {
    let elf = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/hello/hello_dev.elf");
    let setup = Setup {
        chip: ChipArg { rows: 4, cols: 4 },
        dram: None,
        loads: vec![(
            GroupArg {
                rows: 2,
                cols: 2,
                row: 2,
                col: 1,
            },
            elf,
        )],
        mode: Mode::Functional,
        fault_policy: FaultPolicy::Stop,
    };
    let m = setup
        .build(Syscalls::captured(Vec::new(), Vec::new()))
        .expect("builds");
    for (r, c) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        let i = ((2 + r) * 4 + 1 + c) as usize;
        let b = m.cores[i].sram.read_bytes(0x28, 64);
        let w: Vec<u32> = b
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        let id = (34 << 6) | 9;
        assert_eq!(
            w[..16],
            [
                3,
                0,
                id,
                34,
                9,
                2,
                2,
                r,
                c,
                0xdead_beef,
                5,
                0x8e00_0000,
                1,
                0,
                0,
                0
            ],
            "({r},{c})"
        );
    }
}
