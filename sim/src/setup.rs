//! Building a machine from command-line style options: the options
//! themselves ([`MachineArgs`]: `--chip`, `--dram`, `--group`, `--load`,
//! `--mode`), their parsers, and the loading of every program onto its
//! group. Shared by `epsim run` and the TUI so that both take the same
//! options with the same messages.

use std::path::{Path, PathBuf};

use crate::config::{Config, CoreId, FaultPolicy, Mode};
use crate::machine::Machine;
use crate::syscall::Syscalls;

/// The options that say what machine to build, as `epsim run` and
/// `epsim tui` take them.
#[derive(Clone, Debug, clap::Args)]
pub struct MachineArgs {
    /// The chip: `e16` (Parallella E16G301, 4x4), `e64` (E64G401, 8x8)
    /// or ROWSxCOLS (up to 64x64).
    #[arg(long, value_name = "CHIP", default_value = "e16", value_parser = parse_chip)]
    pub chip: ChipArg,
    /// External DRAM as BASE:SIZE (hex or decimal bytes, K/M suffixes),
    /// e.g. `0x8e000000:32M` (the default).
    #[arg(long, value_name = "BASE:SIZE", value_parser = parse_dram)]
    pub dram: Option<(u32, u32)>,
    /// The cores PROGRAM runs on: ROWSxCOLS cores from chip-relative
    /// row and column ROW,COL (default 0,0), e.g. `4x4` or `2x2@1,1`.
    #[arg(long, value_name = "ROWSxCOLS[@ROW,COL]", default_value = "1x1", value_parser = parse_group)]
    pub group: GroupArg,
    /// Also load ELF onto another group of cores (repeatable), as
    /// GROUP:ELF with GROUP as for --group, e.g. `1x3@0,1:worker.elf`.
    #[arg(long, value_name = "GROUP:ELF", value_parser = parse_load)]
    pub load: Vec<(GroupArg, PathBuf)>,
    /// `timed`: the pipeline model decides when each instruction issues
    /// (sim/TIMING.md); `functional`: one cycle per instruction, faster.
    #[arg(long, value_enum, default_value_t = RunMode::Timed)]
    pub mode: RunMode,
}

/// `--mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RunMode {
    Timed,
    Functional,
}

impl MachineArgs {
    /// What to build for `program` (on `--group`) and the `--load`s.
    pub fn setup(&self, program: &Path, fault_policy: FaultPolicy) -> Setup {
        Setup {
            chip: self.chip,
            dram: self.dram,
            loads: std::iter::once((self.group, program.to_path_buf()))
                .chain(self.load.iter().cloned())
                .collect(),
            mode: match self.mode {
                RunMode::Timed => Mode::Timed,
                RunMode::Functional => Mode::Functional,
            },
            fault_policy,
        }
    }
}

/// What to build: the chip, its DRAM, and the programs with their groups
/// (the first is the main program).
#[derive(Clone, Debug)]
pub struct Setup {
    pub chip: ChipArg,
    pub dram: Option<(u32, u32)>,
    pub loads: Vec<(GroupArg, PathBuf)>,
    pub mode: Mode,
    pub fault_policy: FaultPolicy,
}

/// Why a machine could not be built.
#[derive(Debug, PartialEq, Eq)]
pub enum SetupError {
    /// The options do not describe a machine (a group off the chip, DRAM
    /// over a core...).
    Usage(String),
    /// A program could not be loaded.
    Load(String),
}

impl std::fmt::Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SetupError::Usage(m) | SetupError::Load(m) => f.write_str(m),
        }
    }
}

impl Setup {
    /// The machine's configuration.
    pub fn config(&self) -> Config {
        let mut config = Config::mesh(self.chip.rows, self.chip.cols);
        if let Some((base, size)) = self.dram {
            config.ext_base = base;
            config.ext_size = size;
        }
        config.mode = self.mode;
        config.fault_policy = self.fault_policy;
        config
    }

    /// The machine with every program loaded onto its group, its system
    /// calls served by `sys`.
    pub fn build(&self, sys: Syscalls) -> Result<Machine, SetupError> {
        let config = self.config();
        let mut m =
            Machine::new(config.clone(), sys).map_err(|e| SetupError::Usage(e.to_string()))?;
        for (group, elf) in &self.loads {
            let cores = group
                .cores(&config)
                .map_err(|e| SetupError::Usage(format!("{}: {e}", elf.display())))?;
            let plan = epsim_loader::load_file(elf, &config.load_target()).map_err(|e| {
                let mut msg = e.to_string();
                if matches!(e.cause(), epsim_loader::LoadError::OutsideMemory { .. }) {
                    msg.push_str(
                        "\nhint: the toolchain's default link puts programs at 0x80000000, which no \
                         Parallella core has; link with -T firmware/ldscripts/fast.ld (or internal.ld, dram.ld)",
                    );
                }
                SetupError::Load(msg)
            })?;
            m.load_group(&plan, elf, &cores)
                .map_err(|e| SetupError::Load(e.to_string()))?;
        }
        Ok(m)
    }
}

/// A chip's size, as `--chip` gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChipArg {
    pub rows: u32,
    pub cols: u32,
}

/// `e16`, `e64` or ROWSxCOLS (at most 64x64).
pub fn parse_chip(s: &str) -> Result<ChipArg, String> {
    match s {
        "e16" | "E16" | "e16g301" | "E16G301" => Ok(ChipArg { rows: 4, cols: 4 }),
        "e64" | "E64" | "e64g401" | "E64G401" => Ok(ChipArg { rows: 8, cols: 8 }),
        _ => {
            let (rows, cols) = parse_dims(s)?;
            if rows > 64 || cols > 64 {
                return Err(format!("a chip has at most 64x64 cores, not {rows}x{cols}"));
            }
            Ok(ChipArg { rows, cols })
        }
    }
}

/// `BASE:SIZE` of `--dram`.
pub fn parse_dram(s: &str) -> Result<(u32, u32), String> {
    let (b, z) = s
        .split_once(':')
        .ok_or_else(|| format!("`{s}` is not BASE:SIZE (e.g. 0x8e000000:32M)"))?;
    let num = |t: &str| -> Result<u64, String> {
        let t = t.trim();
        let (digits, scale) = match t.chars().last() {
            Some('K' | 'k') => (&t[..t.len() - 1], 1u64 << 10),
            Some('M' | 'm') => (&t[..t.len() - 1], 1 << 20),
            _ => (t, 1),
        };
        let v = match digits
            .strip_prefix("0x")
            .or_else(|| digits.strip_prefix("0X"))
        {
            Some(h) => u64::from_str_radix(h, 16),
            None => digits.parse::<u64>(),
        }
        .map_err(|_| format!("`{t}` in `{s}` is not a number"))?;
        Ok(v * scale)
    };
    let (base, size) = (num(b)?, num(z)?);
    if base + size > 1 << 32 || size % 8 != 0 {
        return Err(format!(
            "DRAM of {size:#x} bytes at {base:#x} must be a multiple of 8 bytes inside the 32-bit address space"
        ));
    }
    Ok((base as u32, size as u32))
}

/// `ROWSxCOLS`, both at least 1.
pub fn parse_dims(s: &str) -> Result<(u32, u32), String> {
    let (r, c) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("`{s}` is not ROWSxCOLS (e.g. 4x4)"))?;
    let num = |t: &str| {
        t.trim()
            .parse::<u32>()
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| format!("`{t}` in `{s}` is not a positive number"))
    };
    Ok((num(r)?, num(c)?))
}

/// A group of cores: ROWSxCOLS from chip-relative (row, col).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupArg {
    pub rows: u32,
    pub cols: u32,
    pub row: u32,
    pub col: u32,
}

/// `ROWSxCOLS[@ROW,COL]`.
pub fn parse_group(s: &str) -> Result<GroupArg, String> {
    let (dims, at) = match s.split_once('@') {
        Some((d, a)) => (d, Some(a)),
        None => (s, None),
    };
    let (rows, cols) = parse_dims(dims)?;
    let (row, col) = match at {
        Some(a) => {
            let (r, c) = a
                .split_once(',')
                .ok_or_else(|| format!("`{a}` in `{s}` is not ROW,COL"))?;
            let num = |t: &str| {
                t.trim()
                    .parse::<u32>()
                    .map_err(|_| format!("`{t}` in `{s}` is not a number"))
            };
            (num(r)?, num(c)?)
        }
        None => (0, 0),
    };
    Ok(GroupArg {
        rows,
        cols,
        row,
        col,
    })
}

/// `GROUP:ELF`.
pub fn parse_load(s: &str) -> Result<(GroupArg, PathBuf), String> {
    let (g, elf) = s
        .split_once(':')
        .ok_or_else(|| format!("`{s}` is not GROUP:ELF (e.g. 1x3@0,1:worker.elf)"))?;
    Ok((parse_group(g)?, PathBuf::from(elf)))
}

impl GroupArg {
    /// The group's cores on `config`'s chip, or why it does not fit.
    pub fn cores(&self, config: &Config) -> Result<Vec<CoreId>, String> {
        if self.row + self.rows > config.rows || self.col + self.cols > config.cols {
            return Err(format!(
                "group {}x{} at ({},{}) does not fit the {}x{} chip",
                self.rows, self.cols, self.row, self.col, config.rows, config.cols
            ));
        }
        let mut ids = Vec::new();
        for r in 0..self.rows {
            for c in 0..self.cols {
                ids.push(CoreId::new(
                    config.first_row + self.row + r,
                    config.first_col + self.col + c,
                ));
            }
        }
        Ok(ids)
    }
}

/// `ROW,COL` (absolute mesh coordinates).
pub fn parse_core(s: &str) -> Result<CoreId, String> {
    let (r, c) = s
        .split_once(',')
        .ok_or_else(|| format!("`{s}` is not ROW,COL"))?;
    let num = |t: &str| {
        t.trim()
            .parse::<u32>()
            .map_err(|_| format!("`{t}` in `{s}` is not a number"))
    };
    let (row, col) = (num(r)?, num(c)?);
    if row > 63 || col > 63 {
        return Err(format!(
            "core ({row},{col}) is outside any Epiphany mesh (0..=63)"
        ));
    }
    Ok(CoreId::new(row, col))
}
