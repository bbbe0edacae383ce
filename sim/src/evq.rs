//! The timed scheduler's queue (`crate::sched`): one entry per agent, its
//! earliest action, kept as a tree of minimums over a fixed array.
//!
//! The scheduler changes a few agents' entries between every two steps and
//! asks for the least entry, the least two, and the entries below a bound
//! that shrinks as it looks (`Timed::reach`). Ordered sets did that with an
//! allocation-heavy removal and insertion per change; here a change writes
//! its leaf and the minimums above it (stopping where one is unchanged), the
//! least is the root, and a search below a bound skips every subtree whose
//! least is not below it. Same answers, same order of ties (the keys are
//! compared whole).

/// An empty slot's key: above every key held.
pub(crate) const NONE: u64 = u64::MAX;

/// A tree of minimums over `len` slots, each holding a key ([`NONE`]:
/// empty).
#[derive(Clone, Debug)]
pub(crate) struct MinTree {
    /// Leaves: `leaves` (a power of two); node `j`'s children are `2j`,
    /// `2j + 1`, leaf `k` is node `leaves + k`, the root node 1.
    leaves: usize,
    node: Vec<u64>,
}

impl MinTree {
    pub(crate) fn new(len: usize) -> MinTree {
        let leaves = len.max(1).next_power_of_two();
        // (Node indices fit in 32 bits: `MinTree::search`'s stack.)
        assert!(
            leaves
                .checked_mul(2)
                .is_some_and(|n| u32::try_from(n).is_ok()),
            "a MinTree of {len} slots"
        );
        MinTree {
            leaves,
            node: vec![NONE; 2 * leaves],
        }
    }

    /// Slot `k` holds `key` now.
    #[inline]
    pub(crate) fn set(&mut self, k: usize, key: u64) {
        let mut j = self.leaves + k;
        if self.node[j] == key {
            return;
        }
        self.node[j] = key;
        while j > 1 {
            j /= 2;
            let m = self.node[2 * j].min(self.node[2 * j + 1]);
            if self.node[j] == m {
                break;
            }
            self.node[j] = m;
        }
    }

    /// Every slot's key, in slot order.
    #[inline]
    pub(crate) fn slots(&self) -> &[u64] {
        &self.node[self.leaves..]
    }

    /// The least key held and the least of the others ([`NONE`]: none).
    #[inline]
    pub(crate) fn first_two(&self) -> (u64, u64) {
        let m = self.node[1];
        // Down the path to the least leaf; the least of the others is the
        // least of the siblings along it.
        let mut second = NONE;
        let mut j = 1;
        while j < self.leaves {
            let (l, r) = (2 * j, 2 * j + 1);
            if self.node[l] == m {
                second = second.min(self.node[r]);
                j = l;
            } else {
                second = second.min(self.node[l]);
                j = r;
            }
        }
        (m, second)
    }

    /// Calls `each` with every slot and key held for which `below` holds
    /// of the least key of every subtree on its way (so, for a `below`
    /// that holds of a key whenever it holds of a greater one, every key
    /// below the bound: `below` may tighten as `each` is called), lesser
    /// subtrees first.
    #[inline]
    pub(crate) fn search(
        &self,
        mut below: impl FnMut(u64) -> bool,
        mut each: impl FnMut(usize, u64),
    ) {
        // Each step takes one entry and gives back at most two, one level
        // down: at most one entry per level, plus the root (node indices
        // fit in 32 bits: `MinTree::new`).
        let mut stack = [0u32; 65];
        stack[0] = 1;
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let j = stack[top] as usize;
            let key = self.node[j];
            if key == NONE || !below(key) {
                continue;
            }
            if j >= self.leaves {
                each(j - self.leaves, key);
                continue;
            }
            let (l, r) = (2 * j, 2 * j + 1);
            // The child holding the least is looked at first (pushed last).
            let (first, then) = if self.node[l] == key { (l, r) } else { (r, l) };
            stack[top] = then as u32;
            stack[top + 1] = first as u32;
            top += 2;
        }
    }
}

/// A small deterministic generator for the tests of the queue and its
/// keys (xorshift64 from `seed`, not zero): each call gives a number
/// below its argument.
#[cfg(test)]
pub(crate) fn test_numbers(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut x = seed;
    move |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn enc((t, r, k): (u64, u8, usize)) -> u64 {
        t << 16 | u64::from(r) << 14 | k as u64
    }

    fn dec(key: u64) -> Option<(u64, u8, usize)> {
        (key != NONE).then_some((key >> 16, (key >> 14 & 3) as u8, (key & 0x3fff) as usize))
    }

    /// The tree against an ordered set through random changes.
    #[test]
    fn the_tree_answers_as_an_ordered_set() {
        let mut rnd = test_numbers(0x9e37_79b9_7f4a_7c15);
        for len in [1usize, 2, 3, 16, 17, 64, 100] {
            let mut tree = MinTree::new(len);
            let mut set = BTreeSet::new();
            let mut slot: Vec<Option<(u64, u8, usize)>> = vec![None; len];
            for _ in 0..4000 {
                let k = rnd(len as u64) as usize;
                let key = (rnd(5) != 0).then(|| (rnd(40), rnd(3) as u8, k));
                if let Some(old) = slot[k] {
                    set.remove(&old);
                }
                if let Some(new) = key {
                    set.insert(new);
                }
                slot[k] = key;
                tree.set(k, key.map_or(NONE, enc));
                let mut it = set.iter().copied();
                let (a, b) = tree.first_two();
                assert_eq!((dec(a), dec(b)), (it.next(), it.next()));
                // A bound that tightens as keys are found (as
                // `Timed::reach`'s): the same least bound both ways.
                let bound = rnd(50);
                let step = |t: u64, kk: usize| t + 3 + (kk as u64 % 4);
                let mut want = bound;
                for &(t, _, kk) in &set {
                    if t >= want {
                        break;
                    }
                    want = want.min(step(t, kk));
                }
                let best = std::cell::Cell::new(bound);
                tree.search(
                    |key| key >> 16 < best.get(),
                    |kk, key| {
                        assert_eq!(slot[kk], dec(key));
                        best.set(best.get().min(step(key >> 16, kk)));
                    },
                );
                assert_eq!(best.get(), want);
            }
        }
    }
}
