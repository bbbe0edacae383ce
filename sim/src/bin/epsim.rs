//! `epsim`: run and inspect Epiphany programs.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use epsim_sim::setup::{parse_core, MachineArgs, Setup, SetupError};
use epsim_sim::timing::Stall;
use epsim_sim::trace::{Trace, TraceFilter, TraceFormat};
use epsim_sim::{Config, CoreId, FaultPolicy, Mode, StopReason, Syscalls};

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
        #[command(flatten)]
        machine: MachineArgs,
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
    /// Watch a program run, live, in the terminal: the core grid, the
    /// mesh's link loads, DMA channels, a core's registers and code
    /// (runs `epsim-tui`, installed beside `epsim`; `epsim tui --help`
    /// lists its options).
    #[command(disable_help_flag = true)]
    Tui {
        /// PROGRAM.elf and the options of `epsim run` (group, chip, mode...).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
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
enum OnFault {
    Stop,
    Raise,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Run {
            program,
            machine,
            max_cycles,
            stats,
            on_fault,
            strict,
            trace,
            args,
        } => {
            let fault_policy = match on_fault {
                OnFault::Stop => FaultPolicy::Stop,
                OnFault::Raise => FaultPolicy::Raise,
            };
            let setup = machine.setup(&program, fault_policy);
            run(&program, &setup, max_cycles, stats, strict, &trace, args)
        }
        Command::Disasm { program } => disasm(&program),
        Command::Tui { args } => tui(&args),
    }
}

/// Runs `epsim-tui` (beside this executable, else on the PATH) with `args`.
fn tui(args: &[String]) -> ExitCode {
    let name = format!("epsim-tui{}", std::env::consts::EXE_SUFFIX);
    let beside = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(|d| d.join(&name)))
        .filter(|p| p.is_file());
    let program = beside.unwrap_or_else(|| PathBuf::from(&name));
    match std::process::Command::new(&program).args(args).status() {
        Ok(s) => ExitCode::from(s.code().map_or(1, |c| c.clamp(0, 255) as u8)),
        Err(e) => {
            eprintln!(
                "epsim: cannot run {}: {e} (build it with `cargo build --release`, or install it with `cargo install --path tui`)",
                program.display()
            );
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn run(
    program: &Path,
    setup: &Setup,
    max_cycles: Option<u64>,
    stats: bool,
    strict: bool,
    trace: &TraceArgs,
    args: Vec<String>,
) -> ExitCode {
    let mode = setup.mode;
    let argv = std::iter::once(program.display().to_string())
        .chain(args)
        .collect();
    let mut m = match setup.build(Syscalls::inherit(argv)) {
        Ok(m) => m,
        Err(e) => {
            for line in e.to_string().lines() {
                eprintln!("epsim: {line}");
            }
            return ExitCode::from(match e {
                SetupError::Usage(_) => EXIT_USAGE,
                SetupError::Load(_) => EXIT_LOAD_ERROR,
            });
        }
    };
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
