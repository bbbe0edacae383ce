//! Loads from DRAM timed in closed form in the core's run when nothing
//! else can meet their round trip (`sched::solo_load`, sim/TIMING.md "How
//! it stays exact") against strict cycle order, which steps every packet
//! through the mesh: the output, every core's cycles, instructions and
//! stalls, and the mesh's link and eLink statistics must be the same run
//! ahead, run ahead in short slices (a run stops in the middle of a round
//! trip's window and goes on), and in strict order.

mod common;

use common::{counters, epsim, machine_with_elf, machine_with_group, output, run_to_exit};
use epsim_sim::{Config, Machine};

/// What a run shows: the output, each core's (cycles, instructions,
/// stalls), the mesh's loads; and the loads timed in closed form.
type Seen = (String, Vec<(u64, u64, Vec<u64>)>, String);

fn run(mut m: Machine, strict: bool, slice: Option<u64>) -> (Seen, u64) {
    m.strict = strict;
    let what = format!("strict {strict}, slice {slice:?}");
    run_to_exit(&mut m, 50_000_000, slice, &what);
    let mesh = format!("{:?}", m.view().mesh);
    ((output(&m), counters(&m), mesh), m.solo_loads())
}

/// Runs the machine `make` builds strict, fast, and fast in slices of 997
/// and 4,999 cycles; asserts they agree; returns the output and the loads
/// the fast run timed in closed form.
fn fast_is_strict(name: &str, make: impl Fn() -> Machine) -> (String, u64) {
    let (strict, none) = run(make(), true, None);
    assert_eq!(none, 0, "{name}: strict order steps every load");
    let (fast, solo) = run(make(), false, None);
    for (how, seen) in [
        ("fast", fast),
        ("fast in slices of 997", run(make(), false, Some(997)).0),
        ("fast in slices of 4999", run(make(), false, Some(4999)).0),
    ] {
        assert_eq!(seen.0, strict.0, "{name}: output, {how} against strict");
        assert_eq!(seen.1, strict.1, "{name}: per-core counters, {how}");
        assert_eq!(seen.2, strict.2, "{name}: mesh statistics, {how}");
    }
    (strict.0, solo)
}

#[test]
fn loads_alone_and_among_other_cores_traffic_time_as_in_strict_order() {
    // Core (0,0)'s byte loads continuing the eLink's burst and breaking
    // it, word loads right after its own stores to DRAM (held behind
    // them), and loads while rank 1 stores to DRAM, rank 2 moves a block
    // to DRAM by DMA and rank 3 writes into its mailbox; then alone.
    let (out, solo) = fast_is_strict("dram_solo", || {
        machine_with_group("multi/dram_solo.elf", Config::parallella16(), 4, 4)
    });
    assert!(out.contains("[32,8] dram_solo: bytes 193008\n"), "{out}");
    assert!(out.contains("[32,8] dram_solo: strided 4072\n"), "{out}");
    assert!(!out.contains("FAIL"), "{out}");
    assert!(solo > 500, "only {solo} loads timed alone");
}

#[test]
fn a_program_in_dram_times_its_loads_as_in_strict_order() {
    // Code and data in DRAM on one core: every load from DRAM alone.
    let (out, solo) = fast_is_strict("strcmp-dram-short", || {
        machine_with_elf("bench/strcmp-dram-short.elf", Config::parallella16())
    });
    assert!(out.starts_with("strcmp: "), "{out}");
    assert!(solo > 10_000, "only {solo} loads timed alone");
}

#[test]
fn loads_answered_in_their_blocks_time_as_in_strict_order() {
    // Core (0,0)'s compare loop in DRAM, two loads a block: the second
    // continuing the eLink's burst or breaking it from the same code and
    // pipeline state (a replay's check finds it off its record), the read
    // port busy with the loop's own fetches, six loads in one block, a
    // store after a load in its block, a compare timed by CTIMER0; with
    // rank 1 storing into the compared line and rank 2 elsewhere in DRAM.
    for (rows, cols) in [(1, 1), (1, 2), (2, 2)] {
        let name = format!("dram_block {rows}x{cols}");
        let (out, solo) = fast_is_strict(&name, || {
            machine_with_group("multi/dram_block.elf", Config::parallella16(), rows, cols)
        });
        assert!(out.contains("dram_block: six 1442"), "{name}: {out}");
        assert!(out.contains("dram_block: timed 20\n"), "{name}: {out}");
        assert!(solo > 500, "{name}: only {solo} loads timed alone");
    }
}

#[test]
fn a_block_jumping_back_to_itself_repeats_as_in_strict_order() {
    // Core (0,0)'s byte loops in DRAM, each a block that jumps back to
    // itself and whose next passes are taken in place of the run loop
    // (`core::blocks::solo_repeat`): entered after loads from SRAM (the
    // polling watch not yet steady), inside an active hardware loop, and
    // with the user interrupt pending but held by STATUS.GID. Alone (with
    // rank 1: the next test).
    let (out, solo) = fast_is_strict("dram_repeat", || {
        machine_with_group("multi/dram_repeat.elf", Config::parallella16(), 1, 1)
    });
    assert!(out.contains("dram_repeat: far 509\n"), "{out}");
    assert!(out.contains("dram_repeat: hw 16990\n"), "{out}");
    assert!(out.contains("dram_repeat: held 21\n"), "{out}");
    assert!(solo > 1_000, "only {solo} loads timed alone");
}

#[test]
fn an_interrupt_raised_while_a_core_waits_on_dram_is_taken_as_in_strict_order() {
    // The same with rank 1 writing (0,0)'s ILATST now and then while
    // (0,0) runs its loops from DRAM: a write that raises the interrupt
    // while (0,0) waits to issue a load whose line is still on its way
    // is taken before the load (`Machine::interrupt_before_emit`), and one
    // raised while a load from DRAM is out is taken right after that load
    // (`Core::run_mode` cuts the answered instruction's block after it).
    // Before both, fast order took its fourth interrupt at cycle 18,814
    // and strict order at 18,439, and (0,0) ended 1,431 cycles early.
    let (out, _) = fast_is_strict("dram_repeat 1x2", || {
        machine_with_group("multi/dram_repeat.elf", Config::parallella16(), 1, 2)
    });
    assert!(out.contains("dram_repeat: far 509\n"), "{out}");
    assert!(out.contains("dram_repeat: irqs 8\n"), "{out}");
}

#[test]
fn an_interrupt_is_taken_no_sooner_than_the_write_that_raised_it_arrives() {
    // dram_repeat on 1x2 in strict order: rank 1's store to (0,0)'s
    // ILATST issues at cycle 13,073 while (0,0) waits for a line of its
    // code from DRAM, and (0,0) takes the interrupt 3 cycles later, when
    // the write arrives. Before session 33 a core waiting so took it from
    // the cycle it stood at when it sent its fetch: at 12,534, before the
    // store had issued (in both orders, which agreed).
    let o = epsim(&[
        "run",
        "--strict",
        "--group",
        "1x2",
        "--trace",
        "-",
        "--trace-from",
        "11400",
        "--trace-to",
        "13200",
        "../firmware/multi/dram_repeat.elf",
    ]);
    assert!(o.status.success(), "{o:?}");
    let trace = String::from_utf8_lossy(&o.stdout);
    let cycles = |what: &str| -> Vec<u64> {
        trace
            .lines()
            .filter(|l| l.contains(what))
            .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
            .collect()
    };
    let raised = cycles("32,9  0000056a");
    let taken = cycles("32,8  interrupt 9");
    assert_eq!(raised, [13_073], "rank 1's stores to ILATST\n{trace}");
    assert_eq!(taken, [13_076], "(0,0)'s interrupts\n{trace}");
}

#[test]
fn a_multicast_interrupt_while_a_core_waits_on_dram_is_taken_as_in_strict_order() {
    // The same with rank 1 raising the interrupt by multicast writes to
    // ILATST in the group (0,0) joined (dram_repeat_mc.elf): a multicast
    // is delivered by its own path. Already exact when written (session
    // 33); it keeps that path covered.
    let (out, _) = fast_is_strict("dram_repeat_mc 1x2", || {
        machine_with_group("multi/dram_repeat_mc.elf", Config::parallella16(), 1, 2)
    });
    assert!(out.contains("dram_repeat: far 509\n"), "{out}");
    assert!(out.contains("dram_repeat: irqs 8\n"), "{out}");
}

#[test]
fn a_dma_completion_interrupt_while_a_core_waits_on_dram_is_taken_as_in_strict_order() {
    // Core (0,0)'s own DMA engine completes a copy within its SRAM, its
    // interrupt enabled, before the core calls its loop in DRAM
    // (dma_irq_dram.c; session 34 found every copy ended before the GIE
    // that precedes the call, where the interrupt is taken): the handler
    // runs in the same cycles as in strict order, so it notes the loop's
    // progress at the same points. The copies that end while the core
    // waits for DRAM are dma_irq_dram_long's (the next test).
    let (out, _) = fast_is_strict("dma_irq_dram", || {
        machine_with_group("multi/dma_irq_dram.elf", Config::parallella16(), 1, 1)
    });
    assert!(out.contains("dma_irq_dram: irqs 24\n"), "{out}");
    assert!(out.contains("dma_irq_dram: sum 127540\n"), "{out}");
}

#[test]
fn a_long_dma_ending_while_a_core_waits_on_dram_is_taken_as_in_strict_order() {
    // dma_irq_dram_long.elf on 1x2: the copies end while (0,0) waits for
    // DRAM, rank 1 storing to DRAM meanwhile, so (0,0)'s loads go through
    // the mesh: long copies within SRAM end by the engine's last move (the
    // core's run stops before it), copies from DRAM in message mode when
    // their last read returns, while (0,0) waits for a byte loaded from
    // DRAM (session 34: every such ending came during a load's wait).
    let (out, _) = fast_is_strict("dma_irq_dram_long 1x2", || {
        machine_with_group("multi/dma_irq_dram_long.elf", Config::parallella16(), 1, 2)
    });
    assert!(out.contains("dma_irq_dram: irqs 24\n"), "{out}");
    assert!(out.contains("dma_irq_dram: sum 127540\n"), "{out}");
    assert!(out.contains("dma_irq_dram: dst 1693950417\n"), "{out}");
}

#[test]
fn stores_to_dram_posted_in_a_run_time_as_in_strict_order() {
    // Core (0,0)'s byte stores to DRAM, each answered in its run and its
    // write kept (`SoloLoads::post`), then a wait of 0 to about 120
    // cycles and a load of the stored byte (the read waits for the write)
    // or one after it, now and then two stores in a row: the write lands
    // in the run when its trip surely ends before the next load or store
    // and before anything else acts (`SoloLoads::land`), else the machine
    // sends it at its issue when the run ends; ranks 1 and 2 write into
    // (0,0)'s mailboxes (rank 2 to DRAM too) at varying intervals. Alone
    // on 1x1, and among them on 1x2 and 4x4.
    for (rows, cols) in [(1, 1), (1, 2), (4, 4)] {
        let name = format!("dram_post {rows}x{cols}");
        let (out, solo) = fast_is_strict(&name, || {
            machine_with_group("multi/dram_post.elf", Config::parallella16(), rows, cols)
        });
        assert!(out.contains("dram_post: sum "), "{name}: {out}");
        assert!(!out.contains("FAIL"), "{name}: {out}");
        assert!(solo > 500, "{name}: only {solo} loads timed alone");
    }
}

#[test]
fn kept_round_trips_name_their_record_by_id_and_the_memo_s_epoch() {
    // dram_repeat alone and strcmp-dram-short with each core's memo
    // forgetting every record after 20 (`Memo::max_records`): ids name
    // other records again, so the round trips kept for a record's replay
    // (`SoloLoads::rounds_again`) are taken for one of the same id only
    // in the same epoch (`Memo::epoch`). Compared by id alone, a later
    // record whose loads issue elsewhere took an earlier one's kept trips:
    // both differ from strict order (strcmp-dram-short then stops at a
    // store to DRAM sent behind the network).
    for (name, elf, group) in [
        ("dram_repeat, 20 records", "multi/dram_repeat.elf", true),
        (
            "strcmp-dram-short, 20 records",
            "bench/strcmp-dram-short.elf",
            false,
        ),
    ] {
        let make = || {
            let mut m = if group {
                machine_with_group(elf, Config::parallella16(), 1, 1)
            } else {
                machine_with_elf(elf, Config::parallella16())
            };
            for c in &mut m.cores {
                c.memo.max_records = 20;
            }
            m
        };
        let (_, solo) = fast_is_strict(name, make);
        assert!(solo > 1_000, "{name}: only {solo} loads timed alone");
    }
}
