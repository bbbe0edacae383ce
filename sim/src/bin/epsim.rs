//! `epsim`: run and inspect Epiphany programs.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use epsim_sim::timing::Stall;
use epsim_sim::trace::{Trace, TraceFilter, TraceFormat};
use epsim_sim::{Config, CoreId, FaultPolicy, Machine, Mode, StopReason, Syscalls};

/// Exit status when `--max-cycles` stops the run (as timeout(1)).
const EXIT_CYCLE_LIMIT: u8 = 124;
/// Exit status when a guest fault or breakpoint stops the run.
const EXIT_GUEST_FAULT: u8 = 125;
/// Exit status when the program cannot be loaded.
const EXIT_LOAD_ERROR: u8 = 126;
/// Exit status when an output file cannot be written (as for bad usage).
const EXIT_USAGE: u8 = 2;

#[derive(Parser)]
#[command(
    name = "epsim",
    version,
    about = "A cycle-accurate simulator of the Adapteva Epiphany manycore"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a program on a group of cores (by default the first core of a
    /// Parallella's E16G301).
    Run {
        /// The Epiphany ELF file.
        program: PathBuf,
        /// The chip: `e16` (Parallella E16G301, 4x4), `e64` (E64G401, 8x8)
        /// or ROWSxCOLS (up to 64x64).
        #[arg(long, value_name = "CHIP", default_value = "e16", value_parser = parse_chip)]
        chip: ChipArg,
        /// External DRAM as BASE:SIZE (hex or decimal bytes, K/M suffixes),
        /// e.g. `0x8e000000:32M` (the default).
        #[arg(long, value_name = "BASE:SIZE", value_parser = parse_dram)]
        dram: Option<(u32, u32)>,
        /// The cores PROGRAM runs on: ROWSxCOLS cores from chip-relative
        /// row and column ROW,COL (default 0,0), e.g. `4x4` or `2x2@1,1`.
        #[arg(long, value_name = "ROWSxCOLS[@ROW,COL]", default_value = "1x1", value_parser = parse_group)]
        group: GroupArg,
        /// Also load ELF onto another group of cores (repeatable), as
        /// GROUP:ELF with GROUP as for --group, e.g. `1x3@0,1:worker.elf`.
        #[arg(long, value_name = "GROUP:ELF", value_parser = parse_load)]
        load: Vec<(GroupArg, PathBuf)>,
        /// Stop after this many simulated cycles (exit status 124).
        #[arg(long, value_name = "N")]
        max_cycles: Option<u64>,
        /// Print instructions retired and simulated cycles to stderr at the end.
        #[arg(long)]
        stats: bool,
        /// What a guest fault does: stop with a diagnostic, or raise the
        /// architectural exception for the program's own handler.
        #[arg(long, value_enum, default_value_t = OnFault::Stop)]
        on_fault: OnFault,
        /// `timed`: the pipeline model decides when each instruction issues
        /// (sim/TIMING.md); `functional`: one cycle per instruction, faster.
        #[arg(long, value_enum, default_value_t = RunMode::Timed)]
        mode: RunMode,
        /// Timed mode: run every core one cycle at a time instead of letting
        /// each run ahead as far as nothing can reach it (the reference
        /// order; the results are identical, only slower).
        #[arg(long)]
        strict: bool,
        #[command(flatten)]
        trace: TraceArgs,
        /// Arguments passed to the program (after `--`).
        #[arg(last = true)]
        args: Vec<String>,
    },
    /// Disassemble a program's executable segments, with symbols.
    Disasm {
        /// The Epiphany ELF file.
        program: PathBuf,
    },
}

/// Tracing options of `epsim run`.
#[derive(clap::Args)]
struct TraceArgs {
    /// Write a trace of every retired instruction to FILE (`-` for
    /// standard output); see README.md, "Traces".
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Trace format: aligned text lines or JSON lines.
    #[arg(long, value_enum, default_value_t = Format::Text, requires = "trace")]
    trace_format: Format,
    /// Trace only this core, as ROW,COL (repeat for several; default all).
    #[arg(long, value_name = "ROW,COL", value_parser = parse_core, requires = "trace")]
    trace_core: Vec<CoreId>,
    /// First cycle traced.
    #[arg(long, value_name = "CYCLE", default_value_t = 0, requires = "trace")]
    trace_from: u64,
    /// Last cycle traced (inclusive).
    #[arg(long, value_name = "CYCLE", requires = "trace")]
    trace_to: Option<u64>,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// The chip of `--chip`.
#[derive(Clone, Copy, Debug)]
struct ChipArg {
    rows: u32,
    cols: u32,
}

fn parse_chip(s: &str) -> Result<ChipArg, String> {
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
fn parse_dram(s: &str) -> Result<(u32, u32), String> {
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
fn parse_dims(s: &str) -> Result<(u32, u32), String> {
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
#[derive(Clone, Copy, Debug)]
struct GroupArg {
    rows: u32,
    cols: u32,
    row: u32,
    col: u32,
}

fn parse_group(s: &str) -> Result<GroupArg, String> {
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

fn parse_load(s: &str) -> Result<(GroupArg, PathBuf), String> {
    let (g, elf) = s
        .split_once(':')
        .ok_or_else(|| format!("`{s}` is not GROUP:ELF (e.g. 1x3@0,1:worker.elf)"))?;
    Ok((parse_group(g)?, PathBuf::from(elf)))
}

impl GroupArg {
    /// The group's cores on `config`'s chip, or why it does not fit.
    fn cores(&self, config: &Config) -> Result<Vec<CoreId>, String> {
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

fn parse_core(s: &str) -> Result<CoreId, String> {
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

/// A duration in seconds, in the unit that reads best.
fn duration(secs: f64) -> String {
    if secs < 1e-3 {
        format!("{:.3} µs", secs * 1e6)
    } else if secs < 1.0 {
        format!("{:.3} ms", secs * 1e3)
    } else {
        format!("{secs:.3} s")
    }
}

/// Opens the trace output the options ask for.
fn open_trace(args: &TraceArgs) -> Result<Option<Trace>, String> {
    let Some(path) = &args.trace else {
        return Ok(None);
    };
    let to = args.trace_to.unwrap_or(u64::MAX);
    if args.trace_from > to {
        return Err(format!(
            "--trace-from {} is after --trace-to {to}: nothing would be traced",
            args.trace_from
        ));
    }
    let out: Box<dyn Write + Send> = if path.as_os_str() == "-" {
        Box::new(BufWriter::new(std::io::stdout()))
    } else {
        let f = File::create(path)
            .map_err(|e| format!("cannot create trace file {}: {e}", path.display()))?;
        Box::new(BufWriter::new(f))
    };
    let format = match args.trace_format {
        Format::Text => TraceFormat::Text,
        Format::Json => TraceFormat::Json,
    };
    let filter = TraceFilter {
        cores: args.trace_core.clone(),
        from: args.trace_from,
        to,
    };
    Ok(Some(Trace::new(out, format, filter)))
}

#[derive(Clone, Copy, ValueEnum)]
enum RunMode {
    Timed,
    Functional,
}

#[derive(Clone, Copy, ValueEnum)]
enum OnFault {
    Stop,
    Raise,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Run {
            program,
            chip,
            dram,
            group,
            load,
            max_cycles,
            stats,
            on_fault,
            mode,
            strict,
            trace,
            args,
        } => {
            let mode = match mode {
                RunMode::Timed => Mode::Timed,
                RunMode::Functional => Mode::Functional,
            };
            let loads = std::iter::once((group, program.clone()))
                .chain(load)
                .collect::<Vec<_>>();
            run(
                &program, chip, dram, &loads, max_cycles, stats, on_fault, mode, strict, &trace,
                args,
            )
        }
        Command::Disasm { program } => disasm(&program),
    }
}

#[allow(clippy::too_many_arguments)]
fn run(
    program: &Path,
    chip: ChipArg,
    dram: Option<(u32, u32)>,
    loads: &[(GroupArg, PathBuf)],
    max_cycles: Option<u64>,
    stats: bool,
    on_fault: OnFault,
    mode: Mode,
    strict: bool,
    trace: &TraceArgs,
    args: Vec<String>,
) -> ExitCode {
    let mut config = Config::mesh(chip.rows, chip.cols);
    if let Some((base, size)) = dram {
        config.ext_base = base;
        config.ext_size = size;
    }
    config.mode = mode;
    config.fault_policy = match on_fault {
        OnFault::Stop => FaultPolicy::Stop,
        OnFault::Raise => FaultPolicy::Raise,
    };
    let argv = std::iter::once(program.display().to_string())
        .chain(args)
        .collect();
    let mut m = match Machine::new(config.clone(), Syscalls::inherit(argv)) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("epsim: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    for (group, elf) in loads {
        let cores = match group.cores(&config) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("epsim: {}: {e}", elf.display());
                return ExitCode::from(EXIT_USAGE);
            }
        };
        let plan = match epsim_loader::load_file(elf, &config.load_target()) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("epsim: {e}");
                if matches!(e.cause(), epsim_loader::LoadError::OutsideMemory { .. }) {
                    eprintln!(
                        "epsim: hint: the toolchain's default link puts programs at 0x80000000, which no \
                         Parallella core has; link with -T firmware/ldscripts/fast.ld (or internal.ld, dram.ld)"
                    );
                }
                return ExitCode::from(EXIT_LOAD_ERROR);
            }
        };
        if let Err(e) = m.load_group(&plan, elf, &cores) {
            eprintln!("epsim: {e}");
            return ExitCode::from(EXIT_LOAD_ERROR);
        }
    }
    m.strict = strict;
    match open_trace(trace) {
        Ok(t) => m.trace = t,
        Err(e) => {
            eprintln!("epsim: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    }
    let stop = m.run(max_cycles);
    if let Some(t) = m.trace.as_mut() {
        if let Err(e) = t.finish() {
            let path = trace.trace.as_deref().unwrap_or(Path::new("-"));
            eprintln!("epsim: writing trace {}: {e}", path.display());
            return ExitCode::from(EXIT_USAGE);
        }
    }
    if stats {
        eprintln!("epsim: instructions retired: {}", m.instret());
        eprintln!(
            "epsim: simulated cycles:     {} ({} at {} MHz)",
            m.now,
            duration(m.now as f64 / m.config.clock_hz as f64),
            m.config.clock_hz / 1_000_000
        );
        let several = m.group().count() > 1;
        if several && mode == Mode::Timed {
            eprintln!("epsim: run-aheads rolled back: {}", m.rollbacks());
        }
        for core in m.group() {
            let c = &core.stats;
            let who = if several {
                format!("epsim: ({},{}) ", core.id.row, core.id.col)
            } else {
                "epsim: ".to_string()
            };
            if several {
                eprintln!(
                    "{who}instructions retired: {}, cycles: {}",
                    c.instret, c.cycles
                );
            }
            if mode == Mode::Timed {
                let ipc = c.instret as f64 / c.cycles.max(1) as f64;
                eprintln!(
                    "{who}instructions/cycle:   {ipc:.3} ({} dual-issued)",
                    c.dual
                );
                let stalls: Vec<String> = Stall::ALL
                    .iter()
                    .map(|s| format!("{} {}", s.name(), c.stalls[*s as usize]))
                    .collect();
                eprintln!("{who}stall cycles:         {}", stalls.join(", "));
                eprintln!(
                    "{who}block schedules:      {} replayed ({} followed), {} recorded",
                    core.memo.hits, core.memo.followed, core.memo.misses
                );
            }
            if c.idle > 0 {
                eprintln!("{who}idle cycles:          {}", c.idle);
            }
        }
    }
    match stop {
        StopReason::Exit { status, .. } => ExitCode::from(status as u8),
        StopReason::Signalled { core, signal } => {
            eprintln!("epsim: {core}: program terminated by signal {signal}");
            ExitCode::from(128u8.wrapping_add(signal as u8))
        }
        StopReason::CycleLimit { cycles } => {
            eprintln!(
                "epsim: stopped after {cycles} cycles (--max-cycles); the program did not finish"
            );
            ExitCode::from(EXIT_CYCLE_LIMIT)
        }
        StopReason::AllIdle => {
            eprintln!(
                "epsim: every core is idle and nothing can wake it; the program did not exit"
            );
            ExitCode::from(EXIT_GUEST_FAULT)
        }
        StopReason::AllHalted => {
            eprintln!("epsim: every core is halted; the program did not exit");
            ExitCode::from(EXIT_GUEST_FAULT)
        }
        StopReason::Breakpoint { core, pc } => {
            eprintln!("epsim: {core}: breakpoint at pc {pc:#010x}");
            ExitCode::from(EXIT_GUEST_FAULT)
        }
        StopReason::Fault(f) => {
            eprintln!("epsim: guest fault: {f}");
            ExitCode::from(EXIT_GUEST_FAULT)
        }
        StopReason::Dma { core, error } => {
            eprintln!("epsim: {core}: {error}");
            ExitCode::from(EXIT_GUEST_FAULT)
        }
    }
}

fn disasm(program: &Path) -> ExitCode {
    let config = Config::parallella16();
    let plan = match epsim_loader::load_file(program, &config.load_target()) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("epsim: {e}");
            return ExitCode::from(EXIT_LOAD_ERROR);
        }
    };
    print!("{}", epsim_sim::disasm::listing(&plan));
    ExitCode::SUCCESS
}
