//! The TUI's state: the simulation it watches (a [`Driver`]), what the
//! user selected, and the controls. Rendering (`crate::view`) reads an
//! [`App`] and never changes it; only [`App::apply`] and [`App::tick`] move
//! the simulation, in batches between frames: a machine of its own through
//! the same `Machine::run` the CLI uses, or a host program's chip through
//! its library (`crate::remote`).

use epsim_sim::view::{CoreDetail, MachineView};
use epsim_sim::{CoreId, Machine, StopReason};

/// Wall-clock time a frame may spend simulating while running (the rest
/// of the 50 ms frame draws and reads keys).
pub const FRAME_BUDGET: std::time::Duration = std::time::Duration::from_millis(35);

/// A simulation the TUI can watch and drive.
pub trait Driver {
    /// The machine now.
    fn view(&mut self) -> MachineView;
    /// The full state of core `id`, with `before` / `after` instructions
    /// of code around its PC.
    fn detail(&mut self, id: CoreId, before: usize, after: usize) -> Option<CoreDetail>;
    /// Runs up to cycle `to`: `None` while the run goes on, else why it
    /// ended.
    fn run_to(&mut self, to: u64) -> Option<String>;
    /// What the program printed (`None`: it goes elsewhere).
    fn output(&mut self) -> Option<String>;
    /// The first core a program was loaded onto.
    fn first_core(&mut self) -> Option<CoreId>;
    /// Instructions core `id` has retired, and the cycle now.
    fn progress(&mut self, id: CoreId) -> (u64, u64) {
        let v = self.view();
        (v.core(id).map_or(0, |c| c.instret), v.cycle)
    }
    /// A host program drives this simulation: it advances by itself (free
    /// running) or through the host's calls.
    fn attached(&self) -> bool {
        false
    }
    /// Holds (`true`) or releases the chip while the user has paused (an
    /// attached simulation; a machine of the TUI's own only runs when
    /// told).
    fn hold(&mut self, _on: bool) {}
    /// Why the simulation can no longer move by itself (an attached host
    /// program has gone), once that is known.
    fn gone(&self) -> Option<String> {
        None
    }
}

impl Driver for Machine {
    fn view(&mut self) -> MachineView {
        Machine::view(self)
    }

    fn detail(&mut self, id: CoreId, before: usize, after: usize) -> Option<CoreDetail> {
        self.core_detail(id, before, after)
    }

    fn run_to(&mut self, to: u64) -> Option<String> {
        match self.run(Some(to)) {
            StopReason::CycleLimit { .. } => None,
            other => Some(describe(&other)),
        }
    }

    fn output(&mut self) -> Option<String> {
        let sys = &self.sys;
        let mut s = String::from_utf8_lossy(sys.stdout.captured()).into_owned();
        s.push_str(&String::from_utf8_lossy(sys.stderr.captured()));
        Some(s)
    }

    fn first_core(&mut self) -> Option<CoreId> {
        self.group().next().map(|c| c.id)
    }

    fn progress(&mut self, id: CoreId) -> (u64, u64) {
        (self.core(id).map_or(0, |c| c.stats.instret), self.now)
    }
}

/// What the core grid shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridMode {
    /// Each core by its activity, with its PC and recent IPC.
    Cores,
    /// Each node by the load of its outgoing links on one network.
    CMesh,
    RMesh,
    XMesh,
    /// The eLink's load out of the chip and into it (in the title), over
    /// the xMesh loads that lead to it.
    ELink,
}

impl GridMode {
    pub fn next(self) -> GridMode {
        match self {
            GridMode::Cores => GridMode::CMesh,
            GridMode::CMesh => GridMode::RMesh,
            GridMode::RMesh => GridMode::XMesh,
            GridMode::XMesh => GridMode::ELink,
            GridMode::ELink => GridMode::Cores,
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            GridMode::Cores => "cores",
            GridMode::CMesh => "cMesh link load",
            GridMode::RMesh => "rMesh link load",
            GridMode::XMesh => "xMesh link load",
            GridMode::ELink => "eLink",
        }
    }
}

/// The pane beside the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pane {
    /// Registers, flags, interrupts, timers, code, stalls.
    Detail,
    /// DMA channels and host queues.
    Dma,
    /// What the program printed.
    Output,
}

/// A user command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Quit,
    /// Run or pause.
    Toggle,
    /// Advance one cycle.
    StepCycle,
    /// Advance until the selected core retires an instruction.
    StepInstruction,
    /// Advance `step_n` cycles.
    StepN,
    /// Multiply / divide `step_n` by ten.
    MoreN,
    LessN,
    /// Cycles per frame while running, times / divided by ten.
    Faster,
    Slower,
    /// Move the selection by rows and columns.
    Select(i32, i32),
    /// Cycle the grid between cores and the networks.
    NextGrid,
    Show(Pane),
    /// Show or hide the help.
    Help,
    /// The next page of registers.
    NextRegs,
}

/// Most cycles a single-instruction step waits for the selected core.
pub const STEP_INSTRUCTION_LIMIT: u64 = 100_000;

/// Everything the user chose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UiState {
    /// The selected core, chip-relative (row, col).
    pub selected: (u32, u32),
    pub running: bool,
    /// Cycles simulated per frame while running.
    pub speed: u64,
    /// Cycles of one `StepN`.
    pub step_n: u64,
    pub grid: GridMode,
    pub pane: Pane,
    pub help: bool,
    /// Which page of registers the detail pane lists.
    pub reg_page: u8,
    /// A one-line note for the status bar (the last step's result).
    pub note: Option<String>,
}

impl Default for UiState {
    fn default() -> Self {
        UiState {
            selected: (0, 0),
            running: false,
            speed: 10_000,
            step_n: 1000,
            grid: GridMode::Cores,
            pane: Pane::Detail,
            help: false,
            reg_page: 0,
            note: None,
        }
    }
}

/// The simulation and the user's view of it.
pub struct App {
    pub driver: Box<dyn Driver>,
    pub ui: UiState,
    /// The machine now, and at the frame before (recent rates are the
    /// difference).
    pub view: MachineView,
    pub prev: MachineView,
    /// The selected core's full state.
    pub detail: Option<CoreDetail>,
    /// Why the run ended, once it has.
    pub stop: Option<String>,
    /// Cycles per chunk of [`App::advance_within`], learnt from the time
    /// the last chunks took.
    chunk: u64,
    /// What the program printed, as of the last frame.
    pub output: Option<String>,
}

impl App {
    /// Watches `machine` (loaded, not yet run), paused, with the first
    /// core of its group selected.
    pub fn new(machine: Machine) -> App {
        App::with_driver(Box::new(machine))
    }

    /// Watches `driver`'s simulation: paused if it is the TUI's own,
    /// running as it does if a host program drives it.
    pub fn with_driver(mut driver: Box<dyn Driver>) -> App {
        let view = driver.view();
        let first = driver
            .first_core()
            .unwrap_or(CoreId::new(view.first_row, view.first_col));
        let ui = UiState {
            selected: (first.row - view.first_row, first.col - view.first_col),
            running: driver.attached(),
            ..UiState::default()
        };
        let mut app = App {
            prev: view.clone(),
            view,
            driver,
            ui,
            detail: None,
            stop: None,
            chunk: 10_000,
            output: None,
        };
        app.refresh_detail();
        app.output = app.driver.output();
        app
    }

    /// The selected core's id.
    pub fn selected_id(&self) -> CoreId {
        CoreId::new(
            self.view.first_row + self.ui.selected.0,
            self.view.first_col + self.ui.selected.1,
        )
    }

    fn refresh_detail(&mut self) {
        self.detail = self.driver.detail(self.selected_id(), 4, 8);
    }

    fn refresh(&mut self) {
        self.prev = std::mem::replace(&mut self.view, self.driver.view());
        self.refresh_detail();
        self.output = self.driver.output();
    }

    /// Runs the simulation to cycle `to` at most; false if the run is over.
    fn run_to(&mut self, to: u64) -> bool {
        if self.stop.is_some() {
            return false;
        }
        match self.driver.run_to(to) {
            None => true,
            Some(why) => {
                self.ui.running = false;
                self.ui.note = Some(why.clone());
                self.stop = Some(why);
                false
            }
        }
    }

    /// Advances `cycles` cycles (or until the run ends).
    pub fn advance(&mut self, cycles: u64) {
        let to = self.view.cycle.saturating_add(cycles);
        self.run_to(to);
        self.refresh();
    }

    /// Advances up to `cycles` cycles, or less if that takes longer than
    /// `budget` of wall-clock time: the simulation runs in chunks sized
    /// from the time the last ones took, so that a huge `--speed` keeps
    /// the frames (and the keys) coming. Returns the cycles advanced.
    pub fn advance_within(&mut self, cycles: u64, budget: std::time::Duration) -> u64 {
        let start = std::time::Instant::now();
        let from = self.view.cycle;
        let target = from.saturating_add(cycles);
        let mut now = from;
        let mut chunk = self.chunk.clamp(1, cycles.max(1));
        while now < target && self.stop.is_none() {
            let t0 = std::time::Instant::now();
            let to = now.saturating_add(chunk).min(target);
            if !self.run_to(to) {
                break;
            }
            now = to;
            let took = t0.elapsed().as_secs_f64().max(1e-6);
            // Aim each chunk at a quarter of the budget.
            let want = budget.as_secs_f64() / 4.0;
            chunk = ((chunk as f64) * (want / took).clamp(0.25, 4.0)).max(1.0) as u64;
            if start.elapsed() >= budget {
                break;
            }
        }
        self.chunk = chunk;
        self.refresh();
        self.view.cycle - from
    }

    /// Advances one cycle at a time until the selected core has retired
    /// one more instruction (or [`STEP_INSTRUCTION_LIMIT`] cycles pass).
    fn step_instruction(&mut self) {
        let id = self.selected_id();
        let (start, mut now) = self.driver.progress(id);
        let mut retired = start;
        let mut waited = 0;
        while retired == start && waited < STEP_INSTRUCTION_LIMIT {
            if !self.run_to(now + 1) {
                break;
            }
            (retired, now) = self.driver.progress(id);
            waited += 1;
        }
        if retired == start && self.stop.is_none() {
            self.ui.note = Some(format!(
                "({},{}) retired nothing in {waited} cycles",
                id.row, id.col
            ));
        }
        self.refresh();
    }

    /// Called once per frame: advances the simulation while running (an
    /// attached one runs by itself: the frame only looks).
    pub fn tick(&mut self) {
        if !self.ui.running {
            return;
        }
        if self.driver.attached() {
            self.refresh();
            if let Some(why) = self.driver.gone() {
                self.ui.running = false;
                self.ui.note = Some(why.clone());
                self.stop = Some(why);
            }
        } else {
            self.advance_within(self.ui.speed, FRAME_BUDGET);
        }
    }

    /// Sets running or paused, holding an attached chip while paused.
    fn set_running(&mut self, on: bool) {
        self.ui.running = on && self.stop.is_none();
        if self.driver.attached() {
            self.driver.hold(!self.ui.running);
        }
    }

    /// Performs `a`; false when the user quits.
    pub fn apply(&mut self, a: Action) -> bool {
        let ui = &mut self.ui;
        match a {
            Action::Quit => return false,
            Action::Toggle => {
                ui.note = None;
                let on = !ui.running;
                self.set_running(on);
            }
            Action::StepCycle => {
                ui.note = None;
                self.set_running(false);
                self.advance(1);
            }
            Action::StepInstruction => {
                ui.note = None;
                self.set_running(false);
                self.step_instruction();
            }
            Action::StepN => {
                ui.note = None;
                self.set_running(false);
                let n = self.ui.step_n;
                self.advance(n);
            }
            Action::MoreN => ui.step_n = (ui.step_n * 10).min(1_000_000_000),
            Action::LessN => ui.step_n = (ui.step_n / 10).max(1),
            Action::Faster => ui.speed = (ui.speed * 10).min(1_000_000_000),
            Action::Slower => ui.speed = (ui.speed / 10).max(1),
            Action::Select(dr, dc) => {
                let (rows, cols) = (self.view.rows as i32, self.view.cols as i32);
                let r = (ui.selected.0 as i32 + dr).clamp(0, rows - 1);
                let c = (ui.selected.1 as i32 + dc).clamp(0, cols - 1);
                ui.selected = (r as u32, c as u32);
                self.refresh_detail();
            }
            Action::NextGrid => ui.grid = ui.grid.next(),
            Action::Show(p) => ui.pane = p,
            Action::Help => ui.help = !ui.help,
            Action::NextRegs => ui.reg_page = (ui.reg_page + 1) % 8,
        }
        true
    }
}

/// A one-line account of why a run ended.
pub fn describe(stop: &StopReason) -> String {
    match stop {
        StopReason::Exit { core, status } => {
            format!("exit {status} ({},{})", core.row, core.col)
        }
        StopReason::Signalled { core, signal } => {
            format!("({},{}) killed by signal {signal}", core.row, core.col)
        }
        StopReason::CycleLimit { cycles } => format!("stopped at cycle {cycles}"),
        StopReason::AllIdle => "every core is idle and nothing can wake it".into(),
        StopReason::Breakpoint { core, pc } => {
            format!("({},{}) breakpoint at {pc:#010x}", core.row, core.col)
        }
        StopReason::AllHalted => "every core is halted".into(),
        StopReason::Fault(f) => format!("fault: {f}"),
        StopReason::Dma { core, error } => {
            format!("({},{}) DMA error: {error}", core.row, core.col)
        }
    }
}
