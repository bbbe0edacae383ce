//! The `epsim` command line: its subcommands and options, parsed by clap.
//! The binary (`src/bin/epsim.rs`) runs what they ask for; they live in the
//! library so that the fuzz targets and tests parse arguments with exactly
//! the parser `epsim` uses ([`Cli`]) and check them as it does
//! ([`TraceArgs::filter`], [`crate::setup::Setup::groups`]) without
//! running anything.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::config::{Config, FaultPolicy};
use crate::setup::{chip_core, parse_core, parse_u64, MachineArgs};
use crate::trace::{TraceFilter, TraceFormat};

/// `epsim`'s arguments.
#[derive(Parser)]
#[command(
    name = "epsim",
    version,
    about = "A cycle-accurate simulator of the Adapteva Epiphany manycore"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// An `epsim` subcommand.
#[derive(Subcommand)]
pub enum Command {
    /// Run a program on a group of cores (by default the first core of a
    /// Parallella's E16G301).
    Run {
        /// The Epiphany ELF file.
        program: PathBuf,
        #[command(flatten)]
        machine: MachineArgs,
        /// Stop after this many simulated cycles (exit status 124).
        #[arg(long, value_name = "N", value_parser = parse_u64)]
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
        /// No progress line (shown on a terminal when a run lasts more
        /// than a second or two).
        #[arg(long, short)]
        quiet: bool,
        #[command(flatten)]
        trace: TraceArgs,
        /// Arguments passed to the program (after `--`).
        #[arg(last = true)]
        args: Vec<String>,
    },
    /// Disassemble a program's code sections, with symbols: the text
    /// `epiphany-elf-objdump -d` prints, byte for byte (any Epiphany ELF,
    /// whatever its link address, relocatable objects too).
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
pub struct TraceArgs {
    /// Write a trace of every retired instruction to FILE (`-` for
    /// standard output, and then the program's standard output goes to
    /// standard error); see README.md, "Traces".
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Trace format: aligned text lines or JSON lines.
    #[arg(long, value_enum, default_value_t = Format::Text, requires = "trace")]
    pub trace_format: Format,
    /// Trace only this core, as chip-relative ROW,COL like --group (0,0
    /// is the chip's first core; repeat for several; default all).
    #[arg(long, value_name = "ROW,COL", value_parser = parse_core, requires = "trace")]
    pub trace_core: Vec<(u32, u32)>,
    /// First cycle traced.
    #[arg(long, value_name = "CYCLE", default_value_t = 0, requires = "trace", value_parser = parse_u64)]
    pub trace_from: u64,
    /// Last cycle traced (inclusive).
    #[arg(long, value_name = "CYCLE", requires = "trace", value_parser = parse_u64)]
    pub trace_to: Option<u64>,
}

impl TraceArgs {
    /// What to trace on a machine of `config`, or why the options trace
    /// nothing or a core that is not on the chip (the message names the
    /// option).
    pub fn filter(&self, config: &Config) -> Result<TraceFilter, String> {
        let to = self.trace_to.unwrap_or(u64::MAX);
        if self.trace_from > to {
            return Err(format!(
                "--trace-from {} is after --trace-to {to}: nothing would be traced",
                self.trace_from
            ));
        }
        let cores = self
            .trace_core
            .iter()
            .map(|&rc| chip_core(config, rc).map_err(|e| format!("--trace-core: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(TraceFilter {
            cores,
            from: self.trace_from,
            to,
        })
    }

    /// The trace format asked for.
    pub fn format(&self) -> TraceFormat {
        match self.trace_format {
            Format::Text => TraceFormat::Text,
            Format::Json => TraceFormat::Json,
        }
    }
}

/// `--trace-format`.
#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// `--on-fault`.
#[derive(Clone, Copy, ValueEnum)]
pub enum OnFault {
    Stop,
    Raise,
}

impl OnFault {
    /// The machine's fault policy for this choice.
    pub fn policy(self) -> FaultPolicy {
        match self {
            OnFault::Stop => FaultPolicy::Stop,
            OnFault::Raise => FaultPolicy::Raise,
        }
    }
}
