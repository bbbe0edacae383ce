//! The C ABI of `epsim_run_until_cores_idle`, `epsim_core_idle` and
//! `epsim_trace_start`/`_stop`, as a host program calls them (one test:
//! e-hal's state is global), with `EPSIM_TRACE` starting the trace at
//! `e_init`.

// Tests unwrap freely (clippy.toml's allow-unwrap-in-tests does not reach
// integration tests, rust-clippy#13981).
#![allow(clippy::unwrap_used)]

use std::ffi::CString;
use std::path::PathBuf;
use std::ptr::null;

use e_hal::ffi::*;

#[test]
fn the_c_calls_wait_for_idle_cores_and_trace_the_host() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let env_trace = dir.join(format!("ffi_idle-{}-env.jsonl", std::process::id()));
    let call_trace = dir.join(format!("ffi_idle-{}-call.txt", std::process::id()));
    // (The only test of this binary: nothing else reads the environment.)
    std::env::set_var("EPSIM_MODE", "deterministic");
    std::env::set_var("EPSIM_TRACE", &env_trace);
    std::env::set_var("EPSIM_TRACE_FORMAT", "json");
    let elf = CString::new(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../firmware/multi/message.elf")
            .to_str()
            .unwrap(),
    )
    .unwrap();
    let rows: Vec<u32> = (0..16).map(|k| k / 4).collect();
    let cols: Vec<u32> = (0..16).map(|k| k % 4).collect();
    // SAFETY: the calls get what e-hal's contract asks for.
    unsafe {
        // Before e_init: refused.
        assert_eq!(epsim_core_idle(0, 0), E_ERR);
        assert_eq!(e_init(std::ptr::null_mut()), E_OK);
        let mut dev: e_epiphany_t = std::mem::zeroed();
        assert_eq!(e_open(&mut dev, 0, 0, 4, 4), E_OK);

        // Bad arguments.
        assert_eq!(
            epsim_run_until_cores_idle(null(), cols.as_ptr(), 1, 0, 10),
            E_ERR
        );
        assert_eq!(
            epsim_run_until_cores_idle(rows.as_ptr(), null(), 1, 0, 10),
            E_ERR
        );
        assert_eq!(
            epsim_run_until_cores_idle(rows.as_ptr(), cols.as_ptr(), 0, 0, 10),
            E_ERR
        );
        let far = [4u32];
        assert_eq!(
            epsim_run_until_cores_idle(far.as_ptr(), cols.as_ptr(), 1, 0, 10),
            E_ERR
        );
        assert_eq!(epsim_core_idle(0, 4), E_ERR);
        let t0 = epsim_now();

        // Nothing loaded: every core is idle, at once.
        assert_eq!(epsim_core_idle(2, 3), 1);
        assert_eq!(
            epsim_run_until_cores_idle(rows.as_ptr(), cols.as_ptr(), 16, 0, 10),
            E_OK
        );
        assert_eq!(epsim_now(), t0);

        let bad = CString::new("/nonexistent-dir/t.txt").unwrap();
        assert_eq!(epsim_trace_start(bad.as_ptr(), 0), E_ERR);
        let path = CString::new(call_trace.to_str().unwrap()).unwrap();
        assert_eq!(epsim_trace_start(path.as_ptr(), 2), E_ERR);
        assert_eq!(epsim_trace_start(null(), 0), E_ERR);

        assert_eq!(
            e_load_group(elf.as_ptr(), &mut dev, 0, 0, 4, 4, E_TRUE),
            E_OK
        );
        assert_eq!(epsim_core_idle(0, 0), 0);
        // Core (0,0) waits for the others' answers: not all idle within 10
        // cycles; all sixteen exit in the end.
        let t1 = epsim_now();
        assert_eq!(
            epsim_run_until_cores_idle(rows.as_ptr(), cols.as_ptr(), 16, 0, 10),
            E_WARN
        );
        assert_eq!(epsim_now(), t1 + 10);
        // The env trace is replaced by this one (text) from here.
        assert_eq!(epsim_trace_start(path.as_ptr(), 0), E_OK);
        assert_eq!(
            epsim_run_until_cores_idle(rows.as_ptr(), cols.as_ptr(), 16, 0, 50_000_000),
            E_OK
        );
        for k in 0..16 {
            assert_eq!(epsim_core_idle(rows[k], cols[k]), 1);
        }
        let mut word = 0u32;
        let n = e_read(
            (&mut dev as *mut e_epiphany_t).cast(),
            1,
            1,
            0xF0404,
            (&mut word as *mut u32).cast(),
            4,
        );
        assert_eq!(n, 4);
        assert_eq!(epsim_trace_stop(), E_OK);
        assert_eq!(epsim_trace_stop(), E_OK);
        assert_eq!(e_close(&mut dev), E_OK);
        assert_eq!(e_finalize(), E_OK);
    }
    let env = std::fs::read_to_string(&env_trace).unwrap();
    let text = std::fs::read_to_string(&call_trace).unwrap();
    std::fs::remove_file(&env_trace).unwrap();
    std::fs::remove_file(&call_trace).unwrap();
    // EPSIM_TRACE: JSON lines from e_init, the loader's and the start's
    // records first, then instructions.
    let first: serde_json::Value = serde_json::from_str(env.lines().next().unwrap()).unwrap();
    assert_eq!(first["host"], "load", "{first}");
    assert!(env.contains(r#""host":"start","core":[32,8],"addr":984108,"len":4"#));
    assert!(env.contains(r#""asm":"#));
    // The replacing trace: the cores' remote stores (the answers) and the
    // host's register read at the end.
    assert!(text.contains("str r0,[r1]") && text.contains("st4[0x80802144]=0x0000006f"));
    let last = text.lines().last().unwrap();
    assert!(
        last.ends_with("host  read   33,9  000f0404 len=4"),
        "{last}"
    );
}
