//! The group's wires in timed mode, where the scheduler's horizons are
//! tightest: WAND barriers that the 16 cores reach within a few cycles of
//! each other in a different order each round, and SYNC reaching cores
//! asleep and cores computing (firmware/multi/wires.elf on the 4x4 chip).
//! Run ahead, run ahead in 997-cycle slices and in strict cycle order, the
//! output and every core's counters must be the same.

mod common;

use common::fast_is_strict;

/// `key`'s number on each line of `out` that has it, by the core's
/// `[row,col]` prefix.
fn by_core(out: &str, key: &str) -> Vec<((u32, u32), u64)> {
    out.lines()
        .filter_map(|l| {
            let (core, rest) = l.split_once(' ')?;
            let n = rest.strip_prefix(key)?.parse().ok()?;
            let (r, c) = core
                .trim_matches(|ch| ch == '[' || ch == ']')
                .split_once(',')?;
            Some(((r.parse().ok()?, c.parse().ok()?), n))
        })
        .collect()
}

#[test]
fn wand_and_sync_with_cores_cycles_apart_agree_with_strict_order() {
    let out = fast_is_strict("wires");
    // Every core passed its 12 barriers (the handler's times summed) and
    // took SYNC.
    assert_eq!(by_core(&out, "wand: ").len(), 16, "{out}");
    let sync = by_core(&out, "sync: ");
    assert_eq!(sync.len(), 16, "{out}");
    // SYNC from core (33,9) reaches a core h hops away as fast as a packet
    // from its node would: the rMesh's entry (half a cycle) and 1.5 cycles
    // a hop, in whole cycles. The cores of even rank (even columns) sleep
    // in IDLE, so each wakes the same time after its interrupt arrives.
    let latency = |h: u64| (1 + 3 * h).div_ceil(2);
    let asleep: Vec<(u64, u64)> = sync
        .iter()
        .filter(|&&((_, c), _)| (c - 8) % 2 == 0)
        .map(|&((r, c), t)| (u64::from(r.abs_diff(33) + c.abs_diff(9)), t))
        .collect();
    assert_eq!(asleep.len(), 8);
    let base = asleep[0].1 - latency(asleep[0].0);
    for &(h, t) in &asleep {
        assert_eq!(t, base + latency(h), "a core {h} hops away: {asleep:?}");
    }
    // (Nearest and farthest both among them.)
    assert!(asleep.iter().any(|&(h, _)| h == 1) && asleep.iter().any(|&(h, _)| h == 3));
}
