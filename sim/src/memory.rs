//! Byte-addressed memories with their decoded-instruction caches.
//!
//! Model decision owned here: *every* write into a memory that can hold code
//! goes through [`CodeMem::write`], which drops the cached decodes of every
//! instruction that could overlap the written bytes (an instruction is 2 or
//! 4 bytes, so a write of `n` bytes at `a` can change instructions starting
//! at `a - 2 .. a + n`). There is no other way to change the bytes, so
//! self-modifying code, loader writes, host writes and DMA all see fresh
//! decodes (DESIGN rule 3).

use epsim_isa::encoding::EncId;
use epsim_isa::{decode, insn_len, Decoded, Op};

/// Decoded slots per cache page (one per halfword).
const PAGE_SLOTS: usize = 2048;
/// Bytes covered by one cache page.
const PAGE_BYTES: u32 = (PAGE_SLOTS * 2) as u32;

/// Memories up to this size keep one flat decode array (allocated at the
/// first fetch); larger ones (DRAM) keep lazily allocated pages.
const FLAT_LIMIT: u32 = 1 << 20;

/// A decode slot that holds nothing yet (no instruction has length 0); also
/// what a failed fetch returns.
pub const EMPTY: Decoded = Decoded {
    op: Op::Nop,
    len: 0,
    enc: EncId::NoRow,
};

/// Memory that instructions can be fetched from: the bytes plus a lazily
/// allocated cache of decoded instructions, one slot per halfword. A core's
/// SRAM keeps one flat array (one load per fetch); DRAM keeps pages of 4 KB
/// so a 32 MB DRAM pays only for the code it runs.
pub struct CodeMem {
    bytes: Vec<u8>,
    /// Flat decode slots (empty until the first fetch; unused when paged).
    flat: Vec<Decoded>,
    paged: bool,
    pages: Vec<Option<Box<[Decoded; PAGE_SLOTS]>>>,
}

impl CodeMem {
    /// A zeroed memory of `size` bytes (a multiple of 8).
    pub fn new(size: u32) -> CodeMem {
        let paged = size > FLAT_LIMIT;
        let size = size as usize;
        let pages = if paged {
            size.div_ceil(PAGE_BYTES as usize)
        } else {
            0
        };
        CodeMem {
            bytes: vec![0; size],
            flat: Vec::new(),
            paged,
            pages: (0..pages).map(|_| None).collect(),
        }
    }

    #[inline(always)]
    pub fn size(&self) -> u32 {
        self.bytes.len() as u32
    }

    /// The raw bytes (read-only: writes must go through [`CodeMem::write`]).
    #[inline(always)]
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Whether `[off, off + len)` lies inside this memory.
    #[inline(always)]
    pub fn contains(&self, off: u32, len: u32) -> bool {
        (off as u64 + len as u64) <= self.bytes.len() as u64
    }

    /// Reads `len` (1, 2, 4 or 8) bytes little-endian at `off`. The caller
    /// has checked the range.
    #[inline(always)]
    pub fn read(&self, off: u32, len: u32) -> u64 {
        let o = off as usize;
        match len {
            1 => self.bytes[o] as u64,
            2 => u16::from_le_bytes([self.bytes[o], self.bytes[o + 1]]) as u64,
            4 => u32::from_le_bytes(self.word_at(o)) as u64,
            _ => u64::from_le_bytes(self.dword_at(o)),
        }
    }

    #[inline(always)]
    fn word_at(&self, o: usize) -> [u8; 4] {
        let mut w = [0; 4];
        w.copy_from_slice(&self.bytes[o..o + 4]);
        w
    }

    #[inline(always)]
    fn dword_at(&self, o: usize) -> [u8; 8] {
        let mut w = [0; 8];
        w.copy_from_slice(&self.bytes[o..o + 8]);
        w
    }

    /// Writes the low `len` bytes of `value` little-endian at `off` and
    /// invalidates the decodes the write can affect. The caller has checked
    /// the range.
    #[inline(always)]
    pub fn write(&mut self, off: u32, len: u32, value: u64) {
        let o = off as usize;
        let b = value.to_le_bytes();
        self.bytes[o..o + len as usize].copy_from_slice(&b[..len as usize]);
        self.invalidate(off, len);
    }

    /// Copies `data` to `off` (loader, host and bulk writes).
    pub fn write_bytes(&mut self, off: u32, data: &[u8]) {
        let o = off as usize;
        self.bytes[o..o + data.len()].copy_from_slice(data);
        self.invalidate(off, data.len() as u32);
    }

    /// Copies `len` bytes at `off` into a vector (range checked by caller).
    pub fn read_bytes(&self, off: u32, len: u32) -> &[u8] {
        &self.bytes[off as usize..(off + len) as usize]
    }

    /// Fills `[off, off + len)` with zeroes.
    pub fn zero(&mut self, off: u32, len: u32) {
        self.bytes[off as usize..(off + len) as usize].fill(0);
        self.invalidate(off, len);
    }

    /// Drops cached decodes of instructions that may overlap `[off, off+len)`.
    #[inline(always)]
    fn invalidate(&mut self, off: u32, len: u32) {
        if len == 0 {
            return;
        }
        let first = (off.saturating_sub(2) >> 1) as usize;
        let last = ((off + len - 1) >> 1) as usize;
        if !self.paged {
            if let Some(slots) = self.flat.get_mut(first..=last) {
                slots.fill(EMPTY);
            }
            return;
        }
        for slot in first..=last {
            if let Some(page) = &mut self.pages[slot / PAGE_SLOTS] {
                page[slot % PAGE_SLOTS] = EMPTY;
            }
        }
    }

    /// The decoded instruction at `off` (even, inside the memory), decoding
    /// and caching it on first use. A 32-bit instruction whose second
    /// halfword lies past the end sees zero there.
    #[inline(always)]
    pub fn fetch(&mut self, off: u32) -> Decoded {
        if let Some(&d) = self.flat.get((off >> 1) as usize) {
            if d.len != 0 {
                debug_assert_eq!(d, self.decode_at(off), "stale decode at {off:#x}");
                return d;
            }
        }
        self.fetch_slow(off)
    }

    #[cold]
    #[inline(never)]
    fn fetch_slow(&mut self, off: u32) -> Decoded {
        let slot = (off >> 1) as usize;
        if !self.paged {
            if self.flat.is_empty() {
                self.flat = vec![EMPTY; self.bytes.len().div_ceil(2)];
            }
            let d = self.decode_at(off);
            self.flat[slot] = d;
            return d;
        }
        let page =
            self.pages[slot / PAGE_SLOTS].get_or_insert_with(|| Box::new([EMPTY; PAGE_SLOTS]));
        let cached = page[slot % PAGE_SLOTS];
        if cached.len != 0 {
            return cached;
        }
        let d = self.decode_at(off);
        if let Some(page) = &mut self.pages[slot / PAGE_SLOTS] {
            page[slot % PAGE_SLOTS] = d;
        }
        d
    }

    /// The instruction word at `off`: first halfword low, second high.
    pub fn word_for_decode(&self, off: u32) -> u32 {
        let h0 = self.read(off, 2) as u32;
        let h1 = if insn_len(h0 as u16) == 4 && self.contains(off + 2, 2) {
            self.read(off + 2, 2) as u32
        } else {
            0
        };
        h0 | h1 << 16
    }

    fn decode_at(&self, off: u32) -> Decoded {
        decode(self.word_for_decode(off))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_invalidates_overlapping_decodes() {
        let mut m = CodeMem::new(64);
        // nop at 0, nop at 2
        m.write(0, 4, 0x01a2_01a2);
        assert_eq!(m.fetch(0).op, epsim_isa::Op::Nop);
        assert_eq!(m.fetch(2).op, epsim_isa::Op::Nop);
        // overwrite the second halfword with idle: slot 2 and slot 0 (which a
        // 32-bit instruction starting there would span) are dropped
        m.write(2, 2, 0x01b2);
        assert_eq!(m.fetch(2).op, epsim_isa::Op::Idle);
        assert_eq!(m.fetch(0).op, epsim_isa::Op::Nop);
    }

    #[test]
    fn invalidation_crosses_page_boundaries() {
        let mut m = CodeMem::new(2 * FLAT_LIMIT);
        assert!(m.paged);
        let edge = PAGE_BYTES - 2;
        m.write(edge, 4, 0x01a2_01a2);
        assert_eq!(m.fetch(edge).op, epsim_isa::Op::Nop);
        assert_eq!(m.fetch(PAGE_BYTES).op, epsim_isa::Op::Nop);
        m.write_bytes(edge, &[0xb2, 0x01, 0xb2, 0x01]);
        assert_eq!(m.fetch(edge).op, epsim_isa::Op::Idle);
        assert_eq!(m.fetch(PAGE_BYTES).op, epsim_isa::Op::Idle);
    }
}
