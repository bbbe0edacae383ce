//! `load_file` reads no more than an ELF can hold: a file that never ends
//! is refused after its header, or read only as far as its headers reach
//! (issue 14, item 5).

#![cfg(unix)]

mod common;

use std::io::Write;
use std::path::Path;

use common::*;
use epsim_loader::{load_file, LoadError, Target, MAX_FILE_BYTES};

#[test]
fn endless_devices_are_refused_after_the_header() {
    for dev in ["/dev/zero", "/dev/urandom"] {
        let err = load_file(dev, &Target::parallella16()).expect_err("not an ELF");
        assert!(
            matches!(err.cause(), LoadError::NotElf { .. }),
            "{dev}: {err}"
        );
    }
}

/// A temporary directory of this test's own.
fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("epsim-loader-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[test]
fn an_elf_followed_by_an_endless_stream_loads_as_the_elf() {
    // A FIFO fed with a real ELF and then zeros until the reader closes it:
    // the loader must stop where the ELF's headers end.
    let dir = temp_dir("fifo");
    let fifo = dir.join("prog.elf");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let elf = sample("external.elf");
    let writer = {
        let (fifo, elf) = (fifo.clone(), elf.clone());
        std::thread::spawn(move || {
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .open(&fifo)
                .expect("open the FIFO");
            let mut written = 0u64;
            if f.write_all(&elf).is_err() {
                return written;
            }
            let zeros = vec![0u8; 1 << 16];
            // Stops when the reader closes its end (EPIPE: Rust ignores
            // SIGPIPE), or after 4 GiB if it never does.
            while written < 1 << 32 && f.write_all(&zeros).is_ok() {
                written += zeros.len() as u64;
            }
            written
        })
    };
    let from_fifo = load_file(&fifo, &Target::parallella16()).expect("loads from the FIFO");
    let zeros_written = writer.join().expect("writer");
    std::fs::remove_dir_all(&dir).expect("clean up");
    let from_file =
        load_file(data_path("external.elf"), &Target::parallella16()).expect("loads from file");
    assert_eq!(from_fifo, from_file);
    // The pipe holds 64 KiB and the writer may be a chunk ahead: far less
    // than the stream it would have sent.
    assert!(zeros_written < 1 << 20, "{zeros_written} bytes of zeros");
}

#[test]
fn absurd_offsets_in_a_stream_are_refused_without_reading_them() {
    // The section header table claimed at 3 GiB: from a regular file this
    // is "truncated" (its length is known); from a stream it is refused.
    let mut elf = sample("external.elf");
    put_u32(&mut elf, 32, 0xc000_0000); // e_shoff
    let dir = temp_dir("absurd");
    let file = dir.join("prog.elf");
    std::fs::write(&file, &elf).expect("write");
    let err = load_file(&file, &Target::parallella16()).expect_err("truncated");
    assert!(matches!(err.cause(), LoadError::Truncated { .. }), "{err}");
    let mut child = std::process::Command::new("cat")
        .arg(&file)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("cat runs");
    let fd = {
        use std::os::fd::AsRawFd;
        child.stdout.as_ref().expect("piped").as_raw_fd()
    };
    let err = load_file(
        Path::new(&format!("/proc/self/fd/{fd}")),
        &Target::parallella16(),
    )
    .expect_err("too large");
    drop(child.stdout.take());
    let _ = child.wait();
    std::fs::remove_dir_all(&dir).expect("clean up");
    match err.cause() {
        LoadError::TooLarge { end, limit } => {
            assert_eq!(*limit, MAX_FILE_BYTES);
            assert!(*end > 0xc000_0000);
        }
        other => panic!("expected TooLarge, got {other}"),
    }
}
