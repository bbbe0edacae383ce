//! The real `epsim-tui` binary in a pseudo-terminal: keys go in, the
//! screen (decoded by a VT100 emulator) is read back.

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{native_pty_system, CommandBuilder, PtySize};

const ROWS: u16 = 24;
const COLS: u16 = 80;

struct Screen {
    parser: Arc<Mutex<vt100::Parser>>,
}

impl Screen {
    fn text(&self) -> String {
        self.parser
            .lock()
            .expect("the reader thread does not panic")
            .screen()
            .contents()
    }

    /// Waits until the screen shows `what`; panics with the screen if it
    /// does not within ten seconds.
    fn wait_for(&self, what: &str) -> String {
        self.wait_until(what, |t| t.contains(what))
    }

    /// Waits until `ok` holds for the screen's text (`what` describes it).
    fn wait_until(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let text = self.text();
            if ok(&text) {
                return text;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "the screen never showed {what}; it shows:\n{text}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn keys_drive_the_real_binary_in_an_80x24_terminal() {
    let pty = native_pty_system()
        .openpty(PtySize {
            rows: ROWS,
            cols: COLS,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("a pseudo-terminal");
    let elf = concat!(env!("CARGO_MANIFEST_DIR"), "/../firmware/multi/matmul.elf");
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_epsim-tui"));
    cmd.args([elf, "--group", "4x4"]);
    cmd.env("TERM", "xterm-256color");
    let mut child = pty.slave.spawn_command(cmd).expect("epsim-tui starts");
    drop(pty.slave);
    let mut reader = pty.master.try_clone_reader().expect("a reader");
    let mut keys = pty.master.take_writer().expect("a writer");
    let parser = Arc::new(Mutex::new(vt100::Parser::new(ROWS, COLS, 0)));
    let sink = Arc::clone(&parser);
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock()
                .expect("the test holds no lock long")
                .process(&buf[..n]);
        }
    });
    let screen = Screen { parser };
    let mut press = |k: &[u8]| {
        keys.write_all(k).expect("keys reach the terminal");
        keys.flush().expect("and are sent");
    };

    let first = screen.wait_for("cycle 0 ");
    assert!(
        first.contains("cores · 4x4") && first.contains("paused"),
        "{first}"
    );
    assert!(first.contains("core (32,8)"), "{first}");
    // Step N (1000) cycles, then one more.
    press(b"n");
    screen.wait_for("cycle 1000 ");
    press(b".");
    screen.wait_for("cycle 1001 ");
    // Select the core to the right and below: the detail follows.
    press(b"\x1b[C");
    press(b"\x1b[B");
    screen.wait_for("core (33,9)");
    // The help, and away again.
    press(b"?");
    screen.wait_for("run / pause");
    press(b"?");
    // The mesh heatmap.
    press(b"m");
    screen.wait_for("cMesh link load");
    // Run: the cycle count moves on by itself.
    press(b" ");
    screen.wait_for("/frame");
    screen.wait_until("a later cycle", |t| !t.contains("cycle 1001 "));
    press(b" ");
    screen.wait_for("paused");
    press(b"q");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("the child can be polled") {
            assert!(status.success(), "epsim-tui exited with {status:?}");
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "epsim-tui did not quit on q"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
