//! Memoised block timing: the timed mode's fast path.
//!
//! The timing model ([`crate::timing`]) is deterministic, and what it does
//! over one block depends only on a small part of the pipeline state at the
//! block's entry, seen relative to the entry's first free issue cycle
//! (`base`): the readiness of the scoreboard slots the block waits on before
//! writing them, the pairing state, the fetch state, the recent SRAM bank
//! uses, the rounding mode. Given also which instructions ran, where each
//! memory access went and whether the last one jumped, the block's schedule
//! and the pipeline state it leaves are fixed. So the first time a block
//! runs from a given entry state the detailed model times it and its effect
//! is recorded, relative to `base`; later runs from the same state replay
//! the record.
//!
//! Model decisions owned here, each keeping replay identical to the
//! detailed model (`tests/tests/programs.rs` compares every corpus run with
//! and without memoisation, cycle for cycle):
//! * the key holds the full state (compared byte for byte, never just a
//!   hash);
//! * entry values far enough in the past to be unable to delay any issue
//!   are folded into one "long ago" value; values the record cannot
//!   represent exactly (a slot ready more than [`HORIZON`] cycles ahead, a
//!   fetch state older than [`PAST`] cycles, a blocked core) make the block
//!   go through the detailed model;
//! * blocks that touch external memory, run with the core timers counting,
//!   are traced, or could reach the cycle budget are never memoised.

use crate::timing::{Fetch, Pipeline, Stall, Timing, AFLAGS_SLOT, BFLAGS_SLOT, NONE, STRIDE, ZERO};
use epsim_isa::deps::{AFLAGS, BFLAGS};
use epsim_isa::OpClass;

/// Slots ready more than this many cycles after `base` are not memoised.
const HORIZON: i64 = 15;
/// Fetch state and bank uses older than this many cycles before `base` are
/// "long ago".
const PAST: i64 = 24;
/// Entries of the direct-mapped record table (about 1 MB per core once a
/// core records anything).
const TABLE: usize = 1 << 12;
/// Its size at the first record.
const FIRST_TABLE: usize = 1 << 8;
/// The longest key.
pub const KEY_MAX: usize = 256;

/// A memo key under construction, as words.
pub struct Key {
    words: [u64; KEY_WORDS],
    len: usize,
}

/// The longest key, in words.
const KEY_WORDS: usize = KEY_MAX / 8;

impl Key {
    pub fn new() -> Key {
        Key {
            words: [0; KEY_WORDS],
            len: 0,
        }
    }

    #[inline(always)]
    fn push(&mut self, w: u64) -> bool {
        if self.len == KEY_WORDS {
            return false;
        }
        self.words[self.len] = w;
        self.len += 1;
        true
    }

    /// Pushes `bytes` packed eight to a word.
    #[inline(always)]
    fn push_bytes(&mut self, bytes: &[u8]) -> bool {
        bytes.chunks(8).all(|c| {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            self.push(u64::from_le_bytes(b))
        })
    }

    #[inline(always)]
    fn as_words(&self) -> &[u64] {
        &self.words[..self.len]
    }

    #[inline]
    fn hash(&self) -> usize {
        // The table index only; keys are compared in full.
        let mut h = self.len as u64;
        for &w in self.as_words() {
            h = (h ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            h ^= h >> 29;
        }
        h as usize
    }
}

impl Default for Key {
    fn default() -> Self {
        Key::new()
    }
}

/// What one run of a block did to the pipeline, relative to `base`.
#[derive(Clone, Debug)]
pub struct Record {
    /// Registers written, and their new readiness for integer, FPU and
    /// store-data use.
    writes: Vec<(u8, [i32; 3])>,
    /// The A and B flags' new readiness, if written.
    flags: [Option<i32>; 2],
    /// The bank-use history after the block, and where it starts.
    banks: u128,
    banks_from: i64,
    last: i64,
    next: i64,
    last_class: OpClass,
    last_writes: u64,
    can_pair: bool,
    /// The fetch state after the block, unless it ended with a redirect.
    fetch: Option<(u32, i64, Option<i64>, Stall)>,
    /// The block's last instruction jumped: redirect at this cycle.
    redirect: Option<i64>,
    /// Issue cycle of the last instruction.
    last_issue: i64,
    dual: u64,
    stalls: [u64; crate::timing::NSTALL],
}

/// The records of one core.
pub struct Memo {
    /// The key being built for the current block (kept to avoid
    /// reinitialising it per block).
    pub key: Key,
    /// Direct-mapped by key hash; it starts small and grows (dropping what
    /// it holds) while more than half full, up to `TABLE` entries, so that
    /// the many cores of a large chip that run little code stay small.
    table: Vec<Option<(Box<[u64]>, Record)>>,
    /// Entries of `table` in use.
    filled: usize,
    /// The block-cache generation the records were made with (records
    /// name blocks by entry address: when code changes they are stale).
    generation: u64,
    pub hits: u64,
    pub misses: u64,
}

impl Default for Memo {
    fn default() -> Self {
        Memo::new()
    }
}

impl Memo {
    pub fn new() -> Memo {
        Memo {
            key: Key::new(),
            table: Vec::new(),
            filled: 0,
            generation: 0,
            hits: 0,
            misses: 0,
        }
    }

    /// The record for the current key, if there is one.
    #[inline]
    pub fn get(&self) -> Option<&Record> {
        let key = &self.key;
        let mask = self.table.len().wrapping_sub(1);
        match self.table.get(key.hash() & mask) {
            Some(Some((k, r))) if **k == *key.as_words() => Some(r),
            _ => None,
        }
    }

    /// Stores `record` under the current key.
    pub fn put(&mut self, record: Record) {
        let len = self.table.len();
        if len == 0 || (self.filled * 2 > len && len < TABLE) {
            let new = if len == 0 { FIRST_TABLE } else { len * 4 }.min(TABLE);
            self.table.clear();
            self.table.resize_with(new, || None);
            self.filled = 0;
        }
        let i = self.key.hash() & (self.table.len() - 1);
        if self.table[i].is_none() {
            self.filled += 1;
        }
        self.table[i] = Some((self.key.as_words().into(), record));
    }

    /// Forgets every record if the block cache was emptied since they
    /// were made (`generation` is the cache's).
    #[inline]
    pub fn validate(&mut self, generation: u64) {
        if generation != self.generation {
            self.generation = generation;
            self.table.clear();
            self.filled = 0;
        }
    }
}

/// The scoreboard slots a block waits on before writing them, each with
/// the index of the first instruction that waits on it, in that order.
pub fn live_ins(timing: &[Timing]) -> Vec<(u8, u8)> {
    let mut live = Vec::new();
    let mut written = 0u128; // registers 0..=63, flags 64, 65
    let mut listed = [false; 256];
    for (i, t) in timing.iter().enumerate() {
        for &w in &t.waits {
            if w == ZERO || listed[w as usize] || written & 1 << slot_reg(w) != 0 {
                continue;
            }
            listed[w as usize] = true;
            live.push((w, i as u8));
        }
        for &r in &t.writes[..t.nwrites as usize] {
            written |= 1 << r;
        }
        if t.flags & AFLAGS != 0 {
            written |= 1 << 64;
        }
        if t.flags & BFLAGS != 0 {
            written |= 1 << 65;
        }
    }
    live
}

/// The register or flag group of a scoreboard slot (flags as 64, 65).
#[inline]
fn slot_reg(slot: u8) -> u8 {
    let s = slot as usize;
    if s == AFLAGS_SLOT {
        64
    } else if s == BFLAGS_SLOT {
        65
    } else {
        (s % STRIDE) as u8
    }
}

impl Pipeline {
    /// Builds the key of a block (from `entry`) as it ran: `done`
    /// instructions, whose live-in scoreboard slots are `live` (slot, index
    /// of the first instruction that waits on it; see [`live_ins`]), the
    /// last `jumped` or not, its memory accesses to these `banks` (one per
    /// load/store, 4 for a register with no bank), its first instruction
    /// touching the registers `touches`. False if the entry state cannot be
    /// memoised.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn key(
        &self,
        key: &mut Key,
        entry: u32,
        done: usize,
        live: &[(u8, u8)],
        touches: u64,
        jumped: bool,
        banks: &[u8],
    ) -> bool {
        let base = self.next as i64;
        if (self.blocked_until as i64) > base {
            return false;
        }
        key.len = 0;
        // Pairing with the instruction before the block.
        let pair = self.can_pair as u64
            | ((self.last_writes & touches != 0) as u64) << 1
            | (self.last_class as u64) << 2
            | ((self.last as i64 == base - 1) as u64) << 4;
        // Rounding mode (the FPU latency).
        let lat = self.lat[2][0];
        // Fetch: the line relation, readiness and first issue.
        let f = &self.fetch;
        let ready = f.ready as i64 - base;
        if !(-PAST..=HORIZON).contains(&ready) {
            return false;
        }
        let first_rel = if f.first == NONE {
            0xff
        } else {
            let r = f.first as i64 - base;
            if r < -PAST {
                return false;
            }
            (r + PAST) as u64
        };
        let same_line = (entry >> 3 == f.line) as u64;
        key.push(
            entry as u64 | (done as u64) << 32 | (jumped as u64) << 40 | pair << 48 | lat << 56,
        );
        key.push(
            same_line
                | ((ready + PAST) as u64) << 8
                | first_rel << 16
                | (f.reason as u64) << 24
                | (banks.len() as u64) << 32,
        );
        // Bank uses that a fetch of this block could still meet: the 32
        // cycles from PAST + 4 before base (fetches look no further back).
        let window = self.banks_window((base - PAST - 4).max(0) as u64);
        let ring = [window as u64, (window >> 64) as u64];
        key.push(ring[0]);
        key.push(ring[1]);
        // The live-in slots' readiness (4 bits each), then where the
        // accesses went.
        let mut w = 0u64;
        let mut n = 0;
        for &(slot, first) in live {
            if first as usize >= done {
                break;
            }
            let r = self.ready[slot as usize] as i64 - base;
            if r > HORIZON {
                return false;
            }
            w |= (r.max(0) as u64) << (4 * (n % 16));
            n += 1;
            if n % 16 == 0 && !key.push(w) {
                return false;
            }
            if n % 16 == 0 {
                w = 0;
            }
        }
        (n % 16 == 0 || key.push(w)) && key.push_bytes(banks)
    }

    /// Records what the block that ran from `base` (the entry's `next`)
    /// to now did, `timing` being the instructions that ran.
    pub fn record(
        &self,
        base: u64,
        timing: &[Timing],
        last_issue: u64,
        dual: u64,
        stalls: [u64; crate::timing::NSTALL],
        redirect: Option<u64>,
    ) -> Record {
        let b = base as i64;
        let rel = |slot: usize| (self.ready[slot] as i64 - b) as i32;
        let mut writes = Vec::new();
        let mut flags = [None; 2];
        let mut seen = 0u64;
        for t in timing {
            for &r in &t.writes[..t.nwrites as usize] {
                if r < 64 && seen & 1 << r == 0 {
                    seen |= 1 << r;
                    let r = r as usize;
                    writes.push((r as u8, [rel(r), rel(STRIDE + r), rel(2 * STRIDE + r)]));
                }
            }
            if t.flags & AFLAGS != 0 {
                flags[0] = Some(rel(AFLAGS_SLOT));
            }
            if t.flags & BFLAGS != 0 {
                flags[1] = Some(rel(BFLAGS_SLOT));
            }
        }
        let f = &self.fetch;
        Record {
            writes,
            flags,
            banks: self.banks,
            banks_from: self.banks_from as i64 - b,
            last: self.last as i64 - b,
            next: self.next as i64 - b,
            last_class: self.last_class,
            last_writes: self.last_writes,
            can_pair: self.can_pair,
            fetch: if redirect.is_some() {
                None
            } else {
                Some((
                    f.line,
                    f.ready as i64 - b,
                    (f.first != NONE).then(|| f.first as i64 - b),
                    f.reason,
                ))
            },
            redirect: redirect.map(|c| c as i64 - b),
            last_issue: last_issue as i64 - b,
            dual,
            stalls,
        }
    }

    /// Replays `r` from the current entry state; the block's last
    /// instruction jumped to `target` if it jumped. Returns the issue cycle
    /// of the block's last instruction.
    pub fn replay(&mut self, r: &Record, target: Option<u32>) -> u64 {
        let b = self.next as i64;
        let at = |rel: i64| (b + rel) as u64;
        for &(reg, [i, f, st]) in &r.writes {
            let reg = reg as usize;
            self.ready[reg] = (b + i as i64) as u64;
            self.ready[STRIDE + reg] = (b + f as i64) as u64;
            self.ready[2 * STRIDE + reg] = (b + st as i64) as u64;
        }
        if let Some(a) = r.flags[0] {
            self.ready[AFLAGS_SLOT] = (b + a as i64) as u64;
        }
        if let Some(bf) = r.flags[1] {
            self.ready[BFLAGS_SLOT] = (b + bf as i64) as u64;
        }
        // The whole history: the part older than the key covers cannot
        // affect any later fetch (they look back no further).
        let from = b + r.banks_from;
        if from >= 0 {
            self.banks = r.banks;
            self.banks_from = from as u64;
        } else {
            // Early in a run: drop the cycles before 0.
            let d = -from;
            self.banks = if d >= 32 { 0 } else { r.banks >> (4 * d) };
            self.banks_from = 0;
        }
        self.last = at(r.last);
        self.next = at(r.next);
        self.last_class = r.last_class;
        self.last_writes = r.last_writes;
        self.can_pair = r.can_pair;
        if let Some((line, ready, first, reason)) = r.fetch {
            self.fetch = Fetch {
                line,
                ready: at(ready),
                first: first.map_or(NONE, at),
                reason,
            };
        }
        if let (Some(rel), Some(t)) = (r.redirect, target) {
            self.redirect(t, at(rel));
            // redirect() clears pairing, as complete() leaves it.
            self.can_pair = r.can_pair;
        }
        at(r.last_issue)
    }
}

impl Record {
    pub fn dual(&self) -> u64 {
        self.dual
    }
    pub fn stalls(&self) -> &[u64; crate::timing::NSTALL] {
        &self.stalls
    }
}
