//! A host polling the chip runs it in short runs (README "The e-hal
//! drop-in", "Run modes"). Between two runs the cores spinning in a
//! polling loop are left parked (`Machine::keep_parked`): a run that
//! follows goes on with them parked, and they are brought to the last
//! run's end only when the host looks at them or changes them. Checked
//! here against strict cycle order (where no core parks) on
//! `examples/pollbench/pollbench_dev.elf` on 2x2 cores: the host starts
//! each round by writing each core's go word (waking a core parked on
//! it), polls the done words with runs of every length from 1 to 97
//! cycles between polls (so that some run ends in each cycle of a core's
//! store, and some poll sees a value stored in the run's last cycle), and
//! reads external memory (which leaves the cores parked) and each core's
//! PC (which brings them to the run's end) between polls. Every value
//! seen, at every host cycle, and every core's state at the end are the
//! same.

// Tests unwrap freely (clippy.toml's allow-unwrap-in-tests does not reach
// integration tests, rust-clippy#13981).
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use e_hal::{Host, Workgroup};

mod common;
use common::{core_state, det_host, sram_word};

/// pollbench.h's offsets.
const GO_OFF: u32 = 0x7000;
const DONE_OFF: u32 = 0x7004;
const SUM_OFF: u32 = 0x7008;
const PC: u32 = 0xF0408;

const CORES: [(u32, u32); 4] = [(0, 0), (0, 1), (1, 0), (1, 1)];

fn elf() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/pollbench/pollbench_dev.elf")
}

/// What the host saw and when: (host cycle, what, value).
type Log = Vec<(u64, &'static str, u32)>;

/// The group's cores as a host looking at the machine sees them: a hash
/// of their instructions retired, PCs and registers (a core that saw its
/// go word at another cycle has another loop count).
fn cores(h: &Host) -> u32 {
    h.with_machine(|m| {
        let mut a = 0u32;
        for &(r, c) in &CORES {
            let core = &m.cores[(r * 4 + c) as usize];
            for v in [core.stats.instret as u32, core.state.pc]
                .into_iter()
                .chain(core.state.r)
            {
                a = a.wrapping_mul(31).wrapping_add(v);
            }
        }
        a
    })
}

/// The session: `rounds` rounds, the gaps between polls drawn from a
/// fixed sequence. The log, every core's state at the end, and how many
/// runs ended with cores left parked.
fn session(strict: bool, rounds: u32) -> (Log, Vec<String>, u64) {
    let h = started(strict);
    let mut log = Log::new();
    let mut seed = 12345u32;
    let mut gap = move || {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
        1 + u64::from(seed >> 16) % 97
    };
    let mut polls = 0u32;
    for round in 1..=rounds {
        for &(r, c) in &CORES {
            h.run(gap());
            h.write_sram(r, c, GO_OFF, &round.to_le_bytes()).unwrap();
        }
        h.run(gap());
        log.push((h.now(), "cores", cores(&h)));
        for &core in &CORES {
            loop {
                let done = sram_word(&h, core, DONE_OFF);
                log.push((h.now(), "done", done));
                if done == round {
                    break;
                }
                polls += 1;
                assert!(polls < 5_000, "round {round} never done on {core:?}");
                if polls.is_multiple_of(3) {
                    log.push((h.now(), "cores", cores(&h)));
                }
                match polls % 4 {
                    0 => {
                        let mut w = [0; 8];
                        h.read_dram(0, &mut w).unwrap();
                    }
                    1 => {
                        let pc = h.read_reg(core.0, core.1, PC).unwrap();
                        log.push((h.now(), "pc", pc));
                    }
                    _ => h.run(gap()),
                }
            }
        }
    }
    for &core in &CORES {
        log.push((h.now(), "sum", sram_word(&h, core, SUM_OFF)));
    }
    for &(r, c) in &CORES {
        h.write_sram(r, c, GO_OFF, &0u32.to_le_bytes()).unwrap();
    }
    assert!(h.run_until_idle(1 << 20), "the cores did not end");
    let kept = h.with_machine(|m| m.kept_parked());
    let state = h.with_machine(|m| m.cores[..6].iter().map(core_state).collect());
    log.push((h.now(), "end", 0));
    (log, state, kept)
}

#[test]
fn polling_in_short_runs_is_strict_order() {
    let (want_log, want_state, strict_kept) = session(true, 4);
    let (log, state, kept) = session(false, 4);
    for (k, (got, want)) in log.iter().zip(&want_log).enumerate() {
        assert_eq!(got, want, "host access {k}");
    }
    assert_eq!(log.len(), want_log.len(), "host accesses");
    assert_eq!(state, want_state);
    assert_eq!(strict_kept, 0, "strict order parks no core");
    assert!(
        kept >= 40,
        "runs ending with cores left parked: {kept} (the case is not exercised)"
    );
}

/// Core (0,0) is given round 1 (the others spin on their go words, left
/// parked between runs) and the host reads its done word with `e_read`
/// after a run ending at cycle `end` (the host's clock after the write
/// plus `end`), the read that leaves the parked cores parked. What it
/// reads, and the host's cycle after the write.
fn read_after(strict: bool, end: u64) -> (u32, u64) {
    let h = start_all(strict);
    h.write_sram(0, 0, GO_OFF, &1u32.to_le_bytes()).unwrap();
    let t = h.now();
    h.run(end);
    let done = sram_word(&h, (0, 0), DONE_OFF);
    let kept = h.with_machine(|m| m.kept_parked());
    assert!(strict || kept > 0, "no run left cores parked");
    (done, t)
}

/// The group loaded, its go and done words cleared, and started.
fn started(strict: bool) -> Host {
    let h = det_host(strict);
    let group = Workgroup {
        row: 0,
        col: 0,
        rows: 2,
        cols: 2,
    };
    h.load(&elf(), group, &CORES, false).unwrap();
    for &(r, c) in &CORES {
        h.write_sram(r, c, GO_OFF, &0u32.to_le_bytes()).unwrap();
        h.write_sram(r, c, DONE_OFF, &0u32.to_le_bytes()).unwrap();
    }
    h.start(&CORES).unwrap();
    h
}

/// [`started`], every core left to reach its polling loop.
fn start_all(strict: bool) -> Host {
    let h = started(strict);
    h.run(3000);
    h
}

#[test]
fn a_read_sees_a_store_of_the_runs_last_cycle() {
    // Strict order, a cycle at a time: the first run end at which core
    // (0,0)'s store of its done word is seen.
    let h = start_all(true);
    h.write_sram(0, 0, GO_OFF, &1u32.to_le_bytes()).unwrap();
    let t = h.now();
    let seen = (1..20_000u64)
        .find(|_| {
            h.run(1);
            h.with_machine(|m| m.cores[0].sram.read_bytes(DONE_OFF, 4) == [1, 0, 0, 0])
        })
        .expect("core (0,0) stores its done word");
    assert_eq!(h.now(), t + seen);
    // Runs ending just before, at and just after it: the store is seen
    // from the run that ends one cycle after it (made in its last cycle)
    // on, and cores were left parked at each run's end.
    for end in seen - 3..=seen + 2 {
        let (got, at) = read_after(false, end);
        assert_eq!(at, t);
        assert_eq!(got, u32::from(end >= seen), "a run ending at {}", t + end);
        assert_eq!(read_after(true, end), (got, at));
    }
}
