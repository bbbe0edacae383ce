//! The 32-bit libe-hal (issue 15, defect 9): the library built for
//! `i686-unknown-linux-gnu` as `make -C host install ARCH=i686` builds it,
//! and a C host program built with `cc -m32` against it that shares a
//! pointer-holding structure with a core (`c32/ptr_share.c`,
//! `dev/ptr_share_dev.c`), in both run modes; and the DRAM pointer's watch
//! in a 32-bit process (`c/dramwatch.c` built with `-m32`), whose SIGSEGV
//! handler returns without the kernel there (`host/src/dramwatch.rs`,
//! `resume`): the same results as with `EPSIM_DRAMWATCH=sigreturn`, a
//! floating-point value live across the faults intact, a copy through
//! the pointer (partly stepped) right, other faults and traps passed on.
//!
//! Needs the rustup target `i686-unknown-linux-gnu` and a C compiler that
//! links `-m32` programs (gcc-multilib); `scripts/test.sh` installs both
//! when it can. Without them the test says on stderr that it was skipped
//! and passes. `EPSIM_REQUIRE_LIB32=1` makes a missing prerequisite a
//! failure instead (CI sets it where it installed them).

// Tests unwrap freely (clippy.toml's allow-unwrap-in-tests does not reach
// integration tests, rust-clippy#13981).
#![allow(clippy::unwrap_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{cc, root};

const TARGET: &str = "i686-unknown-linux-gnu";

/// Why the 32-bit build cannot run here, or None when it can.
fn missing_prerequisite(scratch: &Path) -> Option<String> {
    let libdir = Command::new("rustc")
        .args(["--print", "target-libdir", "--target", TARGET])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    match libdir {
        Some(d) if d.join("libstd.rlib").exists() || has_std(&d) => {}
        _ => {
            return Some(format!(
                "the Rust target is not installed (rustup target add {TARGET})"
            ))
        }
    }
    let src = scratch.join("m32_probe.c");
    std::fs::write(&src, "int main(void) { return 0; }\n").unwrap();
    let ok = Command::new(cc())
        .arg("-m32")
        .arg(&src)
        .arg("-o")
        .arg(scratch.join("m32_probe"))
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        return Some(format!(
            "'{} -m32' cannot link a program (install gcc-multilib)",
            cc()
        ));
    }
    None
}

/// rustup installs std as `libstd-<hash>.rlib`.
fn has_std(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|rd| {
        rd.flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("libstd-"))
    })
}

#[test]
fn a_32_bit_host_shares_a_pointer_holding_struct_with_a_core() {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().unwrap().parent().unwrap();
    let scratch = profile_dir.join("lib32-test");
    std::fs::create_dir_all(&scratch).unwrap();
    if let Some(why) = missing_prerequisite(&scratch) {
        assert!(
            std::env::var_os("EPSIM_REQUIRE_LIB32").is_none(),
            "EPSIM_REQUIRE_LIB32 is set but the 32-bit libe-hal cannot be built: {why}"
        );
        eprintln!("SKIPPED: the 32-bit libe-hal test: {why}");
        return;
    }

    // The library exactly as `make -C host install ARCH=i686` builds it.
    let prefix = scratch.join("ehal32");
    let make = Command::new("make")
        .arg("-s")
        .arg("-C")
        .arg(root().join("host"))
        .arg("install")
        .arg("ARCH=i686")
        .arg(format!("PREFIX={}", prefix.display()))
        .output()
        .expect("make runs");
    assert!(
        make.status.success(),
        "make -C host install ARCH=i686 failed:\n{}{}",
        String::from_utf8_lossy(&make.stdout),
        String::from_utf8_lossy(&make.stderr)
    );
    let lib = prefix.join("lib/libe-hal.so");
    let file = std::fs::read(&lib).unwrap();
    // ELFCLASS32, EM_386.
    assert_eq!(
        (file[4], u16::from_le_bytes([file[18], file[19]])),
        (1, 3),
        "{} is not a 32-bit x86 library",
        lib.display()
    );

    let c32 = root().join("host/tests/c32");
    let host = scratch.join("ptr_share");
    cc_m32(&prefix, &c32, "ptr_share.c", &host, &[], &[]);

    let dev = root().join("host/tests/dev/ptr_share_dev.elf");
    for mode in ["deterministic", "free"] {
        let out = Command::new(&host)
            .arg(&dev)
            .env("EPSIM_MODE", mode)
            .env_remove("EPIPHANY_HDF")
            .env_remove("EPIPHANY_HOME")
            .output()
            .expect("the 32-bit host program runs");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{mode}: ptr_share exited with {:?}:\n{text}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            text,
            "host: sizeof(void *) 4, sizeof(struct job) 32, job at device 0x8e100000\n\
             core: sizeof(struct job) 32\n\
             core: sum of squares 440\n\
             core: msg at device 0x8e100240: squared by the core\n\
             PASS\n",
            "{mode}"
        );
    }

    dram_watch_in_a_32_bit_process(&prefix, &scratch);
}

/// `c/dramwatch.c` built with `-m32 -msse2 -mfpmath=sse` (doubles in SSE
/// registers, as most 32-bit code has them now; the kernel hands a signal
/// handler those registers cleared) against the 32-bit library at
/// `prefix`, run as host/tests/dramwatch.rs runs the 64-bit build.
fn dram_watch_in_a_32_bit_process(prefix: &Path, scratch: &Path) {
    let c = root().join("host/tests/c");
    let exe = scratch.join("dramwatch32");
    cc_m32(
        prefix,
        &c,
        "dramwatch.c",
        &exe,
        &["-msse2", "-mfpmath=sse"],
        &["-lpthread"],
    );
    let elf = root().join("host/tests/dev/flag_dev.elf");
    let run = |args: &[&str], watch: &str| {
        let child = Command::new(&exe)
            .arg(&elf)
            .args(args)
            .env("EPSIM_MODE", "deterministic")
            .env("EPSIM_DRAMWATCH", watch)
            .env_remove("EPSIM_LOG")
            .env_remove("EPSIM_PROGRESS")
            .env_remove("EPIPHANY_HDF")
            .env_remove("EPIPHANY_HOME")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the 32-bit dramwatch runs");
        // A wrong return from the handler can leave it spinning for ever.
        let o = common::output_within(
            child,
            Duration::from_secs(60),
            &format!("dramwatch32 {args:?} (EPSIM_DRAMWATCH={watch})"),
        );
        (o.status, String::from_utf8_lossy(&o.stdout).into_owned())
    };
    for args in [&["poll", "3000"][..], &["memcpy", "busy"][..]] {
        let (st, fast) = run(args, "on");
        assert!(st.success(), "{args:?}: {st}\n{fast}");
        assert!(!fast.contains("WRONG"), "{args:?}:\n{fast}");
        assert!(fast.contains(" ok\n"), "{args:?}:\n{fast}");
        let (st, slow) = run(args, "sigreturn");
        assert!(st.success(), "{args:?}, sigreturn: {st}\n{slow}");
        assert_eq!(fast, slow, "{args:?}: with and without the kernel's return");
    }
    let (_, poll) = run(&["poll", "3000"], "on");
    assert!(poll.contains("fpu ok\n"), "{poll}");
    let polls: Vec<u64> = poll
        .lines()
        .find(|l| l.starts_with("polls "))
        .unwrap()
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    assert!(
        polls[0] > 100,
        "the first wait faulted only {} times:\n{poll}",
        polls[0]
    );
    use std::os::unix::process::ExitStatusExt;
    let (st, out) = run(&["segv"], "on");
    assert_eq!(st.signal(), Some(11), "segv: {st}\n{out}");
    let (st, out) = run(&["trap"], "on");
    assert!(st.success() && out == "trap handled\n", "trap: {st}\n{out}");
}

/// Builds `dir/src` into `exe` with `cc -m32 -O1 -Wall -Wextra -Werror`
/// and `flags`, against the 32-bit library at `prefix` (found at run time
/// by its rpath) and `libs`.
fn cc_m32(prefix: &Path, dir: &Path, src: &str, exe: &Path, flags: &[&str], libs: &[&str]) {
    let o = Command::new(cc())
        .args(["-m32", "-O1", "-Wall", "-Wextra", "-Werror"])
        .args(flags)
        .arg("-I")
        .arg(prefix.join("include"))
        .arg("-I")
        .arg(dir)
        .arg(dir.join(src))
        .arg("-o")
        .arg(exe)
        .arg("-L")
        .arg(prefix.join("lib"))
        .arg("-le-hal")
        .args(libs)
        .arg(format!("-Wl,-rpath,{}", prefix.join("lib").display()))
        .output()
        .expect("cc runs");
    assert!(
        o.status.success(),
        "cc -m32 {src} failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
