//! Frames of the TUI, rendered with ratatui's `TestBackend` and compared
//! with reviewed snapshots (`cargo insta review` after a deliberate
//! change). The machine is deterministic and nothing in a frame depends
//! on the wall clock, so each frame is exactly reproducible.

use std::path::PathBuf;

use epsim_sim::setup::{ChipArg, GroupArg, Setup};
use epsim_sim::{FaultPolicy, Mode, Syscalls};
use epsim_tui::{view, Action, App, Pane};
use insta::assert_snapshot;
use ratatui::backend::TestBackend;
use ratatui::Terminal;

fn firmware(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../firmware")
        .join(path)
}

/// `elf` on a `rows` x `cols` group of a `chip` chip.
fn app(elf: &str, chip: (u32, u32), group: (u32, u32), mode: Mode) -> App {
    let setup = Setup {
        chip: ChipArg {
            rows: chip.0,
            cols: chip.1,
        },
        dram: None,
        loads: vec![(
            GroupArg {
                rows: group.0,
                cols: group.1,
                row: 0,
                col: 0,
            },
            firmware(elf),
        )],
        mode,
        fault_policy: FaultPolicy::Stop,
    };
    let machine = setup
        .build(Syscalls::captured(vec![elf.into()], Vec::new()))
        .expect("the test program loads");
    App::new(machine)
}

fn frame(app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("a test terminal");
    t.draw(|f| view::render(f, app)).expect("drawing works");
    t.backend().to_string()
}

fn matmul() -> App {
    app("multi/matmul.elf", (4, 4), (4, 4), Mode::Timed)
}

#[test]
fn the_grid_and_detail_before_the_first_cycle() {
    assert_snapshot!(frame(&matmul(), 100, 30));
}

#[test]
fn stepping_advances_every_core_and_shows_the_code_at_the_pc() {
    let mut a = matmul();
    a.apply(Action::StepN);
    assert_eq!(a.view.cycle, 1000);
    assert!(a.view.cores.iter().all(|c| c.instret > 0));
    assert_snapshot!(frame(&a, 100, 30));
}

#[test]
fn one_cycle_and_one_instruction_steps() {
    let mut a = matmul();
    a.apply(Action::StepCycle);
    assert_eq!(a.view.cycle, 1);
    let before = a.view.cores[0].instret;
    a.apply(Action::StepInstruction);
    assert!(a.view.cores[0].instret > before);
    assert!(a.ui.note.is_none(), "{:?}", a.ui.note);
}

#[test]
fn the_selection_moves_with_the_arrows_and_stays_on_the_chip() {
    let mut a = matmul();
    a.apply(Action::Select(1, 2));
    assert_eq!(a.selected_id(), epsim_sim::CoreId::new(33, 10));
    for _ in 0..10 {
        a.apply(Action::Select(1, 1));
    }
    assert_eq!(a.selected_id(), epsim_sim::CoreId::new(35, 11));
    assert!(frame(&a, 100, 30).contains("core (35,11)"));
}

#[test]
fn the_help_lists_the_keys() {
    let mut a = matmul();
    a.apply(Action::Help);
    let f = frame(&a, 100, 30);
    assert!(f.contains("run / pause"));
    assert_snapshot!(f);
}

#[test]
fn the_mesh_heatmap_shows_link_loads_per_network() {
    // Every core writes to the first one: the links into (32,8) are busy.
    let mut a = app("multi/hotspot.elf", (4, 4), (4, 4), Mode::Timed);
    a.ui.step_n = 2000;
    a.apply(Action::StepN);
    assert!(a.stop.is_none());
    a.apply(Action::StepN);
    a.apply(Action::NextGrid);
    let cmesh = frame(&a, 100, 30);
    assert!(cmesh.contains("cMesh link load"));
    // (32,9) sends west towards (32,8).
    let busy = |r: u32, c: u32| -> u64 {
        let n = ((r - 32) * 4 + (c - 8)) as usize;
        let now = &a.view.mesh.as_ref().expect("timed mode has a mesh").links[0];
        let prev = &a.prev.mesh.as_ref().expect("and had one a frame ago").links[0];
        (0..4)
            .map(|d| now[n * 5 + d].busy_half_cycles - prev[n * 5 + d].busy_half_cycles)
            .sum()
    };
    assert!(busy(32, 9) > 0);
    assert!(cmesh.contains("W ") && cmesh.contains('%'), "{cmesh}");
    assert_snapshot!("cmesh", cmesh);
    a.apply(Action::NextGrid);
    assert!(frame(&a, 100, 30).contains("rMesh link load"));
    a.apply(Action::NextGrid);
    assert!(frame(&a, 100, 30).contains("xMesh link load"));
    a.apply(Action::NextGrid);
    assert!(frame(&a, 100, 30).contains("eLink out"));
    a.apply(Action::NextGrid);
    assert!(frame(&a, 100, 30).contains("cores ·"));
}

#[test]
fn the_elink_view_shows_the_traffic_to_dram() {
    // 16 cores storing into DRAM: the eLink is busy out of the chip.
    let mut a = app("multi/dram_stream16.elf", (4, 4), (4, 4), Mode::Timed);
    a.ui.step_n = 3000;
    a.apply(Action::StepN);
    a.apply(Action::StepN);
    for _ in 0..4 {
        a.apply(Action::NextGrid);
    }
    let f = frame(&a, 100, 30);
    let out: f64 = f
        .split("eLink out ")
        .nth(1)
        .and_then(|t| t.split('%').next())
        .and_then(|n| n.trim().parse().ok())
        .expect("the title shows the eLink's load");
    assert!(out > 50.0, "{f}");
    assert_snapshot!("elink", f);
}

#[test]
fn the_dma_pane_shows_both_channels_and_the_elink() {
    let mut a = app("multi/dma_copy.elf", (4, 4), (1, 2), Mode::Timed);
    a.ui.step_n = 3000;
    a.apply(Action::StepN);
    a.apply(Action::Show(Pane::Dma));
    let f = frame(&a, 100, 30);
    assert!(
        f.contains("DMA0") && f.contains("DMA1") && f.contains("eLink"),
        "{f}"
    );
    assert_snapshot!(f);
}

#[test]
fn a_finished_run_shows_its_output_and_end() {
    let mut a = app("multi/hello.elf", (4, 4), (2, 2), Mode::Functional);
    a.ui.step_n = 10_000_000;
    a.apply(Action::StepN);
    assert!(a.stop.is_some(), "hello ends");
    a.apply(Action::Show(Pane::Output));
    let f = frame(&a, 100, 30);
    assert!(f.contains("ended") && f.contains("exit 0"), "{f}");
    assert_snapshot!(f);
    // Nothing more happens after the end.
    let cycle = a.view.cycle;
    a.apply(Action::Toggle);
    a.tick();
    assert!(!a.ui.running);
    assert_eq!(a.view.cycle, cycle);
}

#[test]
fn a_small_terminal_renders() {
    let mut a = matmul();
    a.apply(Action::StepN);
    assert_snapshot!(frame(&a, 80, 24));
    // Tiny terminals do not panic either.
    for (w, h) in [(20, 5), (1, 1), (40, 10)] {
        frame(&a, w, h);
    }
}

#[test]
fn a_64x64_mesh_renders_and_scrolls_to_the_selection() {
    let mut a = app("multi/hello.elf", (64, 64), (2, 2), Mode::Timed);
    a.apply(Action::StepCycle);
    for _ in 0..70 {
        a.apply(Action::Select(1, 1));
    }
    let id = a.selected_id();
    assert_eq!(
        (id.row - a.view.first_row, id.col - a.view.first_col),
        (63, 63)
    );
    for (w, h) in [(80, 24), (200, 60)] {
        let f = frame(&a, w, h);
        let label = format!("{},{}", id.row, id.col);
        assert!(
            f.contains(&label),
            "the selected core is in view at {w}x{h}"
        );
    }
    a.apply(Action::NextGrid);
    frame(&a, 80, 24);
}
