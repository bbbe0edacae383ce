//! The chip a program is loaded onto, and where a segment lands on it.
//!
//! Model decision owned here: **what counts as a load target**. An address
//! whose top 12 bits (`addr[31:20]`, the core id) are zero is core-local and
//! goes into the SRAM of whichever core the program is loaded on. Any other
//! address is global: `coreid << 20 | offset` with `row = coreid >> 6`,
//! `col = coreid & 63`. If that core exists on the target chip the segment
//! goes into that core's SRAM; otherwise the address must lie inside the
//! external DRAM window. Only SRAM and external DRAM are load targets: the
//! memory-mapped registers (offsets `0xF0000` and up) and the reserved space
//! between the end of SRAM and the registers are not. This is the rule
//! e-hal's `e-loader.c` applies (`p_vaddr >> 20 == 0` is local, an on-chip
//! global address goes to that core, anything else to external memory),
//! made strict: e-loader checks ranges too, and so do we, before anything is
//! copied.

use serde::Serialize;

use crate::plan::{hex, hex16};

/// Offset, within a core's 1 MB slice of the address space, where the
/// memory-mapped registers begin (Architecture Reference; `reference/isa.md`
/// §4.1). Everything from here to the end of the slice is not loadable.
pub const REGISTER_BASE: u32 = 0xF_0000;

/// Size of one core's slice of the global address space (`addr[19:0]`).
const CORE_SLICE: u64 = 1 << 20;

/// The chip and board a program is loaded onto: which cores exist, how much
/// SRAM each has, and where the external DRAM window is (all in Epiphany
/// addresses, as the device sees them).
///
/// The loader depends on no other crate of the workspace, so the simulator
/// passes this description in (built from its own configuration).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Target {
    /// Bytes of SRAM per core, starting at local address 0 (`0x8000` on the
    /// E16G301 and E64G401).
    pub sram_size: u32,
    /// Mesh row of the chip's first (north-west) core.
    pub first_row: u32,
    /// Mesh column of the chip's first (north-west) core.
    pub first_col: u32,
    /// Number of core rows on the chip.
    pub rows: u32,
    /// Number of core columns on the chip.
    pub cols: u32,
    /// First Epiphany address of the external DRAM window.
    pub ext_base: u32,
    /// Size of the external DRAM window in bytes.
    pub ext_size: u32,
}

impl Target {
    /// E16G301 on a Parallella-16 (the default): 4×4 cores at rows 32..=35,
    /// columns 8..=11 (core ids 0x808..=0x8CB), 32 KB SRAM each, 32 MB of
    /// external DRAM at `0x8E00_0000` (ESDK `parallella_E16G3_1GB.hdf`).
    pub const fn parallella16() -> Self {
        Target {
            sram_size: 0x8000,
            first_row: 32,
            first_col: 8,
            rows: 4,
            cols: 4,
            ext_base: 0x8E00_0000,
            ext_size: 0x0200_0000,
        }
    }

    /// E64G401 on a Parallella-64: 8×8 cores at rows 32..=39, columns
    /// 8..=15, 32 KB SRAM each, the same 32 MB DRAM window at `0x8E00_0000`.
    pub const fn parallella64() -> Self {
        Target {
            rows: 8,
            cols: 8,
            ..Target::parallella16()
        }
    }

    /// Whether the core at mesh position (`row`, `col`) is on the chip.
    pub fn has_core(&self, row: u32, col: u32) -> bool {
        row.checked_sub(self.first_row)
            .is_some_and(|r| r < self.rows)
            && col
                .checked_sub(self.first_col)
                .is_some_and(|c| c < self.cols)
    }

    /// One past the last byte of the external DRAM window (as `u64`, so a
    /// window that ends at the top of the address space is representable).
    pub fn ext_end(&self) -> u64 {
        u64::from(self.ext_base) + u64::from(self.ext_size)
    }

    /// Where the `len` bytes starting at Epiphany address `addr` are loaded,
    /// or why they cannot be (see the module documentation for the rule).
    /// A range is accepted only if it lies entirely inside one memory.
    pub fn place(&self, addr: u32, len: u32) -> Result<Region, Unmapped> {
        let end = u64::from(addr) + u64::from(len);
        if end > 1 << 32 {
            return Err(Unmapped::Wraps);
        }
        let coreid = addr >> 20;
        let offset = addr & 0xF_FFFF;
        let sram_end = u64::from(self.sram_size).min(CORE_SLICE);
        let fits_sram = u64::from(offset) + u64::from(len) <= sram_end;
        if coreid == 0 {
            return if fits_sram {
                Ok(Region::Local { offset })
            } else if offset >= REGISTER_BASE {
                Err(Unmapped::LocalRegisters)
            } else {
                Err(Unmapped::LocalPastSram {
                    sram_size: self.sram_size,
                })
            };
        }
        let (row, col) = (coreid >> 6, coreid & 0x3F);
        if self.has_core(row, col) {
            // coreid < 0x1000, so row and col are both below 64.
            let (row, col) = (row as u8, col as u8);
            return if fits_sram {
                Ok(Region::OnChip {
                    coreid: coreid as u16,
                    row,
                    col,
                    offset,
                })
            } else if offset >= REGISTER_BASE {
                Err(Unmapped::CoreRegisters { row, col })
            } else {
                Err(Unmapped::CorePastSram {
                    row,
                    col,
                    base: coreid << 20,
                    sram_size: self.sram_size,
                })
            };
        }
        let in_window = addr >= self.ext_base && u64::from(addr) < self.ext_end();
        if in_window && end <= self.ext_end() {
            Ok(Region::External {
                offset: addr - self.ext_base,
            })
        } else if in_window {
            Err(Unmapped::PastExternal {
                ext_base: self.ext_base,
                ext_end: self.ext_end(),
            })
        } else {
            Err(Unmapped::NoSuchCore {
                row,
                col,
                target: *self,
            })
        }
    }
}

impl Default for Target {
    /// [`Target::parallella16`].
    fn default() -> Self {
        Target::parallella16()
    }
}

/// The memory a segment is loaded into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Region {
    /// Core-local address (top 12 bits zero): the SRAM of whichever core the
    /// program is loaded on, at `offset`.
    Local {
        /// Byte offset into the core's SRAM (equal to the address).
        #[serde(serialize_with = "hex")]
        offset: u32,
    },
    /// On-chip global address: the SRAM of one particular core.
    OnChip {
        /// `row << 6 | col`, the address's top 12 bits.
        #[serde(serialize_with = "hex16")]
        coreid: u16,
        /// Mesh row of the owning core (absolute, e.g. 32..=35 on E16G301).
        row: u8,
        /// Mesh column of the owning core (absolute, e.g. 8..=11 on E16G301).
        col: u8,
        /// Byte offset into that core's SRAM (`addr[19:0]`).
        #[serde(serialize_with = "hex")]
        offset: u32,
    },
    /// External DRAM, reached over the eLink.
    External {
        /// Byte offset from the start of the external window
        /// ([`Target::ext_base`]); e-hal's `e_alloc` offsets count the same way.
        #[serde(serialize_with = "hex")]
        offset: u32,
    },
}

/// Why an address range is not a load target. Each message completes the
/// sentence "segment N at A..B is outside any memory: …".
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Unmapped {
    /// The range runs past `0xFFFF_FFFF`.
    #[error("it wraps around the top of the 32-bit address space")]
    Wraps,
    /// A core-local range that does not fit in SRAM.
    #[error("a core-local segment must lie inside SRAM 0x0..{sram_size:#x}")]
    LocalPastSram {
        /// SRAM bytes per core.
        sram_size: u32,
    },
    /// A core-local range at the memory-mapped registers.
    #[error(
        "core-local offsets {:#x} and up are memory-mapped registers, not a load target",
        REGISTER_BASE
    )]
    LocalRegisters,
    /// A range on an existing core that does not fit in that core's SRAM.
    #[error(
        "it is on core ({row},{col}) but not inside its SRAM {base:#010x}..{:#010x}",
        u64::from(*base) + u64::from(*sram_size)
    )]
    CorePastSram {
        /// Mesh row of the core.
        row: u8,
        /// Mesh column of the core.
        col: u8,
        /// Global address of the core's SRAM (`coreid << 20`).
        base: u32,
        /// SRAM bytes per core.
        sram_size: u32,
    },
    /// A range at the memory-mapped registers of an existing core.
    #[error("it is in the memory-mapped registers of core ({row},{col}), not a load target")]
    CoreRegisters {
        /// Mesh row of the core.
        row: u8,
        /// Mesh column of the core.
        col: u8,
    },
    /// A range that starts inside the external window but runs past its end.
    #[error(
        "it starts in external memory {ext_base:#010x}..{ext_end:#010x} but runs past its end"
    )]
    PastExternal {
        /// First address of the window.
        ext_base: u32,
        /// One past the last address of the window.
        ext_end: u64,
    },
    /// A global address of a core the chip does not have, outside the
    /// external window.
    #[error(
        "core ({row},{col}) is not on the chip (rows {}..={}, columns {}..={}) and the address is not in external memory {:#010x}..{:#010x}",
        target.first_row,
        i64::from(target.first_row) + i64::from(target.rows) - 1,
        target.first_col,
        i64::from(target.first_col) + i64::from(target.cols) - 1,
        target.ext_base,
        target.ext_end()
    )]
    NoSuchCore {
        /// Mesh row named by the address (`addr[31:26]`).
        row: u32,
        /// Mesh column named by the address (`addr[25:20]`).
        col: u32,
        /// The target the address was checked against.
        target: Target,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    const P16: Target = Target::parallella16();

    #[test]
    fn local_addresses() {
        assert_eq!(P16.place(0, 0x8000), Ok(Region::Local { offset: 0 }));
        assert_eq!(P16.place(0x7FFC, 4), Ok(Region::Local { offset: 0x7FFC }));
        assert_eq!(
            P16.place(0x7FFC, 8),
            Err(Unmapped::LocalPastSram { sram_size: 0x8000 })
        );
        assert_eq!(
            P16.place(0x8000, 4),
            Err(Unmapped::LocalPastSram { sram_size: 0x8000 })
        );
        assert_eq!(P16.place(0xF0400, 4), Err(Unmapped::LocalRegisters));
    }

    #[test]
    fn on_chip_addresses() {
        // Corners of the 4x4 chip.
        assert_eq!(
            P16.place(0x8080_0000, 0x8000),
            Ok(Region::OnChip {
                coreid: 0x808,
                row: 32,
                col: 8,
                offset: 0
            })
        );
        assert_eq!(
            P16.place(0x8CB0_7FF0, 0x10),
            Ok(Region::OnChip {
                coreid: 0x8CB,
                row: 35,
                col: 11,
                offset: 0x7FF0
            })
        );
        assert_eq!(
            P16.place(0x8090_7FF0, 0x20),
            Err(Unmapped::CorePastSram {
                row: 32,
                col: 9,
                base: 0x8090_0000,
                sram_size: 0x8000
            })
        );
        assert_eq!(
            P16.place(0x809F_0000, 4),
            Err(Unmapped::CoreRegisters { row: 32, col: 9 })
        );
        // Row 36 exists on the E64G401 only.
        assert!(matches!(
            P16.place(0x9080_0000, 4),
            Err(Unmapped::NoSuchCore {
                row: 36,
                col: 8,
                ..
            })
        ));
        assert!(matches!(
            Target::parallella64().place(0x9080_0000, 4),
            Ok(Region::OnChip { coreid: 0x908, .. })
        ));
    }

    #[test]
    fn external_addresses() {
        assert_eq!(
            P16.place(0x8E00_0000, 0x0200_0000),
            Ok(Region::External { offset: 0 })
        );
        assert_eq!(
            P16.place(0x8F00_0000, 16),
            Ok(Region::External {
                offset: 0x0100_0000
            })
        );
        assert!(matches!(
            P16.place(0x8FFF_FFF0, 0x20),
            Err(Unmapped::PastExternal { .. })
        ));
        assert!(matches!(
            P16.place(0x8DFF_FFF0, 0x20),
            Err(Unmapped::NoSuchCore { .. })
        ));
        assert_eq!(P16.place(0xFFFF_FFF0, 0x20), Err(Unmapped::Wraps));
    }

    #[test]
    fn degenerate_targets_do_not_panic() {
        let odd = Target {
            sram_size: u32::MAX,
            first_row: u32::MAX,
            first_col: u32::MAX,
            rows: u32::MAX,
            cols: u32::MAX,
            ext_base: u32::MAX,
            ext_size: u32::MAX,
        };
        for addr in [0, 1, 0x8000, 0xF_0000, 0x8080_0000, 0xFFFF_FFFF] {
            for len in [0, 1, 0x8000, u32::MAX] {
                let _ = odd.place(addr, len).map_err(|e| e.to_string());
                let _ = Target::default()
                    .place(addr, len)
                    .map_err(|e| e.to_string());
            }
        }
    }
}
