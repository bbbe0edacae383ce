//! `epsim-tui` (also `epsim tui`): run a program on a simulated chip and
//! watch it, live.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use epsim_sim::setup::{check_args, parse_u64, MachineArgs};
use epsim_sim::{FaultPolicy, Syscalls};
use epsim_tui::remote::Remote;
use epsim_tui::{input, view, App};
use ratatui::crossterm::event::{self, Event};

/// Why the view cannot start without a terminal.
const NO_TERMINAL: &str = "needs a terminal (standard input and output are not both one); \
                           use `epsim run` to run a program without the view";

/// Time between frames.
const FRAME: Duration = Duration::from_millis(50);

#[derive(Parser)]
#[command(
    name = "epsim tui",
    bin_name = "epsim tui",
    version,
    about = "Watch a program run on a simulated Epiphany chip (press ? for the keys)"
)]
struct Cli {
    /// The Epiphany ELF file.
    #[arg(required_unless_present = "attach")]
    program: Option<PathBuf>,
    /// Watch the chip of a running host program instead: the Unix socket
    /// its libe-hal serves the view on (start it with EPSIM_TUI=PATH).
    #[arg(long, value_name = "PATH", conflicts_with_all = ["load", "run"])]
    attach: Option<PathBuf>,
    /// With --attach: wait until a host program serves PATH (start it
    /// before or after; Ctrl-C gives up).
    #[arg(long, requires = "attach")]
    wait: bool,
    #[command(flatten)]
    machine: MachineArgs,
    /// Cycles simulated per frame while running (at most what 35 ms of
    /// the frame can simulate).
    #[arg(long, value_name = "CYCLES", default_value_t = 10_000, value_parser = parse_u64)]
    speed: u64,
    /// Start running at once instead of paused.
    #[arg(long)]
    run: bool,
    /// Arguments passed to the program (after `--`).
    #[arg(last = true)]
    args: Vec<String>,
}

/// The machine `epsim run` would build for these options.
fn own_machine(cli: &Cli, program: &std::path::Path) -> Result<epsim_sim::Machine, ExitCode> {
    let setup = cli.machine.setup(program, FaultPolicy::Stop);
    let argv = std::iter::once(program.display().to_string())
        .chain(cli.args.iter().cloned())
        .collect();
    let mut sys = Syscalls::captured(argv, Vec::new());
    sys.allow_files = true;
    let fail = |msg: String| {
        for line in msg.lines() {
            eprintln!("epsim tui: {line}");
        }
        ExitCode::from(2)
    };
    let (m, plans) = setup
        .build_with_plans(sys)
        .map_err(|e| fail(e.to_string()))?;
    if let Some(plan) = plans.first() {
        let argv = m.sys.args.clone();
        check_args(plan, &argv).map_err(|e| fail(format!("{}: {e}", program.display())))?;
    }
    Ok(m)
}

/// Attaches to the host program serving `path`, waiting for one if asked.
fn attach(path: &std::path::Path, wait: bool) -> Result<Remote, String> {
    if !wait {
        return Remote::connect(path);
    }
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        // Said by main, before anything waits.
        return Err(NO_TERMINAL.to_string());
    }
    eprintln!(
        "epsim tui: waiting for a host program to serve {} (start it with EPSIM_TUI={}); \
         Ctrl-C gives up",
        path.display(),
        path.display()
    );
    Remote::connect_waiting(path, Duration::from_millis(50), None)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut app = match (&cli.attach, &cli.program) {
        (Some(path), _) => match attach(path, cli.wait) {
            Ok(r) => App::with_driver(Box::new(r)),
            Err(e) => {
                eprintln!("epsim tui: {e}");
                return ExitCode::from(2);
            }
        },
        (None, Some(program)) => match own_machine(&cli, program) {
            Ok(m) => {
                let mut app = App::new(m);
                app.ui.running = cli.run;
                app
            }
            Err(code) => return code,
        },
        (None, None) => {
            eprintln!("epsim tui: name a program, or --attach PATH");
            return ExitCode::from(2);
        }
    };
    app.ui.speed = cli.speed.max(1);
    // The view needs a terminal to draw in and read keys from; without one
    // the terminal set-up would fail halfway.
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        eprintln!("epsim tui: {NO_TERMINAL}");
        return ExitCode::from(2);
    }
    let mut terminal = match ratatui::try_init() {
        Ok(t) => t,
        Err(e) => {
            ratatui::restore();
            eprintln!("epsim tui: cannot set up the terminal: {e}");
            return ExitCode::from(2);
        }
    };
    let result = (|| -> std::io::Result<()> {
        loop {
            let start = Instant::now();
            app.tick();
            terminal.draw(|f| view::render(f, &app))?;
            let left = FRAME.saturating_sub(start.elapsed());
            if event::poll(left)? {
                if let Event::Key(key) = event::read()? {
                    if let Some(a) = input::action(key) {
                        if !app.apply(a) {
                            return Ok(());
                        }
                    }
                }
            }
        }
    })();
    ratatui::restore();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("epsim tui: terminal: {e}");
            ExitCode::from(1)
        }
    }
}
