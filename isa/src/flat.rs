//! `FlatBus`: a simple memory implementing [`Bus`], for tests and tools.
//!
//! Model decisions owned here (none of them architectural): memory is one
//! or more byte-addressed little-endian regions (the first mapped region
//! containing the whole access answers); anything else is
//! `Access::Fault(MemFault::Unmapped)`; every access completes at once
//! (`Ready`); TESTSET works on any mapped address; special registers of
//! group 0 are the core's own ([`ArchState::read_core_sreg`] /
//! [`ArchState::write_core_sreg`], reads of non-readable indices give 0,
//! writes to non-writable ones are ignored) and groups 1–3 are plain storage.

use crate::bus::{Access, Bus, MemFault};
use crate::op::{Size, Sreg};
use crate::state::ArchState;

#[derive(Clone, Debug, PartialEq, Eq)]
struct Region {
    base: u32,
    bytes: Vec<u8>,
}

/// A flat test memory plus storage for the non-core special registers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlatBus {
    regions: Vec<Region>,
    /// Groups 1–3 of MOVTS/MOVFS, indexed by `(group - 1) * 64 + index`.
    sregs: [u32; 192],
}

impl Default for FlatBus {
    fn default() -> Self {
        FlatBus::empty()
    }
}

impl FlatBus {
    /// A bus with no memory mapped.
    pub fn empty() -> FlatBus {
        FlatBus {
            regions: Vec::new(),
            sregs: [0; 192],
        }
    }

    /// A bus with `size` zeroed bytes mapped at `base`.
    pub fn new(base: u32, size: u32) -> FlatBus {
        let mut b = FlatBus::empty();
        b.map(base, size);
        b
    }

    /// Maps `size` more zeroed bytes at `base` (regions may not wrap past
    /// 2^32; the part beyond is unreachable). Returns `self` for chaining.
    pub fn map(&mut self, base: u32, size: u32) -> &mut FlatBus {
        self.regions.push(Region {
            base,
            bytes: vec![0; size as usize],
        });
        self
    }

    fn find(&self, addr: u32, len: u32) -> Option<(usize, usize)> {
        self.regions.iter().enumerate().find_map(|(i, r)| {
            let off = u64::from(addr).checked_sub(u64::from(r.base))?;
            (off + u64::from(len) <= r.bytes.len() as u64).then_some((i, off as usize))
        })
    }

    /// The `len` bytes at `addr`, if they are all mapped in one region.
    pub fn bytes(&self, addr: u32, len: u32) -> Option<&[u8]> {
        let (i, off) = self.find(addr, len)?;
        self.regions[i].bytes.get(off..off + len as usize)
    }

    /// Mutable view of the `len` bytes at `addr`.
    pub fn bytes_mut(&mut self, addr: u32, len: u32) -> Option<&mut [u8]> {
        let (i, off) = self.find(addr, len)?;
        self.regions[i].bytes.get_mut(off..off + len as usize)
    }

    /// Copies `data` to `addr`; false (nothing written) if not all mapped.
    pub fn write_bytes(&mut self, addr: u32, data: &[u8]) -> bool {
        let Ok(len) = u32::try_from(data.len()) else {
            return false;
        };
        match self.bytes_mut(addr, len) {
            Some(dst) => {
                dst.copy_from_slice(data);
                true
            }
            None => false,
        }
    }

    /// Little-endian read of `size` bytes (no alignment requirement).
    pub fn read(&self, addr: u32, size: Size) -> Option<u64> {
        let b = self.bytes(addr, size.bytes())?;
        Some(
            b.iter()
                .rev()
                .fold(0u64, |acc, &x| (acc << 8) | u64::from(x)),
        )
    }

    /// Little-endian write of the low `size` bytes of `value`; false
    /// (nothing written) if not all mapped.
    pub fn write(&mut self, addr: u32, size: Size, value: u64) -> bool {
        match self.bytes_mut(addr, size.bytes()) {
            Some(dst) => {
                for (i, d) in dst.iter_mut().enumerate() {
                    *d = (value >> (8 * i)) as u8;
                }
                true
            }
            None => false,
        }
    }

    /// The word at `addr`, if mapped.
    pub fn read_u32(&self, addr: u32) -> Option<u32> {
        self.read(addr, Size::Word).map(|v| v as u32)
    }

    /// Writes the word at `addr`; false if unmapped.
    pub fn write_u32(&mut self, addr: u32, value: u32) -> bool {
        self.write(addr, Size::Word, u64::from(value))
    }

    /// A group 1–3 special register (group 0 lives in [`ArchState`]; 0 here).
    pub fn sreg(&self, sreg: Sreg) -> u32 {
        match sreg.group() {
            0 => 0,
            g => self.sregs[((g - 1) * 64 + sreg.index()) as usize],
        }
    }

    /// Sets a group 1–3 special register (ignored for group 0).
    pub fn set_sreg(&mut self, sreg: Sreg, value: u32) {
        if let g @ 1..=3 = sreg.group() {
            self.sregs[((g - 1) * 64 + sreg.index()) as usize] = value;
        }
    }
}

impl Bus for FlatBus {
    fn load(&mut self, _s: &mut ArchState, addr: u32, size: Size) -> Access<u64> {
        match self.read(addr, size) {
            Some(v) => Access::Ready(v),
            None => Access::Fault(MemFault::Unmapped),
        }
    }

    fn store(&mut self, _s: &mut ArchState, addr: u32, size: Size, value: u64) -> Access<()> {
        if self.write(addr, size, value) {
            Access::Ready(())
        } else {
            Access::Fault(MemFault::Unmapped)
        }
    }

    fn testset(&mut self, _s: &mut ArchState, addr: u32, value: u32) -> Access<u32> {
        let Some(old) = self.read_u32(addr) else {
            return Access::Fault(MemFault::Unmapped);
        };
        if old == 0 {
            self.write_u32(addr, value);
        }
        Access::Ready(old)
    }

    fn read_sreg(&mut self, s: &mut ArchState, sreg: Sreg) -> Access<u32> {
        Access::Ready(if sreg.group() == 0 {
            s.read_core_sreg(sreg.index()).unwrap_or(0)
        } else {
            self.sreg(sreg)
        })
    }

    fn write_sreg(&mut self, s: &mut ArchState, sreg: Sreg, value: u32) -> Access<()> {
        if sreg.group() == 0 {
            s.write_core_sreg(sreg.index(), value);
        } else {
            self.set_sreg(sreg, value);
        }
        Access::Ready(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn little_endian_regions_and_unmapped() {
        let mut b = FlatBus::new(0x1000, 0x10);
        b.map(0x8E00_0000, 8);
        let mut s = ArchState::new();
        assert_eq!(
            b.store(&mut s, 0x1004, Size::Word, 0x1122_3344),
            Access::Ready(())
        );
        assert_eq!(b.bytes(0x1004, 4), Some(&[0x44, 0x33, 0x22, 0x11][..]));
        assert_eq!(b.load(&mut s, 0x1005, Size::Half), Access::Ready(0x2233));
        assert_eq!(
            b.load(&mut s, 0x1004, Size::Double),
            Access::Ready(0x1122_3344)
        );
        assert!(b.write(0x8E00_0000, Size::Double, 0x0102_0304_0506_0708));
        assert_eq!(b.read(0x8E00_0004, Size::Word), Some(0x0102_0304));
        // Straddling the end of a region, or outside every region.
        assert_eq!(
            b.load(&mut s, 0x100C, Size::Double),
            Access::Fault(MemFault::Unmapped)
        );
        assert_eq!(
            b.store(&mut s, 0xFFC, Size::Word, 0),
            Access::Fault(MemFault::Unmapped)
        );
        assert_eq!(
            b.testset(&mut s, 0x2000, 1),
            Access::Fault(MemFault::Unmapped)
        );
        assert_eq!(b.read(0xFFFF_FFFF, Size::Half), None);
        assert!(!b.write_bytes(0x100E, &[1, 2, 3]));
        assert_eq!(
            b.read(0x100E, Size::Half),
            Some(0),
            "failed write left nothing"
        );
    }

    #[test]
    fn testset_and_sregs() {
        let mut b = FlatBus::new(0, 0x100);
        let mut s = ArchState::new();
        assert_eq!(b.testset(&mut s, 0x10, 5), Access::Ready(0));
        assert_eq!(b.testset(&mut s, 0x10, 6), Access::Ready(5));
        assert_eq!(b.read_u32(0x10), Some(5));
        let _ = b.write_sreg(&mut s, Sreg::new(0, 5), 42);
        assert_eq!(s.lc, 42);
        assert_eq!(b.read_sreg(&mut s, Sreg::new(0, 5)), Access::Ready(42));
        assert_eq!(
            b.read_sreg(&mut s, Sreg::new(0, 11)),
            Access::Ready(0),
            "ILATST is write-only"
        );
        let _ = b.write_sreg(&mut s, Sreg::new(3, 63), 7);
        assert_eq!(b.read_sreg(&mut s, Sreg::new(3, 63)), Access::Ready(7));
        assert_eq!(b.sreg(Sreg::new(2, 63)), 0);
    }
}
