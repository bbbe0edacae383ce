//! `epsim tui --attach`: the view of a chip a host program drives, served
//! by the host library on a Unix socket (`EPSIM_TUI=PATH`), in both of the
//! host's run modes.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use e_hal::{Host, Platform, RunMode, Workgroup};
use epsim_sim::{Mode, Syscalls};
use epsim_tui::remote::Remote;
use epsim_tui::{view, Action, App};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

fn socket(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("epsim-tui-attach-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir.join(name)
}

/// A host with matmul loaded and started on all 16 cores, serving its
/// view on `sock`.
fn host(mode: RunMode, sock: &PathBuf) -> Host {
    // (The only test of this binary sets the variable: no other reads it.)
    std::env::set_var("EPSIM_TUI", sock);
    let h = Host::with_syscalls(
        Platform::parallella16(),
        mode,
        Mode::Timed,
        Syscalls::captured(Vec::new(), Vec::new()),
    )
    .expect("the chip opens");
    std::env::remove_var("EPSIM_TUI");
    let elf = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../firmware/multi/matmul.elf");
    let all: Vec<(u32, u32)> = (0..4).flat_map(|r| (0..4).map(move |c| (r, c))).collect();
    let group = Workgroup {
        row: 0,
        col: 0,
        rows: 4,
        cols: 4,
    };
    h.load(&elf, group, &all, true).expect("matmul loads");
    h
}

fn frame(app: &App) -> String {
    let mut t = Terminal::new(TestBackend::new(100, 30)).expect("a test terminal");
    t.draw(|f| view::render(f, app)).expect("drawing works");
    t.backend().to_string()
}

#[test]
fn the_tui_watches_and_steps_a_host_programs_chip() {
    // Deterministic: time moves only when asked, here by the TUI.
    let sock = socket("det.sock");
    let h = host(RunMode::Deterministic, &sock);
    let mut app = App::with_driver(Box::new(Remote::connect(&sock).expect("it attaches")));
    assert!(
        app.ui.running,
        "an attached chip runs as its host drives it"
    );
    let before = app.view.cycle;
    app.apply(Action::StepN);
    assert!(!app.ui.running);
    assert!(
        app.view.cycle >= before + 1000,
        "{} -> {}",
        before,
        app.view.cycle
    );
    assert!(app.view.cores.iter().all(|c| c.instret > 0));
    assert!(h.now() >= before + 1000);
    let f = frame(&app);
    assert!(
        f.contains("core (32,8)") && f.contains("cores · 4x4"),
        "{f}"
    );
    app.apply(Action::Show(epsim_tui::Pane::Output));
    assert!(frame(&app).contains("on the host program's terminal"));
    // The host program ends: the view stays, the run is over.
    drop(h);
    app.apply(Action::StepCycle);
    assert_eq!(app.stop.as_deref(), Some("the host program has ended"));
    frame(&app);

    // Free running: the chip advances by itself, and holds while paused.
    let sock = socket("free.sock");
    let h = host(RunMode::Free, &sock);
    let mut app = App::with_driver(Box::new(Remote::connect(&sock).expect("it attaches")));
    let wait_for = |app: &mut App, what: &str, ok: &dyn Fn(u64) -> bool| {
        let start = Instant::now();
        loop {
            app.tick();
            app.apply(Action::Select(0, 0));
            if ok(app.view.cycle) {
                return;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "{what}: {}",
                app.view.cycle
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    };
    let c0 = app.view.cycle;
    wait_for(&mut app, "the free chip advances", &|c| c > c0);
    app.apply(Action::Toggle);
    assert!(!app.ui.running);
    // Held: a slice under way may finish, then nothing moves.
    std::thread::sleep(Duration::from_millis(100));
    app.advance(0);
    let held = app.view.cycle;
    std::thread::sleep(Duration::from_millis(200));
    app.advance(0);
    assert_eq!(app.view.cycle, held, "a paused chip does not run");
    app.apply(Action::Toggle);
    wait_for(&mut app, "released, it runs again", &|c| c > held);
    drop(h);
    // The free-running view notices the host has gone on its next frame:
    // it stops saying "running" (issue 14).
    app.tick();
    assert!(!app.ui.running);
    assert_eq!(app.stop.as_deref(), Some("the host program has ended"));
    assert!(frame(&app).contains("ended"));
    // The chip closed, its socket file goes (no stale file to refuse the
    // next viewer).
    let start = Instant::now();
    while sock.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "socket left behind"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    if let Some(dir) = sock.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
}
