//! What the host crate's C-program tests share: the freshly built library
//! as `libe-hal.so` in a directory of the test binary's own, and building
//! a C program against it (`mod common;` in each test file).

// Each test binary uses a part of this.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("invariant: host/ is inside the repository")
        .to_path_buf()
}

/// The C compiler: `$CC`, else `cc`.
pub fn cc() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".into())
}

/// A directory with `libe-hal.so` linked to the shared library cargo
/// built with this test: the `ehal_so` example (`cargo test` builds
/// examples, not the library's cdylib), and the `libe-loader.so` linker
/// script `make -C host install` puts beside it. The test binary lives in
/// `target/<profile>/deps/`, the example in `target/<profile>/examples/`.
/// (`cargo test -p epsim-host --test NAME` alone does not build the
/// example: run `cargo test -p epsim-host`.)
pub fn lib_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let exe = std::env::current_exe().unwrap();
        let profile_dir = exe.parent().unwrap().parent().unwrap();
        let lib = profile_dir.join("examples/libehal_so.so");
        assert!(
            lib.exists(),
            "{} is missing: run `cargo test -p epsim-host` (it builds the example)",
            lib.display()
        );
        let name = exe.file_name().unwrap().to_string_lossy().into_owned();
        let dir = profile_dir.join("ehal-tests").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let link = dir.join("libe-hal.so");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&lib, &link).unwrap();
        // `-le-loader` finds a linker script naming libe-hal.
        std::fs::copy(
            root().join("host/libe-loader.so"),
            dir.join("libe-loader.so"),
        )
        .unwrap();
        dir
    })
}

/// Builds the C program `src` (extra include directories `includes`) into
/// `lib_dir()/name` with `cc -O1 -Wall -Wextra -Werror -I host/include`,
/// linked with `libs` (e.g. `-le-hal`) against `lib_dir()`, which is also
/// its run path.
///
/// Tests of one binary run in parallel and several build the same program:
/// each program is built once per test process (the first caller builds it
/// while the others wait), and into a temporary name renamed into place, so
/// no test executes a file another is still writing (session 19's CI failed
/// on exactly that: `EACCES` running `hello` while a second test's `cc`
/// rewrote it).
pub fn build_with(src: &Path, name: &str, includes: &[PathBuf], libs: &[&str]) -> PathBuf {
    static BUILT: Mutex<BTreeMap<String, PathBuf>> = Mutex::new(BTreeMap::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(out) = built.get(name) {
        return out.clone();
    }
    let dir = lib_dir();
    let out = dir.join(name);
    let tmp = dir.join(format!(".{name}.building"));
    let mut cc = Command::new(cc());
    cc.args(["-O1", "-Wall", "-Wextra", "-Werror"])
        .arg("-I")
        .arg(root().join("host/include"));
    for i in includes {
        cc.arg("-I").arg(i);
    }
    cc.arg(src)
        .arg("-o")
        .arg(&tmp)
        .arg("-L")
        .arg(dir)
        .args(libs)
        .arg(format!("-Wl,-rpath,{}", dir.display()));
    let o = cc.output().expect("cc runs");
    assert!(
        o.status.success(),
        "cc {} failed:\n{}",
        src.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    std::fs::rename(&tmp, &out).unwrap();
    built.insert(name.to_owned(), out.clone());
    out
}

/// [`build_with`], linked as the ESDK's examples link: `-le-hal
/// -le-loader -lpthread`.
pub fn build(src: &Path, name: &str, includes: &[PathBuf]) -> PathBuf {
    build_with(src, name, includes, &["-le-hal", "-le-loader", "-lpthread"])
}

/// Builds `examples/NAME/main.c` and runs it with `arg` from its own
/// directory in deterministic timed mode, with no ESDK or log settings
/// from outside; its standard output and error once it has succeeded.
pub fn run_example(name: &str, arg: &str) -> (String, String) {
    let dir = root().join("examples").join(name);
    let exe = build(&dir.join("main.c"), name, std::slice::from_ref(&dir));
    let o = Command::new(&exe)
        .arg(arg)
        .current_dir(&dir)
        .env("EPSIM_MODE", "deterministic")
        .env("EPSIM_TIMING", "timed")
        .env_remove("EPIPHANY_HDF")
        .env_remove("EPIPHANY_HOME")
        .env_remove("EPSIM_VERBOSE")
        .env_remove("EPSIM_LOG")
        .env_remove("EPSIM_PROGRESS")
        .output()
        .expect("the host program runs");
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{name} {arg} failed: {out}\n{err}");
    (out, err)
}

/// A Parallella-16 host in deterministic timed mode, the cores' output
/// captured, in strict cycle order or not (the strict-vs-fast tests).
pub fn det_host(strict: bool) -> e_hal::Host {
    let h = e_hal::Host::with_syscalls(
        e_hal::Platform::parallella16(),
        e_hal::RunMode::Deterministic,
        epsim_sim::Mode::Timed,
        epsim_sim::Syscalls::captured(Vec::new(), Vec::new()),
    )
    .expect("a Parallella-16 host");
    h.set_strict(strict);
    h
}

/// The word at `off` of chip-relative core `(r, c)`'s SRAM.
pub fn sram_word(h: &e_hal::Host, (r, c): (u32, u32), off: u32) -> u32 {
    let mut w = [0; 4];
    h.read_sram(r, c, off, &mut w).expect("a read of SRAM");
    u32::from_le_bytes(w)
}

/// A core's state as the strict-vs-fast tests compare it at the end.
pub fn core_state(c: &epsim_sim::core::Core) -> String {
    format!(
        "{} cycles={} instret={} dual={} stalls={:?} pc={:#x} r={:?} run={:?}",
        c.id,
        c.stats.cycles,
        c.stats.instret,
        c.stats.dual,
        c.stats.stalls,
        c.state.pc,
        c.state.r,
        c.run
    )
}

/// `child`'s output once it has ended; if it has not ended within
/// `limit` (a host that waits for ever), kills it and panics with `what`
/// and what it printed.
pub fn output_within(mut child: Child, limit: Duration, what: &str) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let o = child.wait_with_output().unwrap();
            panic!(
                "{what} has not ended after {limit:?}; stdout:\n{}\nstderr:\n{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}
