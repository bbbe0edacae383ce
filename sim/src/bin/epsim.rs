//! `epsim`: run and inspect Epiphany programs.

use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use epsim_loader::LoadPlan;
use epsim_sim::cli::{Cli, Command, TraceArgs};
use epsim_sim::core::RunState;
use epsim_sim::setup::{check_args, Setup, SetupError};
use epsim_sim::syscall::Sink;
use epsim_sim::timing::Stall;
use epsim_sim::trace::Trace;
use epsim_sim::{Config, Machine, Mode, StopReason, Syscalls};

/// Exit status when `--max-cycles` stops the run (as timeout(1)).
const EXIT_CYCLE_LIMIT: u8 = 124;
/// Exit status when a guest fault or breakpoint stops the run.
const EXIT_GUEST_FAULT: u8 = 125;
/// Exit status when the program cannot be loaded.
const EXIT_LOAD_ERROR: u8 = 126;
/// Exit status when an output file cannot be written (as for bad usage).
const EXIT_USAGE: u8 = 2;
/// Exit status after SIGPIPE (128 + 13), should raising it fail.
const EXIT_SIGPIPE: u8 = 141;

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

/// Set when a write to standard output found its pipe closed: the command
/// ends quietly at the next chance, as `cat` does.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Standard output that notes a closed pipe ([`STDOUT_CLOSED`]) and then
/// swallows what is written, so that no writer above it reports an error;
/// the command checks the flag and ends ([`die_of_sigpipe`]).
struct PipeOut;

impl Write for PipeOut {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if STDOUT_CLOSED.load(Ordering::Relaxed) {
            return Ok(buf.len());
        }
        match std::io::stdout().lock().write(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                STDOUT_CLOSED.store(true, Ordering::Relaxed);
                Ok(buf.len())
            }
            other => other,
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if STDOUT_CLOSED.load(Ordering::Relaxed) {
            return Ok(());
        }
        match std::io::stdout().lock().flush() {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                STDOUT_CLOSED.store(true, Ordering::Relaxed);
                Ok(())
            }
            other => other,
        }
    }
}

/// Ends the process as a closed pipe ends `cat`: killed by SIGPIPE,
/// without a message (Rust ignores SIGPIPE, so it is raised here with its
/// default action).
fn die_of_sigpipe() -> ExitCode {
    let _ = signal_hook::low_level::emulate_default_handler(signal_hook::consts::SIGPIPE);
    ExitCode::from(EXIT_SIGPIPE)
}

/// Opens the trace output the options ask for, for the cores of `config`.
fn open_trace(args: &TraceArgs, config: &Config) -> Result<Option<Trace>, String> {
    let Some(path) = &args.trace else {
        return Ok(None);
    };
    let filter = args.filter(config)?;
    let out: Box<dyn Write + Send> = if path.as_os_str() == "-" {
        Box::new(BufWriter::new(PipeOut))
    } else {
        let f = File::create(path)
            .map_err(|e| format!("cannot create trace file {}: {e}", path.display()))?;
        Box::new(BufWriter::new(f))
    };
    Ok(Some(Trace::new(out, args.format(), filter)))
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
            quiet,
            trace,
            args,
        } => {
            let setup = machine.setup(&program, on_fault.policy());
            let opts = RunOptions {
                max_cycles,
                stats,
                strict,
                progress: !quiet && std::io::stderr().is_terminal(),
            };
            run(&program, &setup, &opts, &trace, args)
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
        Ok(s) => {
            use std::os::unix::process::ExitStatusExt;
            let code = s
                .code()
                .or_else(|| s.signal().map(|sig| 128 + sig))
                .unwrap_or(1);
            ExitCode::from(code.clamp(0, 255) as u8)
        }
        Err(e) => {
            eprintln!(
                "epsim: cannot run {}: {e} (build it with `cargo build --release`, or install it with `cargo install --path tui`)",
                program.display()
            );
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// How `epsim run` runs, besides the machine and the trace.
struct RunOptions {
    max_cycles: Option<u64>,
    stats: bool,
    strict: bool,
    /// Show a progress line on standard error (a terminal).
    progress: bool,
}

/// A signal that asks the run to stop (SIGINT, SIGTERM), caught so that
/// the run ends at the next slice boundary with its trace closed and its
/// statistics printed; a second one ends the process at once.
///
/// signal-hook (already in the build through the TUI's crossterm) does the
/// async-signal-safe part: its handlers only set atomics, and its
/// conditional shutdown is the documented double Ctrl-C pattern.
struct Stop {
    /// Set by the first signal; arms the immediate exit on the second.
    asked: Arc<AtomicBool>,
    /// Which signal came first.
    signal: Arc<AtomicUsize>,
}

impl Stop {
    fn install() -> Stop {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let stop = Stop {
            asked: Arc::new(AtomicBool::new(false)),
            signal: Arc::new(AtomicUsize::new(0)),
        };
        for (sig, status) in [(SIGINT, 130), (SIGTERM, 143)] {
            // Registration fails only for forbidden signals; without the
            // handlers the signal keeps its default action, which is safe.
            let _ = signal_hook::flag::register_conditional_shutdown(
                sig,
                status,
                Arc::clone(&stop.asked),
            );
            let _ = signal_hook::flag::register_usize(sig, Arc::clone(&stop.signal), sig as usize);
            let _ = signal_hook::flag::register(sig, Arc::clone(&stop.asked));
        }
        stop
    }

    /// The signal that asked the run to stop, if one did.
    fn signal(&self) -> Option<i32> {
        self.asked
            .load(Ordering::SeqCst)
            .then(|| self.signal.load(Ordering::SeqCst) as i32)
    }
}

/// Why the sliced run ended.
enum Ended {
    /// The machine stopped by itself (or at `--max-cycles`).
    Machine(StopReason),
    /// A signal asked it to stop.
    Signal(i32),
    /// Standard output's pipe closed.
    StdoutClosed,
}

/// Simulated cycles per slice of the run: how often a signal or a closed
/// pipe is looked for (every few milliseconds to a second, by the speed
/// of the run) and the progress line can change. The slices end at fixed
/// cycles, multiples of this, so that a run is the same every time.
const SLICE_CYCLES: u64 = 1 << 20;
/// When the progress line appears, and how often it changes.
const PROGRESS_AFTER: Duration = Duration::from_millis(1500);
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// Runs `m` to its end in slices of simulated cycles, looking between
/// slices at the stop flags and the progress line. The slices end at
/// cycle boundaries, which the machine resumes from.
fn run_sliced(m: &mut Machine, opts: &RunOptions, stop: &Stop) -> Ended {
    let limit = opts.max_cycles.unwrap_or(u64::MAX);
    let start = Instant::now();
    let mut shown = false;
    let mut last_shown: Option<Instant> = None;
    let ended = loop {
        if let Some(sig) = stop.signal() {
            break Ended::Signal(sig);
        }
        if STDOUT_CLOSED.load(Ordering::Relaxed) {
            break Ended::StdoutClosed;
        }
        let to = (m.now / SLICE_CYCLES + 1)
            .saturating_mul(SLICE_CYCLES)
            .min(limit);
        match m.run(Some(to)) {
            StopReason::CycleLimit { .. } if to < limit => {}
            other => break Ended::Machine(other),
        }
        if opts.progress
            && start.elapsed() >= PROGRESS_AFTER
            && last_shown.is_none_or(|t| t.elapsed() >= PROGRESS_EVERY)
        {
            last_shown = Some(Instant::now());
            let secs = start.elapsed().as_secs_f64();
            eprint!(
                "\r\x1b[Kepsim: cycle {} ({:.1} M cycles/s)",
                m.now,
                m.now as f64 / secs / 1e6
            );
            shown = true;
        }
    };
    if shown {
        eprint!("\r\x1b[K");
    }
    // Whatever the guest wrote to a closed pipe was swallowed; the run
    // ends quietly even if the machine also stopped by itself.
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return Ended::StdoutClosed;
    }
    ended
}

/// Where each core of the group is, for a run stopped from outside.
fn say_where(m: &Machine, plans: &[(Vec<epsim_sim::CoreId>, LoadPlan)]) {
    for core in m.group() {
        let plan = plans
            .iter()
            .find(|(ids, _)| ids.contains(&core.id))
            .map(|(_, p)| p);
        let pc = core.state.pc;
        let at = plan
            .and_then(|p| p.symbol_before(pc))
            .map(|s| match pc - s.addr {
                0 => format!(" <{}>", s.name),
                off => format!(" <{}+{off:#x}>", s.name),
            })
            .unwrap_or_default();
        let state = match core.run {
            RunState::Running => "running",
            RunState::Idle => "idle",
            RunState::Halted => "halted",
        };
        eprintln!(
            "epsim: {} at pc {pc:#010x}{at}, {state}, {} instructions retired",
            core.id, core.stats.instret
        );
    }
}

fn run(
    program: &Path,
    setup: &Setup,
    opts: &RunOptions,
    trace: &TraceArgs,
    args: Vec<String>,
) -> ExitCode {
    let mode = setup.mode;
    let stats = opts.stats;
    let argv: Vec<String> = std::iter::once(program.display().to_string())
        .chain(args)
        .collect();
    let mut sys = Syscalls::inherit(argv.clone());
    // With the trace on standard output, the program's output goes to
    // standard error so that the two stay apart.
    let trace_to_stdout = trace.trace.as_deref().is_some_and(|p| p.as_os_str() == "-");
    sys.stdout = if trace_to_stdout {
        Sink::Stderr
    } else {
        Sink::Writer(Box::new(PipeOut))
    };
    let fail = |e: SetupError| {
        for line in e.to_string().lines() {
            eprintln!("epsim: {line}");
        }
        ExitCode::from(match e {
            SetupError::Usage(_) => EXIT_USAGE,
            SetupError::Load(_) => EXIT_LOAD_ERROR,
        })
    };
    let (mut m, plans) = match setup.build_with_plans(sys) {
        Ok(built) => built,
        Err(e) => return fail(e),
    };
    if let Some(main) = plans.first() {
        if let Err(e) = check_args(main, &argv) {
            return fail(SetupError::Usage(format!("{}: {e}", program.display())));
        }
    }
    let groups = match setup.groups() {
        Ok(g) => g,
        Err(e) => return fail(e),
    };
    let plans: Vec<_> = groups.into_iter().zip(plans).collect();
    m.strict = opts.strict;
    match open_trace(trace, &m.config) {
        Ok(t) => m.trace = t,
        Err(e) => {
            eprintln!("epsim: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    }
    let stop_signal = Stop::install();
    let ended = run_sliced(&mut m, opts, &stop_signal);
    // Lines the cores left unfinished (a run stopped at its cycle limit or
    // by a signal keeps them).
    m.sys.flush_lines();
    if let Some(t) = m.trace.as_mut() {
        if let Err(e) = t.finish() {
            let path = trace.trace.as_deref().unwrap_or(Path::new("-"));
            eprintln!("epsim: writing trace {}: {e}", path.display());
            return ExitCode::from(EXIT_USAGE);
        }
    }
    if matches!(ended, Ended::StdoutClosed) || STDOUT_CLOSED.load(Ordering::Relaxed) {
        return die_of_sigpipe();
    }
    // A run stopped from outside says so first, then where each core was
    // (after the statistics, if asked).
    let interrupted = match &ended {
        Ended::Signal(sig) => {
            let name = if *sig == signal_hook::consts::SIGTERM {
                "SIGTERM"
            } else {
                "SIGINT"
            };
            eprintln!("epsim: interrupted by {name} at cycle {}", m.now);
            Some(*sig)
        }
        _ => None,
    };
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
            eprintln!(
                "epsim: run-aheads rolled back: {} (polls' runs done at once: {}; core turns: {})",
                m.rollbacks(),
                m.poll_repeats(),
                m.core_turns()
            );
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
    let stop = match ended {
        Ended::Machine(stop) => stop,
        Ended::Signal(_) | Ended::StdoutClosed => {
            say_where(&m, &plans);
            return ExitCode::from(128u8.wrapping_add(interrupted.unwrap_or(0) as u8));
        }
    };
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
    // objdump's listing needs no memory map: any Epiphany ELF will do.
    let listing = epsim_sim::disasm::read_elf(program)
        .and_then(|elf| epsim_sim::disasm::objdump(program.as_os_str().as_encoded_bytes(), &elf));
    let listing = match listing {
        Ok(l) => l,
        Err(e) => {
            eprintln!("epsim: {}: {e}", program.display());
            return ExitCode::from(EXIT_LOAD_ERROR);
        }
    };
    let mut out = BufWriter::new(PipeOut);
    let written = out.write_all(&listing).and_then(|()| out.flush());
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return die_of_sigpipe();
    }
    if let Err(e) = written {
        eprintln!("epsim: writing the listing: {e}");
        return ExitCode::from(EXIT_USAGE);
    }
    ExitCode::SUCCESS
}
