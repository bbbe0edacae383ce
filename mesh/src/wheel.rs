//! Pending wake-ups of the network's agents, by tick.
//!
//! A ring of [`SLOTS`] buckets holds the wake-ups of the next `SLOTS` ticks
//! (every hop, link and eLink delay of the default parameters is shorter),
//! a heap the later ones. Finding the next tick with work scans at most the
//! ring; with nothing pending it answers at once, so quiet time is free.
//! Entries carry no ordering meaning within a tick: the engine's phases
//! decide the order, and visiting agents of one phase in any order gives
//! the same result.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub(crate) const SLOTS: u64 = 64;
const MASK: u64 = SLOTS - 1;

#[derive(Clone, Debug)]
pub(crate) struct Wheel {
    slots: Vec<Vec<u32>>,
    /// Entries in `slots`.
    count: usize,
    /// Bit `i` set: `slots[i]` holds entries (finding the next tick is a
    /// rotate and a count of trailing zeros, not a scan).
    full: u64,
    far: BinaryHeap<Reverse<(u64, u32)>>,
    /// The tick being (or last) simulated: every entry is later.
    cur: u64,
}

impl Wheel {
    pub(crate) fn new() -> Wheel {
        Wheel {
            slots: vec![Vec::new(); SLOTS as usize],
            count: 0,
            full: 0,
            far: BinaryHeap::new(),
            cur: 0,
        }
    }

    /// The tick being, or last, simulated.
    pub(crate) fn cur(&self) -> u64 {
        self.cur
    }

    /// Wakes `entry` at tick `at` (later than `cur`).
    #[inline]
    pub(crate) fn push(&mut self, at: u64, entry: u32) {
        debug_assert!(at > self.cur, "invariant: wake-ups are in the future");
        if at - self.cur < SLOTS {
            self.slots[(at & MASK) as usize].push(entry);
            self.full |= 1 << (at & MASK);
            self.count += 1;
        } else {
            self.far.push(Reverse((at, entry)));
        }
    }

    /// How many wake-ups are pending.
    pub(crate) fn pending(&self) -> usize {
        self.count + self.far.len()
    }

    /// The earliest tick with a wake-up, or `u64::MAX`.
    pub(crate) fn next(&self) -> u64 {
        let far = self.far.peek().map_or(u64::MAX, |Reverse((at, _))| *at);
        if self.full != 0 {
            // Slots by distance from the tick after `cur` (every entry in
            // the ring is 1 to SLOTS - 1 ticks ahead).
            let first = self.cur.wrapping_add(1);
            let d = self
                .full
                .rotate_right((first & MASK) as u32)
                .trailing_zeros();
            return first.wrapping_add(u64::from(d)).min(far);
        }
        far
    }

    /// With nothing pending, makes `at` the current tick if it is later
    /// (a packet's trip done in closed form: `Mesh::solo_inject`).
    pub(crate) fn skip_to(&mut self, at: u64) {
        debug_assert!(self.count == 0 && self.far.is_empty());
        self.cur = self.cur.max(at);
    }

    /// Drops every wake-up pending and stands at tick `at` (if later).
    pub(crate) fn clear_to(&mut self, at: u64) {
        while self.full != 0 {
            let i = self.full.trailing_zeros();
            self.slots[i as usize].clear();
            self.full &= self.full - 1;
        }
        self.count = 0;
        self.far.clear();
        self.cur = self.cur.max(at);
    }

    /// Makes `at` (the result of [`Wheel::next`]) the current tick and
    /// moves its wake-ups into `due`.
    pub(crate) fn take(&mut self, at: u64, due: &mut Vec<u32>) {
        self.cur = at;
        let slot = &mut self.slots[(at & MASK) as usize];
        self.count -= slot.len();
        if due.is_empty() {
            // (The slot's vector becomes `due`, and `due`'s empty one the
            // slot's: no copy.)
            std::mem::swap(due, slot);
        } else {
            due.append(slot);
        }
        self.full &= !(1 << (at & MASK));
        while let Some(&Reverse((t, e))) = self.far.peek() {
            if t != at {
                break;
            }
            self.far.pop();
            due.push(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_and_far_wake_ups_come_out_by_tick() {
        let mut w = Wheel::new();
        assert_eq!(w.next(), u64::MAX);
        w.push(5, 1);
        w.push(200, 2);
        w.push(5, 3);
        w.push(63, 4);
        let mut due = Vec::new();
        assert_eq!(w.next(), 5);
        w.take(5, &mut due);
        assert_eq!(due, [1, 3]);
        due.clear();
        w.push(68, 5); // 63 ahead of 5: still in the ring
        w.push(69, 6); // 64 ahead: the heap
        assert_eq!(w.next(), 63);
        w.take(63, &mut due);
        assert_eq!(due, [4]);
        due.clear();
        assert_eq!(w.next(), 68);
        w.take(68, &mut due);
        assert_eq!(w.next(), 69);
        w.take(69, &mut due);
        assert_eq!(due, [5, 6]);
        assert_eq!(w.next(), 200);
        due.clear();
        w.take(200, &mut due);
        assert_eq!(due, [2]);
        assert_eq!(w.next(), u64::MAX);
    }

    /// `next` as a scan of the ring, tick by tick (what the bit mask
    /// stands for).
    fn next_by_scan(w: &Wheel) -> u64 {
        let far = w.far.peek().map_or(u64::MAX, |Reverse((at, _))| *at);
        (1..SLOTS)
            .map(|d| w.cur + d)
            .find(|&at| at < far && !w.slots[(at & MASK) as usize].is_empty())
            .unwrap_or(far)
    }

    #[test]
    fn the_next_tick_is_the_first_with_wake_ups_on_random_use() {
        let mut w = Wheel::new();
        let mut rng = crate::test_rng(0x2545_f491_4f6c_dd1du64);
        let mut due = Vec::new();
        let mut taken = 0;
        for _ in 0..20_000 {
            for _ in 0..rng(3) {
                // Near (the ring, every distance) and far (the heap).
                let ahead = if rng(8) == 0 {
                    1 + rng(300)
                } else {
                    1 + rng(SLOTS - 1)
                };
                w.push(w.cur() + ahead, 0);
            }
            let want = next_by_scan(&w);
            assert_eq!(w.next(), want, "at tick {}", w.cur());
            if want != u64::MAX {
                due.clear();
                w.take(want, &mut due);
                assert!(!due.is_empty());
                taken += due.len();
            }
        }
        assert!(taken > 10_000);
    }
}
