//! Epiphany ELF programs into load plans.
//!
//! [`plan`] parses an ELF32 executable (with goblin, which stays inside
//! this crate) into a [`LoadPlan`]: the loadable segments with their bytes,
//! zero fill, permissions and placement, the entry point, and the symbols.
//! The loader never touches simulator state; the simulator applies the plan.
//! A file that cannot be loaded gives one [`LoadError`] whose message names
//! the cause with its values (and, from [`load_file`], the file). No input
//! makes it panic.
//!
//! # Model decisions owned here
//!
//! * **What counts as a local address**: one whose top 12 bits
//!   (`addr[31:20]`, the core-id field) are zero. It is loaded into the SRAM
//!   of whichever core the program is loaded on.
//! * **How segments are classified**, as e-hal's `e-loader.c` does: every
//!   `PT_LOAD` program header with `p_memsz != 0` is placed by its `p_vaddr`
//!   as [`Region::Local`], [`Region::OnChip`] (`coreid << 20 | offset` for a
//!   core that exists on the [`Target`], with the core's row, column and
//!   the offset into its SRAM), or [`Region::External`] (inside the external
//!   DRAM window). The whole `p_memsz` range must fit inside the core's SRAM
//!   or inside the window; memory-mapped registers and reserved space are
//!   not load targets. Other program headers, and empty `PT_LOAD`s, are
//!   ignored. See [`Target::place`].
//! * **What is checked before anything is copied**: ELF32, little-endian,
//!   `e_machine == 0x1223` (`EM_ADAPTEVA_EPIPHANY`), `e_type == ET_EXEC`,
//!   every header and table inside the file, `p_filesz <= p_memsz`, and no
//!   two segments overlapping (local ones among themselves, global ones
//!   among themselves).
//! * **Zero fill is recorded, not applied**: [`Segment::zero_fill`] bytes
//!   follow the file bytes; clearing them is the simulator's choice (e-hal
//!   clears all of SRAM before loading but leaves external memory alone).
//! * **e-loader's configuration objects**: the plan records the addresses
//!   of the ELF's `workgroup_cfg`, `ext_mem_cfg` and `loader_cfg` sections;
//!   [`LoadPlan::config_places`] says where the words go and
//!   [`GroupConfig::words`] what they are (the module `config`).
//! * **Symbols** keep their names as in the file (C `main` is `_main`) and
//!   are sorted by address for labelling ([`LoadPlan::symbol_at`]).
//!
//! ```no_run
//! use epsim_loader::{load_file, Target};
//!
//! let plan = load_file("hello.elf", &Target::parallella16())?;
//! for seg in &plan.segments {
//!     println!("{:#010x} {:?} {} bytes", seg.vaddr, seg.region, seg.data.len());
//! }
//! let main = plan.symbol("_main");
//! # Ok::<(), epsim_loader::LoadError>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod config;
mod elf;
mod error;
mod plan;
mod read;
mod target;

use std::path::Path;

pub use config::{GroupConfig, CONFIG_FIXED, CONFIG_SECTIONS, CONFIG_SIZES};
pub use elf::EM_ADAPTEVA_EPIPHANY;
pub use error::{LoadError, Part};
pub use plan::{fnv1a, Binding, Flags, LoadPlan, Segment, Symbol, SymbolKind};
pub use read::MAX_FILE_BYTES;
pub use target::{Region, Target, Unmapped, REGISTER_BASE};

/// Turns the bytes of an ELF file into a load plan for `target`, or says
/// why they cannot be loaded. Every header and range is checked before any
/// segment bytes are copied.
pub fn plan(bytes: &[u8], target: &Target) -> Result<LoadPlan, LoadError> {
    elf::plan(bytes, target)
}

/// Reads the file at `path` and makes its load plan. Any error is wrapped
/// in [`LoadError::File`], so its message reads `path: cause`.
///
/// The file is read only as far as its headers say an ELF extends, after
/// checking the ELF header (a file that is not an ELF is refused after at
/// most 52 bytes, so `/dev/zero` or a pipe is safe to name), and never past
/// [`MAX_FILE_BYTES`].
pub fn load_file(path: impl AsRef<Path>, target: &Target) -> Result<LoadPlan, LoadError> {
    let path = path.as_ref();
    let wrap = |error| LoadError::File {
        path: path.to_path_buf(),
        error: Box::new(error),
    };
    let bytes = read::read_elf(path).map_err(wrap)?;
    plan(&bytes, target).map_err(wrap)
}
