//! Building a machine from command-line style options: the options
//! themselves ([`MachineArgs`]: `--chip`, `--dram`, `--group`, `--load`,
//! `--mode`), their parsers, and the loading of every program onto its
//! group as e-loader loads it: segments, then e-loader's configuration
//! words ([`write_loader_config`], shared with the host crate). Shared by `epsim run` and the TUI so that both take the same
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
    /// or ROWSxCOLS (up to 64x64; one that covers the core ids of the
    /// DRAM window 0x8e0 and 0x8e1 has no external memory).
    #[arg(long, value_name = "CHIP", default_value = "e16", value_parser = parse_chip)]
    pub chip: ChipArg,
    /// External DRAM as BASE:SIZE (decimal or 0x-hex bytes, K/M/G
    /// suffixes), e.g. `0x8e000000:32M` (the default).
    #[arg(long, value_name = "BASE:SIZE", value_parser = parse_dram)]
    pub dram: Option<(u32, u32)>,
    /// The cores PROGRAM runs on: ROWSxCOLS cores from chip-relative
    /// row and column ROW,COL (default 0,0), e.g. `4x4` or `2x2@1,1`.
    /// Every option that names a core counts from the chip's first core.
    #[arg(long, value_name = "ROWSxCOLS[@ROW,COL]", default_value = "1x1", value_parser = parse_group)]
    pub group: GroupArg,
    /// Also load ELF onto another group of cores (repeatable), as
    /// GROUP:ELF with GROUP as for --group, e.g. `1x3@0,1:worker.elf`;
    /// groups may not share a core.
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

    /// The option that placed load `i` of [`Setup::loads`] (`--group` for
    /// the main program, `--load` for the others), as the user wrote it.
    fn option(&self, i: usize) -> String {
        let (group, elf) = &self.loads[i];
        if i == 0 {
            format!("--group {group} (for {})", elf.display())
        } else {
            format!("--load {group}:{}", elf.display())
        }
    }

    /// The cores of every load, in the order of [`Setup::loads`], or why
    /// the options do not describe a machine: a configuration the machine
    /// refuses, a group off the chip, or two groups sharing a core. Checked
    /// before any file is read.
    pub fn groups(&self) -> Result<Vec<Vec<CoreId>>, SetupError> {
        let config = self.config();
        config.validate().map_err(SetupError::Usage)?;
        let mut owner: std::collections::BTreeMap<CoreId, usize> = Default::default();
        let mut out = Vec::with_capacity(self.loads.len());
        for (i, (group, _)) in self.loads.iter().enumerate() {
            let cores = group
                .cores(&config)
                .map_err(|e| SetupError::Usage(format!("{}: {e}", self.option(i))))?;
            for &id in &cores {
                if let Some(&j) = owner.get(&id) {
                    return Err(SetupError::Usage(format!(
                        "{} overlaps {} at chip-relative core ({},{}): a core runs one program",
                        self.option(i),
                        self.option(j),
                        id.row - config.first_row,
                        id.col - config.first_col
                    )));
                }
                owner.insert(id, i);
            }
            out.push(cores);
        }
        Ok(out)
    }

    /// The machine with every program loaded onto its group, its system
    /// calls served by `sys`.
    pub fn build(&self, sys: Syscalls) -> Result<Machine, SetupError> {
        self.build_with_plans(sys).map(|(m, _)| m)
    }

    /// As [`Setup::build`], with each program's load plan (in the order
    /// of [`Setup::loads`]) for naming addresses by symbol.
    pub fn build_with_plans(
        &self,
        sys: Syscalls,
    ) -> Result<(Machine, Vec<epsim_loader::LoadPlan>), SetupError> {
        let groups = self.groups()?;
        let config = self.config();
        let mut m =
            Machine::new(config.clone(), sys).map_err(|e| SetupError::Usage(e.to_string()))?;
        let mut plans = Vec::with_capacity(self.loads.len());
        for ((_, elf), cores) in self.loads.iter().zip(&groups) {
            let plan = epsim_loader::load_file(elf, &config.load_target()).map_err(|e| {
                let mut msg = e.to_string();
                if let epsim_loader::LoadError::OutsideMemory { start, .. } = e.cause() {
                    if let Some(hint) = outside_memory_hint(&config, *start) {
                        msg.push_str("\nhint: ");
                        msg.push_str(&hint);
                    }
                }
                SetupError::Load(msg)
            })?;
            let places = plan.config_places(&config.load_target()).map_err(|e| {
                SetupError::Load(
                    epsim_loader::LoadError::File {
                        path: elf.clone(),
                        error: Box::new(e),
                    }
                    .to_string(),
                )
            })?;
            m.load_group(&plan, elf, cores)
                .map_err(|e| SetupError::Load(e.to_string()))?;
            let (first, last) = (cores[0], cores[cores.len() - 1]);
            let group = epsim_loader::GroupConfig {
                chip_type: self.chip.chip_type(),
                row: first.row,
                col: first.col,
                rows: last.row - first.row + 1,
                cols: last.col - first.col + 1,
                ext_base: config.ext_base,
            };
            for &id in cores {
                write_loader_config(&mut m, &places, &group, id);
            }
            plans.push(plan);
        }
        Ok((m, plans))
    }
}

/// Writes e-loader's configuration words for core `id` of `group` at
/// `places` (from [`epsim_loader::LoadPlan::config_places`]; see the
/// loader's `config` module), as e-loader does once it has copied the
/// program: into the core's SRAM, or into DRAM for a section in external
/// memory. `id` must be on the machine's chip and inside `group`.
pub fn write_loader_config(
    m: &mut Machine,
    places: &[Option<epsim_loader::Region>; 3],
    group: &epsim_loader::GroupConfig,
    id: CoreId,
) {
    use epsim_loader::Region;
    let i = m
        .config
        .core_index(id)
        .expect("invariant: the core is on the chip");
    let words = group.words(id.row - group.row, id.col - group.col);
    for (place, bytes) in places.iter().zip(words) {
        match place {
            Some(Region::Local { offset }) => {
                m.cores[i].sram.write_bytes(*offset, &bytes);
            }
            Some(Region::External { offset }) => {
                m.dram.write_bytes(*offset, &bytes);
            }
            // config_places gives no other place.
            Some(Region::OnChip { .. }) | None => {}
        }
    }
}

/// Checks that `args` (argv, the program path first) fit the stack of the
/// program `plan`: our crt0 copies them below the initial stack pointer
/// (`___stack`) as an array of pointers and NUL-terminated strings, each
/// rounded up to 8 bytes, and the program still needs its own stack there
/// (`__stack_min_used` bytes, as our linker scripts reserve, else 2 KB)
/// above its local data. A program without a `___stack` symbol uses no
/// crt0 of ours and is not checked.
pub fn check_args(plan: &epsim_loader::LoadPlan, args: &[String]) -> Result<(), String> {
    let Some(top) = plan.symbol("___stack").or_else(|| plan.symbol("__stack")) else {
        return Ok(());
    };
    let round8 = |n: u64| n.div_ceil(8) * 8;
    let need = round8((args.len() as u64 + 1) * 4)
        + args.iter().map(|a| round8(a.len() as u64 + 1)).sum::<u64>()
        + 8;
    let reserve = u64::from(plan.symbol("__stack_min_used").unwrap_or(0x800));
    let data_end = plan
        .segments
        .iter()
        .filter(|s| matches!(s.region, epsim_loader::Region::Local { .. }))
        .map(|s| s.end())
        .filter(|&e| e <= u64::from(top))
        .max()
        .unwrap_or(0);
    let room = u64::from(top)
        .saturating_sub(data_end)
        .saturating_sub(reserve);
    if need > room {
        let longest = args.iter().map(String::len).max().unwrap_or(0);
        return Err(format!(
            "the program's arguments need {need} bytes of its stack (argv and {} strings, the \
             longest {longest} bytes), but it has room for {room}: SRAM from its data's end \
             {data_end:#x} to the stack top {top:#x}, less {reserve:#x} bytes kept for its own \
             stack",
            args.len()
        ));
    }
    Ok(())
}

/// Why a segment at `start` may be outside every memory of `config`,
/// when the cause is one of two common ones: the toolchain's default link
/// address, or a chip so large that it has no external memory.
fn outside_memory_hint(config: &Config, start: u32) -> Option<String> {
    const DEFAULT_LINK: u32 = 0x8000_0000;
    const PARALLELLA_DRAM: u32 = 0x8e00_0000;
    if start >> 20 == DEFAULT_LINK >> 20 {
        return Some(
            "the toolchain's default link puts programs at 0x80000000, which no Parallella \
             core has; link with -T firmware/ldscripts/fast.ld (or internal.ld, dram.ld)"
                .to_string(),
        );
    }
    let parallella = Config::parallella16();
    let in_dram = start.wrapping_sub(PARALLELLA_DRAM) < parallella.ext_size;
    if config.ext_size == 0 && in_dram {
        return Some(format!(
            "the {}x{} chip covers the core ids of the DRAM window (0x8e0, 0x8e1), so it has \
             no external memory; a program linked for DRAM (fast.ld, dram.ld) needs a chip \
             that leaves them free, such as e16 or e64",
            config.rows, config.cols
        ));
    }
    None
}

/// A chip's size, as `--chip` gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChipArg {
    pub rows: u32,
    pub cols: u32,
}

impl ChipArg {
    /// The `e_chiptype_t` e-loader tells the cores (in `e_group_config_t`):
    /// E64G401 (1) for a chip wider or taller than 4 cores, else E16G301
    /// (0), the smallest real chip of that size or larger (e-lib knows no
    /// others).
    pub fn chip_type(&self) -> u32 {
        u32::from(self.rows > 4 || self.cols > 4)
    }
}

/// A number as every option of `epsim` takes it: decimal, or
/// hexadecimal after `0x`; `_` may separate digits (`1_000_000`).
pub fn parse_u64(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (digits, radix) = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => (h, 16),
        None => (t, 10),
    };
    let clean: String = digits.chars().filter(|&c| c != '_').collect();
    if clean.is_empty() || digits.starts_with('_') || !clean.chars().all(|c| c.is_digit(radix)) {
        return Err(format!(
            "`{s}` is not a number (decimal, or hexadecimal after 0x)"
        ));
    }
    u64::from_str_radix(&clean, radix)
        .map_err(|_| format!("`{s}` is too large (at most {})", u64::MAX))
}

/// A number as [`parse_u64`] reads it, at most `max`.
fn parse_at_most(s: &str, max: u64, what: &str) -> Result<u32, String> {
    let v = parse_u64(s)?;
    if v > max {
        return Err(format!("{what} `{}` is more than {max}", s.trim()));
    }
    Ok(v as u32)
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
            Some('G' | 'g') => (&t[..t.len() - 1], 1 << 30),
            _ => (t, 1),
        };
        parse_u64(digits)
            .ok()
            .and_then(|v| v.checked_mul(scale))
            .ok_or_else(|| format!("`{t}` in `{s}` is not a number of bytes (decimal, or hexadecimal after 0x; K, M, G suffixes)"))
    };
    let (base, size) = (num(b)?, num(z)?);
    // A size of 4 GiB fits the address space at base 0 but not a u32: it
    // would cover every core anyway.
    if base > u64::from(u32::MAX)
        || base.saturating_add(size) > 1 << 32
        || size > u64::from(u32::MAX)
        || size % 8 != 0
    {
        return Err(format!(
            "DRAM of {size:#x} bytes at {base:#x} must be a multiple of 8 bytes inside the 32-bit address space"
        ));
    }
    Ok((base as u32, size as u32))
}

/// `ROWSxCOLS`, both 1 to 64 (no chip is larger).
pub fn parse_dims(s: &str) -> Result<(u32, u32), String> {
    let (r, c) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("`{s}` is not ROWSxCOLS (e.g. 4x4)"))?;
    let num = |t: &str, what: &str| -> Result<u32, String> {
        let v = parse_at_most(t, 64, what)
            .map_err(|e| format!("{e} in `{s}` (a chip has at most 64x64 cores)"))?;
        if v == 0 {
            return Err(format!(
                "{what} `{}` in `{s}` is not a positive number",
                t.trim()
            ));
        }
        Ok(v)
    };
    Ok((num(r, "rows")?, num(c, "columns")?))
}

/// A group of cores: ROWSxCOLS from chip-relative (row, col).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupArg {
    pub rows: u32,
    pub cols: u32,
    pub row: u32,
    pub col: u32,
}

/// `ROWSxCOLS[@ROW,COL]`, with ROW and COL chip-relative (0 to 63).
pub fn parse_group(s: &str) -> Result<GroupArg, String> {
    let (dims, at) = match s.split_once('@') {
        Some((d, a)) => (d, Some(a)),
        None => (s, None),
    };
    let (rows, cols) = parse_dims(dims)?;
    let (row, col) = match at {
        Some(a) => parse_row_col(a).map_err(|e| format!("{e} in `{s}`"))?,
        None => (0, 0),
    };
    Ok(GroupArg {
        rows,
        cols,
        row,
        col,
    })
}

/// `ROW,COL`, each 0 to 63.
fn parse_row_col(s: &str) -> Result<(u32, u32), String> {
    let (r, c) = s
        .split_once(',')
        .ok_or_else(|| format!("`{s}` is not ROW,COL"))?;
    let num = |t: &str, what: &str| {
        parse_at_most(t, 63, what).map_err(|e| format!("{e} (a chip has at most 64x64 cores)"))
    };
    Ok((num(r, "row")?, num(c, "column")?))
}

/// `GROUP:ELF`.
pub fn parse_load(s: &str) -> Result<(GroupArg, PathBuf), String> {
    let (g, elf) = s
        .split_once(':')
        .ok_or_else(|| format!("`{s}` is not GROUP:ELF (e.g. 1x3@0,1:worker.elf)"))?;
    Ok((parse_group(g)?, PathBuf::from(elf)))
}

impl std::fmt::Display for GroupArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}@{},{}", self.rows, self.cols, self.row, self.col)
    }
}

impl GroupArg {
    /// The group's cores on `config`'s chip, or why it does not fit.
    /// (The arithmetic is in 64 bits: a `GroupArg` built by hand may hold
    /// any `u32`.)
    pub fn cores(&self, config: &Config) -> Result<Vec<CoreId>, String> {
        let end_row = u64::from(self.row) + u64::from(self.rows);
        let end_col = u64::from(self.col) + u64::from(self.cols);
        if self.rows == 0
            || self.cols == 0
            || end_row > u64::from(config.rows)
            || end_col > u64::from(config.cols)
        {
            return Err(format!(
                "group {}x{} at ({},{}) does not fit the {}x{} chip (chip-relative rows \
                 0..={}, columns 0..={})",
                self.rows,
                self.cols,
                self.row,
                self.col,
                config.rows,
                config.cols,
                config.rows.saturating_sub(1),
                config.cols.saturating_sub(1)
            ));
        }
        let mut ids = Vec::with_capacity((self.rows * self.cols) as usize);
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

/// `ROW,COL`: a core in chip-relative coordinates, as `--group` counts
/// them (0,0 is the chip's first core); whether it is on the chip is
/// checked against the chip ([`chip_core`]).
pub fn parse_core(s: &str) -> Result<(u32, u32), String> {
    parse_row_col(s)
}

/// The core at chip-relative `(row, col)` of `config`'s chip, or why there
/// is none.
pub fn chip_core(config: &Config, (row, col): (u32, u32)) -> Result<CoreId, String> {
    if row >= config.rows || col >= config.cols {
        return Err(format!(
            "core {row},{col} is not on the {}x{} chip (chip-relative rows 0..={}, columns 0..={})",
            config.rows,
            config.cols,
            config.rows - 1,
            config.cols - 1
        ));
    }
    Ok(CoreId::new(config.first_row + row, config.first_col + col))
}
