//! e-loader's configuration objects: the words it writes into every core
//! it loads, and where.
//!
//! Model decisions owned here (stack.md §2.4, issue 15):
//! * **What the words are**: e-lib's `e_group_config_t` (objtype
//!   `E_EPI_GROUP`, the chip type, the group's first core id, row and
//!   column, its size, this core's row and column in it, the padding word
//!   `0xdeadbeef`), `e_emem_config_t` (objtype `E_EXT_MEM`, the external
//!   memory's base as the cores see it) and `loader_cfg` (the
//!   BSS-cleared flag, then three zero words).
//! * **Where they go**: at the address of the ELF's `workgroup_cfg`,
//!   `ext_mem_cfg` and `loader_cfg` sections (the first section of each
//!   name, as e-loader's `lookup_sections` takes; [`LoadPlan::config_sections`]),
//!   after the segments are copied and over whatever they put there (e-lib
//!   defines the objects in those sections, so ESDK-linked programs load
//!   zeros there); a section in external memory gets its words in DRAM; a
//!   section at a core's global SRAM address is refused (e-loader writes
//!   only core-local or external addresses). A program with none of the
//!   three sections (our linker scripts) gets the words at e-lib's fixed
//!   addresses 0x28, 0x50 and 0x58 if it loads nothing in 0x28..0x68, and
//!   none at all otherwise.

use crate::error::LoadError;
use crate::plan::LoadPlan;
use crate::target::{Region, Target};

/// The ELF sections e-loader writes its configuration objects into, in
/// the order of every `[_; 3]` of this module.
pub const CONFIG_SECTIONS: [&str; 3] = ["workgroup_cfg", "ext_mem_cfg", "loader_cfg"];
/// The objects' sizes in bytes.
pub const CONFIG_SIZES: [u32; 3] = [40, 8, 16];
/// Where e-lib's own layouts put them (core-local addresses).
pub const CONFIG_FIXED: [u32; 3] = [0x28, 0x50, 0x58];

/// `e_objtype_t` values and the padding word e-loader writes.
const E_EPI_GROUP: u32 = 3;
const E_EXT_MEM: u32 = 5;
const PADDING: u32 = 0xdead_beef;
/// `loader_cfg.flags`: the loader cleared `.bss` (it clears all of SRAM).
const LOADER_BSS_CLEARED_FLAG: u32 = 1;

/// A workgroup a program is loaded onto, as e-loader describes it to each
/// of its cores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupConfig {
    /// `e_chiptype_t`: 0 for the E16G301, 1 for the E64G401.
    pub chip_type: u32,
    /// Mesh row of the group's first (north-west) core.
    pub row: u32,
    /// Mesh column of the group's first core.
    pub col: u32,
    /// Rows of cores in the group.
    pub rows: u32,
    /// Columns of cores in the group.
    pub cols: u32,
    /// The external memory's base address as the cores see it.
    pub ext_base: u32,
}

impl GroupConfig {
    /// The bytes of the three objects for the core at (`row`, `col`) of
    /// the group, in the order of [`CONFIG_SECTIONS`].
    pub fn words(&self, row: u32, col: u32) -> [Vec<u8>; 3] {
        let group = [
            E_EPI_GROUP,
            self.chip_type,
            (self.row << 6) | self.col,
            self.row,
            self.col,
            self.rows,
            self.cols,
            row,
            col,
            PADDING,
        ];
        let emem = [E_EXT_MEM, self.ext_base];
        let loader = [LOADER_BSS_CLEARED_FLAG, 0, 0, 0];
        let bytes = |w: &[u32]| w.iter().flat_map(|w| w.to_le_bytes()).collect();
        [bytes(&group), bytes(&emem), bytes(&loader)]
    }
}

impl LoadPlan {
    /// Where e-loader writes the three configuration objects of this
    /// program on `target`, in the order of [`CONFIG_SECTIONS`] (see the
    /// module): at each section the ELF has, nowhere for one it lacks; for
    /// an ELF with none of them, at [`CONFIG_FIXED`] if no segment loads
    /// anything in 0x28..0x68. Refuses a section the words cannot be
    /// written to, naming it ([`LoadError::ConfigSection`]).
    pub fn config_places(&self, target: &Target) -> Result<[Option<Region>; 3], LoadError> {
        let addrs = self.config_sections;
        if addrs.iter().all(Option::is_none) {
            let (lo, hi) = (CONFIG_FIXED[0], CONFIG_FIXED[2] + CONFIG_SIZES[2]);
            let free = self.segments.iter().all(|s| match s.region {
                Region::Local { offset } => {
                    u64::from(offset) + s.mem_size() <= u64::from(lo) || offset >= hi
                }
                _ => true,
            });
            return Ok(if free {
                CONFIG_FIXED.map(|a| Some(Region::Local { offset: a }))
            } else {
                [None; 3]
            });
        }
        let mut out = [None; 3];
        for (k, addr) in addrs.iter().enumerate() {
            let Some(addr) = *addr else { continue };
            let reason = match target.place(addr, CONFIG_SIZES[k]) {
                Ok(r @ (Region::Local { .. } | Region::External { .. })) => {
                    out[k] = Some(r);
                    continue;
                }
                Ok(Region::OnChip { .. }) => {
                    "it is a core's global SRAM address (e-loader writes these words only at a \
                     core-local or an external-memory address)"
                        .to_string()
                }
                Err(e) => e.to_string(),
            };
            return Err(LoadError::ConfigSection {
                section: CONFIG_SECTIONS[k],
                addr,
                size: CONFIG_SIZES[k],
                reason,
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Flags, Segment};

    fn plan(segments: &[(u32, u32)], sections: [Option<u32>; 3]) -> LoadPlan {
        let target = Target::parallella16();
        let segments = segments
            .iter()
            .enumerate()
            .map(|(index, &(vaddr, len))| Segment {
                index,
                vaddr,
                region: target.place(vaddr, len).unwrap(),
                flags: Flags::default(),
                data: vec![0; len as usize],
                zero_fill: 0,
            })
            .collect();
        LoadPlan::new(0, segments, Vec::new()).with_config_sections(sections)
    }

    #[test]
    fn the_words_of_a_core_of_a_group() {
        let g = GroupConfig {
            chip_type: 1,
            row: 33,
            col: 9,
            rows: 2,
            cols: 3,
            ext_base: 0x8e00_0000,
        };
        let [group, emem, loader] = g.words(1, 2);
        let w = |b: &[u8]| -> Vec<u32> {
            b.chunks(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect()
        };
        let id = (33 << 6) | 9;
        assert_eq!(w(&group), [3, 1, id, 33, 9, 2, 3, 1, 2, 0xdead_beef]);
        assert_eq!(w(&emem), [5, 0x8e00_0000]);
        assert_eq!(w(&loader), [1, 0, 0, 0]);
        for (k, b) in [group, emem, loader].iter().enumerate() {
            assert_eq!(b.len() as u32, CONFIG_SIZES[k]);
        }
    }

    #[test]
    fn places_follow_the_sections_else_the_fixed_addresses_if_free() {
        let t = Target::parallella16();
        let local = |offset| Some(Region::Local { offset });
        // Sections: wherever they are, over a segment too.
        let p = plan(&[(0, 0x200)], [Some(0x28), None, Some(0x8f10_0030)]);
        assert_eq!(
            p.config_places(&t).unwrap(),
            [
                local(0x28),
                None,
                Some(Region::External {
                    offset: 0x0110_0030
                })
            ]
        );
        // None: the fixed addresses, unless something is loaded there.
        let fixed = [local(0x28), local(0x50), local(0x58)];
        assert_eq!(
            plan(&[(0, 0x28), (0x68, 8)], [None; 3])
                .config_places(&t)
                .unwrap(),
            fixed
        );
        assert_eq!(
            plan(&[(0x60, 8)], [None; 3]).config_places(&t).unwrap(),
            [None; 3]
        );
        assert_eq!(
            plan(&[(0, 0x29)], [None; 3]).config_places(&t).unwrap(),
            [None; 3]
        );
    }

    #[test]
    fn a_section_the_words_cannot_go_to_is_refused() {
        let t = Target::parallella16();
        let e = plan(&[(0, 8)], [Some(0x8080_7000), None, None])
            .config_places(&t)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "section workgroup_cfg at 0x80807000 (40 bytes) cannot hold e-loader's \
             configuration words: it is a core's global SRAM address (e-loader writes these \
             words only at a core-local or an external-memory address)"
        );
        let e = plan(&[(0, 8)], [None, None, Some(0x7ff8)])
            .config_places(&t)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("section loader_cfg at 0x7ff8 (16 bytes) cannot hold"),
            "{e}"
        );
    }
}
