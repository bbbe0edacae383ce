//! Machine configuration: the chip geometry, memory sizes and policies.

use serde::{Deserialize, Serialize};

/// A core's mesh coordinates. Its id is `row << 6 | col`, the top 12 bits
/// of its global addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct CoreId {
    pub row: u32,
    pub col: u32,
}

impl CoreId {
    pub const fn new(row: u32, col: u32) -> CoreId {
        CoreId { row, col }
    }
    /// The 12-bit core id.
    pub const fn bits(self) -> u32 {
        (self.row << 6) | self.col
    }
    pub const fn from_bits(id: u32) -> CoreId {
        CoreId {
            row: (id >> 6) & 63,
            col: id & 63,
        }
    }
    /// Base of this core's global address window.
    pub const fn global_base(self) -> u32 {
        self.bits() << 20
    }
}

impl std::fmt::Display for CoreId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "core ({},{}) {:#05x}", self.row, self.col, self.bits())
    }
}

/// What happens when a guest program faults (illegal instruction, unmapped
/// or misaligned access).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum FaultPolicy {
    /// Stop the run with a diagnostic naming core, PC, instruction and
    /// address (the default: what a user debugging a program wants).
    #[default]
    Stop,
    /// Model the hardware: latch the software exception (EXCAUSE, `ILAT[1]`)
    /// and let the program's own handler run.
    Raise,
}

/// How cores execute.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mode {
    /// The pipeline model decides when each instruction issues
    /// (`crate::timing`).
    #[default]
    Timed,
    /// Every instruction takes one cycle: the same execution with the
    /// timing model switched off.
    Functional,
}

/// Everything that shapes a machine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// Mesh row of the chip's first (north-west) core.
    pub first_row: u32,
    /// Mesh column of the chip's first core.
    pub first_col: u32,
    pub rows: u32,
    pub cols: u32,
    /// Bytes of SRAM per core.
    pub sram_size: u32,
    /// Base address of the external DRAM window.
    pub ext_base: u32,
    /// Bytes of external DRAM.
    pub ext_size: u32,
    /// Core clock, for converting cycles to time.
    pub clock_hz: u64,
    pub fault_policy: FaultPolicy,
    pub mode: Mode,
    /// Timed mode replays recorded block schedules (`crate::memo`); off,
    /// every instruction goes through the detailed model. The results are
    /// identical either way (tested); only the speed differs.
    pub memoise: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config::parallella16()
    }
}

impl Config {
    /// The E16G301 on a Parallella board: 4x4 cores at rows 32-35, columns
    /// 8-11, 32 KB SRAM each, 32 MB DRAM at 0x8e000000, 600 MHz.
    pub fn parallella16() -> Config {
        Config {
            first_row: 32,
            first_col: 8,
            rows: 4,
            cols: 4,
            sram_size: 0x8000,
            ext_base: 0x8e00_0000,
            ext_size: 32 << 20,
            clock_hz: 600_000_000,
            fault_policy: FaultPolicy::Stop,
            mode: Mode::Timed,
            memoise: true,
        }
    }

    /// The E64G401 (Parallella-64): 8x8 cores from row 32, column 8; the
    /// rest as [`Config::parallella16`].
    pub fn e64() -> Config {
        Config {
            rows: 8,
            cols: 8,
            ..Config::parallella16()
        }
    }

    /// A chip of `rows` x `cols` cores from row 32, column 8 unless that
    /// does not fit in the 64 x 64 id space (then from row 0, column 0);
    /// the rest as [`Config::parallella16`], except that a mesh covering
    /// the core ids of the DRAM window (0x8e0, 0x8e1) has no external
    /// memory.
    pub fn mesh(rows: u32, cols: u32) -> Config {
        let base = Config::parallella16();
        let (first_row, first_col) = if 32 + rows <= 64 && 8 + cols <= 64 {
            (32, 8)
        } else {
            (0, 0)
        };
        let mut config = Config {
            rows,
            cols,
            first_row,
            first_col,
            ..base
        };
        if config.dram_overlap().is_some() {
            // The mesh covers the DRAM window's core ids: no room for
            // external memory in the address space.
            config.ext_size = 0;
        }
        config
    }

    /// Checks that the chip and memories are ones the machine can build:
    /// 1 to 64 rows and columns inside the 64 x 64 core-id space, SRAM a
    /// multiple of 8 bytes up to 1 MB, and external memory that does not
    /// overlap any core's address window.
    pub fn validate(&self) -> Result<(), String> {
        if self.rows == 0 || self.cols == 0 || self.rows > 64 || self.cols > 64 {
            return Err(format!(
                "a chip has 1 to 64 rows and columns, not {} x {}",
                self.rows, self.cols
            ));
        }
        if self.first_row + self.rows > 64 || self.first_col + self.cols > 64 {
            return Err(format!(
                "a {} x {} chip from row {}, column {} leaves the 64 x 64 core-id space",
                self.rows, self.cols, self.first_row, self.first_col
            ));
        }
        if self.sram_size == 0 || !self.sram_size.is_multiple_of(8) || self.sram_size > 1 << 20 {
            return Err(format!(
                "core SRAM must be a multiple of 8 bytes up to 1 MB, not {:#x}",
                self.sram_size
            ));
        }
        let end = u64::from(self.ext_base) + u64::from(self.ext_size);
        if end > 1 << 32 || !self.ext_size.is_multiple_of(8) {
            return Err(format!(
                "external memory {:#x} bytes at {:#010x} does not fit the address space",
                self.ext_size, self.ext_base
            ));
        }
        if let Some(id) = self.dram_overlap() {
            return Err(format!(
                "external memory at {:#010x} overlaps the address window of {id}",
                self.ext_base
            ));
        }
        Ok(())
    }

    /// The first core whose address window external memory overlaps.
    fn dram_overlap(&self) -> Option<CoreId> {
        if self.ext_size == 0 {
            return None;
        }
        let first = self.ext_base >> 20;
        let last = ((u64::from(self.ext_base) + u64::from(self.ext_size) - 1) >> 20) as u32;
        (first..=last.min(0xfff))
            .find(|&id| self.chip().contains(id))
            .map(CoreId::from_bits)
    }

    /// The chip's cores as a core's bus sees them.
    pub fn chip(&self) -> crate::core::Chip {
        crate::core::Chip {
            first_row: self.first_row,
            first_col: self.first_col,
            rows: self.rows,
            cols: self.cols,
        }
    }

    /// The index of core `id` in row-major order, if it is on the chip.
    pub fn core_index(&self, id: CoreId) -> Option<usize> {
        let (r, c) = (
            id.row.wrapping_sub(self.first_row),
            id.col.wrapping_sub(self.first_col),
        );
        (r < self.rows && c < self.cols).then(|| (r * self.cols + c) as usize)
    }

    /// The core at row-major `index`.
    pub fn core_at(&self, index: usize) -> CoreId {
        let i = index as u32;
        CoreId::new(
            self.first_row + i / self.cols,
            self.first_col + i % self.cols,
        )
    }

    /// The chip's first core, where single-core programs run.
    pub fn first_core(&self) -> CoreId {
        CoreId::new(self.first_row, self.first_col)
    }

    /// The loader's view of this machine.
    pub fn load_target(&self) -> epsim_loader::Target {
        epsim_loader::Target {
            sram_size: self.sram_size,
            first_row: self.first_row,
            first_col: self.first_col,
            rows: self.rows,
            cols: self.cols,
            ext_base: self.ext_base,
            ext_size: self.ext_size,
        }
    }
}
