//! The C ABI: a drop-in `libe-hal` (ESDK 2016.11 e-hal and e-loader,
//! stack.md §2.3) plus the `epsim_*` controls of `include/epsim.h`.
//!
//! Conventions, as e-hal's: functions return `E_OK` (0) or `E_ERR` (-1);
//! `e_read`/`e_write` return the bytes copied or `E_ERR`. Bad arguments
//! (a NULL pointer, an object that is not what the call needs, a core or
//! range outside the group or memory, an unloadable file) give `E_ERR`
//! before anything changes, and a line on stderr saying why (unless
//! `EPSIM_LOG` is below `warn`: crate::log). A panic never crosses the
//! boundary: it becomes `E_ERR` (the `hal` profile unwinds; see the
//! workspace manifest).
//!
//! Model decisions owned here:
//! * **Objects belong to their session.** A workgroup (`e_open`) or
//!   memory buffer (`e_alloc`, `e_shm_alloc`, `e_shm_attach`) records the
//!   `e_init` session that made it (in `priv`). After `e_close`, `e_free`
//!   or `e_finalize` it is dead: every call given it returns `E_ERR`,
//!   `e_close` and `e_free` included (they still release what the object
//!   held), and `e_is_addr_on_group` answers `E_FALSE`. Only the
//!   arithmetic (`e_get_num_from_coords`, `e_get_coords_from_num`,
//!   `ee_get_*`) works on any group struct, as it reads nothing but its
//!   fields.
//! * **A second `e_init`** while initialized checks its HDF and settings
//!   as the first did: `E_OK`, the chip kept as it is, if they describe
//!   the same platform; `E_ERR`, nothing changed, otherwise.
//! * **The clock's limit** is [`CLOCK_LIMIT`]: `epsim_run` refuses a run
//!   that would pass it; the `max_cycles` bounds of the run-until calls are
//!   clamped to it.
//!
//! The structs are `#[repr(C)]` copies of `host/include/e-hal-data.h`,
//! laid out as the original headers lay them out on an LP64 host (the
//! offsets are tested).

#![allow(
    non_camel_case_types,
    non_upper_case_globals,
    clippy::missing_safety_doc
)]

use std::ffi::{c_char, c_int, c_long, c_uint, c_ulonglong, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::ptr::{addr_of_mut, null_mut};
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use epsim_sim::trace::TraceFormat;
use epsim_sim::Mode;

use crate::host::{Host, RunMode, Workgroup};
use crate::log::{self, Level};
use crate::platform::Platform;
use crate::shm;

pub type off_t = c_long;

pub const E_OK: c_int = 0;
pub const E_ERR: c_int = -1;
pub const E_WARN: c_int = -2;
pub const E_FALSE: c_int = 0;
pub const E_TRUE: c_int = 1;

pub const E_NULL: c_int = 0;
pub const E_EPI_PLATFORM: c_int = 1;
pub const E_EPI_CHIP: c_int = 2;
pub const E_EPI_GROUP: c_int = 3;
pub const E_EPI_CORE: c_int = 4;
pub const E_EXT_MEM: c_int = 5;
pub const E_MAPPING: c_int = 6;
pub const E_SHARED_MEM: c_int = 7;

/// `e_mmap_t`: one mapped window.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct e_mmap_t {
    pub objtype: c_int,
    pub phy_base: off_t,
    pub page_base: off_t,
    pub page_offset: off_t,
    pub map_size: usize,
    pub mapped_base: *mut c_void,
    pub base: *mut c_void,
}

/// `e_core_t`: one core of a workgroup.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct e_core_t {
    pub objtype: c_int,
    pub id: c_uint,
    pub row: c_uint,
    pub col: c_uint,
    pub mems: e_mmap_t,
    pub regs: e_mmap_t,
}

/// `e_epiphany_t`: a workgroup (`row`, `col` absolute).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct e_epiphany_t {
    pub objtype: c_int,
    pub type_: c_int,
    pub num_cores: c_uint,
    pub base_coreid: c_uint,
    pub row: c_uint,
    pub col: c_uint,
    pub rows: c_uint,
    pub cols: c_uint,
    pub core: *mut *mut e_core_t,
    pub memfd: c_int,
    pub priv_: *mut c_void,
}

/// `e_mem_t`: an external-memory buffer; `base` is the host pointer.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct e_mem_t {
    pub objtype: c_int,
    pub phy_base: off_t,
    pub page_base: off_t,
    pub page_offset: off_t,
    pub map_size: usize,
    pub ephy_base: off_t,
    pub emap_size: usize,
    pub mapped_base: *mut c_void,
    pub base: *mut c_void,
    pub memfd: c_int,
    pub priv_: *mut c_void,
}

/// `e_chip_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct e_chip_t {
    pub objtype: c_int,
    pub type_: c_int,
    pub version: [c_char; 32],
    pub arch: c_uint,
    pub base_coreid: c_uint,
    pub row: c_uint,
    pub col: c_uint,
    pub rows: c_uint,
    pub cols: c_uint,
    pub num_cores: c_uint,
    pub sram_base: c_uint,
    pub sram_size: c_uint,
    pub regs_base: c_uint,
    pub regs_size: c_uint,
    pub ioregs_n: off_t,
    pub ioregs_e: off_t,
    pub ioregs_s: off_t,
    pub ioregs_w: off_t,
}

/// `e_memseg_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct e_memseg_t {
    pub objtype: c_int,
    pub phy_base: off_t,
    pub ephy_base: off_t,
    pub size: usize,
    pub type_: c_int,
}

/// `e_platform_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct e_platform_t {
    pub objtype: c_int,
    pub type_: c_int,
    pub version: [c_char; 32],
    pub hal_ver: c_uint,
    pub initialized: c_int,
    pub num_chips: c_uint,
    pub chip: *mut e_chip_t,
    pub row: c_uint,
    pub col: c_uint,
    pub rows: c_uint,
    pub cols: c_uint,
    pub num_emems: c_int,
    pub emem: *mut e_memseg_t,
    pub target_ops: *const c_void,
    pub priv_: *mut c_void,
}

impl e_platform_t {
    const fn zeroed() -> e_platform_t {
        e_platform_t {
            objtype: E_NULL,
            type_: 0,
            version: [0; 32],
            hal_ver: 0,
            initialized: 0,
            num_chips: 0,
            chip: null_mut(),
            row: 0,
            col: 0,
            rows: 0,
            cols: 0,
            num_emems: 0,
            emem: null_mut(),
            target_ops: std::ptr::null(),
            priv_: null_mut(),
        }
    }
}

/// `epsim_stats_t` (epsim.h).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct epsim_stats_t {
    pub cycles: c_ulonglong,
    pub host_cycles: c_ulonglong,
    pub calls: c_ulonglong,
    pub write_txns: c_ulonglong,
    pub read_txns: c_ulonglong,
    pub bytes_written: c_ulonglong,
    pub bytes_read: c_ulonglong,
    pub instret: c_ulonglong,
}

/// The platform as e-hal publishes it; ePython reads it directly.
#[no_mangle]
pub static mut e_platform: e_platform_t = e_platform_t::zeroed();

struct Global {
    host: Host,
    /// Workgroups opened (`e_open`) and not yet closed: closing the last
    /// writes out the cores' unfinished lines.
    open: usize,
    /// What `e_platform.chip` and `.emem` point at.
    _chip: Box<e_chip_t>,
    _emem: Box<e_memseg_t>,
}

static GLOBAL: Mutex<Option<Global>> = Mutex::new(None);
static LOADER_VERBOSITY: AtomicI32 = AtomicI32::new(0);

/// The e_init session now open (0: none). Every workgroup and memory
/// buffer records the session that made it in its `priv` member; after
/// `e_finalize` (or `e_close`, `e_free`) it is dead and every call given
/// it returns E_ERR.
static SESSION: AtomicUsize = AtomicUsize::new(0);
/// The last session number handed out.
static LAST_SESSION: AtomicUsize = AtomicUsize::new(0);

/// The `priv` value of an object made in the current session.
fn session_tag() -> *mut c_void {
    SESSION.load(Ordering::Acquire) as *mut c_void
}

/// Whether an object's `priv` names the current session.
fn live(tag: *mut c_void) -> bool {
    let s = SESSION.load(Ordering::Acquire);
    s != 0 && tag as usize == s
}

/// The simulated clock's limit: a run that would take it further is
/// refused (2^63 cycles, 487 years at 600 MHz; the cycles e-hal calls
/// charge beyond it cannot overflow the 64-bit clock).
pub const CLOCK_LIMIT: u64 = 1 << 63;

/// Reports why a call failed (log level warn, as the board's e-hal warns)
/// and returns E_ERR.
fn fail(call: &str, why: impl std::fmt::Display) -> c_int {
    log::say(Level::Warn, format_args!("e-hal: {call}: {why}"));
    E_ERR
}

/// Runs `f`, turning a panic into `fallback` (the lock's data is used even
/// if a panic poisoned it: every call checks its inputs before it changes
/// anything).
fn guard<T>(call: &str, fallback: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
        log::say(
            Level::Error,
            format_args!("e-hal: {call}: internal error (a bug in epsim), returning an error"),
        );
        fallback
    })
}

fn global() -> MutexGuard<'static, Option<Global>> {
    GLOBAL.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs `f` with the host, or fails if `e_init` was not called.
fn with_host(call: &str, f: impl FnOnce(&mut Host) -> c_int) -> c_int {
    with_global(call, |g| f(&mut g.host))
}

/// Runs `f` with e-hal's state, or fails if `e_init` was not called.
fn with_global(call: &str, f: impl FnOnce(&mut Global) -> c_int) -> c_int {
    guard(call, E_ERR, || match global().as_mut() {
        Some(g) => f(g),
        None => fail(call, "e-hal is not initialized (call e_init first)"),
    })
}

fn set_errno(e: c_int) {
    extern "C" {
        fn __errno_location() -> *mut c_int;
    }
    // SAFETY: glibc's (and musl's) per-thread errno.
    unsafe { *__errno_location() = e };
}

fn put_name(dst: &mut [c_char; 32], s: &str) {
    for (d, b) in dst.iter_mut().zip(s.bytes().take(31)) {
        *d = b as c_char;
    }
}

// ---------------------------------------------------------------- e_init

#[no_mangle]
pub unsafe extern "C" fn e_init(hdf: *mut c_char) -> c_int {
    guard("e_init", E_ERR, || {
        let mut g = global();
        if let Err(e) = log::check_env() {
            return fail("e_init", e);
        }
        if let Err(e) = crate::dramwatch::check_env() {
            return fail("e_init", e);
        }
        let path = if hdf.is_null() {
            None
        } else {
            // SAFETY: the caller passes a C string.
            match unsafe { CStr::from_ptr(hdf) }.to_str() {
                Ok(s) => Some(s.to_owned()),
                Err(_) => return fail("e_init", "the HDF path is not UTF-8"),
            }
        };
        let platform = match Platform::from_env(path.as_deref().map(Path::new)) {
            Ok(p) => p,
            Err(e) => return fail("e_init", e),
        };
        let mode = match RunMode::from_env() {
            Ok(m) => m,
            Err(e) => return fail("e_init", e),
        };
        let timing = match std::env::var("EPSIM_TIMING").ok().as_deref() {
            None | Some("") | Some("timed") => Mode::Timed,
            Some("functional") => Mode::Functional,
            Some(other) => {
                return fail(
                    "e_init",
                    format!("EPSIM_TIMING={other:?}: expected \"timed\" or \"functional\""),
                )
            }
        };
        if let Some(open) = g.as_ref() {
            // A second e_init: its HDF and settings were checked as the
            // first's were; the chip (cores, memory, clock) is kept if it
            // describes the same platform, and nothing changes otherwise.
            if open.host.platform() != &platform {
                return fail(
                    "e_init",
                    format!(
                        "already initialized with platform {} ({} at ({},{})); \
                         call e_finalize before e_init with another ({} at ({},{}))",
                        open.host.platform().version,
                        open.host.platform().chip.name(),
                        open.host.platform().chip_row,
                        open.host.platform().chip_col,
                        platform.chip.name(),
                        platform.chip_row,
                        platform.chip_col,
                    ),
                );
            }
            log::say(
                Level::Debug,
                format_args!("e-hal: e_init: already initialized; keeping the chip"),
            );
            return E_OK;
        }
        let host = match Host::new(platform.clone(), mode, timing) {
            Ok(h) => h,
            Err(e) => return fail("e_init", e),
        };
        // The program's sleeps and clocks follow the host's clock from now.
        if let Err(e) = crate::hosttime::attach(&host) {
            return fail("e_init", e);
        }
        let config = host.config().clone();
        let mut chip = Box::new(e_chip_t {
            objtype: E_EPI_CHIP,
            type_: platform.chip.code() as c_int,
            version: [0; 32],
            arch: platform.chip.arch(),
            base_coreid: config.first_core().bits(),
            row: config.first_row,
            col: config.first_col,
            rows: config.rows,
            cols: config.cols,
            num_cores: config.rows * config.cols,
            sram_base: 0,
            sram_size: config.sram_size,
            regs_base: 0xF0000,
            regs_size: 0x1000,
            ioregs_n: 0x002f_0000,
            ioregs_e: 0x083f_0000,
            ioregs_s: 0x0c2f_0000,
            ioregs_w: 0x080f_0000,
        });
        put_name(&mut chip.version, platform.chip.name());
        let mut emem = Box::new(e_memseg_t {
            objtype: E_EXT_MEM,
            phy_base: platform.emem.phy_base as off_t,
            ephy_base: platform.emem.ephy_base as off_t,
            size: platform.emem.size as usize,
            type_: platform.emem.kind as c_int,
        });
        let mut p = e_platform_t {
            objtype: E_EPI_PLATFORM,
            type_: platform.type_code() as c_int,
            hal_ver: 0x0502_0100,
            initialized: E_TRUE,
            num_chips: 1,
            chip: &mut *chip,
            row: config.first_row,
            col: config.first_col,
            rows: config.rows,
            cols: config.cols,
            num_emems: 1,
            emem: &mut *emem,
            ..e_platform_t::zeroed()
        };
        put_name(&mut p.version, &platform.version);
        // SAFETY: e_platform is written only here and in e_finalize, under
        // the global lock.
        unsafe { addr_of_mut!(e_platform).write(p) };
        *g = Some(Global {
            host,
            open: 0,
            _chip: chip,
            _emem: emem,
        });
        SESSION.store(
            LAST_SESSION.fetch_add(1, Ordering::AcqRel) + 1,
            Ordering::Release,
        );
        E_OK
    })
}

#[no_mangle]
pub unsafe extern "C" fn e_finalize() -> c_int {
    guard("e_finalize", E_ERR, || {
        let mut g = global();
        if g.is_none() {
            return fail("e_finalize", "e-hal is not initialized");
        }
        // SAFETY: as in e_init.
        unsafe { addr_of_mut!(e_platform).write(e_platform_t::zeroed()) };
        SESSION.store(0, Ordering::Release);
        // Real time again for the program's sleeps and clocks.
        crate::hosttime::detach();
        let old = g.take();
        if crate::lifetime::ending() {
            // The chip thread is ending the process (its last other thread
            // has ended) and this is an atexit handler running in it: the
            // output and trace are written; the thread cannot wait for
            // itself.
            std::mem::forget(old);
            return E_OK;
        }
        // The program's view of DRAM goes first (crate::dramwatch).
        if let Some(g) = old.as_ref() {
            crate::dramwatch::detach(&g.host);
        }
        // Stops the free-running thread; the e_alloc pointers die with it.
        drop(old);
        E_OK
    })
}

#[no_mangle]
pub unsafe extern "C" fn e_get_platform_info(platform: *mut e_platform_t) -> c_int {
    with_host("e_get_platform_info", |_| {
        if platform.is_null() {
            return fail("e_get_platform_info", "platform is NULL");
        }
        // SAFETY: e_platform is only written under the global lock, held.
        let mut copy = unsafe { addr_of_mut!(e_platform).read() };
        copy.chip = null_mut();
        copy.emem = null_mut();
        // SAFETY: the caller passes a writable e_platform_t.
        unsafe { platform.write(copy) };
        E_OK
    })
}

#[no_mangle]
pub extern "C" fn e_set_host_verbosity(verbose: c_int) -> c_int {
    log::set_host_verbosity(verbose)
}

#[no_mangle]
pub extern "C" fn e_set_loader_verbosity(verbose: c_int) -> c_int {
    LOADER_VERBOSITY.swap(verbose, Ordering::Relaxed)
}

// ------------------------------------------------------------ workgroups

#[no_mangle]
pub unsafe extern "C" fn e_open(
    dev: *mut e_epiphany_t,
    row: c_uint,
    col: c_uint,
    rows: c_uint,
    cols: c_uint,
) -> c_int {
    with_global("e_open", |global| {
        let h = &global.host;
        if dev.is_null() {
            return fail("e_open", "dev is NULL");
        }
        let c = h.config();
        if rows == 0
            || cols == 0
            || u64::from(row) + u64::from(rows) > u64::from(c.rows)
            || u64::from(col) + u64::from(cols) > u64::from(c.cols)
        {
            return fail(
                "e_open",
                format!(
                    "a {rows} x {cols} group at ({row},{col}) does not fit the {} x {} chip",
                    c.rows, c.cols
                ),
            );
        }
        let (arow, acol) = (c.first_row + row, c.first_col + col);
        let mut lines: Vec<*mut e_core_t> = Vec::with_capacity(rows as usize);
        for r in 0..rows {
            let line: Box<[e_core_t]> = (0..cols)
                .map(|k| {
                    let id = ((arow + r) << 6) | (acol + k);
                    let window = |base: u32, size: usize| e_mmap_t {
                        objtype: E_MAPPING,
                        phy_base: ((id << 20) | base) as off_t,
                        page_base: ((id << 20) | base) as off_t,
                        page_offset: 0,
                        map_size: size,
                        mapped_base: null_mut(),
                        base: null_mut(),
                    };
                    e_core_t {
                        objtype: E_EPI_CORE,
                        id,
                        row: r,
                        col: k,
                        mems: window(0, c.sram_size as usize),
                        regs: window(0xF0000, 0x1000),
                    }
                })
                .collect();
            lines.push(Box::into_raw(line).cast());
        }
        let core = Box::into_raw(lines.into_boxed_slice()).cast();
        let group = e_epiphany_t {
            objtype: E_EPI_GROUP,
            type_: h.platform().chip.code() as c_int,
            num_cores: rows * cols,
            base_coreid: (arow << 6) | acol,
            row: arow,
            col: acol,
            rows,
            cols,
            core,
            memfd: -1,
            priv_: session_tag(),
        };
        // SAFETY: the caller passes a writable e_epiphany_t.
        unsafe { dev.write(group) };
        global.open += 1;
        E_OK
    })
}

/// The workgroup behind `dev`, if it is an open one.
unsafe fn group<'a>(call: &str, dev: *const e_epiphany_t) -> Result<&'a e_epiphany_t, c_int> {
    if dev.is_null() {
        return Err(fail(call, "dev is NULL"));
    }
    // SAFETY: the caller passes an e_epiphany_t (its objtype says which).
    let g = unsafe { &*dev };
    if g.objtype != E_EPI_GROUP || g.core.is_null() {
        return Err(fail(call, "dev is not an open workgroup (e_open)"));
    }
    if !live(g.priv_) {
        return Err(fail(call, DEAD_GROUP));
    }
    Ok(g)
}

const DEAD_GROUP: &str = "dev was opened before e_finalize: it is closed";
const DEAD_MEM: &str = "the buffer was made before e_finalize: it is freed";

/// The chip-relative coordinates of (`row`, `col`) of group `g`.
fn on_chip(
    call: &str,
    h: &Host,
    g: &e_epiphany_t,
    row: c_uint,
    col: c_uint,
) -> Result<(u32, u32), c_int> {
    if row >= g.rows || col >= g.cols {
        return Err(fail(
            call,
            format!(
                "core ({row},{col}) is outside the {} x {} group",
                g.rows, g.cols
            ),
        ));
    }
    let c = h.config();
    let r = g.row.wrapping_sub(c.first_row).wrapping_add(row);
    let k = g.col.wrapping_sub(c.first_col).wrapping_add(col);
    if r >= c.rows || k >= c.cols {
        return Err(fail(call, "the group is not on this chip"));
    }
    Ok((r, k))
}

fn group_cores(h: &Host, g: &e_epiphany_t, call: &str) -> Result<Vec<(u32, u32)>, c_int> {
    let mut v = Vec::with_capacity(g.num_cores as usize);
    for r in 0..g.rows {
        for k in 0..g.cols {
            v.push(on_chip(call, h, g, r, k)?);
        }
    }
    Ok(v)
}

#[no_mangle]
pub unsafe extern "C" fn e_close(dev: *mut e_epiphany_t) -> c_int {
    guard("e_close", E_ERR, || {
        if dev.is_null() {
            return fail("e_close", "dev is NULL");
        }
        // SAFETY: the caller passes an e_epiphany_t.
        let g = unsafe { *dev };
        if g.objtype != E_EPI_GROUP || g.core.is_null() {
            return fail("e_close", "dev is not an open workgroup (e_open)");
        }
        // SAFETY: `core` and its lines were made by e_open with these sizes.
        unsafe {
            let lines = Box::from_raw(std::ptr::slice_from_raw_parts_mut(g.core, g.rows as usize));
            for &line in lines.iter() {
                drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                    line,
                    g.cols as usize,
                )));
            }
            (*dev).core = null_mut();
        }
        if !live(g.priv_) {
            // Its core table is freed all the same.
            return fail("e_close", DEAD_GROUP);
        }
        // The last open group closed: the host is done with the chip (it
        // may open another later), so the lines the cores left unfinished
        // are written out.
        if let Some(global) = global().as_mut() {
            global.open = global.open.saturating_sub(1);
            if global.open == 0 {
                global.host.flush_output();
            }
        }
        E_OK
    })
}

// -------------------------------------------------------- external memory

#[no_mangle]
pub unsafe extern "C" fn e_alloc(mbuf: *mut e_mem_t, offset: off_t, size: usize) -> c_int {
    with_host("e_alloc", |h| {
        if mbuf.is_null() {
            return fail("e_alloc", "mbuf is NULL");
        }
        let total = u64::from(h.dram_size());
        if offset < 0 || size == 0 || offset as u64 + size as u64 > total {
            return fail(
                "e_alloc",
                format!("{size:#x} bytes at offset {offset:#x} are outside the {total:#x}-byte external memory"),
            );
        }
        let p = h.platform();
        let phy = p.emem.phy_base as off_t + offset;
        let page_offset = phy & 0xfff;
        // SAFETY: offset + size lies inside the DRAM.
        let base = unsafe { crate::dramwatch::program_ptr(h).add(offset as usize) };
        let m = e_mem_t {
            objtype: E_EXT_MEM,
            phy_base: phy,
            page_base: phy - page_offset,
            page_offset,
            map_size: size + page_offset as usize,
            ephy_base: p.emem.ephy_base as off_t + offset,
            emap_size: size,
            mapped_base: base.wrapping_sub(page_offset as usize).cast(),
            base: base.cast(),
            memfd: -1,
            priv_: session_tag(),
        };
        // SAFETY: the caller passes a writable e_mem_t.
        unsafe { mbuf.write(m) };
        E_OK
    })
}

#[no_mangle]
pub unsafe extern "C" fn e_free(mbuf: *mut e_mem_t) -> c_int {
    guard("e_free", E_ERR, || {
        if mbuf.is_null() {
            return fail("e_free", "mbuf is NULL");
        }
        // SAFETY: the caller passes an e_mem_t.
        let m = unsafe { &mut *mbuf };
        let was_live = live(m.priv_);
        match m.objtype {
            // A shared region stays mapped (e_shm_release gives it back).
            E_SHARED_MEM if was_live => E_OK,
            E_EXT_MEM => {
                m.objtype = E_NULL;
                m.base = null_mut();
                m.mapped_base = null_mut();
                if was_live {
                    E_OK
                } else {
                    fail("e_free", DEAD_MEM)
                }
            }
            E_SHARED_MEM => fail("e_free", DEAD_MEM),
            _ => fail(
                "e_free",
                "mbuf is not an e_alloc or e_shm buffer (freed already?)",
            ),
        }
    })
}

/// The DRAM offset of `from` in buffer `m`, checked for `n` bytes.
fn dram_offset(call: &str, h: &Host, m: &e_mem_t, from: off_t, n: usize) -> Result<u32, c_int> {
    let base = crate::dramwatch::offset_of(h, m.base as usize);
    let Some(base) = base.filter(|&b| {
        !m.base.is_null() && b as u64 + m.emap_size as u64 <= u64::from(h.dram_size())
    }) else {
        return Err(fail(call, "the buffer is not one of this chip's (freed?)"));
    };
    if from < 0 || from as u64 + n as u64 > m.emap_size as u64 {
        return Err(fail(
            call,
            format!(
                "{n:#x} bytes at {from:#x} are outside the {:#x}-byte buffer",
                m.emap_size
            ),
        ));
    }
    Ok((base + from as usize) as u32)
}

// ------------------------------------------------------------ read, write

enum Target<'a> {
    Core(&'a e_epiphany_t),
    Mem(&'a e_mem_t),
}

unsafe fn target<'a>(call: &str, dev: *const c_void) -> Result<Target<'a>, c_int> {
    if dev.is_null() {
        return Err(fail(call, "dev is NULL"));
    }
    // SAFETY: every e-hal object starts with its objtype.
    match unsafe { *(dev as *const c_int) } {
        // SAFETY: the objtype says what it is.
        E_EPI_GROUP => unsafe { group(call, dev.cast()) }.map(Target::Core),
        E_EXT_MEM | E_SHARED_MEM => {
            // SAFETY: as above.
            let m = unsafe { &*(dev as *const e_mem_t) };
            if !live(m.priv_) {
                return Err(fail(call, DEAD_MEM));
            }
            Ok(Target::Mem(m))
        }
        other => Err(fail(
            call,
            format!("dev has objtype {other}, not a workgroup or a memory buffer"),
        )),
    }
}

/// A register offset as e-hal takes it: 0xF0000-0xF0FFF.
fn reg_offset(call: &str, off: off_t, n: usize) -> Result<u32, c_int> {
    if !(0xF0000..0xF1000).contains(&off) || off % 4 != 0 {
        return Err(fail(
            call,
            format!("offset {off:#x} is neither in SRAM nor a register word (0xf0000-0xf0ffc)"),
        ));
    }
    if n < 4 {
        return Err(fail(call, "a register access moves 4 bytes"));
    }
    Ok(off as u32)
}

/// Where an `e_read` or `e_write` of `size` bytes at `addr` goes.
enum Place {
    /// Core (`r`, `c`)'s SRAM at this offset.
    Sram(u32, u32, u32),
    /// One of core (`r`, `c`)'s registers at this offset.
    Reg(u32, u32, u32),
    /// External memory at this offset.
    Dram(u32),
}

/// Resolves an `e_read` / `e_write` target: `dev` (a workgroup or a
/// memory buffer), `row`, `col` and `addr`, for `size` bytes; the error is
/// the call's return value, already reported.
///
/// # Safety
/// As [`target`].
unsafe fn place(
    call: &str,
    h: &Host,
    dev: *const c_void,
    row: c_uint,
    col: c_uint,
    addr: off_t,
    size: usize,
) -> Result<Place, c_int> {
    // SAFETY: the caller's contract.
    match unsafe { target(call, dev) }? {
        Target::Core(g) => {
            let (r, c) = on_chip(call, h, g, row, col)?;
            let sram = u64::from(h.config().sram_size);
            if (0..sram as off_t).contains(&addr) {
                if addr as u64 + size as u64 > sram {
                    return Err(fail(
                        call,
                        format!("{size:#x} bytes at {addr:#x} run past the SRAM"),
                    ));
                }
                Ok(Place::Sram(r, c, addr as u32))
            } else {
                Ok(Place::Reg(r, c, reg_offset(call, addr, size)?))
            }
        }
        Target::Mem(m) => Ok(Place::Dram(dram_offset(call, h, m, addr, size)?)),
    }
}

#[no_mangle]
pub unsafe extern "C" fn e_read(
    dev: *mut c_void,
    row: c_uint,
    col: c_uint,
    from_addr: off_t,
    buf: *mut c_void,
    size: usize,
) -> isize {
    const CALL: &str = "e_read";
    with_host(CALL, |h| {
        if buf.is_null() {
            return fail(CALL, "buf is NULL");
        }
        // SAFETY: see target().
        let place = match unsafe { place(CALL, h, dev, row, col, from_addr, size) } {
            Ok(p) => p,
            Err(e) => return e,
        };
        let done = match place {
            Place::Reg(r, c, off) => h.read_reg(r, c, off).map(|v| {
                // SAFETY: at least 4 bytes, any alignment.
                unsafe { buf.cast::<u32>().write_unaligned(v) };
                4
            }),
            Place::Sram(r, c, off) => {
                // SAFETY: the caller's buffer holds `size` bytes.
                let out = unsafe { std::slice::from_raw_parts_mut(buf.cast::<u8>(), size) };
                h.read_sram(r, c, off, out).map(|()| size)
            }
            Place::Dram(off) => {
                // SAFETY: as above.
                let out = unsafe { std::slice::from_raw_parts_mut(buf.cast::<u8>(), size) };
                h.read_dram(off, out).map(|()| size)
            }
        };
        match done {
            Ok(n) => n as c_int,
            Err(e) => fail(CALL, e),
        }
    }) as isize
}

#[no_mangle]
pub unsafe extern "C" fn e_write(
    dev: *mut c_void,
    row: c_uint,
    col: c_uint,
    to_addr: off_t,
    buf: *const c_void,
    size: usize,
) -> isize {
    const CALL: &str = "e_write";
    with_host(CALL, |h| {
        if buf.is_null() {
            return fail(CALL, "buf is NULL");
        }
        // SAFETY: see target().
        let place = match unsafe { place(CALL, h, dev, row, col, to_addr, size) } {
            Ok(p) => p,
            Err(e) => return e,
        };
        let done = match place {
            Place::Reg(r, c, off) => {
                // SAFETY: at least 4 bytes, any alignment.
                let v = unsafe { buf.cast::<u32>().read_unaligned() };
                h.write_reg(r, c, off, v).map(|()| 4)
            }
            Place::Sram(r, c, off) => {
                // SAFETY: the caller's buffer holds `size` bytes.
                let data = unsafe { std::slice::from_raw_parts(buf.cast::<u8>(), size) };
                h.write_sram(r, c, off, data).map(|()| size)
            }
            Place::Dram(off) => {
                // SAFETY: as above.
                let data = unsafe { std::slice::from_raw_parts(buf.cast::<u8>(), size) };
                h.write_dram(off, data).map(|()| size)
            }
        };
        match done {
            Ok(n) => n as c_int,
            Err(e) => fail(CALL, e),
        }
    }) as isize
}

// ------------------------------------------------------- reset and control

#[no_mangle]
pub unsafe extern "C" fn e_reset_system() -> c_int {
    with_host("e_reset_system", |h| {
        h.reset_system();
        E_OK
    })
}

#[no_mangle]
pub extern "C" fn e_reset_chip() -> c_int {
    E_OK
}

#[no_mangle]
pub unsafe extern "C" fn e_reset_group(dev: *mut e_epiphany_t) -> c_int {
    // SAFETY: see on_group().
    unsafe { on_group("e_reset_group", dev, |h, cores| h.reset_cores(cores)) }
}

#[no_mangle]
pub unsafe extern "C" fn e_load(
    executable: *const c_char,
    dev: *mut e_epiphany_t,
    row: c_uint,
    col: c_uint,
    start: c_int,
) -> c_int {
    // SAFETY: the same arguments.
    unsafe { load("e_load", executable, dev, row, col, 1, 1, start) }
}

#[no_mangle]
pub unsafe extern "C" fn e_load_group(
    executable: *const c_char,
    dev: *mut e_epiphany_t,
    row: c_uint,
    col: c_uint,
    rows: c_uint,
    cols: c_uint,
    start: c_int,
) -> c_int {
    // SAFETY: the same arguments.
    unsafe { load("e_load_group", executable, dev, row, col, rows, cols, start) }
}

#[allow(clippy::too_many_arguments)]
unsafe fn load(
    call: &str,
    executable: *const c_char,
    dev: *mut e_epiphany_t,
    row: c_uint,
    col: c_uint,
    rows: c_uint,
    cols: c_uint,
    start: c_int,
) -> c_int {
    with_host(call, |h| {
        if executable.is_null() {
            return fail(call, "executable is NULL");
        }
        // SAFETY: the caller passes a C string.
        let path = match unsafe { CStr::from_ptr(executable) }.to_str() {
            Ok(p) => p.to_owned(),
            Err(_) => return fail(call, "the executable's path is not UTF-8"),
        };
        // SAFETY: see group().
        let g = match unsafe { group(call, dev) } {
            Ok(g) => g,
            Err(e) => return e,
        };
        if let Err(e) = rect_in_group(call, g, (row, col, rows, cols)) {
            return e;
        }
        let (grow, gcol) = match on_chip(call, h, g, 0, 0) {
            Ok(rc) => rc,
            Err(e) => return e,
        };
        let wg = Workgroup {
            row: grow,
            col: gcol,
            rows: g.rows,
            cols: g.cols,
        };
        let cores: Vec<(u32, u32)> = (row..row + rows)
            .flat_map(|r| (col..col + cols).map(move |k| (r, k)))
            .collect();
        match h.load(Path::new(&path), wg, &cores, start != E_FALSE) {
            Ok(()) => E_OK,
            Err(e) => {
                // e_set_loader_verbosity(L_D1) says why even with EPSIM_LOG
                // below warn.
                if LOADER_VERBOSITY.load(Ordering::Relaxed) > 0 && !log::enabled(Level::Warn) {
                    eprintln!("e-hal: {call}: {e}");
                }
                fail(call, e)
            }
        }
    })
}

/// One core of a workgroup, as chip-relative coordinates, for `f`.
unsafe fn on_core(
    call: &str,
    dev: *mut e_epiphany_t,
    row: c_uint,
    col: c_uint,
    f: impl FnOnce(&Host, u32, u32) -> Result<(), crate::HostError>,
) -> c_int {
    with_host(call, |h| {
        // SAFETY: see group().
        let g = match unsafe { group(call, dev) } {
            Ok(g) => g,
            Err(e) => return e,
        };
        let (r, c) = match on_chip(call, h, g, row, col) {
            Ok(rc) => rc,
            Err(e) => return e,
        };
        match f(h, r, c) {
            Ok(()) => E_OK,
            Err(e) => fail(call, e),
        }
    })
}

/// Runs `f` on every core of workgroup `dev`, as [`on_core`] does on one.
///
/// # Safety
/// As [`group`].
unsafe fn on_group(
    call: &str,
    dev: *mut e_epiphany_t,
    f: impl FnOnce(&Host, &[(u32, u32)]) -> Result<(), crate::HostError>,
) -> c_int {
    with_host(call, |h| {
        // SAFETY: the caller's contract.
        let g = match unsafe { group(call, dev) } {
            Ok(g) => g,
            Err(e) => return e,
        };
        let cores = match group_cores(h, g, call) {
            Ok(c) => c,
            Err(e) => return e,
        };
        match f(h, &cores) {
            Ok(()) => E_OK,
            Err(e) => fail(call, e),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn e_start(dev: *mut e_epiphany_t, row: c_uint, col: c_uint) -> c_int {
    // SAFETY: see on_core().
    unsafe { on_core("e_start", dev, row, col, |h, r, c| h.start(&[(r, c)])) }
}

#[no_mangle]
pub unsafe extern "C" fn e_start_group(dev: *mut e_epiphany_t) -> c_int {
    // SAFETY: see on_group().
    unsafe { on_group("e_start_group", dev, |h, cores| h.start(cores)) }
}

#[no_mangle]
pub unsafe extern "C" fn e_signal(dev: *mut e_epiphany_t, row: c_uint, col: c_uint) -> c_int {
    // SAFETY: see on_core().
    unsafe { on_core("e_signal", dev, row, col, |h, r, c| h.signal(r, c)) }
}

#[no_mangle]
pub unsafe extern "C" fn e_halt(dev: *mut e_epiphany_t, row: c_uint, col: c_uint) -> c_int {
    // SAFETY: see on_core().
    unsafe { on_core("e_halt", dev, row, col, |h, r, c| h.halt(r, c)) }
}

#[no_mangle]
pub unsafe extern "C" fn e_resume(dev: *mut e_epiphany_t, row: c_uint, col: c_uint) -> c_int {
    // SAFETY: see on_core().
    unsafe { on_core("e_resume", dev, row, col, |h, r, c| h.resume(r, c)) }
}

// ------------------------------------------------------------ arithmetic

#[no_mangle]
pub unsafe extern "C" fn e_get_num_from_coords(
    dev: *mut e_epiphany_t,
    row: c_uint,
    col: c_uint,
) -> c_uint {
    guard("e_get_num_from_coords", 0, || {
        if dev.is_null() {
            fail("e_get_num_from_coords", "dev is NULL");
            return 0;
        }
        // SAFETY: the caller passes an e_epiphany_t.
        let g = unsafe { &*dev };
        col.wrapping_add(row.wrapping_mul(g.cols))
    })
}

#[no_mangle]
pub unsafe extern "C" fn e_get_coords_from_num(
    dev: *mut e_epiphany_t,
    corenum: c_uint,
    row: *mut c_uint,
    col: *mut c_uint,
) {
    guard("e_get_coords_from_num", (), || {
        if dev.is_null() || row.is_null() || col.is_null() {
            fail("e_get_coords_from_num", "a pointer argument is NULL");
            return;
        }
        // SAFETY: the caller passes an e_epiphany_t and two unsigned ints.
        unsafe {
            let cols = (*dev).cols;
            if cols == 0 {
                fail("e_get_coords_from_num", "dev has no columns");
                return;
            }
            *row = corenum / cols;
            *col = corenum % cols;
        }
    })
}

fn platform_box() -> Option<(u32, u32, u32, u32, u64, u64)> {
    let g = global();
    let h = &g.as_ref()?.host;
    let c = h.config();
    Some((
        c.first_row,
        c.first_col,
        c.rows,
        c.cols,
        u64::from(c.ext_base),
        u64::from(c.ext_size),
    ))
}

fn in_box(addr: usize, row: u32, col: u32, rows: u32, cols: u32) -> bool {
    let id = (addr as u64 >> 20) & 0xfff;
    let (r, c) = ((id >> 6) as u32, (id & 63) as u32);
    (row..row + rows).contains(&r) && (col..col + cols).contains(&c)
}

#[no_mangle]
pub extern "C" fn e_is_addr_on_chip(addr: *mut c_void) -> c_int {
    guard("e_is_addr_on_chip", E_FALSE, || match platform_box() {
        Some((r, c, rs, cs, _, _)) if (addr as u64) < 1 << 32 => {
            c_int::from(in_box(addr as usize, r, c, rs, cs))
        }
        _ => E_FALSE,
    })
}

#[no_mangle]
pub extern "C" fn e_is_addr_in_emem(addr: usize) -> c_int {
    guard("e_is_addr_in_emem", E_FALSE, || match platform_box() {
        Some((_, _, _, _, base, size)) => c_int::from((base..base + size).contains(&(addr as u64))),
        None => E_FALSE,
    })
}

#[no_mangle]
pub unsafe extern "C" fn e_is_addr_on_group(dev: *mut e_epiphany_t, addr: *mut c_void) -> c_int {
    guard("e_is_addr_on_group", E_FALSE, || {
        if dev.is_null() || addr as u64 >= 1 << 32 {
            return E_FALSE;
        }
        // SAFETY: the caller passes an e_epiphany_t.
        let g = unsafe { &*dev };
        // Only an open group has addresses (closed, or made before
        // e_finalize: none).
        if g.objtype != E_EPI_GROUP || g.core.is_null() || !live(g.priv_) {
            return E_FALSE;
        }
        c_int::from(in_box(addr as usize, g.row, g.col, g.rows, g.cols))
    })
}

// ---------------------------------------------------------- shared memory

/// Runs `f` on the shm table (initialised if its magic is wrong), writing
/// it back if `f` changed it.
fn with_table<T>(
    h: &Host,
    f: impl FnOnce(&mut [u8], u64) -> Result<T, shm::ShmError>,
) -> Result<Result<T, shm::ShmError>, String> {
    let need = u64::from(shm::SHM_OFFSET) + u64::from(shm::SHM_SIZE);
    if u64::from(h.dram_size()) < need {
        return Err(format!(
            "external memory of {:#x} bytes has no room for the shared-memory pool ({need:#x} needed)",
            h.dram_size()
        ));
    }
    let mut t = vec![0; shm::TABLE_SIZE];
    h.read_dram(shm::SHM_OFFSET, &mut t)
        .map_err(|e| e.to_string())?;
    let before = t.clone();
    let p = h.platform();
    shm::init_if_needed(
        &mut t,
        u64::from(p.emem.ephy_base) + u64::from(shm::SHM_OFFSET),
        p.emem.phy_base + u64::from(shm::SHM_OFFSET),
    );
    let host_table = crate::dramwatch::program_ptr(h) as u64 + u64::from(shm::SHM_OFFSET);
    let out = f(&mut t, host_table);
    if t != before {
        h.write_dram(shm::SHM_OFFSET, &t)
            .map_err(|e| e.to_string())?;
    }
    Ok(out)
}

unsafe fn c_name<'a>(call: &str, name: *const c_char) -> Result<&'a [u8], c_int> {
    if name.is_null() {
        set_errno(22);
        return Err(fail(call, "name is NULL"));
    }
    // SAFETY: the caller passes a C string.
    Ok(unsafe { CStr::from_ptr(name) }.to_bytes())
}

unsafe fn shm_mem(h: &Host, mbuf: *mut e_mem_t, r: &shm::Region) {
    let p = h.platform();
    let off = u64::from(shm::SHM_OFFSET) + u64::from(r.offset);
    // SAFETY: the region lies inside the DRAM.
    let base = unsafe { crate::dramwatch::program_ptr(h).add(off as usize) };
    let m = e_mem_t {
        objtype: E_SHARED_MEM,
        phy_base: (p.emem.phy_base + off) as off_t,
        page_base: (p.emem.phy_base + off) as off_t,
        page_offset: 0,
        map_size: r.size as usize,
        ephy_base: (u64::from(p.emem.ephy_base) + off) as off_t,
        emap_size: r.size as usize,
        mapped_base: base.cast(),
        base: base.cast(),
        memfd: -1,
        priv_: session_tag(),
    };
    // SAFETY: the caller passes a writable e_mem_t.
    unsafe { mbuf.write(m) };
}

#[no_mangle]
pub unsafe extern "C" fn e_shm_alloc(
    mbuf: *mut e_mem_t,
    name: *const c_char,
    size: usize,
) -> c_int {
    const CALL: &str = "e_shm_alloc";
    with_host(CALL, |h| {
        // SAFETY: see c_name().
        let name = match unsafe { c_name(CALL, name) } {
            Ok(n) => n,
            Err(e) => return e,
        };
        if mbuf.is_null() {
            set_errno(22);
            return fail(CALL, "mbuf is NULL");
        }
        let size32 = u32::try_from(size).unwrap_or(u32::MAX);
        match with_table(h, |t, host| shm::alloc(t, name, size32, host)) {
            Ok(Ok(r)) => {
                // SAFETY: checked above.
                unsafe { shm_mem(h, mbuf, &r) };
                E_OK
            }
            Ok(Err(e)) => {
                set_errno(e.errno());
                fail(CALL, e)
            }
            Err(e) => {
                set_errno(12);
                fail(CALL, e)
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn e_shm_attach(mbuf: *mut e_mem_t, name: *const c_char) -> c_int {
    const CALL: &str = "e_shm_attach";
    with_host(CALL, |h| {
        // SAFETY: see c_name().
        let name = match unsafe { c_name(CALL, name) } {
            Ok(n) => n,
            Err(e) => return e,
        };
        if mbuf.is_null() {
            set_errno(22);
            return fail(CALL, "mbuf is NULL");
        }
        match with_table(h, |t, _| shm::attach(t, name)) {
            Ok(Ok(r)) => {
                // SAFETY: checked above.
                unsafe { shm_mem(h, mbuf, &r) };
                E_OK
            }
            Ok(Err(e)) => {
                set_errno(e.errno());
                fail(CALL, e)
            }
            Err(e) => fail(CALL, e),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn e_shm_release(name: *const c_char) -> c_int {
    const CALL: &str = "e_shm_release";
    with_host(CALL, |h| {
        // SAFETY: see c_name().
        let name = match unsafe { c_name(CALL, name) } {
            Ok(n) => n,
            Err(e) => return e,
        };
        match with_table(h, |t, _| shm::release(t, name)) {
            Ok(Ok(())) => E_OK,
            Ok(Err(e)) => {
                set_errno(e.errno());
                fail(CALL, e)
            }
            Err(e) => fail(CALL, e),
        }
    })
}

#[no_mangle]
pub extern "C" fn e_shm_get_shmtable() -> *mut c_void {
    guard("e_shm_get_shmtable", null_mut(), || {
        let g = global();
        let Some(g) = g.as_ref() else {
            fail("e_shm_get_shmtable", "e-hal is not initialized");
            return null_mut();
        };
        match with_table(&g.host, |_, _| Ok(())) {
            // SAFETY: the table lies inside the DRAM (checked by with_table).
            Ok(_) => unsafe {
                crate::dramwatch::program_ptr(&g.host)
                    .add(shm::SHM_OFFSET as usize)
                    .cast()
            },
            Err(e) => {
                fail("e_shm_get_shmtable", e);
                null_mut()
            }
        }
    })
}

#[no_mangle]
pub extern "C" fn e_shm_init() -> c_int {
    with_host("e_shm_init", |h| match with_table(h, |_, _| Ok(())) {
        Ok(_) => E_OK,
        Err(e) => fail("e_shm_init", e),
    })
}

/// The table lives in the simulated external memory as long as the chip:
/// nothing to tear down.
#[no_mangle]
pub extern "C" fn e_shm_finalize() {}

// ------------------------------------------------------ the chip table

/// `e_chip_db_t`: one row of `e_chip_params_table`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct e_chip_db_t {
    pub objtype: c_int,
    pub type_: c_int,
    pub version: [c_char; 32],
    pub arch: c_uint,
    pub rows: c_uint,
    pub cols: c_uint,
    pub sram_base: c_uint,
    pub sram_size: c_uint,
    pub regs_base: c_uint,
    pub regs_size: c_uint,
    pub ioregs_n: off_t,
    pub ioregs_e: off_t,
    pub ioregs_s: off_t,
    pub ioregs_w: off_t,
}

const fn chip_name(s: &str) -> [c_char; 32] {
    let mut out = [0; 32];
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && i < 31 {
        out[i] = b[i] as c_char;
        i += 1;
    }
    out
}

#[allow(clippy::too_many_arguments)]
const fn chip_row(
    type_: c_int,
    name: &str,
    arch: c_uint,
    side: c_uint,
    e: off_t,
    s: off_t,
) -> e_chip_db_t {
    e_chip_db_t {
        objtype: E_EPI_CHIP,
        type_,
        version: chip_name(name),
        arch,
        rows: side,
        cols: side,
        sram_base: 0,
        sram_size: 0x8000,
        regs_base: 0xf0000,
        regs_size: 0x1000,
        ioregs_n: 0x002f_0000,
        ioregs_e: e,
        ioregs_s: s,
        ioregs_w: 0x080f_0000,
    }
}

/// The ESDK's table of chips (E16G301, E64G401, ESIM) with its figures;
/// the header declares it for programs that read it.
#[no_mangle]
pub static mut e_chip_params_table: [e_chip_db_t; 3] = [
    chip_row(0, "E16G301", 3, 4, 0x083f_0000, 0x0c2f_0000),
    chip_row(1, "E64G401", 4, 8, 0x087f_0000, 0x1c2f_0000),
    chip_row(2, "ESIM", 0, 4, 0x087f_0000, 0x1c2f_0000),
];

// ------------------------------------------------- the ee_* functions

/// The value of an `e_read` of 4 bytes, or E_ERR.
unsafe fn read_u32(dev: *mut c_void, row: c_uint, col: c_uint, addr: off_t) -> c_int {
    let mut v: u32 = 0;
    // SAFETY: v is 4 writable bytes; dev is the caller's.
    match unsafe { e_read(dev, row, col, addr, (&raw mut v).cast(), 4) } {
        4 => v as c_int,
        _ => E_ERR,
    }
}

/// `sizeof(int)` after an `e_write` of `data`, or E_ERR.
unsafe fn write_u32(dev: *mut c_void, row: c_uint, col: c_uint, addr: off_t, data: c_int) -> isize {
    // SAFETY: data is 4 readable bytes; dev is the caller's.
    match unsafe { e_write(dev, row, col, addr, (&raw const data).cast(), 4) } {
        4 => 4,
        _ => E_ERR as isize,
    }
}

/// A register offset as the ESDK's ee_*_reg take it: 0xf0xxx or 0xxxx.
fn reg_addr(addr: off_t) -> off_t {
    if (0..0x1000).contains(&addr) {
        addr + 0xF0000
    } else {
        addr
    }
}

#[no_mangle]
pub unsafe extern "C" fn ee_read_word(
    dev: *mut e_epiphany_t,
    row: c_uint,
    col: c_uint,
    from_addr: off_t,
) -> c_int {
    // SAFETY: the caller's arguments.
    unsafe { read_u32(dev.cast(), row, col, from_addr) }
}

#[no_mangle]
pub unsafe extern "C" fn ee_write_word(
    dev: *mut e_epiphany_t,
    row: c_uint,
    col: c_uint,
    to_addr: off_t,
    data: c_int,
) -> isize {
    // SAFETY: the caller's arguments.
    unsafe { write_u32(dev.cast(), row, col, to_addr, data) }
}

#[no_mangle]
pub unsafe extern "C" fn ee_read_buf(
    dev: *mut e_epiphany_t,
    row: c_uint,
    col: c_uint,
    from_addr: off_t,
    buf: *mut c_void,
    size: usize,
) -> isize {
    // SAFETY: the caller's arguments.
    unsafe { e_read(dev.cast(), row, col, from_addr, buf, size) }
}

#[no_mangle]
pub unsafe extern "C" fn ee_write_buf(
    dev: *mut e_epiphany_t,
    row: c_uint,
    col: c_uint,
    to_addr: off_t,
    buf: *const c_void,
    size: usize,
) -> isize {
    // SAFETY: the caller's arguments.
    unsafe { e_write(dev.cast(), row, col, to_addr, buf, size) }
}

#[no_mangle]
pub unsafe extern "C" fn ee_read_reg(
    dev: *mut e_epiphany_t,
    row: c_uint,
    col: c_uint,
    from_addr: off_t,
) -> c_int {
    // SAFETY: the caller's arguments.
    unsafe { read_u32(dev.cast(), row, col, reg_addr(from_addr)) }
}

#[no_mangle]
pub unsafe extern "C" fn ee_write_reg(
    dev: *mut e_epiphany_t,
    row: c_uint,
    col: c_uint,
    to_addr: off_t,
    data: c_int,
) -> isize {
    // SAFETY: the caller's arguments.
    unsafe { write_u32(dev.cast(), row, col, reg_addr(to_addr), data) }
}

#[no_mangle]
pub unsafe extern "C" fn ee_mread_word(mbuf: *mut e_mem_t, from_addr: off_t) -> c_int {
    // SAFETY: the caller's arguments.
    unsafe { read_u32(mbuf.cast(), 0, 0, from_addr) }
}

#[no_mangle]
pub unsafe extern "C" fn ee_mwrite_word(mbuf: *mut e_mem_t, to_addr: off_t, data: c_int) -> isize {
    // SAFETY: the caller's arguments.
    unsafe { write_u32(mbuf.cast(), 0, 0, to_addr, data) }
}

#[no_mangle]
pub unsafe extern "C" fn ee_mread_buf(
    mbuf: *mut e_mem_t,
    from_addr: off_t,
    buf: *mut c_void,
    size: usize,
) -> isize {
    // SAFETY: the caller's arguments.
    unsafe { e_read(mbuf.cast(), 0, 0, from_addr, buf, size) }
}

#[no_mangle]
pub unsafe extern "C" fn ee_mwrite_buf(
    mbuf: *mut e_mem_t,
    to_addr: off_t,
    buf: *const c_void,
    size: usize,
) -> isize {
    // SAFETY: the caller's arguments.
    unsafe { e_write(mbuf.cast(), 0, 0, to_addr, buf, size) }
}

#[no_mangle]
pub unsafe extern "C" fn ee_mread(
    mbuf: *mut e_mem_t,
    from_addr: off_t,
    buf: *mut c_void,
    size: usize,
) -> isize {
    // SAFETY: the caller's arguments.
    unsafe { ee_mread_buf(mbuf, from_addr, buf, size) }
}

#[no_mangle]
pub unsafe extern "C" fn ee_mwrite(
    mbuf: *mut e_mem_t,
    to_addr: off_t,
    buf: *const c_void,
    size: usize,
) -> isize {
    // SAFETY: the caller's arguments.
    unsafe { ee_mwrite_buf(mbuf, to_addr, buf, size) }
}

/// Checks that the `rows` x `cols` cores at (`row`, `col`) of the group
/// `g` exist (none of the arithmetic can wrap); `Err` holds `call`'s failed
/// return.
fn rect_in_group(
    call: &str,
    g: &e_epiphany_t,
    (row, col, rows, cols): (c_uint, c_uint, c_uint, c_uint),
) -> Result<(), c_int> {
    if rows == 0
        || cols == 0
        || u64::from(row) + u64::from(rows) > u64::from(g.rows)
        || u64::from(col) + u64::from(cols) > u64::from(g.cols)
    {
        return Err(fail(
            call,
            format!(
                "{rows} x {cols} cores at ({row},{col}) are outside the {} x {} group",
                g.rows, g.cols
            ),
        ));
    }
    Ok(())
}

/// Runs `f` on the cores of the `rows` x `cols` rectangle at (`row`,
/// `col`) of workgroup `dev`, as chip-relative coordinates.
///
/// # Safety
/// As [`group`].
unsafe fn on_rect(
    call: &str,
    dev: *mut e_epiphany_t,
    (row, col, rows, cols): (c_uint, c_uint, c_uint, c_uint),
    f: impl FnOnce(&Host, &[(u32, u32)]) -> Result<(), crate::HostError>,
) -> c_int {
    with_host(call, |h| {
        // SAFETY: the caller's contract.
        let g = match unsafe { group(call, dev) } {
            Ok(g) => g,
            Err(e) => return e,
        };
        if let Err(e) = rect_in_group(call, g, (row, col, rows, cols)) {
            return e;
        }
        let mut cores = Vec::with_capacity((rows * cols) as usize);
        for r in row..row + rows {
            for k in col..col + cols {
                match on_chip(call, h, g, r, k) {
                    Ok(rc) => cores.push(rc),
                    Err(e) => return e,
                }
            }
        }
        match f(h, &cores) {
            Ok(()) => E_OK,
            Err(e) => fail(call, e),
        }
    })
}

/// Resets one core of the group as `e_reset_group` resets each of its.
#[no_mangle]
pub unsafe extern "C" fn ee_reset_core(dev: *mut e_epiphany_t, row: c_uint, col: c_uint) -> c_int {
    // SAFETY: see on_rect().
    unsafe {
        on_rect("ee_reset_core", dev, (row, col, 1, 1), |h, c| {
            h.reset_cores(c)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn ee_reset_group(
    dev: *mut e_epiphany_t,
    row: c_uint,
    col: c_uint,
    rows: c_uint,
    cols: c_uint,
) -> c_int {
    // SAFETY: see on_rect().
    unsafe {
        on_rect("ee_reset_group", dev, (row, col, rows, cols), |h, c| {
            h.reset_cores(c)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn ee_start_group(
    dev: *mut e_epiphany_t,
    row: c_uint,
    col: c_uint,
    rows: c_uint,
    cols: c_uint,
) -> c_int {
    // SAFETY: see on_rect().
    unsafe {
        on_rect("ee_start_group", dev, (row, col, rows, cols), |h, c| {
            h.start(c)
        })
    }
}

/// Runs `f` on the group struct (arithmetic only), or returns `fallback`
/// for a NULL pointer.
unsafe fn fields<T: Copy>(
    call: &str,
    dev: *const e_epiphany_t,
    fallback: T,
    f: impl FnOnce(&e_epiphany_t) -> T,
) -> T {
    guard(call, fallback, || {
        if dev.is_null() {
            fail(call, "dev is NULL");
            return fallback;
        }
        // SAFETY: the caller passes an e_epiphany_t.
        f(unsafe { &*dev })
    })
}

#[no_mangle]
pub unsafe extern "C" fn ee_get_num_from_id(dev: *mut e_epiphany_t, coreid: c_uint) -> c_uint {
    // SAFETY: see fields().
    unsafe {
        fields("ee_get_num_from_id", dev, 0, |g| {
            let (r, c) = ((coreid >> 6) & 0x3f, coreid & 0x3f);
            c.wrapping_sub(g.col)
                .wrapping_add(r.wrapping_sub(g.row).wrapping_mul(g.cols))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn ee_get_id_from_coords(
    dev: *mut e_epiphany_t,
    row: c_uint,
    col: c_uint,
) -> c_uint {
    // SAFETY: see fields().
    unsafe {
        fields("ee_get_id_from_coords", dev, 0, |g| {
            g.col
                .wrapping_add(col)
                .wrapping_add(g.row.wrapping_add(row) << 6)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn ee_get_id_from_num(dev: *mut e_epiphany_t, corenum: c_uint) -> c_uint {
    // SAFETY: see fields().
    unsafe {
        fields("ee_get_id_from_num", dev, 0, |g| {
            if g.cols == 0 {
                fail("ee_get_id_from_num", "dev has no columns");
                return 0;
            }
            let (r, c) = (corenum / g.cols, corenum % g.cols);
            g.col
                .wrapping_add(c)
                .wrapping_add(g.row.wrapping_add(r) << 6)
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn ee_get_coords_from_id(
    dev: *mut e_epiphany_t,
    coreid: c_uint,
    row: *mut c_uint,
    col: *mut c_uint,
) {
    // SAFETY: see fields().
    unsafe {
        fields("ee_get_coords_from_id", dev, (), |g| {
            if row.is_null() || col.is_null() {
                fail("ee_get_coords_from_id", "row or col is NULL");
                return;
            }
            // (The caller passes two unsigned ints.)
            *row = ((coreid >> 6) & 0x3f).wrapping_sub(g.row);
            *col = (coreid & 0x3f).wrapping_sub(g.col);
        })
    }
}

// ------------------------------------------------------------ epsim_*

#[no_mangle]
pub extern "C" fn epsim_set_mode(mode: c_int) -> c_int {
    with_host("epsim_set_mode", |h| {
        let m = match mode {
            0 => RunMode::Free,
            1 => RunMode::Deterministic,
            _ => {
                return fail(
                    "epsim_set_mode",
                    format!("mode {mode}: expected EPSIM_FREE (0) or EPSIM_DETERMINISTIC (1)"),
                )
            }
        };
        h.set_mode(m);
        crate::dramwatch::set_mode(h, m);
        E_OK
    })
}

#[no_mangle]
pub extern "C" fn epsim_get_mode() -> c_int {
    with_host("epsim_get_mode", |h| match h.mode() {
        RunMode::Free => 0,
        RunMode::Deterministic => 1,
    })
}

#[no_mangle]
pub extern "C" fn epsim_run(cycles: c_ulonglong) -> c_int {
    with_host("epsim_run", |h| {
        let now = h.now();
        if now.checked_add(cycles).is_none_or(|end| end > CLOCK_LIMIT) {
            return fail(
                "epsim_run",
                format!(
                    "{cycles} cycles from cycle {now} would take the clock past its limit \
                     (2^63 cycles); nothing was run"
                ),
            );
        }
        h.run(cycles);
        E_OK
    })
}

#[no_mangle]
pub extern "C" fn epsim_step() -> c_int {
    epsim_run(1)
}

#[no_mangle]
pub extern "C" fn epsim_run_until_idle(max_cycles: c_ulonglong) -> c_int {
    with_host("epsim_run_until_idle", |h| {
        // A bound, not a target: ULLONG_MAX means "no bound", up to the
        // clock's limit.
        let max_cycles = max_cycles.min(CLOCK_LIMIT.saturating_sub(h.now()));
        if h.run_until_idle(max_cycles) {
            E_OK
        } else {
            E_WARN
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn epsim_run_until_cores_idle(
    rows: *const c_uint,
    cols: *const c_uint,
    n: c_uint,
    any: c_int,
    max_cycles: c_ulonglong,
) -> c_int {
    const CALL: &str = "epsim_run_until_cores_idle";
    with_host(CALL, |h| {
        if rows.is_null() || cols.is_null() {
            return fail(CALL, "rows or cols is NULL");
        }
        if n == 0 {
            return fail(CALL, "n is 0: no cores to wait for");
        }
        // SAFETY: the caller passes n coordinates in each array.
        let (rows, cols) = unsafe {
            (
                std::slice::from_raw_parts(rows, n as usize),
                std::slice::from_raw_parts(cols, n as usize),
            )
        };
        let cores: Vec<(u32, u32)> = rows.iter().copied().zip(cols.iter().copied()).collect();
        // A bound, as epsim_run_until_idle's.
        let max_cycles = max_cycles.min(CLOCK_LIMIT.saturating_sub(h.now()));
        match h.run_until_cores_idle(&cores, any != 0, max_cycles) {
            Ok(true) => E_OK,
            Ok(false) => E_WARN,
            Err(e) => fail(CALL, e),
        }
    })
}

#[no_mangle]
pub extern "C" fn epsim_core_idle(row: c_uint, col: c_uint) -> c_int {
    with_host("epsim_core_idle", |h| match h.core_idle(row, col) {
        Ok(idle) => c_int::from(idle),
        Err(e) => fail("epsim_core_idle", e),
    })
}

#[no_mangle]
pub unsafe extern "C" fn epsim_trace_start(path: *const c_char, format: c_int) -> c_int {
    const CALL: &str = "epsim_trace_start";
    with_host(CALL, |h| {
        if path.is_null() {
            return fail(CALL, "path is NULL");
        }
        // SAFETY: the caller passes a C string.
        let Ok(path) = (unsafe { CStr::from_ptr(path) }).to_str() else {
            return fail(CALL, "the path is not UTF-8");
        };
        let format = match format {
            0 => TraceFormat::Text,
            1 => TraceFormat::Json,
            _ => {
                return fail(
                    CALL,
                    format!("format {format}: expected 0 (text) or 1 (JSON lines)"),
                )
            }
        };
        match h.trace_start(Path::new(path), format) {
            Ok(()) => E_OK,
            Err(e) => {
                // Said at level error: the trace the caller asked for is
                // missing.
                log::say(Level::Error, format_args!("e-hal: {CALL}: {e}"));
                E_ERR
            }
        }
    })
}

#[no_mangle]
pub extern "C" fn epsim_trace_stop() -> c_int {
    with_host("epsim_trace_stop", |h| match h.trace_stop() {
        Ok(()) => E_OK,
        Err(e) => {
            log::say(
                Level::Error,
                format_args!("e-hal: epsim_trace_stop: the trace could not be written: {e}"),
            );
            E_ERR
        }
    })
}

#[no_mangle]
pub extern "C" fn epsim_now() -> c_ulonglong {
    guard("epsim_now", 0, || {
        global().as_ref().map_or(0, |g| g.host.now())
    })
}

#[no_mangle]
pub unsafe extern "C" fn epsim_stats(out: *mut epsim_stats_t) -> c_int {
    with_host("epsim_stats", |h| {
        if out.is_null() {
            return fail("epsim_stats", "out is NULL");
        }
        let s = h.stats();
        let v = epsim_stats_t {
            cycles: s.now,
            host_cycles: s.host_cycles,
            calls: s.calls,
            write_txns: s.write_txns,
            read_txns: s.read_txns,
            bytes_written: s.bytes_written,
            bytes_read: s.bytes_read,
            instret: s.instret,
        };
        // SAFETY: the caller passes a writable epsim_stats_t.
        unsafe { out.write(v) };
        E_OK
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    fn a_panic_inside_a_call_becomes_its_error_value() {
        let r: c_int = guard("test", E_ERR, || panic!("a bug"));
        assert_eq!(r, E_ERR);
        assert_eq!(guard("test", 7usize, || 3usize), 3);
    }

    /// The LP64 offsets stack.md §2.2 gives for the original headers.
    #[test]
    fn struct_layouts_match_the_original_headers() {
        assert_eq!(size_of::<e_platform_t>(), 112);
        assert_eq!(offset_of!(e_platform_t, chip), 56);
        assert_eq!(offset_of!(e_platform_t, rows), 72);
        assert_eq!(offset_of!(e_platform_t, cols), 76);
        assert_eq!(offset_of!(e_platform_t, emem), 88);
        assert_eq!(size_of::<e_chip_t>(), 120);
        assert_eq!(offset_of!(e_chip_t, rows), 56);
        assert_eq!(offset_of!(e_chip_t, cols), 60);
        assert_eq!(offset_of!(e_chip_t, num_cores), 64);
        assert_eq!(size_of::<e_epiphany_t>(), 56);
        assert_eq!(offset_of!(e_epiphany_t, row), 16);
        assert_eq!(offset_of!(e_epiphany_t, col), 20);
        assert_eq!(offset_of!(e_epiphany_t, rows), 24);
        assert_eq!(offset_of!(e_epiphany_t, cols), 28);
        assert_eq!(offset_of!(e_epiphany_t, core), 32);
        assert_eq!(size_of::<e_mem_t>(), 88);
        assert_eq!(offset_of!(e_mem_t, phy_base), 8);
        assert_eq!(offset_of!(e_mem_t, ephy_base), 40);
        assert_eq!(offset_of!(e_mem_t, base), 64);
        assert_eq!(size_of::<e_chip_db_t>(), 104);
        assert_eq!(offset_of!(e_chip_db_t, ioregs_e), 80);
    }
}
