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
//! Building and hashing a key costs more than replaying a record, so the
//! record that followed another is remembered beside it, for each way the
//! next block ran ([`Chain`]): while nothing but replays has touched the
//! pipeline and every slot older than the last record is settled, the next
//! key is a function of that record, and the follower is found without it.
//! A replay also leaves out the scoreboard writes of a record when every
//! slot, before and after the block, is ready by the cycle the block
//! settles (its redirect's fetch, or its last issue): no later issue can
//! tell those values from the ones there (`Record::settled`).
//!
//! Model decisions owned here, each keeping replay identical to the
//! detailed model (`tests/tests/programs.rs` compares every corpus run with
//! and without memoisation, cycle for cycle):
//! * the key holds the full state (compared byte for byte, never just a
//!   hash);
//! * entry values far enough in the past to be unable to delay any issue
//!   are folded into one "long ago" value; values the record cannot
//!   represent exactly (a slot ready more than `HORIZON` cycles ahead, a
//!   fetch state older than `PAST` cycles, a blocked core) make the block
//!   go through the detailed model;
//! * blocks that touch external memory, run with a core timer counting
//!   anything but clock cycles (the clock's count waits: `timing::lazy_limit`),
//!   are traced, or could reach the cycle budget are never memoised; but
//!   for loads from DRAM answered in the block in a run lent the network
//!   (`core::solo::InBlock`): the key holds also the read port's busy
//!   time relative to `base`, the record each load's issue, the port's
//!   time before it, its arrival at external memory and its latency, and
//!   a replay sends each load's trips at its issue and goes on only if
//!   each arrives as recorded;
//! * a block of DRAM code is recorded only when each line it read reached
//!   external memory's read port free (`timing::DramLog`), and replayed
//!   only when the port is free by its first read's arrival and no other
//!   read can reach the memory before its last: its fetch cost is then a
//!   function of the entry state, as the rest of its timing is.

use crate::core::SoloSent as Sent;
use crate::timing::{
    Fetch, Pipeline, Stall, Times, Timing, AFLAGS_SLOT, BFLAGS_SLOT, NONE, STRIDE, ZERO,
};
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

    /// Adds a word to the key built by [`Pipeline::key`]; false if full.
    #[inline(always)]
    pub fn push_word(&mut self, w: u64) -> bool {
        self.push(w)
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
    /// The SRAM banks its lines were fetched from (`Pipeline::fetched`).
    fetched: u8,
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
    /// The latest readiness it writes (relative to `base`).
    max_ready: i64,
    /// No instruction after the block can issue before this cycle, nor
    /// pair with one that issued before it (relative to `base`): the
    /// redirect's fetch (or an interrupt's, if one is taken right after),
    /// else the block's last issue. A scoreboard slot ready by then delays
    /// nothing later, whatever its exact value.
    settled: i64,
    /// The records that followed this one (see [`Chain`]), latest first;
    /// `u32::MAX` = none.
    followers: [(Run, u32); 2],
    /// A block of DRAM code that read lines from external memory: its
    /// first and last arrival there, and when the read port is free after
    /// it (`Pipeline::dram_replayable`).
    dram: Option<(i64, i64, i64)>,
    /// The loads from DRAM answered in the block (`core::solo::InBlock`),
    /// relative to `base` but `busy_after`, in order; and the read port's
    /// busy time after the block if there are any.
    solo: Box<[Sent]>,
    port_after: Option<i64>,
    /// With such loads: the cycle the core is blocked until after the
    /// block (relative), why, and whether by a load.
    blocked: Option<(i64, Stall, bool)>,
}

/// The records of one core.
pub struct Memo {
    /// The key being built for the current block (kept to avoid
    /// reinitialising it per block).
    pub key: Key,
    /// Every record made, in the order made; records are named by their
    /// index here.
    records: Vec<Record>,
    /// The entries of the blocks recorded, one bit per halfword of the
    /// first [`ENTRIES`] (empty until the first record).
    entries: Vec<u64>,
    /// Direct-mapped by key hash: the key and its record's index. It
    /// starts small and grows (dropping what it holds) while more than
    /// half full, up to `TABLE` entries, so that the many cores of a large
    /// chip that run little code stay small.
    table: Vec<Option<(Box<[u64]>, u32)>>,
    /// Entries of `table` in use.
    filled: usize,
    /// The block-cache generation the records were made with (records
    /// name blocks by entry address: when code changes they are stale).
    generation: u64,
    /// Advances whenever `records` is emptied: a [`Chain`] names records
    /// of one epoch.
    epoch: u32,
    /// Records made before the memo starts over ([`MAX_RECORDS`]; a test
    /// sets fewer to make it forget often, `sim/tests/solo.rs`).
    pub max_records: u32,
    pub hits: u64,
    /// Hits found by following a [`Chain`] (no key built).
    pub followed: u64,
    pub misses: u64,
}

/// The pipeline state is exactly what replaying (or recording) record
/// `record` made it, and every scoreboard slot that record does not write
/// was ready by cycle `quiet` (the pipeline's `quiet` before the block).
/// Once the next block starts at or after `quiet`, its whole entry state
/// is a function of `record` alone: the key it builds would be the same
/// whenever it follows that record with the same run, so the record it
/// leads to can be remembered beside `record` ([`Memo::follow`]) instead
/// of building and hashing the key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chain {
    record: u32,
    epoch: u32,
    quiet: u64,
}

/// The times of a pipeline ([`Times`]) a replay of a record sets, each
/// relative to the replay's base (`None`: left as they were):
/// [`Record::times_step`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct TimesStep {
    max_ready: Option<i64>,
    settled: i64,
    next: i64,
    fetch_ready: Option<i64>,
    port_busy: Option<i64>,
    blocked_until: Option<i64>,
    unpend: bool,
}

impl TimesStep {
    /// The times `t` after a replay from their `next`, and whether the
    /// replay writes the scoreboard (`Pipeline::replay`).
    #[inline(always)]
    pub(crate) fn after(&self, t: &Times) -> (Times, bool) {
        let b = t.next as i64;
        let at = |rel: i64| (b + rel) as u64;
        let mut n = *t;
        if let Some(m) = self.max_ready {
            n.quiet = t.quiet.max(at(m));
        }
        let writes = n.quiet as i64 > b + self.settled;
        n.next = at(self.next);
        if let Some(r) = self.fetch_ready {
            n.fetch_ready = at(r);
        }
        if let Some(busy) = self.port_busy {
            n.port_busy = at(busy);
        }
        if let Some(until) = self.blocked_until {
            n.blocked_until = (b + until).max(0) as u64;
        }
        n.pending &= !self.unpend;
        (n, writes)
    }
}

/// How a block ran, as far as its key depends on it beyond the entry
/// state: its entry address, how many instructions ran, whether the last
/// jumped, and where each memory access went (at most eight).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Run {
    head: u64,
    codes: u64,
}

impl Run {
    /// `None` when the run has more than eight memory accesses (not
    /// chained).
    #[inline(always)]
    pub fn of(entry: u32, done: usize, jumped: bool, codes: &[u8]) -> Option<Run> {
        if codes.len() > 8 {
            return None;
        }
        // (A loop, not a copy of a variable length: no call to memcpy.)
        let mut packed = 0u64;
        for (i, &c) in codes.iter().enumerate() {
            packed |= u64::from(c) << (8 * i);
        }
        Some(Run {
            head: entry as u64
                | (done as u64) << 32
                | (jumped as u64) << 40
                | (codes.len() as u64) << 48,
            codes: packed,
        })
    }
}

/// Halfwords of local code whose blocks [`Memo::has_entry`] tells apart
/// (32 KB).
const ENTRIES: usize = 1 << 14;

/// Records made before the memo starts over.
pub const MAX_RECORDS: usize = 1 << 16;

impl Default for Memo {
    fn default() -> Self {
        Memo::new()
    }
}

impl Memo {
    pub fn new() -> Memo {
        Memo {
            key: Key::new(),
            records: Vec::new(),
            entries: Vec::new(),
            table: Vec::new(),
            filled: 0,
            generation: 0,
            epoch: 0,
            max_records: MAX_RECORDS as u32,
            hits: 0,
            followed: 0,
            misses: 0,
        }
    }

    /// The record named `id`.
    #[inline(always)]
    pub fn record(&self, id: u32) -> &Record {
        &self.records[id as usize]
    }

    /// The record for the current key, if there is one.
    #[inline]
    pub fn get(&self) -> Option<u32> {
        let key = &self.key;
        let mask = self.table.len().wrapping_sub(1);
        match self.table.get(key.hash() & mask) {
            Some(Some((k, r))) if **k == *key.as_words() => Some(*r),
            _ => None,
        }
    }

    /// Whether a record was made of a block entered at `entry` (in the
    /// core's first 32 KB; any other entry answers yes) since the records
    /// were last forgotten.
    #[inline(always)]
    pub fn has_entry(&self, entry: u32) -> bool {
        let i = (entry >> 1) as usize;
        i >= ENTRIES
            || self
                .entries
                .get(i / 64)
                .is_some_and(|w| w >> (i % 64) & 1 != 0)
    }

    /// Stores `record`, of a block entered at `entry`, under the current
    /// key; returns its name.
    pub fn put(&mut self, record: Record, entry: u32) -> u32 {
        let i = (entry >> 1) as usize;
        if i < ENTRIES {
            if self.entries.is_empty() {
                self.entries = vec![0; ENTRIES / 64];
            }
            self.entries[i / 64] |= 1 << (i % 64);
        }
        if self.records.len() >= self.max_records as usize {
            self.clear();
        }
        let len = self.table.len();
        if len == 0 || (self.filled * 2 > len && len < TABLE) {
            let new = if len == 0 { FIRST_TABLE } else { len * 4 }.min(TABLE);
            self.table.clear();
            self.table.resize_with(new, || None);
            self.filled = 0;
        }
        let id = self.records.len() as u32;
        self.records.push(record);
        let i = self.key.hash() & (self.table.len() - 1);
        if self.table[i].is_none() {
            self.filled += 1;
        }
        self.table[i] = Some((self.key.as_words().into(), id));
        id
    }

    /// Advances whenever every record is forgotten: a record is named by
    /// its id and this (`core::solo::Kept`).
    #[inline]
    pub fn epoch(&self) -> u32 {
        self.epoch
    }

    fn clear(&mut self) {
        self.table.clear();
        self.records.clear();
        self.entries.clear();
        self.filled = 0;
        self.epoch = self.epoch.wrapping_add(1);
    }

    /// Forgets every record if the block cache was emptied since they
    /// were made (`generation` is the cache's).
    #[inline]
    pub fn validate(&mut self, generation: u64) {
        if generation != self.generation {
            self.generation = generation;
            self.clear();
        }
    }

    /// The record that followed `chain`'s last time a block ran as `run`
    /// from a pipeline whose next issue is `base`, if the chain holds.
    #[inline(always)]
    pub fn follow(&self, chain: Option<Chain>, base: u64, run: Option<Run>) -> Option<u32> {
        let (c, run) = (chain?, run?);
        if c.epoch != self.epoch || c.quiet > base {
            return None;
        }
        let r = &self.records[c.record as usize];
        r.followers
            .iter()
            .find(|&&(n, id)| n == run && id != u32::MAX)
            .map(|&(_, id)| id)
    }

    /// Whether `chain`'s record leaves external memory's read port as a
    /// function of itself (it read DRAM lines, or loaded from DRAM in the
    /// block): a block loading from DRAM can follow it.
    #[inline]
    pub fn pins_port(&self, chain: Chain) -> bool {
        chain.epoch == self.epoch
            && self
                .records
                .get(chain.record as usize)
                .is_some_and(|r| r.dram.is_some() || r.port_after.is_some())
    }

    /// Remembers that `id` followed `chain`'s record for `run`.
    pub fn link(&mut self, chain: Option<Chain>, base: u64, run: Option<Run>, id: u32) {
        let (Some(c), Some(run)) = (chain, run) else {
            return;
        };
        if c.epoch != self.epoch || c.quiet > base || c.record as usize >= self.records.len() {
            return;
        }
        let r = &mut self.records[c.record as usize];
        r.followers[1] = r.followers[0];
        r.followers[0] = (run, id);
    }

    /// The chain after replaying or recording record `id` on a pipeline
    /// whose `quiet` was `quiet` before.
    #[inline(always)]
    pub fn chain(&self, id: u32, quiet: u64) -> Chain {
        Chain {
            record: id,
            epoch: self.epoch,
            quiet,
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
    /// to now did, `timing` being the instructions that ran and `solo` its
    /// loads answered in it (relative to `base`).
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &self,
        base: u64,
        timing: &[Timing],
        last_issue: u64,
        dual: u64,
        stalls: [u64; crate::timing::NSTALL],
        redirect: Option<u64>,
        solo: &[Sent],
    ) -> Record {
        let b = base as i64;
        let rel = |slot: usize| (self.ready[slot] as i64 - b) as i32;
        let mut writes = Vec::new();
        let mut flags = [None; 2];
        let mut seen = 0u64;
        let mut max_ready = i64::MIN;
        for t in timing {
            for &r in &t.writes[..t.nwrites as usize] {
                if r < 64 && seen & 1 << r == 0 {
                    seen |= 1 << r;
                    let r = r as usize;
                    let w = [rel(r), rel(STRIDE + r), rel(2 * STRIDE + r)];
                    max_ready = max_ready.max(w[0].max(w[1]).max(w[2]) as i64);
                    writes.push((r as u8, w));
                }
            }
            if t.flags & AFLAGS != 0 {
                flags[0] = Some(rel(AFLAGS_SLOT));
            }
            if t.flags & BFLAGS != 0 {
                flags[1] = Some(rel(BFLAGS_SLOT));
            }
        }
        for f in flags.iter().flatten() {
            max_ready = max_ready.max(*f as i64);
        }
        let f = &self.fetch;
        Record {
            writes,
            flags,
            banks: self.banks,
            banks_from: self.banks_from as i64 - b,
            fetched: self.block_fetched,
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
            settled: match redirect {
                Some(c) => (c as i64 - b)
                    .min(last_issue as i64 - b + 1 + self.params.interrupt_entry as i64),
                None => last_issue as i64 - b,
            },
            dual,
            stalls,
            max_ready,
            followers: [(Run::default(), u32::MAX); 2],
            dram: (self.dram_log.first != NONE).then(|| {
                (
                    self.dram_log.first as i64 - b,
                    self.dram_log.last as i64 - b,
                    self.port.busy as i64 - b,
                )
            }),
            solo: solo.into(),
            port_after: (!solo.is_empty()).then(|| self.port.busy as i64 - b),
            blocked: (!solo.is_empty()).then(|| {
                (
                    self.blocked_until as i64 - b,
                    self.blocked_reason,
                    self.blocked_by_load,
                )
            }),
        }
    }

    /// Replays `r` from the current entry state; the block's last
    /// instruction jumped to `target` if it jumped. Returns the issue cycle
    /// of the block's last instruction.
    pub fn replay(&mut self, r: &Record, target: Option<u32>) -> u64 {
        let b = self.next as i64;
        let quiet = if r.max_ready == i64::MIN {
            self.quiet
        } else {
            self.quiet.max((b + r.max_ready) as u64)
        };
        // When every slot, before and after the block, is ready by the
        // time it settles, no later issue can tell the values it would
        // write from those there: they are not written (a slot's value
        // matters only while it is later than that; see `settled`).
        if quiet as i64 > b + r.settled {
            for &(reg, [i, f, st]) in &r.writes {
                // (Registers are below 64: the mask lets indexing go
                // unchecked.)
                let reg = (reg & 63) as usize;
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
        }
        self.quiet = quiet;
        self.fetched |= r.fetched;
        let at = |rel: i64| (b + rel) as u64;
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
        if let Some((_, _, busy)) = r.dram {
            self.set_port_busy(at(busy));
        }
        if let Some(busy) = r.port_after {
            self.set_port_busy(at(busy));
        }
        if let Some((until, reason, by_load)) = r.blocked {
            self.blocked_until = (b + until).max(0) as u64;
            self.blocked_reason = reason;
            self.blocked_by_load = by_load;
        }
        if let (Some(rel), Some(t)) = (r.redirect, target) {
            // (redirect() clears the chain; the caller sets it after.)
            self.redirect(t, at(rel));
            // redirect() clears pairing, as complete() leaves it.
            self.can_pair = r.can_pair;
        }
        at(r.last_issue)
    }
}

impl Record {
    /// Whether replaying it from `base` makes the pipeline state a function
    /// of the record alone (not early in a run, where the bank history is
    /// cut at cycle 0).
    #[inline(always)]
    pub fn chains_at(&self, base: u64) -> bool {
        base as i64 + self.banks_from >= 0
    }
    /// Whether it can be replayed on `pipe` as far as fetches from DRAM
    /// go (always, for a block that read none).
    #[inline(always)]
    /// Its last instruction's issue cycle, relative to `base`.
    pub fn last_issue(&self) -> i64 {
        self.last_issue
    }
    pub fn replayable(&self, pipe: &Pipeline) -> bool {
        self.dram
            .is_none_or(|(first, last, _)| pipe.dram_replayable(first, last))
    }
    /// [`Record::replayable`] on `pipe` with its times `t` ([`Times`]).
    #[inline]
    pub(crate) fn replayable_at(&self, pipe: &Pipeline, t: &Times) -> bool {
        self.dram
            .is_none_or(|(first, last, _)| pipe.dram_replayable_at(t, first, last))
    }
    /// What a replay of it sets of a pipeline's times ([`Times`]), as
    /// [`Pipeline::replay`] sets them (the block's last instruction jumped
    /// to `target` if it jumped): [`TimesStep::after`].
    pub(crate) fn times_step(&self, target: Option<u32>) -> TimesStep {
        let redirect = self.redirect.filter(|_| target.is_some());
        TimesStep {
            max_ready: (self.max_ready != i64::MIN).then_some(self.max_ready),
            settled: self.settled,
            next: self.next,
            fetch_ready: redirect.or(self.fetch.map(|(_, ready, _, _)| ready)),
            port_busy: self.port_after.or(self.dram.map(|(_, _, busy)| busy)),
            blocked_until: self.blocked.map(|(until, _, _)| until),
            unpend: redirect.is_some(),
        }
    }
    /// Its loads answered in the block (`core::solo::InBlock`).
    #[inline(always)]
    pub fn solo(&self) -> &[Sent] {
        &self.solo
    }
    pub fn dual(&self) -> u64 {
        self.dual
    }
    pub fn stalls(&self) -> &[u64; crate::timing::NSTALL] {
        &self.stalls
    }
}
