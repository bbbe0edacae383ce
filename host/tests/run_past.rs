//! Cores run ahead past the host's clock (`Machine::run_past_limit`,
//! README "The e-hal drop-in"): a host polling the chip runs it a few
//! cycles per call, and a core computing meanwhile may run ahead of the
//! run's end from a checkpoint instead of stopping there. The host sees
//! the machine at its own clock all the same: external memory as it is
//! (nothing a core does ahead reaches it), a core's SRAM where the core
//! stands unless it wrote those bytes since its checkpoint (then it goes
//! back and runs up to the host's clock), anything else with every core
//! brought back there. Checked against strict cycle order (where no core
//! runs ahead) on `host/tests/dev/ahead_dev.elf` on 2x2 cores: the host
//! polls each core's report in DRAM with runs of every length from 1 to
//! 97 cycles between its calls, and in a burst every 400 calls reads each
//! core's iteration count (written every iteration) and a table (never
//! written after the start) in SRAM, writes the word each core loads from
//! DRAM every 512 iterations, reads a core's PC and the instructions
//! retired.
//! Every value seen, at every host cycle, and every core's state at the
//! end are the same. (Answering every read of SRAM where the core stands,
//! or not bringing the cores back for `Host::stats`, fails it.)

// Tests unwrap freely (clippy.toml's allow-unwrap-in-tests does not reach
// integration tests, rust-clippy#13981).
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use e_hal::{Host, Workgroup};

mod common;
use common::{core_state, det_host, sram_word};

/// ahead_dev.c's addresses.
const COUNT_OFF: u32 = 0x6000;
const TABLE_OFF: u32 = 0x6100;
const EXT_OFF: u32 = 0x0020_0000;
const PC: u32 = 0xF0408;

const CORES: [(u32, u32); 4] = [(0, 0), (0, 1), (1, 0), (1, 1)];

fn elf() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/dev/ahead_dev.elf")
}

fn dram_word(h: &Host, rank: usize, word: u32) -> u32 {
    let mut w = [0; 4];
    h.read_dram(EXT_OFF + 16 * rank as u32 + 4 * word, &mut w)
        .unwrap();
    u32::from_le_bytes(w)
}

/// What the host saw and when: (host cycle, what, core, value).
type Log = Vec<(u64, &'static str, usize, u32)>;

/// The session; the log, every core's state at the end, and
/// `Machine::run_past_counts` (zero in strict order).
fn session(strict: bool) -> (Log, Vec<String>, (u64, u64, u64)) {
    let h = det_host(strict);
    let group = Workgroup {
        row: 0,
        col: 0,
        rows: 2,
        cols: 2,
    };
    h.load(&elf(), group, &CORES, false).unwrap();
    h.write_dram(EXT_OFF, &[0; 64]).unwrap();
    h.start(&CORES).unwrap();
    let mut log = Log::new();
    let mut seed = 4321u32;
    let mut next = move || {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
        seed >> 16
    };
    let mut calls = 0u32;
    while (0..4).any(|rank| dram_word(&h, rank, 2) == 0) {
        calls += 1;
        assert!(calls < 40_000, "the cores did not end");
        h.run(1 + u64::from(next()) % 97);
        let rank = next() as usize % 4;
        let core = CORES[rank];
        // Stretches of polls of external memory (where the cores may run
        // past the host's clock), then a burst of other accesses.
        let burst = calls % 400 >= 390;
        let v = match if burst { next() % 8 } else { 7 } {
            0 => ("count", sram_word(&h, core, COUNT_OFF)),
            1 | 2 => {
                let k = next() % 64;
                ("table", sram_word(&h, core, TABLE_OFF + 4 * k))
            }
            3 => {
                let v = next();
                h.write_dram(EXT_OFF + 16 * rank as u32 + 4, &v.to_le_bytes())
                    .unwrap();
                ("wrote", v)
            }
            4 => ("pc", h.read_reg(core.0, core.1, PC).unwrap()),
            5 => ("instret", h.stats().instret as u32),
            _ => ("report", dram_word(&h, rank, 0)),
        };
        log.push((h.now(), v.0, rank, v.1));
    }
    for rank in 0..4 {
        log.push((h.now(), "end", rank, dram_word(&h, rank, 2)));
    }
    assert!(h.run_until_idle(1 << 20), "the cores did not end");
    let counts = h.with_machine(|m| m.run_past_counts());
    let state = h.with_machine(|m| {
        CORES
            .iter()
            .map(|&(r, c)| core_state(&m.cores[(r * 4 + c) as usize]))
            .collect()
    });
    (log, state, counts)
}

#[test]
fn cores_running_past_the_hosts_clock_give_strict_order() {
    let (want_log, want_state, strict_counts) = session(true);
    let (log, state, (ended, reads, settled)) = session(false);
    for (k, (got, want)) in log.iter().zip(&want_log).enumerate() {
        assert_eq!(got, want, "host access {k}");
    }
    assert_eq!(log.len(), want_log.len(), "host accesses");
    assert_eq!(state, want_state);
    assert_eq!(strict_counts, (0, 0, 0), "strict order runs no core ahead");
    // The cases are exercised: runs ended with cores past them, reads of
    // SRAM were answered where the core stood, and cores went back.
    assert!(ended >= 1000, "runs ending with a core past them: {ended}");
    assert!(reads >= 20, "reads answered ahead: {reads}");
    assert!(settled >= 20, "settled: {settled}");
}
