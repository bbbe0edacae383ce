//! Deterministic mode's watch on the DRAM pointer (README "The e-hal
//! drop-in", "Run modes"): a host program that polls a flag in shared DRAM
//! through the pointer `e_alloc`/`e_shm_alloc` gave it (ePython's host
//! does) makes no e-hal call, so in deterministic mode nothing else would
//! advance the chip and it would wait for ever. With the watch, every
//! instruction of the program that touches external memory through that
//! pointer runs the chip by [`ACCESS_CYCLES`] first, the cost of an
//! `e_read` of one word of DRAM, so a polling host sees the chip move as
//! it would polling with `e_read`, deterministically.
//!
//! How:
//! * **Two views of one memory.** The simulator's DRAM (the machine's
//!   byte buffer) is moved, in place and with its contents, onto a memfd
//!   (`mmap(MAP_FIXED | MAP_SHARED)` over the pages the allocation owns
//!   alone: a page-aligned buffer of whole pages, or glibc's own mapping of
//!   a large allocation, checked against `/proc/self/maps`), and the same
//!   memfd is mapped a second time for the program. The simulator and
//!   libe-hal's own code use the first view, which is always read-write;
//!   the pointers the program gets (`e_alloc`, `e_shm_alloc`,
//!   `e_shm_attach`, `e_shm_get_shmtable`) are into the second, which is
//!   `PROT_NONE` while the chip is in deterministic mode.
//! * **One access at a time.** An access of the program there faults
//!   (SIGSEGV). The handler runs the chip [`ACCESS_CYCLES`] from the
//!   host's clock (under the simulator's lock, as an e-hal call does),
//!   opens the page (or pages: an access that crosses into a second page,
//!   or an instruction with two memory operands, faults again and opens
//!   that one without a second charge), and returns with the x86 trap flag
//!   set in the interrupted context: the one faulting instruction
//!   completes, the CPU traps (SIGTRAP), and that handler clears the flag
//!   and closes the pages again. So each instruction that touches the
//!   window is charged once. Most such instructions are plain moves
//!   between a register (or an immediate) and memory: those the SIGSEGV
//!   handler does itself, still under the simulator's lock, on the
//!   simulator's view of the same bytes (`crate::x86move`, which checks
//!   its decoding against the faulting address), and returns past them:
//!   one signal and no `mprotect` instead of two of each. Everything else
//!   is stepped; a `rep movs`/`rep stos` traps after every
//!   element, so a string copy is charged per element (glibc's `memcpy`
//!   of 8 KB moves 8 bytes at a time here on x86-64: 1024 accesses).
//! * **A quiescent chip.** If, after that run, nothing on the chip can act
//!   until the host does (the run found nothing that could run: every
//!   core halted, or idle with no interrupt to take and no timer to wake
//!   it, no DMA, nothing in flight; `Sim::quiescent`, the test by which a
//!   host's sleep skips the clock ahead), running the chip would change
//!   nothing but the clock: the handler opens the whole view instead of
//!   the page and does not step. Accesses through the pointer are then
//!   free (no simulated time) until the simulator's lock is next taken
//!   (`Inner::lock`: every e-hal call that touches the chip, a sleep of
//!   the host, another thread's call), which closes the view again
//!   (`close_view`) before the call does anything. So a host's bulk
//!   set-up before `e_start` and its checks after the cores have finished
//!   cost one access each, while a host polling a running chip pays every
//!   access; the points where the view opens and closes are the program's
//!   own, so this is as deterministic as the rest. (Only the view server's
//!   looks at the machine, `Inner::look`, leave the view as it is.)
//! * **Returning without `rt_sigreturn` (x86 and x86-64).** A 32-bit
//!   process on a 64-bit kernel pays for `rt_sigreturn` dearly: on the
//!   2-core VM a fault, handler and return cost 11.4 us, 2.7 us of them
//!   with the return done in user space (a C micro-benchmark, session 26);
//!   a 64-bit process 3.9-4.3 us, 3.0-3.2 us so (session 27). There the
//!   SIGSEGV handler is installed with `SA_NODEFER` (SIGSEGV is not
//!   blocked while it runs, so nothing needs unblocking afterwards), and
//!   when it did the access itself or opened the whole view (not when it
//!   steps: the trap flag must take effect through the kernel's return),
//!   it restores the FPU, SSE and AVX state the kernel saved in the signal
//!   frame (`XRSTOR` with the frame's own feature mask, else `FXRSTOR`),
//!   the general registers and flags from the frame, and jumps back
//!   ([`resume`]). Any frame it does not recognise takes the kernel's way.
//! * **Chaining.** Faults and traps that are not the watch's (outside the
//!   window, or a trap when this thread is not stepping) go to the
//!   handler that was installed before (a crash as before for the
//!   default action).
//!
//! Not covered, or not deterministic (README): system calls given a pointer
//! into the window fail with `EFAULT` while it is protected (the kernel
//! does not fault for the program: `write(fd, p, n)` from shared DRAM; copy
//! through a buffer of your own; it works while the view is open); several
//! threads touching the window: each access is charged, but their order is
//! the OS's, and one thread's access may go through unseen while another's
//! is being stepped on the same page, or be charged again while the view is
//! open (a step ending in another thread closed its page); a program that
//! installs its own SIGSEGV or SIGTRAP handler after `e_init` replaces the
//! watch; a debugger sees the single-step traps; an access in a signal
//! handler that interrupted an access through the pointer is not charged.
//! Only the C drop-in's pointers are watched (not [`Host::dram_ptr`] of the
//! Rust API), only in deterministic mode, and only for pointers handed out
//! while the chip was in deterministic mode (earlier ones keep the plain
//! view).
//! `EPSIM_DRAMWATCH=off` turns the watch off.

use std::cell::Cell;
use std::ffi::{c_int, c_void};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::host::{holds_lock, Host, Inner, CALL_CYCLES, DRAM_TXN_CYCLES};
use crate::log::{self, Level};

/// Cycles an access of the program through the DRAM pointer runs the chip
/// in deterministic mode: as an `e_read` of one word of DRAM (the call and
/// one 8-byte transaction).
pub const ACCESS_CYCLES: u64 = CALL_CYCLES + DRAM_TXN_CYCLES;

/// The x86 trap flag in EFLAGS.
#[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
const TRAP_FLAG: libc::greg_t = 0x100;
/// `si_code` of a single-step trap.
const TRAP_TRACE: c_int = 2;
/// Pages one instruction may open (two operands, each crossing a page).
const MAX_OPEN: usize = 4;

/// The watched DRAM of the chip now open.
struct Watch {
    inner: Arc<Inner>,
    /// The simulator's view: the machine's DRAM buffer.
    sim: usize,
    /// The pages moved onto the memfd, from `map` (`sim` is inside).
    map: usize,
    map_len: usize,
    /// The program's mapping of the same pages; its pointers are
    /// `view + (sim - map) + offset`.
    view: usize,
    page: usize,
    /// PROT_NONE (deterministic mode).
    armed: AtomicBool,
    /// Threads stepping an instruction on each page of the view.
    open: Box<[AtomicU32]>,
}

impl Watch {
    fn program_base(&self) -> usize {
        self.view + (self.sim - self.map)
    }

    fn in_view(&self, a: usize) -> bool {
        a >= self.view && a - self.view < self.map_len
    }

    fn protect(&self, page: usize, len: usize, open: bool) {
        let prot = if open {
            libc::PROT_READ | libc::PROT_WRITE
        } else {
            libc::PROT_NONE
        };
        // SAFETY: `page..page + len` lies in the view, which is ours.
        unsafe { libc::mprotect(page as *mut c_void, len, prot) };
    }
}

/// The watch, for the signal handlers (null: none).
static WATCH: AtomicPtr<Watch> = AtomicPtr::new(null_mut());
/// Signal handlers using `WATCH` now.
static USERS: AtomicUsize = AtomicUsize::new(0);
/// Set-up and tear-down (the handlers only read `WATCH`).
static SETUP: Mutex<()> = Mutex::new(());
/// The whole view is open: the chip was quiescent at the last access
/// (see [`close_view`]).
static WIDE: AtomicBool = AtomicBool::new(false);
/// Accesses charged, done in the handler, stepped (said at `detach`).
static CHARGED: AtomicU64 = AtomicU64::new(0);
static EMULATED: AtomicU64 = AtomicU64::new(0);
static STEPPED: AtomicU64 = AtomicU64::new(0);
/// `EPSIM_DRAMWATCH` allows the watch (read at `e_init`).
static ENABLED: AtomicBool = AtomicBool::new(true);
/// The handlers are installed (once per process); the ones before them.
static INSTALLED: AtomicBool = AtomicBool::new(false);
static PREV: AtomicPtr<[libc::sigaction; 2]> = AtomicPtr::new(null_mut());

/// What this thread is stepping.
#[derive(Clone, Copy)]
struct Step {
    active: bool,
    n: usize,
    pages: [usize; MAX_OPEN],
}

thread_local! {
    static STEP: Cell<Step> = const {
        Cell::new(Step {
            active: false,
            n: 0,
            pages: [0; MAX_OPEN],
        })
    };
}

/// Reads `EPSIM_DRAMWATCH` (`on`, the default; `sigreturn`: watched, the
/// handler always returning through the kernel; `off`) at `e_init`.
pub(crate) fn check_env() -> Result<(), String> {
    let (on, resume) = match std::env::var("EPSIM_DRAMWATCH").ok().as_deref() {
        None | Some("") | Some("on") => (true, true),
        Some("sigreturn") => (true, false),
        Some("off") => (false, false),
        Some(other) => {
            return Err(format!(
                "EPSIM_DRAMWATCH={other:?}: expected \"on\" (the default), \"sigreturn\" or \"off\""
            ))
        }
    };
    ENABLED.store(on, Ordering::Release);
    RESUME.store(
        resume && cfg!(any(target_arch = "x86", target_arch = "x86_64")),
        Ordering::Relaxed,
    );
    Ok(())
}

/// The watch of `h`'s DRAM, if it has one.
fn watch_of(h: &Host) -> Option<&'static Watch> {
    let w = WATCH.load(Ordering::Acquire);
    // SAFETY: a published watch lives until `detach`, which the caller's
    // e-hal lock (held by every caller) keeps from running meanwhile.
    let w = unsafe { w.as_ref() }?;
    (w.sim == h.dram_ptr() as usize).then_some(w)
}

/// The DRAM pointer to give the program: the watched view if `h` is in
/// deterministic mode (set up now if need be) or already has one, else
/// the simulator's own.
pub(crate) fn program_ptr(h: &Host) -> *mut u8 {
    if let Some(w) = watch_of(h) {
        return w.program_base() as *mut u8;
    }
    if !ENABLED.load(Ordering::Acquire) || h.mode() != crate::RunMode::Deterministic {
        return h.dram_ptr();
    }
    match setup(h) {
        Ok(w) => w.program_base() as *mut u8,
        Err(e) => {
            log::say(
                Level::Warn,
                format_args!(
                    "epsim: the DRAM pointer cannot be watched ({e}): in deterministic mode \
                     a host that polls DRAM through it without calling e-hal waits for ever"
                ),
            );
            ENABLED.store(false, Ordering::Release);
            h.dram_ptr()
        }
    }
}

/// The DRAM offset of host address `p`, a pointer into either view of
/// `h`'s DRAM.
pub(crate) fn offset_of(h: &Host, p: usize) -> Option<usize> {
    let size = h.dram_size() as usize;
    let plain = p.wrapping_sub(h.dram_ptr() as usize);
    if plain < size {
        return Some(plain);
    }
    let w = watch_of(h)?;
    let o = p.wrapping_sub(w.program_base());
    (o < size).then_some(o)
}

/// Arms (deterministic) or disarms (free) the watch of `h`, if any.
pub(crate) fn set_mode(h: &Host, mode: crate::RunMode) {
    if let Some(w) = watch_of(h) {
        let on = mode == crate::RunMode::Deterministic;
        let _s = SETUP.lock().unwrap_or_else(PoisonError::into_inner);
        // (Taking the lock closes a view the chip's quiescence opened.)
        let _g = w.inner.lock();
        w.armed.store(on, Ordering::Release);
        w.protect(w.view, w.map_len, !on);
    }
}

/// Closes the program's view again if the chip's quiescence opened it
/// whole: called by every taker of the simulator's lock but the view
/// server's looks (`Inner::lock`), so before every e-hal call that can
/// make the chip act, a sleep of the host, an access charged here.
#[inline]
pub(crate) fn close_view() {
    if WIDE.load(Ordering::Acquire) {
        close_wide();
    }
}

#[cold]
fn close_wide() {
    USERS.fetch_add(1, Ordering::AcqRel);
    // SAFETY: USERS keeps a published watch alive (detach waits).
    let w = unsafe { WATCH.load(Ordering::Acquire).as_ref() };
    if WIDE.swap(false, Ordering::AcqRel) {
        if let Some(w) = w.filter(|w| w.armed.load(Ordering::Acquire)) {
            w.protect(w.view, w.map_len, false);
        }
    }
    USERS.fetch_sub(1, Ordering::AcqRel);
}

fn os_error(what: &str) -> String {
    format!("{what}: {}", std::io::Error::last_os_error())
}

/// The pages `[start, start + len)` that hold the `size`-byte allocation
/// at `sim` and nothing else, if they can be told.
fn owned_pages(sim: usize, size: usize, page: usize) -> Result<(usize, usize), String> {
    let word = std::mem::size_of::<usize>();
    let (start, len) = if sim.is_multiple_of(page) && size.is_multiple_of(page) {
        // A page-aligned buffer of whole pages.
        (sim, size)
    } else if (2 * word..=4 * word).contains(&(sim % page)) {
        // glibc serves a large allocation from a mapping of its own: the
        // chunk's header, two words (prev_size: the bytes the chunk starts
        // into the mapping, to align the buffer; size | IS_MMAPPED, 2),
        // then the buffer; the mapping is prev_size + size, whole pages.
        // SAFETY: the header is in the allocation's first page, just before it.
        let (prev, head) = unsafe {
            (
                ((sim - 2 * word) as *const usize).read(),
                ((sim - word) as *const usize).read(),
            )
        };
        let chunk = head & !7;
        let start = (sim - 2 * word).wrapping_sub(prev);
        if head & 2 == 0
            || !start.is_multiple_of(page)
            || start > sim
            || !(chunk.wrapping_add(prev)).is_multiple_of(page)
            || chunk < size + 2 * word
        {
            return Err("the memory is not a mapping of its own".into());
        }
        (start, prev + chunk)
    } else {
        return Err("the memory is not page-aligned".into());
    };
    // Cross-check: a private anonymous read-write mapping holds it all.
    let maps =
        std::fs::read_to_string("/proc/self/maps").map_err(|e| format!("/proc/self/maps: {e}"))?;
    let inside = maps.lines().any(|l| {
        let mut f = l.split_whitespace();
        let (Some(range), Some(perms)) = (f.next(), f.next()) else {
            return false;
        };
        let path = f.nth(3);
        let Some((a, b)) = range.split_once('-') else {
            return false;
        };
        let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16)) else {
            return false;
        };
        a <= start && start + len <= b && perms == "rw-p" && path.is_none()
    });
    if !inside {
        return Err("the memory is not in an anonymous mapping".into());
    }
    Ok((start, len))
}

/// Moves `h`'s DRAM onto a memfd, maps it a second time for the program,
/// installs the handlers and publishes the watch, armed.
fn setup(h: &Host) -> Result<&'static Watch, String> {
    let _s = SETUP.lock().unwrap_or_else(PoisonError::into_inner);
    if !CAN_STEP {
        return Err("it needs the x86 trap flag: x86-64 or i686 only".into());
    }
    if !WATCH.load(Ordering::Acquire).is_null() {
        return Err("another chip's DRAM is watched".into());
    }
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
    let sim = h.dram_ptr() as usize;
    let size = h.dram_size() as usize;
    let (map, map_len) = owned_pages(sim, size, page)?;
    install()?;
    // SAFETY: plain system calls on memory of our own; the simulator's
    // pages are replaced under its lock, their contents copied first.
    unsafe {
        let fd = libc::memfd_create(c"epsim-dram".as_ptr(), libc::MFD_CLOEXEC);
        if fd < 0 {
            return Err(os_error("memfd_create"));
        }
        let close = |e: String| {
            libc::close(fd);
            e
        };
        if libc::ftruncate(fd, map_len as libc::off_t) != 0 {
            return Err(close(os_error("ftruncate")));
        }
        let rw = libc::PROT_READ | libc::PROT_WRITE;
        let view = libc::mmap(null_mut(), map_len, rw, libc::MAP_SHARED, fd, 0);
        if view == libc::MAP_FAILED {
            return Err(close(os_error("mmap")));
        }
        {
            let _g = h.shared().lock();
            std::ptr::copy_nonoverlapping(map as *const u8, view.cast::<u8>(), map_len);
            let at = libc::mmap(
                map as *mut c_void,
                map_len,
                rw,
                libc::MAP_SHARED | libc::MAP_FIXED,
                fd,
                0,
            );
            if at != map as *mut c_void {
                let e = os_error("mmap over the DRAM");
                libc::munmap(view, map_len);
                return Err(close(e));
            }
        }
        libc::close(fd);
        let pages = map_len.div_ceil(page);
        let w = Box::new(Watch {
            inner: Arc::clone(h.shared()),
            sim,
            map,
            map_len,
            view: view as usize,
            page,
            armed: AtomicBool::new(true),
            open: (0..pages).map(|_| AtomicU32::new(0)).collect(),
        });
        w.protect(w.view, map_len, false);
        let w = Box::leak(w);
        WATCH.store(w, Ordering::Release);
        Ok(w)
    }
}

/// Ends the watch of `h`'s DRAM (`e_finalize`, before the host is dropped):
/// the program's view is unmapped and the simulator's pages are private
/// anonymous memory again, with their contents, as the allocator made
/// them (it may reuse them).
pub(crate) fn detach(h: &Host) {
    let _s = SETUP.lock().unwrap_or_else(PoisonError::into_inner);
    let Some(w) = watch_of(h) else {
        return;
    };
    let w = w as *const Watch as *mut Watch;
    WATCH.store(null_mut(), Ordering::Release);
    WIDE.store(false, Ordering::Release);
    while USERS.load(Ordering::Acquire) > 0 {
        std::thread::yield_now();
    }
    // SAFETY: unpublished and unused: ours alone.
    let w = unsafe { Box::from_raw(w) };
    log::say(
        Level::Debug,
        format_args!(
            "epsim: the DRAM pointer's watch: {} accesses charged, {} moves done in the handler, \
             {} instructions stepped",
            CHARGED.swap(0, Ordering::Relaxed),
            EMULATED.swap(0, Ordering::Relaxed),
            STEPPED.swap(0, Ordering::Relaxed)
        ),
    );
    // The chip stands still meanwhile (a free-running one too).
    let _g = h.shared().lock();
    // SAFETY: the pages are the allocation's (owned_pages): a private copy
    // of them is moved over them. If that fails they stay on the memfd,
    // which is memory all the same.
    unsafe {
        let rw = libc::PROT_READ | libc::PROT_WRITE;
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
        let tmp = libc::mmap(null_mut(), w.map_len, rw, flags, -1, 0);
        if tmp != libc::MAP_FAILED {
            std::ptr::copy_nonoverlapping(w.map as *const u8, tmp.cast::<u8>(), w.map_len);
            let fixed = libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED;
            let at = libc::mremap(tmp, w.map_len, w.map_len, fixed, w.map as *mut c_void);
            if at != w.map as *mut c_void {
                libc::munmap(tmp, w.map_len);
            }
        }
        libc::munmap(w.view as *mut c_void, w.map_len);
    }
}

// ------------------------------------------------------------ the handlers

/// Installs the SIGSEGV and SIGTRAP handlers (once), keeping the ones
/// before them for the faults and traps that are not the watch's.
fn install() -> Result<(), String> {
    if INSTALLED.load(Ordering::Acquire) {
        return Ok(());
    }
    // SAFETY: sigaction with handlers of the right signature; the old
    // actions are stored before the new ones can run.
    unsafe {
        let prev = Box::leak(Box::new([std::mem::zeroed::<libc::sigaction>(); 2]));
        for (i, sig) in [libc::SIGSEGV, libc::SIGTRAP].into_iter().enumerate() {
            if libc::sigaction(sig, std::ptr::null(), &mut prev[i]) != 0 {
                return Err(os_error("sigaction"));
            }
        }
        PREV.store(prev, Ordering::Release);
        for (sig, f) in [
            (libc::SIGSEGV, on_segv as *const () as usize),
            (libc::SIGTRAP, on_trap as *const () as usize),
        ] {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = f;
            sa.sa_flags = libc::SA_SIGINFO;
            if sig == libc::SIGSEGV && cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
                // `resume` returns from the handler without the kernel:
                // the signal must not be blocked while it runs.
                sa.sa_flags |= libc::SA_NODEFER;
            }
            libc::sigemptyset(&mut sa.sa_mask);
            if libc::sigaction(sig, &sa, null_mut()) != 0 {
                return Err(os_error("sigaction"));
            }
        }
    }
    INSTALLED.store(true, Ordering::Release);
    Ok(())
}

/// Whether single-stepping is implemented here (x86-64, i686).
const CAN_STEP: bool = cfg!(any(target_arch = "x86_64", target_arch = "x86"));

/// Sets or clears the x86 trap flag in an interrupted context.
///
/// # Safety
/// `ctx` is the `ucontext_t` a SA_SIGINFO handler was given.
#[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
unsafe fn set_trap_flag(ctx: *mut c_void, on: bool) {
    // SAFETY: as the caller promises.
    let efl =
        unsafe { &mut (*ctx.cast::<libc::ucontext_t>()).uc_mcontext.gregs[libc::REG_EFL as usize] };
    if on {
        *efl |= TRAP_FLAG;
    } else {
        *efl &= !TRAP_FLAG;
    }
}

/// No single-stepping elsewhere (`setup` refuses).
#[cfg(not(any(target_arch = "x86_64", target_arch = "x86")))]
unsafe fn set_trap_flag(_ctx: *mut c_void, _on: bool) {}

extern "C" fn on_segv(sig: c_int, info: *mut libc::siginfo_t, ctx: *mut c_void) {
    // SAFETY: __errno_location is the thread's errno.
    let errno = unsafe { *libc::__errno_location() };
    USERS.fetch_add(1, Ordering::AcqRel);
    // SAFETY: the kernel's siginfo.
    let (code, addr) = unsafe { ((*info).si_code, (*info).si_addr() as usize) };
    // SAFETY: USERS keeps a published watch alive (detach waits).
    let w = unsafe { WATCH.load(Ordering::Acquire).as_ref() };
    let ours = match w {
        Some(w) if code > 0 && w.in_view(addr) => {
            // A panic must not unwind out of a signal handler.
            let _ = std::panic::catch_unwind(|| fault(w, addr, ctx));
            true
        }
        _ => false,
    };
    USERS.fetch_sub(1, Ordering::AcqRel);
    // SAFETY: as above.
    unsafe { *libc::__errno_location() = errno };
    if !ours {
        // SAFETY: passes on the kernel's arguments.
        unsafe { chain(0, sig, info, ctx) };
    } else if RESUME.load(Ordering::Relaxed) {
        // SAFETY: the handler's own context, at the handler's end (nothing
        // of it is left to drop); returns only if it cannot resume.
        unsafe { resume(ctx) };
    }
}

/// Whether [`resume`] may return from the SIGSEGV handler (x86 and
/// x86-64; `EPSIM_DRAMWATCH=sigreturn` leaves the return to the kernel).
static RESUME: AtomicBool = AtomicBool::new(cfg!(any(target_arch = "x86", target_arch = "x86_64")));

/// `FP_XSTATE_MAGIC1` and `MAGIC2` of Linux's signal frames: the frame's
/// FPU area is an XSAVE image, its size and feature mask in the
/// `sw_reserved` bytes of the FXSAVE part.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
const XSTATE_MAGIC1: u32 = 0x4650_5853;
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
const XSTATE_MAGIC2: u32 = 0x4650_5845;

/// The end of [`resume`]'s assembly, after the FPU state: with `ecx` at
/// the frame's `gregs` (glibc's i386 order: gs fs es ds edi esi ebp esp
/// ebx edx ecx eax trapno err eip cs efl), builds `popad`'s eight words,
/// the flags and the instruction pointer just below the interrupted
/// stack pointer (the frame lies below it; its FPU image, there, is read
/// already) and pops them. Integer instructions only: the FPU state is
/// the interrupted code's from the first line on.
#[cfg(target_arch = "x86")]
macro_rules! resume_tail {
    () => {
        concat!(
            "mov edx, [ecx + 4*7]\n",
            "sub edx, 40\n",
            "mov eax, [ecx + 4*4]\n",
            "mov [edx], eax\n",
            "mov eax, [ecx + 4*5]\n",
            "mov [edx + 4], eax\n",
            "mov eax, [ecx + 4*6]\n",
            "mov [edx + 8], eax\n",
            "mov eax, [ecx + 4*8]\n",
            "mov [edx + 16], eax\n",
            "mov eax, [ecx + 4*9]\n",
            "mov [edx + 20], eax\n",
            "mov eax, [ecx + 4*10]\n",
            "mov [edx + 24], eax\n",
            "mov eax, [ecx + 4*11]\n",
            "mov [edx + 28], eax\n",
            "mov eax, [ecx + 4*16]\n",
            "mov [edx + 32], eax\n",
            "mov eax, [ecx + 4*14]\n",
            "mov [edx + 36], eax\n",
            "mov esp, edx\n",
            "popad\n",
            "popfd\n",
            "ret",
        )
    };
}

/// Returns to the code the SIGSEGV handler interrupted, as the kernel's
/// `rt_sigreturn` would, but in user space (module docs): the FPU/SSE/AVX
/// state from the frame's image, the general registers, flags and
/// instruction pointer from its `gregs`. Returns (doing nothing) if the
/// trap flag is set (a step: the kernel must return) or the frame's FPU
/// area is not one this knows (no FXSR image, misaligned, XSAVE magic
/// numbers wrong).
///
/// # Safety
/// `ctx` is the `ucontext_t` the kernel gave this thread's running
/// SIGSEGV handler, installed with `SA_NODEFER` and an empty mask, and
/// nothing of the handler is left to drop.
#[cfg(target_arch = "x86")]
unsafe fn resume(ctx: *mut c_void) {
    // SAFETY: the kernel's context and FPU frame, as the caller promises.
    unsafe {
        let uc = ctx.cast::<libc::ucontext_t>();
        let g = &raw const (*uc).uc_mcontext.gregs;
        if (*g)[libc::REG_EFL as usize] & TRAP_FLAG != 0 {
            return;
        }
        let fp = (*uc).uc_mcontext.fpregs.cast::<u8>();
        // The FSAVE header (112 bytes, its `magic` 0 when an FXSAVE image
        // follows), then the image.
        if fp.is_null() || fp.add(110).cast::<u16>().read_unaligned() != 0 {
            return;
        }
        let image = fp.add(112);
        let regs = g.cast::<u32>();
        // (`extended_size` counts from the FSAVE header on a 32-bit frame.)
        match fpu_image(fp, image) {
            None => {}
            Some(Some(features)) => std::arch::asm!(
                "xrstor [edi]",
                resume_tail!(),
                in("edi") image,
                in("eax") features as u32,
                in("edx") (features >> 32) as u32,
                in("ecx") regs,
                options(noreturn),
            ),
            Some(None) => std::arch::asm!(
                "fxrstor [edi]",
                resume_tail!(),
                in("edi") image,
                in("ecx") regs,
                options(noreturn),
            ),
        }
    }
}

/// The end of the x86-64 [`resume`]'s assembly, after the FPU state: with
/// `rcx` at the frame's `gregs` (glibc's x86-64 order: r8-r15 rdi rsi rbp
/// rbx rdx rax rcx rsp rip efl ...), writes the first fifteen in that
/// (pop) order, the flags and the instruction pointer below the
/// interrupted stack pointer's 128-byte red zone, where the kernel put the
/// frame (the FPU image there is read already; the registers lie lower),
/// pops them and returns past the red zone (`ret 128`). Integer
/// instructions only.
#[cfg(target_arch = "x86_64")]
macro_rules! resume_tail_64 {
    () => {
        concat!(
            "mov rsi, [rcx + 8*15]\n",
            "sub rsi, 128 + 8*17\n",
            "mov rax, [rcx]\n",
            "mov [rsi], rax\n",
            "mov rax, [rcx + 8]\n",
            "mov [rsi + 8], rax\n",
            "mov rax, [rcx + 8*2]\n",
            "mov [rsi + 8*2], rax\n",
            "mov rax, [rcx + 8*3]\n",
            "mov [rsi + 8*3], rax\n",
            "mov rax, [rcx + 8*4]\n",
            "mov [rsi + 8*4], rax\n",
            "mov rax, [rcx + 8*5]\n",
            "mov [rsi + 8*5], rax\n",
            "mov rax, [rcx + 8*6]\n",
            "mov [rsi + 8*6], rax\n",
            "mov rax, [rcx + 8*7]\n",
            "mov [rsi + 8*7], rax\n",
            "mov rax, [rcx + 8*8]\n",
            "mov [rsi + 8*8], rax\n",
            "mov rax, [rcx + 8*9]\n",
            "mov [rsi + 8*9], rax\n",
            "mov rax, [rcx + 8*10]\n",
            "mov [rsi + 8*10], rax\n",
            "mov rax, [rcx + 8*11]\n",
            "mov [rsi + 8*11], rax\n",
            "mov rax, [rcx + 8*12]\n",
            "mov [rsi + 8*12], rax\n",
            "mov rax, [rcx + 8*13]\n",
            "mov [rsi + 8*13], rax\n",
            "mov rax, [rcx + 8*14]\n",
            "mov [rsi + 8*14], rax\n",
            "mov rax, [rcx + 8*17]\n",
            "mov [rsi + 8*15], rax\n",
            "mov rax, [rcx + 8*16]\n",
            "mov [rsi + 8*16], rax\n",
            "mov rsp, rsi\n",
            "pop r8\n",
            "pop r9\n",
            "pop r10\n",
            "pop r11\n",
            "pop r12\n",
            "pop r13\n",
            "pop r14\n",
            "pop r15\n",
            "pop rdi\n",
            "pop rsi\n",
            "pop rbp\n",
            "pop rbx\n",
            "pop rdx\n",
            "pop rax\n",
            "pop rcx\n",
            "popfq\n",
            "ret 128",
        )
    };
}

/// [`resume`] for x86-64: as the 32-bit one, the frame's FPU area being
/// the FXSAVE/XSAVE image itself (`extended_size` counts from it) and the
/// registers put back below the red zone.
///
/// # Safety
/// As the 32-bit [`resume`].
#[cfg(target_arch = "x86_64")]
unsafe fn resume(ctx: *mut c_void) {
    // SAFETY: the kernel's context and FPU frame, as the caller promises.
    unsafe {
        let uc = ctx.cast::<libc::ucontext_t>();
        let g = &raw const (*uc).uc_mcontext.gregs;
        if (*g)[libc::REG_EFL as usize] & TRAP_FLAG != 0 {
            return;
        }
        let image = (*uc).uc_mcontext.fpregs.cast::<u8>();
        if image.is_null() {
            return;
        }
        let regs = g.cast::<u64>();
        match fpu_image(image, image) {
            None => {}
            Some(Some(features)) => std::arch::asm!(
                "xrstor64 [rdi]",
                resume_tail_64!(),
                in("rdi") image,
                in("eax") features as u32,
                in("edx") (features >> 32) as u32,
                in("rcx") regs,
                options(noreturn),
            ),
            Some(None) => std::arch::asm!(
                "fxrstor64 [rdi]",
                resume_tail_64!(),
                in("rdi") image,
                in("rcx") regs,
                options(noreturn),
            ),
        }
    }
}

/// What [`resume`] may restore from a signal frame's FPU area: `image` its
/// FXSAVE image (the XSAVE image's first part), `area` where the kernel's
/// `extended_size` counts from (the FSAVE header before the image on a
/// 32-bit frame, the image itself on a 64-bit one). `Some(Some(features))`:
/// an XSAVE image aligned to 64 bytes, its size at least the legacy part,
/// the XSAVE header and MAGIC2, and MAGIC2 at its end: XRSTOR with that
/// feature mask; `Some(None)`: an FXSAVE image aligned to 16 bytes:
/// FXRSTOR; `None`: neither (the kernel returns).
///
/// # Safety
/// `area..image + 512` is the kernel's FPU frame, and so is `area..area +
/// extended_size` if the image is marked as an XSAVE one.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
unsafe fn fpu_image(area: *const u8, image: *const u8) -> Option<Option<u64>> {
    // SAFETY: within the kernel's frame, as the caller promises.
    unsafe {
        let sw = image.add(464);
        if sw.cast::<u32>().read_unaligned() != XSTATE_MAGIC1 {
            return (image as usize).is_multiple_of(16).then_some(None);
        }
        let size = sw.add(4).cast::<u32>().read_unaligned() as usize;
        let features = sw.add(8).cast::<u64>().read_unaligned();
        let header = image as usize - area as usize;
        let ok = (image as usize).is_multiple_of(64)
            && size >= header + 576 + 4
            && area.add(size - 4).cast::<u32>().read_unaligned() == XSTATE_MAGIC2;
        ok.then_some(Some(features))
    }
}

/// Elsewhere the kernel returns.
#[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
unsafe fn resume(_ctx: *mut c_void) {}

/// A fault of the program in the view at `addr`: charge the access (once
/// per instruction), then open the whole view if the chip is quiescent,
/// else open the page and step the instruction.
fn fault(w: &Watch, addr: usize, ctx: *mut c_void) {
    let page = addr & !(w.page - 1);
    let idx = (page - w.view) / w.page;
    let stepping = STEP.with(|s| {
        let mut st = s.get();
        if !st.active {
            // The instruction's first fault: the access happens now, at the
            // host's clock, after the chip has run its cost (as an e-hal
            // call runs it). Not if this thread holds the simulator (it
            // cannot run it; libe-hal's own code uses the other view).
            let guard = if w.armed.load(Ordering::Acquire) && !holds_lock() {
                let mut g = w.inner.lock_dram();
                let target = g.now.saturating_add(ACCESS_CYCLES);
                g.run_to(target);
                CHARGED.fetch_add(1, Ordering::Relaxed);
                if g.quiescent() {
                    // Nothing on the chip can act until the host does: a
                    // run would change nothing but the clock. The view
                    // stays open, its accesses free, until the next
                    // taker of the lock closes it (close_view).
                    WIDE.store(true, Ordering::Release);
                    w.protect(w.view, w.map_len, true);
                    return false;
                }
                Some(g)
            } else {
                None
            };
            // A plain move is done here (under the simulator's lock when
            // it was charged), the same access as stepping it would make.
            if emulate(w, addr, ctx) {
                EMULATED.fetch_add(1, Ordering::Relaxed);
                return false;
            }
            drop(guard);
            STEPPED.fetch_add(1, Ordering::Relaxed);
            st = Step {
                active: true,
                n: 0,
                pages: [0; MAX_OPEN],
            };
        }
        // A page this thread opened already was closed under it by
        // another thread's step ending: it is opened again, not counted
        // twice.
        if !st.pages[..st.n].contains(&page) && st.n < MAX_OPEN {
            st.pages[st.n] = page;
            st.n += 1;
            w.open[idx].fetch_add(1, Ordering::AcqRel);
        }
        w.protect(page, w.page, true);
        s.set(st);
        true
    });
    if stepping {
        // SAFETY: the handler's context.
        unsafe { set_trap_flag(ctx, true) };
    }
}

/// Does the instruction that faulted at `addr` in the handler, if it is a
/// plain move whose whole access lies in the view (`x86move`): true if
/// done (its register written, the instruction pointer past it).
#[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
fn emulate(w: &Watch, addr: usize, ctx: *mut c_void) -> bool {
    use crate::x86move::{decode, effective, perform, Context, Regs, LONG};
    let mut regs = Context(ctx.cast());
    let ip = regs.ip() as usize;
    // SAFETY: the bytes of the instruction that faulted (the CPU fetched
    // them); `decode` reads no byte past the instruction's end.
    let Some(m) = decode(|i| unsafe { ((ip + i) as *const u8).read() }, LONG) else {
        return false;
    };
    if effective(&m, &regs, LONG) != addr as u64 || !w.in_view(addr + m.size - 1) {
        return false;
    }
    // SAFETY: the access lies in the view (checked), whose pages are the
    // same memory as the simulator's at the same offsets.
    unsafe { perform(&m, &mut regs, (w.map + (addr - w.view)) as *mut u8, LONG) };
    true
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "x86")))]
fn emulate(_w: &Watch, _addr: usize, _ctx: *mut c_void) -> bool {
    false
}

extern "C" fn on_trap(sig: c_int, info: *mut libc::siginfo_t, ctx: *mut c_void) {
    // SAFETY: the kernel's siginfo.
    let code = unsafe { (*info).si_code };
    let st = STEP.with(Cell::get);
    if !(st.active && code == TRAP_TRACE) {
        // SAFETY: passes on the kernel's arguments.
        unsafe { chain(1, sig, info, ctx) };
        return;
    }
    // SAFETY: as in on_segv.
    let errno = unsafe { *libc::__errno_location() };
    // SAFETY: the handler's context.
    unsafe { set_trap_flag(ctx, false) };
    USERS.fetch_add(1, Ordering::AcqRel);
    // SAFETY: as in on_segv.
    if let Some(w) = unsafe { WATCH.load(Ordering::Acquire).as_ref() } {
        for &page in &st.pages[..st.n] {
            let idx = (page - w.view) / w.page;
            if w.open[idx].fetch_sub(1, Ordering::AcqRel) == 1
                && w.armed.load(Ordering::Acquire)
                && !WIDE.load(Ordering::Acquire)
            {
                w.protect(page, w.page, false);
            }
        }
    }
    USERS.fetch_sub(1, Ordering::AcqRel);
    STEP.with(|s| {
        s.set(Step {
            active: false,
            n: 0,
            pages: [0; MAX_OPEN],
        })
    });
    // SAFETY: as above.
    unsafe { *libc::__errno_location() = errno };
}

/// Passes a signal that is not the watch's to the handler installed before
/// (`which`: 0 SIGSEGV, 1 SIGTRAP). The default action: reinstated, and
/// the fault happens again when the instruction is retried (SIGSEGV) or
/// the trap is raised again (SIGTRAP); ignored: nothing.
///
/// # Safety
/// The arguments are the kernel's.
unsafe fn chain(which: usize, sig: c_int, info: *mut libc::siginfo_t, ctx: *mut c_void) {
    // SAFETY: written once, before the handlers were installed.
    let Some(prev) = (unsafe { PREV.load(Ordering::Acquire).as_ref() }) else {
        return;
    };
    let p = &prev[which];
    let h = p.sa_sigaction;
    // SAFETY: the previous action as it was installed.
    unsafe {
        if h == libc::SIG_DFL || (h == libc::SIG_IGN && which == 0) {
            let mut dfl: libc::sigaction = std::mem::zeroed();
            dfl.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(sig, &dfl, null_mut());
            if which == 1 {
                libc::raise(sig);
            }
        } else if h == libc::SIG_IGN {
        } else if p.sa_flags & libc::SA_SIGINFO != 0 {
            let f: extern "C" fn(c_int, *mut libc::siginfo_t, *mut c_void) = std::mem::transmute(h);
            f(sig, info, ctx);
        } else {
            let f: extern "C" fn(c_int) = std::mem::transmute(h);
            f(sig);
        }
    }
}
