//! Byte-addressed memories that instructions can be fetched from.
//!
//! Model decision owned here: *every* write into a memory that can hold code
//! goes through [`CodeMem::write`] (or `write_bytes`/`zero`), which checks
//! the written halfwords against a bitmap of the halfwords that cached
//! decoded blocks were built from. A write that touches one advances the
//! memory's *code epoch* and clears the bitmap; every block cache built at
//! an older epoch is dropped before it is used again (`crate::block`). There
//! is no other way to change the bytes, so self-modifying code, loader
//! writes, host writes and DMA all see fresh decodes (README.md, "Design
//! rules": pre-decode, don't re-decode), and
//! data writes pay one byte test: a byte of the bitmap covers 16 bytes of
//! memory, and a store whose byte is zero ([`CodeMem::store_plain`]) needs
//! no closer look.

use std::cell::Cell;

use epsim_isa::insn_len;

/// Memory that instructions can be fetched from: the bytes, the bitmap of
/// halfwords decoded into cached blocks, and the code epoch.
pub struct CodeMem {
    bytes: Vec<u8>,
    /// One bit per halfword that some cached block decoded: bit `h & 7` of
    /// byte `h >> 3` for halfword `h`, so byte `k` covers the 16 bytes from
    /// `16 * k`.
    code: Vec<u8>,
    /// Whether any bit of `code` may be set (the fast exit of writes).
    has_code: bool,
    /// Advanced by every write that changes decoded code.
    epoch: u64,
    /// Advanced by every write of any kind ([`CodeMem::writes`]).
    writes: u64,
    /// Saving what writes overwrite ([`CodeMem::undo_begin`]).
    undo_on: bool,
    undo: Option<Box<Undo>>,
    /// The 512-byte pages read since [`CodeMem::undo_begin`] (page p's
    /// bit is p mod 64: an SRAM beyond 32 KB shares bits), through
    /// [`CodeMem::read`] or [`CodeMem::read_bytes`] (by the core, or
    /// anything else: more than the core read is safe), or counted read
    /// whole ([`CodeMem::note_read_all`]), for
    /// [`CodeMem::read_since_undo`].
    read: Cell<u64>,
    /// The pages read by aligned accesses ([`CodeMem::load`],
    /// [`CodeMem::read_load`]) since [`CodeMem::undo_begin`] while
    /// keeping, with the 4-byte words those accesses read: word `w`'s bit is bit `w & 63` of `words[(w >> 6) &
    /// 127]` (an SRAM beyond 32 KB shares bits, as pages do), so a page's
    /// words are two entries, valid only for the pages whose bit of
    /// `loaded` is set (the others are cleared lazily, by `undo_begin`).
    /// A page in `loaded` and not in `read` was read by those alone, and
    /// only the words they read count as read.
    loaded: Cell<u64>,
    words: Box<[Cell<u64>; 128]>,
}

/// The entry of `CodeMem::words` for an aligned access of `len` bytes
/// at `off`, and the bits of its 4-byte words: one, or two from an even
/// one for a doubleword (in the same entry).
#[inline(always)]
fn word_bits(off: u32, len: u32) -> (usize, u64) {
    let bit = 1 << ((off >> 2) & 63);
    let bits = if len == 8 { bit | bit << 1 } else { bit };
    (((off >> 8) & 127) as usize, bits)
}

/// The bit of `CodeMem::read` that stands for the 512-byte page of `off`.
#[inline(always)]
fn page_bit(off: u32) -> u64 {
    1 << ((off >> 9) & 63)
}

/// Bytes per page of the undo record.
const UNDO_PAGE: usize = 64;

/// The undo record of a memory since [`CodeMem::undo_begin`]: each page
/// as it was before its first write since then (copy on first write).
struct Undo {
    saved: Vec<u8>,
    /// One bit per page saved, and the pages saved in order.
    dirty: Vec<u64>,
    pages: Vec<u32>,
}

impl CodeMem {
    /// A zeroed memory of `size` bytes (a multiple of 8).
    pub fn new(size: u32) -> CodeMem {
        CodeMem {
            bytes: vec![0; size as usize],
            code: vec![0; size.div_ceil(16) as usize],
            has_code: false,
            epoch: 0,
            writes: 0,
            undo_on: false,
            undo: None,
            read: Cell::new(0),
            loaded: Cell::new(0),
            words: Box::new(std::array::from_fn(|_| Cell::new(0))),
        }
    }

    /// From now on, what each write overwrites is kept (a page at its
    /// first write), until [`CodeMem::undo_end`] or [`CodeMem::undo_apply`]:
    /// the memory's part of a checkpoint, costing what is written instead
    /// of a copy of the whole memory.
    pub fn undo_begin(&mut self) {
        let n = self.bytes.len();
        let u = self.undo.get_or_insert_with(|| {
            Box::new(Undo {
                saved: vec![0; n],
                dirty: vec![0; n.div_ceil(UNDO_PAGE).div_ceil(64)],
                pages: Vec::new(),
            })
        });
        for &p in &u.pages {
            u.dirty[p as usize / 64] = 0;
        }
        u.pages.clear();
        self.undo_on = true;
        self.read.set(0);
        // (Only the pages loaded from since the last begin have words
        // noted.)
        let mut loaded = self.loaded.replace(0);
        while loaded != 0 {
            let p = loaded.trailing_zeros() as usize;
            loaded &= loaded - 1;
            self.words[2 * p].set(0);
            self.words[2 * p + 1].set(0);
        }
    }

    /// Stops keeping what writes overwrite (the checkpoint is final).
    pub fn undo_end(&mut self) {
        self.undo_on = false;
    }

    /// Puts back every byte written since [`CodeMem::undo_begin`], as
    /// writes (decoded code they change is dropped as for any write), and
    /// stops keeping.
    pub fn undo_apply(&mut self) {
        self.undo_on = false;
        let Some(mut u) = self.undo.take() else {
            return;
        };
        for &p in &u.pages {
            let o = p as usize * UNDO_PAGE;
            let end = (o + UNDO_PAGE).min(self.bytes.len());
            if self.bytes[o..end] != u.saved[o..end] {
                self.write_bytes(o as u32, &u.saved[o..end]);
            }
            u.dirty[p as usize / 64] = 0;
        }
        u.pages.clear();
        self.undo = Some(u);
    }

    /// Keeps the pages of `[off, off + len)` not kept yet.
    #[cold]
    #[inline(never)]
    fn save(&mut self, off: u32, len: u32) {
        let Some(u) = self.undo.as_deref_mut() else {
            return;
        };
        if len == 0 {
            return;
        }
        let first = off as usize / UNDO_PAGE;
        let last = (off as usize + len as usize - 1) / UNDO_PAGE;
        for p in first..=last {
            let bit = 1u64 << (p % 64);
            if u.dirty[p / 64] & bit == 0 {
                u.dirty[p / 64] |= bit;
                u.pages.push(p as u32);
                let o = p * UNDO_PAGE;
                let end = (o + UNDO_PAGE).min(self.bytes.len());
                u.saved[o..end].copy_from_slice(&self.bytes[o..end]);
            }
        }
    }

    /// Whether any byte of `[off, off + len)` may have been written since
    /// [`CodeMem::undo_begin`] (its page was kept): false only while
    /// keeping.
    pub fn written_since_undo(&self, off: u32, len: u32) -> bool {
        if !self.undo_on {
            return true;
        }
        len > 0 && (self.kept(off) || self.kept(off + len - 1))
    }

    /// As [`CodeMem::written_since_undo`], for a range of any length (the
    /// host's reads): every page it spans is looked at.
    pub fn range_written_since_undo(&self, off: u32, len: u32) -> bool {
        if !self.undo_on {
            return true;
        }
        let page = UNDO_PAGE as u32;
        len > 0 && (off / page..=(off + len - 1) / page).any(|p| self.kept(p * page))
    }

    /// Whether the page of `off` is kept already (the fast path of
    /// stores while keeping).
    #[inline(always)]
    fn kept(&self, off: u32) -> bool {
        let p = off as usize / UNDO_PAGE;
        self.undo
            .as_deref()
            .is_some_and(|u| u.dirty[p / 64] & 1 << (p % 64) != 0)
    }

    #[inline(always)]
    pub fn size(&self) -> u32 {
        self.bytes.len() as u32
    }

    /// The code epoch: it changes whenever bytes that a cached block was
    /// decoded from are written.
    #[inline(always)]
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// A count of the writes made through this memory's methods (stores,
    /// bulk and host writes, zeroing, roll-backs): equal at two moments
    /// only if nothing was written between them (a polling loop's fixed
    /// point still holds; `Spin` in core/mod.rs).
    #[inline(always)]
    pub fn writes(&self) -> u64 {
        self.writes
    }

    /// The raw bytes (read-only: writes must go through [`CodeMem::write`]).
    #[inline(always)]
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The bytes as a raw pointer, for an outside agent (the host
    /// interface) that writes them directly: valid as long as the memory
    /// lives (its size never changes). Writes made through it bypass the
    /// decoded-code check; call [`CodeMem::invalidate_code`] before code
    /// written that way may run.
    pub fn host_ptr(&mut self) -> *mut u8 {
        self.bytes.as_mut_ptr()
    }

    /// Drops every decoded block built from this memory (advances the
    /// epoch if any are cached): after writes this memory did not see.
    pub fn invalidate_code(&mut self) {
        if self.has_code {
            self.forget_code();
        }
    }

    /// Whether `[off, off + len)` lies inside this memory.
    #[inline(always)]
    pub fn contains(&self, off: u32, len: u32) -> bool {
        (off as u64 + len as u64) <= self.bytes.len() as u64
    }

    /// Reads `len` (1, 2, 4 or 8) bytes little-endian at `off` if they lie
    /// inside this memory: the fast path of loads.
    #[inline(always)]
    pub fn load(&self, off: u32, len: u32) -> Option<u64> {
        let o = off as usize;
        let Some(b) = self.bytes.get(o..o + len as usize) else {
            std::hint::cold_path();
            return None;
        };
        if self.undo_on {
            // (Noted only while keeping: else everything counts as read,
            // `read_since_undo`.)
            self.note_load(off, len);
        }
        Some(le_value(b))
    }

    /// Notes an aligned load of `len` bytes at `off` in `loaded` and
    /// `words`: one page, and one word, or two from an even one for a
    /// doubleword.
    #[inline(always)]
    fn note_load(&self, off: u32, len: u32) {
        self.loaded.set(self.loaded.get() | page_bit(off));
        let (k, bits) = word_bits(off, len);
        self.words[k].set(self.words[k].get() | bits);
    }

    /// The bits of `read` that stand for `[off, off + len)` (`len` > 0).
    #[inline(always)]
    fn pages(off: u32, len: u32) -> u64 {
        if len > 512 {
            !0
        } else {
            page_bit(off) | page_bit(off + len - 1)
        }
    }

    /// Notes a read of `[off, off + len)` (`len` > 0) in `read`.
    #[inline(always)]
    fn note_read(&self, off: u32, len: u32) {
        self.read.set(self.read.get() | Self::pages(off, len));
    }

    /// Counts every page as read since [`CodeMem::undo_begin`] (the core
    /// read its memory in closed form, without loads).
    pub fn note_read_all(&self) {
        self.read.set(!0);
    }

    /// Whether any byte of `[off, off + len)` may have been read since
    /// [`CodeMem::undo_begin`] (`len` > 0): true unless keeping. A page
    /// read other than by loads counts whole; in one read only by loads,
    /// only the 4-byte words they read count (a write landing beside a
    /// word a loop polls was not read).
    pub fn read_since_undo(&self, off: u32, len: u32) -> bool {
        if !self.undo_on {
            return true;
        }
        let pages = Self::pages(off, len);
        if self.read.get() & pages != 0 {
            return true;
        }
        if self.loaded.get() & pages == 0 {
            return false;
        }
        if len > 8 || off & 3 != 0 && (off & 3) + len > 4 {
            // (Several words, or one unaligned: only aligned writes of
            // at most 8 bytes are looked at word by word.)
            return true;
        }
        let (k, bits) = word_bits(off, len);
        self.words[k].get() & bits != 0
    }

    /// Writes as [`CodeMem::write`] does, not kept for
    /// [`CodeMem::undo_apply`] (a write made at a cycle before the one the
    /// keeping is for: `Machine::write_in_past`); true if it changed
    /// decoded code.
    pub fn write_unkept(&mut self, off: u32, len: u32, value: u64) -> bool {
        let on = std::mem::replace(&mut self.undo_on, false);
        let changed = self.write(off, len, value);
        self.undo_on = on;
        changed
    }

    /// Whether [`CodeMem::store_plain`] of an aligned `len` bytes at `off`
    /// would write them: they lie in the memory, in 16 bytes no cached
    /// block decoded.
    #[inline]
    pub fn plain_at(&self, off: u32, len: u32) -> bool {
        self.contains(off, len) && self.code.get(off as usize >> 4) == Some(&0)
    }

    /// Writes the low `len` (1, 2, 4 or 8) bytes of `value` little-endian
    /// at `off`, which is aligned to `len`, if they lie inside this memory
    /// and no decoded code lies within the 16 bytes around them: the fast
    /// path of stores. False (and nothing written) otherwise; then
    /// [`CodeMem::write`] looks closer.
    #[inline(always)]
    pub fn store_plain(&mut self, off: u32, len: u32, value: u64) -> bool {
        let o = off as usize;
        if self.code.get(o >> 4).is_none_or(|&c| c != 0) {
            return false;
        }
        if self.undo_on && o + len as usize <= self.bytes.len() && !self.kept(off) {
            // (An aligned store lies within one page.)
            self.save(off, len);
        }
        match self.bytes.get_mut(o..o + len as usize) {
            Some(b) => {
                b.copy_from_slice(&value.to_le_bytes()[..len as usize]);
                self.writes += 1;
                true
            }
            None => false,
        }
    }

    /// Reads `len` (1, 2, 4 or 8) bytes little-endian at `off`. The caller
    /// has checked the range.
    #[inline(always)]
    pub fn read(&self, off: u32, len: u32) -> u64 {
        let o = off as usize;
        // (At most 8 bytes, aligned or within a line: one page.)
        self.read.set(self.read.get() | page_bit(off));
        le_value(&self.bytes[o..o + len as usize])
    }

    /// Reads as [`CodeMem::read`] does for an aligned access (a load by a
    /// global address naming the core's own SRAM, or a read from the
    /// mesh), noting it as [`CodeMem::load`] does.
    #[inline(always)]
    pub fn read_load(&self, off: u32, len: u32) -> u64 {
        let o = off as usize;
        if self.undo_on {
            self.note_load(off, len);
        }
        le_value(&self.bytes[o..o + len as usize])
    }

    /// Reads as [`CodeMem::read`] does, without noting the read (the
    /// machine looking, not the core or the mesh reading).
    #[inline(always)]
    pub fn peek(&self, off: u32, len: u32) -> u64 {
        let o = off as usize;
        le_value(&self.bytes[o..o + len as usize])
    }

    /// Writes the low `len` bytes of `value` little-endian at `off`; true if
    /// the write changed decoded code (the epoch advanced). The caller has
    /// checked the range.
    #[inline(always)]
    pub fn write(&mut self, off: u32, len: u32, value: u64) -> bool {
        let o = off as usize;
        if self.undo_on {
            self.save(off, len);
        }
        let b = value.to_le_bytes();
        self.bytes[o..o + len as usize].copy_from_slice(&b[..len as usize]);
        self.writes += 1;
        self.has_code && self.touch(off, len)
    }

    /// Copies `data` to `off` (loader, host and bulk writes); true if it
    /// changed decoded code.
    pub fn write_bytes(&mut self, off: u32, data: &[u8]) -> bool {
        let o = off as usize;
        if self.undo_on {
            self.save(off, data.len() as u32);
        }
        self.bytes[o..o + data.len()].copy_from_slice(data);
        self.writes += 1;
        self.has_code && self.touch(off, data.len() as u32)
    }

    /// The bytes `[off, off + len)` (range checked by the caller).
    pub fn read_bytes(&self, off: u32, len: u32) -> &[u8] {
        if len > 0 {
            self.note_read(off, len);
        }
        &self.bytes[off as usize..(off + len) as usize]
    }

    /// Fills `[off, off + len)` with zeroes.
    pub fn zero(&mut self, off: u32, len: u32) {
        if self.undo_on {
            self.save(off, len);
        }
        self.bytes[off as usize..(off + len) as usize].fill(0);
        self.writes += 1;
        if self.has_code {
            self.touch(off, len);
        }
    }

    /// Records that the halfwords of `[off, off + len)` were decoded into a
    /// cached block.
    pub fn mark_code(&mut self, off: u32, len: u32) {
        for h in off >> 1..=(off + len - 1) >> 1 {
            self.code[(h >> 3) as usize] |= 1 << (h & 7);
        }
        self.has_code = true;
    }

    /// After a write of `[off, off + len)`: if it touched a decoded
    /// halfword, advances the epoch and forgets every mark (the caches
    /// built before are all dropped). True if it did.
    #[inline(always)]
    fn touch(&mut self, off: u32, len: u32) -> bool {
        if len == 0 {
            return false;
        }
        let first = off >> 1;
        let last = (off + len - 1) >> 1;
        let hit = if last - first < 8 {
            // At most two bitmap bytes (every store, small bulk writes).
            let (b0, b1) = ((first >> 3) as usize, (last >> 3) as usize);
            let lo = !0u8 << (first & 7);
            let hi = !0u8 >> (7 - (last & 7));
            if b0 == b1 {
                self.code[b0] & lo & hi != 0
            } else {
                self.code[b0] & lo != 0 || self.code[b1] & hi != 0
            }
        } else {
            self.any_code(first, last)
        };
        if hit {
            self.forget_code();
        }
        hit
    }

    #[cold]
    #[inline(never)]
    fn forget_code(&mut self) {
        self.epoch += 1;
        self.code.fill(0);
        self.has_code = false;
    }

    #[cold]
    #[inline(never)]
    fn any_code(&self, first: u32, last: u32) -> bool {
        (first..=last).any(|h| self.code[(h >> 3) as usize] & 1 << (h & 7) != 0)
    }

    /// The instruction word at `off`: first halfword low, second high (zero
    /// when a 32-bit instruction's second halfword lies past the end).
    pub fn word_for_decode(&self, off: u32) -> u32 {
        let h0 = self.read(off, 2) as u32;
        let h1 = if insn_len(h0 as u16) == 4 && self.contains(off + 2, 2) {
            self.read(off + 2, 2) as u32
        } else {
            0
        };
        h0 | h1 << 16
    }
}

/// The value of 1, 2, 4 or 8 bytes, little-endian.
#[inline(always)]
fn le_value(b: &[u8]) -> u64 {
    match *b {
        [b0] => u64::from(b0),
        [b0, b1] => u64::from(u16::from_le_bytes([b0, b1])),
        [b0, b1, b2, b3] => u64::from(u32::from_le_bytes([b0, b1, b2, b3])),
        _ => u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
    }
}

/// The DMA engine reads descriptors from a core's SRAM.
impl epsim_dma::LocalMem for CodeMem {
    fn read_word(&self, addr: u32) -> Option<u32> {
        (addr.is_multiple_of(4) && self.contains(addr, 4)).then(|| self.read(addr, 4) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_over_marked_code_advances_the_epoch_once() {
        let mut m = CodeMem::new(256);
        m.mark_code(0x20, 6);
        assert!(!m.write(0x1e, 2, 0), "the halfword before is not code");
        assert!(!m.write(0x26, 2, 0), "the halfword after is not code");
        assert_eq!(m.epoch(), 0);
        assert!(m.write(0x24, 1, 0xff));
        assert_eq!(m.epoch(), 1);
        // The marks are gone until blocks are built again.
        assert!(!m.write(0x20, 8, 0));
        assert_eq!(m.epoch(), 1);
    }

    #[test]
    fn the_fast_paths_stay_inside_and_away_from_code() {
        let mut m = CodeMem::new(256);
        m.mark_code(0x40, 4);
        // The 16 bytes around decoded code take the slow path, which finds
        // the code exactly.
        assert!(!m.store_plain(0x48, 4, 1));
        assert!(!m.write(0x48, 4, 1), "no code at 0x48");
        assert!(!m.store_plain(0x40, 2, 0));
        assert_eq!(m.epoch(), 0);
        assert!(m.store_plain(0x50, 8, 0x1122_3344_5566_7788));
        assert_eq!(m.load(0x50, 8), Some(0x1122_3344_5566_7788));
        assert_eq!(m.load(0x54, 2), Some(0x3344));
        assert_eq!(m.load(0x48, 4), Some(1));
        // Past the end: nothing read or written.
        assert_eq!(m.load(0xfc, 8), None);
        assert!(!m.store_plain(0x100, 4, 0));
        assert_eq!(m.load(u32::MAX - 3, 4), None);
    }

    #[test]
    fn marks_are_found_across_bitmap_bytes_and_by_bulk_writes() {
        let mut m = CodeMem::new(1024);
        m.mark_code(0x7e, 4); // halfwords 63 and 64: two bitmap bytes
        assert!(m.write(0x78, 8, 0)); // halfwords 60..=63
        m.mark_code(0x80, 2);
        assert!(m.write(0x80, 2, 0));
        m.mark_code(0x300, 2);
        assert!(m.write_bytes(0x100, &[0; 0x300]));
        m.mark_code(0x10, 2);
        m.zero(0, 0x40);
        assert_eq!(m.epoch(), 4);
    }
}
