//! The `epsim-tui` binary's command line, and the time bound of a frame
//! (issue 14).

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use epsim_sim::setup::{ChipArg, GroupArg, Setup};
use epsim_sim::{FaultPolicy, Mode, Syscalls};
use epsim_tui::App;

fn firmware(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../firmware")
        .join(path)
}

#[test]
fn without_a_terminal_it_says_so_and_exits_2() {
    let o = Command::new(env!("CARGO_BIN_EXE_epsim-tui"))
        .arg(firmware("multi/matmul.elf"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("epsim-tui runs");
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "epsim tui: needs a terminal (standard input and output are not both one); use \
         `epsim run` to run a program without the view\n"
    );
    assert!(o.stdout.is_empty(), "nothing drawn");
}

#[test]
fn option_errors_come_before_the_terminal_check() {
    let o = Command::new(env!("CARGO_BIN_EXE_epsim-tui"))
        .args(["--group", "1x1@4294967295,0"])
        .arg(firmware("multi/matmul.elf"))
        .stdin(Stdio::null())
        .output()
        .expect("epsim-tui runs");
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("for '--group <"), "{err}");
    assert!(err.contains("row `4294967295` is more than 63"), "{err}");
}

#[test]
fn help_names_the_command_as_users_type_it() {
    let o = Command::new(env!("CARGO_BIN_EXE_epsim-tui"))
        .arg("--help")
        .output()
        .expect("epsim-tui runs");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("Usage: epsim tui [OPTIONS]"), "{out}");
    assert!(!out.contains("epsim-tui"), "{out}");
}

#[test]
fn a_huge_speed_is_bounded_by_time_per_frame() {
    let setup = Setup {
        chip: ChipArg { rows: 4, cols: 4 },
        dram: None,
        loads: vec![(
            GroupArg {
                rows: 1,
                cols: 1,
                row: 0,
                col: 0,
            },
            firmware("small/spin.elf"),
        )],
        mode: Mode::Timed,
        fault_policy: FaultPolicy::Stop,
    };
    let m = setup
        .build(Syscalls::captured(vec!["spin".into()], Vec::new()))
        .expect("spin loads");
    let mut app = App::new(m);
    let budget = Duration::from_millis(40);
    for _ in 0..5 {
        let start = Instant::now();
        let done = app.advance_within(u64::MAX / 2, budget);
        let took = start.elapsed();
        assert!(done > 0, "it advances");
        // The last chunk may overrun the budget by at most about itself.
        assert!(took < budget * 4, "a frame took {took:?}");
    }
    assert!(app.stop.is_none());
}
