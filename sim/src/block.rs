//! Decoded basic blocks: the unit a core executes.
//!
//! A block is the run of instructions from an entry address up to and
//! including the first one that always changes control flow or can change
//! the interrupt state (see [`ends_block`]; a conditional branch is a side
//! exit, taken or not at run time), at most [`MAX_BLOCK`] long, decoded once and
//! kept in a per-core [`BlockCache`]. The execution loop runs a block's
//! instructions back to back and does the work that only matters between
//! blocks (interrupt checks, halts, the budget) once per block.
//!
//! Model decisions owned here:
//! * what ends a block. Everything that always makes the next instruction
//!   another than the one after it (B, BL, jumps, RTI, TRAP, IDLE,
//!   breakpoints, SWI, unimplemented instructions) or can make an interrupt
//!   pending or enabled (MOVTS, GIE, GID, WAND, SYNC). Stores that reach a
//!   memory-mapped register or decoded code, and any instruction that does
//!   not simply fall through (a fault, an FPU exception), end the block where
//!   they happen, at run time. So an interrupt is taken after exactly the
//!   same instruction as when checking after every instruction.
//! * invalidation: a cache remembers the code epochs of the memories it
//!   decoded from ([`crate::memory::CodeMem::epoch`]) and drops every block
//!   when one has moved on.

use epsim_isa::op::Cond;
use epsim_isa::{Op, OpClass};

use crate::timing::Timing;

/// The longest block, in instructions.
pub const MAX_BLOCK: usize = 64;

/// Entries of the direct-mapped table from entry address to block.
const MAP_SIZE: usize = 4096;

/// More decoded instructions than this and the cache starts over (a guard
/// against programs that jump into ever new entry points of big code).
const MAX_INSNS: usize = 1 << 20;

/// One decoded instruction of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Insn {
    pub op: Op,
    /// Its address.
    pub pc: u32,
    /// 2 or 4 bytes.
    pub len: u8,
    /// Its dual-issue group.
    pub class: OpClass,
}

/// Where a block's live-in scoreboard slots are in the cache.
#[derive(Clone, Copy, Debug)]
struct Block {
    live_first: u32,
    live_count: u32,
}

/// An entry of the table from entry address to block: the entry address
/// plus one (0: empty; addresses are even, so no entry is `u32::MAX`), the
/// block's number and where its instructions are, so that finding a
/// block's code takes one load and one comparison.
#[derive(Clone, Copy, Debug, Default)]
struct MapEntry {
    key: u32,
    id: u32,
    first: u32,
    end: u32,
}

/// The empty entry of the map's last slot. An empty slot's key is 0, which
/// no lookup's `pc + 1` equals except that of pc 0xffffffff, and that pc
/// falls in the last slot: there the empty key is 2, which no `pc + 1` of
/// a pc in that slot can equal (its bits 1 to 11 are all ones, so `pc + 1`
/// ends in twelve ones or twelve zeros).
const EMPTY_LAST: MapEntry = MapEntry {
    key: 2,
    id: 0,
    first: 0,
    end: 0,
};

/// A block found in the cache.
#[derive(Clone, Copy, Debug)]
pub struct Found {
    /// Its number.
    pub id: u32,
    first: u32,
    end: u32,
}

impl Found {
    /// Where its instructions (and their timing facts) are in the cache.
    #[inline(always)]
    fn range(self) -> std::ops::Range<usize> {
        self.first as usize..self.end as usize
    }
}

/// The decoded blocks of one core, keyed by entry address.
pub struct BlockCache {
    /// Direct-mapped by entry address.
    map: Box<[MapEntry; MAP_SIZE]>,
    blocks: Vec<Block>,
    insns: Vec<Insn>,
    /// `timing[i]` is what the timing model needs of `insns[i]`.
    timing: Vec<Timing>,
    /// Blocks' live-in scoreboard slots (`crate::memo::live_ins`).
    live: Vec<(u8, u8)>,
    /// The code epochs of local SRAM and DRAM the blocks were decoded at.
    epochs: [u64; 2],
    /// Blocks decoded since the machine started (a statistic).
    pub built: u64,
    /// Times the cache was dropped because code was written.
    pub flushes: u64,
    /// Changes whenever the cache is emptied for any reason: whatever was
    /// derived from its blocks (recorded schedules) is stale then.
    pub generation: u64,
}

impl Default for BlockCache {
    fn default() -> Self {
        BlockCache::new()
    }
}

impl BlockCache {
    pub fn new() -> BlockCache {
        let mut map: Box<[MapEntry; MAP_SIZE]> = vec![MapEntry::default(); MAP_SIZE]
            .into_boxed_slice()
            .try_into()
            .unwrap_or_else(|_| unreachable!("MAP_SIZE entries"));
        map[MAP_SIZE - 1] = EMPTY_LAST;
        BlockCache {
            map,
            blocks: Vec::new(),
            insns: Vec::new(),
            timing: Vec::new(),
            live: Vec::new(),
            epochs: [0; 2],
            built: 0,
            flushes: 0,
            generation: 0,
        }
    }

    /// Drops every block if the memories' code epochs have moved on since
    /// they were decoded.
    #[inline(always)]
    pub fn validate(&mut self, epochs: [u64; 2]) {
        if epochs != self.epochs {
            self.epochs = epochs;
            self.flushes += 1;
            self.clear();
        }
    }

    fn clear(&mut self) {
        self.generation += 1;
        self.map.fill(MapEntry::default());
        self.map[MAP_SIZE - 1] = EMPTY_LAST;
        self.blocks.clear();
        self.insns.clear();
        self.timing.clear();
        self.live.clear();
    }

    #[inline(always)]
    fn slot(pc: u32) -> usize {
        (pc as usize >> 1) & (MAP_SIZE - 1)
    }

    /// The block that starts at `pc`, if it is cached.
    #[inline(always)]
    pub fn lookup(&self, pc: u32) -> Option<Found> {
        let e = &self.map[Self::slot(pc)];
        (e.key == pc.wrapping_add(1)).then_some(Found {
            id: e.id,
            first: e.first,
            end: e.end,
        })
    }

    /// The instructions of the block `found`.
    #[inline(always)]
    pub fn code(&self, found: Found) -> &[Insn] {
        &self.insns[found.range()]
    }

    /// The timing facts of the block `found`'s instructions.
    #[inline(always)]
    pub fn timing(&self, found: Found) -> &[Timing] {
        &self.timing[found.range()]
    }

    /// The live-in scoreboard slots of block `id`.
    #[inline(always)]
    pub fn live(&self, id: u32) -> &[(u8, u8)] {
        let b = self.blocks[id as usize];
        &self.live[b.live_first as usize..(b.live_first + b.live_count) as usize]
    }

    /// Caches `insns` (not empty) as the block starting at `pc`.
    pub fn insert(&mut self, pc: u32, insns: &[Insn]) -> Found {
        debug_assert!(!insns.is_empty() && insns.len() <= MAX_BLOCK);
        if self.insns.len() + insns.len() > MAX_INSNS {
            self.clear();
        }
        let id = self.blocks.len() as u32;
        let first = self.insns.len();
        self.insns.extend_from_slice(insns);
        self.timing
            .extend(insns.iter().map(|i| Timing::of(&i.op.deps(), i.class)));
        let live = crate::memo::live_ins(&self.timing[first..]);
        self.blocks.push(Block {
            live_first: self.live.len() as u32,
            live_count: live.len() as u32,
        });
        self.live.extend(live);
        let found = Found {
            id,
            first: first as u32,
            end: (first + insns.len()) as u32,
        };
        self.map[Self::slot(pc)] = MapEntry {
            key: pc.wrapping_add(1),
            id,
            first: found.first,
            end: found.end,
        };
        self.built += 1;
        found
    }
}

/// Whether `op` is the last instruction of its block: it always transfers
/// control, stops or traps, or may change whether an interrupt is pending
/// or enabled. A conditional branch does not end a block: when taken it
/// leaves it (a side exit), when not the block goes on.
pub fn ends_block(op: &Op) -> bool {
    matches!(
        op,
        Op::Bcond {
            cond: Cond::Always | Cond::Link,
            ..
        } | Op::Jr { .. }
            | Op::Jalr { .. }
            | Op::Movts { .. }
            | Op::Idle
            | Op::Gie
            | Op::Gid
            | Op::Rti
            | Op::Swi { .. }
            | Op::Trap { .. }
            | Op::Bkpt
            | Op::Mbkpt
            | Op::Wand
            | Op::Sync
            | Op::Unimpl
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nops(n: usize) -> Vec<Insn> {
        vec![
            Insn {
                op: Op::Nop,
                pc: 0,
                len: 2,
                class: OpClass::Control,
            };
            n
        ]
    }

    #[test]
    fn blocks_are_found_by_entry_address_only() {
        let mut c = BlockCache::new();
        let id = c.insert(0x100, &nops(3)).id;
        let found = c.lookup(0x100).map(|f| (f.id, c.code(f).len()));
        assert_eq!(found, Some((id, 3)));
        assert!(c.lookup(0x102).is_none());
        // Same table slot, other address: replaces the entry.
        let other = 0x100 + (MAP_SIZE as u32) * 2;
        let id2 = c.insert(other, &nops(1)).id;
        assert_eq!(c.lookup(other).map(|f| f.id), Some(id2));
        assert!(c.lookup(0x100).is_none());
    }

    #[test]
    fn no_empty_slot_answers_a_lookup() {
        let mut c = BlockCache::new();
        for pc in [0xffff_ffff, 0xffff_fffe, 0, 1, 0x7fff, 0x1ffe] {
            assert!(c.lookup(pc).is_none(), "{pc:#x} in a new cache");
        }
        // A block in the last slot, then the cache dropped: still nothing.
        let last = (MAP_SIZE as u32 - 1) * 2;
        c.insert(last, &nops(1));
        assert!(c.lookup(0xffff_ffff).is_none());
        c.validate([1, 1]);
        assert!(c.lookup(last).is_none());
        assert!(c.lookup(0xffff_ffff).is_none());
    }

    #[test]
    fn a_new_epoch_drops_every_block() {
        let mut c = BlockCache::new();
        c.validate([0, 0]);
        c.insert(0x100, &nops(2));
        c.validate([0, 0]);
        assert!(c.lookup(0x100).is_some());
        c.validate([1, 0]);
        assert!(c.lookup(0x100).is_none());
        assert_eq!(c.flushes, 1);
    }
}
