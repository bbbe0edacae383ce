//! Host time is simulated time: a host program linked with libe-hal that
//! sleeps sees the chip advance by the simulated equivalent of the sleep,
//! and the clocks it reads follow the host's simulated clock (README "The
//! e-hal drop-in", "Host time").
//!
//! How: libe-hal defines `usleep`, `sleep`, `nanosleep`, `clock_nanosleep`,
//! `clock_gettime`, `gettimeofday`, `time` and `clock` (C ABI). For an
//! executable linked with `-le-hal`, libe-hal comes before libc in the
//! dynamic linker's lookup order, so the program's calls (and those of
//! every library it loaded the ordinary way) reach these definitions. They
//! forward to libc's own functions (found with `dlsym(RTLD_NEXT, ..)`)
//! unless host time is on: between `e_init` and `e_finalize`, with
//! `EPSIM_HOSTTIME` unset or `sim`, in a thread that is not one of the
//! library's own (the free-running chip's thread is marked), and only when
//! the program's own lookup of `clock_gettime` finds this library's (it
//! does not for a program that loads libe-hal with `dlopen(RTLD_LOCAL)`,
//! as Python's ctypes does, nor for Rust programs that link the crate:
//! their time stays real).
//!
//! While it is on:
//! * a sleep of `d` runs the chip (`d` + the thread's timer slack) x 600
//!   cycles/us (from the host's clock at the call, a slice at a time; in
//!   free mode the chip's own thread runs slices too) and returns when the
//!   host's clock has got there. The slack is what Linux adds to every
//!   sleep of a thread that is not real-time (`prctl(2)`
//!   `PR_GET_TIMERSLACK`, 50 us by default): on a board `usleep(1)` takes
//!   about 55 us, and a host that polls with short sleeps (Epiphany BSP's
//!   `clock_nanosleep` of 1 us) looks that much less often;
//! * `CLOCK_REALTIME`, `CLOCK_MONOTONIC` and the other wall clocks
//!   (`_RAW`, `_COARSE`, `BOOTTIME`, `TAI`, the `_ALARM` ones),
//!   `gettimeofday` and `time` read their value at `e_init` plus the
//!   host's clock since then at 600 MHz (cycles x 5/3 ns); e-hal calls
//!   advance it by their modelled cost, sleeps by their length;
//! * the CPU-time clocks (`CLOCK_PROCESS_CPUTIME_ID`,
//!   `CLOCK_THREAD_CPUTIME_ID`, `clock()`) read their value at `e_init`
//!   plus the same minus the time slept: the host's CPU time as on a board
//!   whose host is busy whenever it is not asleep.
//!
//! After `e_finalize` each clock goes on from where the simulated one was,
//! at the real rate (it never goes back).

use std::cell::Cell;
use std::ffi::{c_char, c_int, c_long, c_uint, c_void, CStr};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicPtr, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::host::{holds_lock, sleep_cycles, Host, Inner};

/// Simulated core cycles per microsecond (the Parallella's 600 MHz).
pub const CYCLES_PER_US: u64 = 600;

/// `struct timespec` (glibc, `time_t` and `long` the same size).
#[repr(C)]
#[allow(non_camel_case_types)]
pub struct timespec {
    pub tv_sec: c_long,
    pub tv_nsec: c_long,
}

/// `struct timeval`.
#[repr(C)]
#[allow(non_camel_case_types)]
pub struct timeval {
    pub tv_sec: c_long,
    pub tv_usec: c_long,
}

const CLOCK_PROCESS_CPUTIME_ID: c_int = 2;
const CLOCK_THREAD_CPUTIME_ID: c_int = 3;
/// Clock ids 0..NCLOCKS that follow simulated time (10 is unused).
const NCLOCKS: usize = 12;
const TIMER_ABSTIME: c_int = 1;
const EINVAL: c_int = 22;
const ENOSYS: c_int = 38;
const NS: i128 = 1_000_000_000;

/// Host time is on.
static ON: AtomicBool = AtomicBool::new(false);
/// The host's clock (cycles), published by the attached host.
static CLOCK: AtomicU64 = AtomicU64::new(0);
/// The host's clock at `e_init`.
static CLOCK0: AtomicU64 = AtomicU64::new(0);
/// Cycles slept through the functions here since `e_init`.
static SLEPT: AtomicU64 = AtomicU64::new(0);
/// Each clock's value (ns) at `e_init`, as the program saw it.
static BASE: [AtomicI64; NCLOCKS] = [const { AtomicI64::new(0) }; NCLOCKS];
/// Simulated minus real time (ns) of each clock after `e_finalize`.
static SKEW: [AtomicI64; NCLOCKS] = [const { AtomicI64::new(0) }; NCLOCKS];
/// The chip the sleeps run.
static HOST: Mutex<Option<Arc<Inner>>> = Mutex::new(None);

thread_local! {
    /// One of the library's own threads: its time is real.
    static INTERNAL: Cell<bool> = const { Cell::new(false) };
}

/// Marks this thread as one of the library's own: its sleeps and clock
/// reads are libc's.
pub(crate) fn mark_internal() {
    INTERNAL.with(|i| i.set(true));
}

fn internal() -> bool {
    INTERNAL.with(Cell::get)
}

/// Sets the host's clock the program reads (called by the attached host).
pub(crate) fn publish(cycles: u64) {
    CLOCK.fetch_max(cycles, Ordering::AcqRel);
}

/// Whether host time is on (between `e_init` and `e_finalize`).
pub fn is_on() -> bool {
    ON.load(Ordering::Acquire)
}

// ----------------------------------------------------------- libc's own

/// `Dl_info` of `dladdr(3)`.
#[repr(C)]
struct DlInfo {
    dli_fname: *const c_char,
    dli_fbase: *mut c_void,
    dli_sname: *const c_char,
    dli_saddr: *mut c_void,
}

extern "C" {
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dladdr(addr: *const c_void, info: *mut DlInfo) -> c_int;
    fn getauxval(kind: std::ffi::c_ulong) -> std::ffi::c_ulong;
    fn __errno_location() -> *mut c_int;
}

/// glibc's `RTLD_NEXT` and `RTLD_DEFAULT`.
const RTLD_NEXT: *mut c_void = -1isize as *mut c_void;
const RTLD_DEFAULT: *mut c_void = null_mut();

fn set_errno(e: c_int) {
    // SAFETY: glibc's per-thread errno.
    unsafe { *__errno_location() = e };
}

/// libc's definition of `name` (the next after this library), cached in
/// `slot`; null if there is none.
fn next(slot: &AtomicPtr<c_void>, name: &CStr) -> *mut c_void {
    let p = slot.load(Ordering::Acquire);
    if !p.is_null() {
        return p;
    }
    // SAFETY: dlsym with a C string.
    let p = unsafe { dlsym(RTLD_NEXT, name.as_ptr()) };
    slot.store(p, Ordering::Release);
    p
}

/// Declares `fn $name(..) -> $ret` calling libc's `$sym`, or returning
/// `$missing` (ENOSYS in errno) if there is none.
macro_rules! real {
    ($name:ident, $sym:literal, fn($($a:ident: $t:ty),*) -> $ret:ty, $missing:expr) => {
        fn $name($($a: $t),*) -> $ret {
            static SLOT: AtomicPtr<c_void> = AtomicPtr::new(null_mut());
            let p = next(&SLOT, $sym);
            if p.is_null() {
                set_errno(ENOSYS);
                return $missing;
            }
            // SAFETY: libc's function of that name has this signature.
            unsafe {
                let f: unsafe extern "C" fn($($t),*) -> $ret = std::mem::transmute(p);
                f($($a),*)
            }
        }
    };
}

real!(
    real_clock_gettime,
    c"clock_gettime",
    fn(clk: c_int, ts: *mut timespec) -> c_int,
    -1
);
real!(
    real_nanosleep,
    c"nanosleep",
    fn(req: *const timespec, rem: *mut timespec) -> c_int,
    -1
);
real!(
    real_clock_nanosleep,
    c"clock_nanosleep",
    fn(clk: c_int, flags: c_int, req: *const timespec, rem: *mut timespec) -> c_int,
    ENOSYS
);
real!(real_usleep, c"usleep", fn(us: c_uint) -> c_int, -1);
real!(real_sleep, c"sleep", fn(s: c_uint) -> c_uint, s);
real!(
    real_gettimeofday,
    c"gettimeofday",
    fn(tv: *mut timeval, tz: *mut c_void) -> c_int,
    -1
);
real!(real_time, c"time", fn(t: *mut c_long) -> c_long, -1);
real!(real_clock, c"clock", fn() -> c_long, -1);

/// Clock `clk` as libc reads it (ns), if it can.
fn real_ns(clk: c_int) -> Option<i128> {
    let mut ts = timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    (real_clock_gettime(clk, &mut ts) == 0).then(|| ts_ns(&ts))
}

/// Real monotonic time (ns), whatever thread asks: for the library's own
/// pacing (the free-running thread's turns with the host).
pub(crate) fn real_monotonic_ns() -> u64 {
    real_ns(1).map_or(0, |n| n as u64)
}

fn ts_ns(ts: &timespec) -> i128 {
    i128::from(ts.tv_sec) * NS + i128::from(ts.tv_nsec)
}

fn ns_ts(ns: i128) -> timespec {
    timespec {
        tv_sec: ns.div_euclid(NS) as c_long,
        tv_nsec: ns.rem_euclid(NS) as c_long,
    }
}

fn cycles_ns(cycles: u64) -> i128 {
    i128::from(cycles) * 1000 / i128::from(CYCLES_PER_US)
}

fn ns_cycles(ns: i128) -> u64 {
    let c = (ns.max(0) * i128::from(CYCLES_PER_US) + 999) / 1000;
    u64::try_from(c).unwrap_or(u64::MAX)
}

fn simulated_clock(clk: c_int) -> Option<usize> {
    usize::try_from(clk)
        .ok()
        .filter(|&c| c < NCLOCKS && c != 10)
}

fn cpu_clock(clk: c_int) -> bool {
    clk == CLOCK_PROCESS_CPUTIME_ID || clk == CLOCK_THREAD_CPUTIME_ID
}

/// Clock `clk` as the program sees it now (ns), if it is one of ours and
/// this thread is the program's: simulated while host time is on, real
/// plus the skew left by the last `e_finalize` otherwise.
fn program_ns(clk: c_int) -> Option<i128> {
    let c = simulated_clock(clk)?;
    if internal() {
        return None;
    }
    if is_on() {
        let mut cycles = CLOCK
            .load(Ordering::Acquire)
            .saturating_sub(CLOCK0.load(Ordering::Acquire));
        if cpu_clock(clk) {
            cycles = cycles.saturating_sub(SLEPT.load(Ordering::Acquire));
        }
        return Some(i128::from(BASE[c].load(Ordering::Acquire)) + cycles_ns(cycles));
    }
    let skew = SKEW[c].load(Ordering::Acquire);
    real_ns(clk).map(|n| n + i128::from(skew))
}

// ------------------------------------------------------ e_init, e_finalize

/// How `EPSIM_HOSTTIME` asks host time to be: true for simulated.
fn wanted() -> Result<bool, String> {
    match std::env::var("EPSIM_HOSTTIME").ok().as_deref() {
        None | Some("") | Some("sim") | Some("simulated") => Ok(true),
        Some("real") => Ok(false),
        Some(other) => Err(format!(
            "EPSIM_HOSTTIME={other:?}: expected \"sim\" (the default) or \"real\""
        )),
    }
}

/// Whether the program's calls reach this library's `clock_gettime` and
/// this library is a shared object (libe-hal), not a Rust program that
/// links the crate (whose own threads, a test harness's say, must keep
/// real time).
fn interposed() -> bool {
    let ours = clock_gettime as *const c_void;
    // SAFETY: dlsym with a C string.
    let found = unsafe { dlsym(RTLD_DEFAULT, c"clock_gettime".as_ptr()) };
    if !std::ptr::eq(found as *const c_void, ours) {
        return false;
    }
    // The object that holds `addr`: its base address.
    let base = |addr: *const c_void| {
        let mut info = DlInfo {
            dli_fname: std::ptr::null(),
            dli_fbase: null_mut(),
            dli_sname: std::ptr::null(),
            dli_saddr: null_mut(),
        };
        // SAFETY: dladdr fills `info`.
        (unsafe { dladdr(addr, &mut info) } != 0).then_some(info.dli_fbase)
    };
    // The main program's program headers (AT_PHDR) are in the main program.
    // SAFETY: getauxval reads the auxiliary vector.
    let main = unsafe { getauxval(3) } as *const c_void;
    match (base(ours), base(main)) {
        (Some(a), Some(b)) => a != b,
        _ => false,
    }
}

/// Makes `host`'s clock the program's (`e_init`), unless `EPSIM_HOSTTIME`
/// says `real` or the program's time functions are not ours. Errors name
/// a bad `EPSIM_HOSTTIME`.
pub(crate) fn attach(host: &Host) -> Result<(), String> {
    if !wanted()? || !interposed() {
        return Ok(());
    }
    let mut slot = HOST.lock().unwrap_or_else(PoisonError::into_inner);
    detach_locked(&mut slot);
    for clk in 0..NCLOCKS as c_int {
        if let (Some(c), Some(ns)) = (simulated_clock(clk), program_ns(clk)) {
            BASE[c].store(ns as i64, Ordering::Release);
        }
    }
    let inner = Arc::clone(host.shared());
    let mut g = inner.lock();
    CLOCK.store(g.now, Ordering::Release);
    CLOCK0.store(g.now, Ordering::Release);
    SLEPT.store(0, Ordering::Release);
    g.publish = true;
    drop(g);
    ON.store(true, Ordering::Release);
    *slot = Some(inner);
    Ok(())
}

/// Gives the program real time back (`e_finalize`), each clock going on
/// from its simulated value.
pub(crate) fn detach() {
    let mut slot = HOST.lock().unwrap_or_else(PoisonError::into_inner);
    detach_locked(&mut slot);
}

fn detach_locked(slot: &mut Option<Arc<Inner>>) {
    let Some(inner) = slot.take() else {
        return;
    };
    for clk in 0..NCLOCKS as c_int {
        if let (Some(c), Some(sim), Some(real)) =
            (simulated_clock(clk), program_ns(clk), real_ns(clk))
        {
            SKEW[c].store((sim - real) as i64, Ordering::Release);
        }
    }
    ON.store(false, Ordering::Release);
    inner.lock().publish = false;
}

extern "C" {
    fn prctl(option: c_int, ...) -> c_int;
    fn sched_getscheduler(pid: c_int) -> c_int;
}

/// `prctl(2)`'s `PR_GET_TIMERSLACK`.
const PR_GET_TIMERSLACK: c_int = 30;
/// `SCHED_FIFO` and `SCHED_RR`: real-time threads, which Linux gives no
/// slack.
const SCHED_FIFO: c_int = 1;
const SCHED_RR: c_int = 2;
/// Linux's default timer slack (ns), if the thread's cannot be read.
pub const DEFAULT_TIMER_SLACK_NS: i128 = 50_000;

/// The timer slack Linux adds to a sleep of the calling thread
/// (ns): its `PR_GET_TIMERSLACK`, none for a real-time thread.
fn timer_slack_ns() -> i128 {
    // SAFETY: plain system calls without pointers.
    let (policy, slack) = unsafe { (sched_getscheduler(0), prctl(PR_GET_TIMERSLACK)) };
    if policy == SCHED_FIFO || policy == SCHED_RR {
        return 0;
    }
    if slack < 0 {
        DEFAULT_TIMER_SLACK_NS
    } else {
        i128::from(slack)
    }
}

/// Sleeps `ns` of simulated time, plus the thread's timer slack, if host
/// time is on for this thread: true if it did, false if the caller is to
/// sleep in real time.
fn sim_sleep(ns: i128) -> bool {
    if internal() || !is_on() || holds_lock() {
        return false;
    }
    let inner = match HOST.lock().unwrap_or_else(PoisonError::into_inner).as_ref() {
        Some(i) => Arc::clone(i),
        None => return false,
    };
    let cycles = ns_cycles(ns + timer_slack_ns());
    SLEPT.fetch_add(cycles, Ordering::AcqRel);
    sleep_cycles(&inner, cycles);
    true
}

fn valid(ts: &timespec) -> bool {
    ts.tv_sec >= 0 && (0..1_000_000_000).contains(&ts.tv_nsec)
}

// ------------------------------------------------- the program's functions

/// `clock_gettime(3)`.
///
/// # Safety
/// `ts` is a writable `struct timespec`, as libc's asks.
#[no_mangle]
pub unsafe extern "C" fn clock_gettime(clk: c_int, ts: *mut timespec) -> c_int {
    match program_ns(clk) {
        Some(ns) if !ts.is_null() => {
            // SAFETY: the caller's timespec.
            unsafe { ts.write(ns_ts(ns)) };
            0
        }
        _ => real_clock_gettime(clk, ts),
    }
}

/// `gettimeofday(2)`.
///
/// # Safety
/// As libc's.
#[no_mangle]
pub unsafe extern "C" fn gettimeofday(tv: *mut timeval, tz: *mut c_void) -> c_int {
    match program_ns(0) {
        Some(ns) if tz.is_null() => {
            if !tv.is_null() {
                let ts = ns_ts(ns);
                // SAFETY: the caller's timeval.
                unsafe {
                    tv.write(timeval {
                        tv_sec: ts.tv_sec,
                        tv_usec: ts.tv_nsec / 1000,
                    })
                };
            }
            0
        }
        _ => real_gettimeofday(tv, tz),
    }
}

/// `time(2)`.
///
/// # Safety
/// `t` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn time(t: *mut c_long) -> c_long {
    match program_ns(0) {
        Some(ns) => {
            let s = ns.div_euclid(NS) as c_long;
            if !t.is_null() {
                // SAFETY: the caller's time_t.
                unsafe { t.write(s) };
            }
            s
        }
        None => real_time(t),
    }
}

/// `clock(3)`: CPU time in microseconds (`CLOCKS_PER_SEC` is 1000000).
#[no_mangle]
pub extern "C" fn clock() -> c_long {
    match program_ns(CLOCK_PROCESS_CPUTIME_ID) {
        Some(ns) => (ns / 1000) as c_long,
        None => real_clock(),
    }
}

/// `nanosleep(2)`.
///
/// # Safety
/// `req` is a readable timespec; `rem` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn nanosleep(req: *const timespec, rem: *mut timespec) -> c_int {
    if req.is_null() {
        return real_nanosleep(req, rem);
    }
    // SAFETY: the caller's timespec.
    let r = unsafe { &*req };
    if !valid(r) {
        set_errno(EINVAL);
        return -1;
    }
    if sim_sleep(ts_ns(r)) {
        0
    } else {
        real_nanosleep(req, rem)
    }
}

/// `clock_nanosleep(2)` (returns the error number).
///
/// # Safety
/// As `nanosleep`.
#[no_mangle]
pub unsafe extern "C" fn clock_nanosleep(
    clk: c_int,
    flags: c_int,
    req: *const timespec,
    rem: *mut timespec,
) -> c_int {
    if req.is_null() || cpu_clock(clk) {
        return real_clock_nanosleep(clk, flags, req, rem);
    }
    // SAFETY: the caller's timespec.
    let r = unsafe { &*req };
    if !valid(r) {
        return EINVAL;
    }
    let Some(now) = program_ns(clk) else {
        return real_clock_nanosleep(clk, flags, req, rem);
    };
    let ns = if flags & TIMER_ABSTIME != 0 {
        ts_ns(r) - now
    } else {
        ts_ns(r)
    };
    if ns <= 0 && is_on() && !internal() {
        return 0;
    }
    if sim_sleep(ns) {
        0
    } else {
        real_clock_nanosleep(clk, flags, req, rem)
    }
}

/// `usleep(3)`.
#[no_mangle]
pub extern "C" fn usleep(us: c_uint) -> c_int {
    if sim_sleep(i128::from(us) * 1000) {
        0
    } else {
        real_usleep(us)
    }
}

/// `sleep(3)`.
#[no_mangle]
pub extern "C" fn sleep(s: c_uint) -> c_uint {
    if sim_sleep(i128::from(s) * NS) {
        0
    } else {
        real_sleep(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycles_and_nanoseconds_convert_at_600_mhz() {
        assert_eq!(cycles_ns(600), 1000);
        assert_eq!(cycles_ns(3), 5);
        assert_eq!(ns_cycles(1000), 600);
        assert_eq!(ns_cycles(1), 1, "a sleep of any length runs a cycle");
        assert_eq!(ns_cycles(-5), 0);
        let ts = ns_ts(-1);
        assert_eq!((ts.tv_sec, ts.tv_nsec), (-1, 999_999_999));
        assert_eq!(ts_ns(&ns_ts(12_345_678_901)), 12_345_678_901);
    }

    #[test]
    fn a_rust_program_keeps_real_time() {
        // The test binary's lookup of clock_gettime is libc's (or its own,
        // not exported): host time never turns on for it.
        assert!(!interposed());
    }
}
