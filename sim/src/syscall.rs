//! The libgloss TRAP system calls, serviced on the host.
//!
//! Model decisions owned here (README "System calls"):
//! - TRAP 0/1/2/6 are write/read/open/close, TRAP 3 exit, TRAP 4/5 the test
//!   harness's pass/fail (exit 0/1), TRAP 7 a generic call with the newlib
//!   `SYS_*` number in r3. Results go to r0 and the errno to r3 (0 = none),
//!   with newlib's errno numbers.
//! - Structures use this toolchain's newlib 3.3 layouts (64-bit `time_t`):
//!   `struct stat` is 88 bytes, `struct timeval` 16.
//! - Time is simulated, never the host's clock: `gettimeofday` and `time`
//!   report the simulated time since the Unix epoch at reset, so runs are
//!   deterministic.
//! - Paths are the host's, relative to the directory epsim runs in.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};

/// Guest memory as the system-call layer sees it (whatever the calling core
/// can address).
pub trait GuestMemory {
    /// Reads `len` bytes at `addr`, or `None` if any of them is unmapped.
    fn read_guest(&mut self, addr: u32, len: u32) -> Option<Vec<u8>>;
    /// Writes `data` at `addr`; false if any byte is unmapped (then nothing
    /// is written).
    fn write_guest(&mut self, addr: u32, data: &[u8]) -> bool;
}

/// Where a guest's standard output or error goes.
pub enum Sink {
    Stdout,
    Stderr,
    /// Captured in memory (tests, embedding).
    Buffer(Vec<u8>),
    /// Any writer (flushed after each write), e.g. the `epsim` binary's
    /// standard output that ends the run quietly when its pipe closes.
    Writer(Box<dyn Write + Send>),
}

impl std::fmt::Debug for Sink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Sink::Stdout => f.write_str("Stdout"),
            Sink::Stderr => f.write_str("Stderr"),
            Sink::Buffer(b) => f.debug_tuple("Buffer").field(b).finish(),
            Sink::Writer(_) => f.write_str("Writer(..)"),
        }
    }
}

impl Sink {
    fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        match self {
            Sink::Stdout => {
                let mut out = io::stdout().lock();
                out.write_all(data)?;
                out.flush()
            }
            Sink::Stderr => io::stderr().lock().write_all(data),
            Sink::Buffer(b) => {
                b.extend_from_slice(data);
                Ok(())
            }
            Sink::Writer(w) => {
                w.write_all(data)?;
                w.flush()
            }
        }
    }

    /// The captured bytes of a `Buffer` sink (empty otherwise).
    pub fn captured(&self) -> &[u8] {
        match self {
            Sink::Buffer(b) => b,
            _ => &[],
        }
    }
}

/// Where a guest's standard input comes from.
#[derive(Debug)]
pub enum Source {
    Stdin,
    Bytes { data: Vec<u8>, pos: usize },
}

impl Source {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Source::Stdin => io::stdin().lock().read(buf),
            Source::Bytes { data, pos } => {
                let n = buf.len().min(data.len() - *pos);
                buf[..n].copy_from_slice(&data[*pos..*pos + n]);
                *pos += n;
                Ok(n)
            }
        }
    }
}

/// newlib errno values (newlib `sys/errno.h`).
mod errno {
    pub const EPERM: u32 = 1;
    pub const ENOENT: u32 = 2;
    pub const EIO: u32 = 5;
    pub const EBADF: u32 = 9;
    pub const EACCES: u32 = 13;
    pub const EFAULT: u32 = 14;
    pub const EEXIST: u32 = 17;
    pub const ENOTDIR: u32 = 20;
    pub const EISDIR: u32 = 21;
    pub const EINVAL: u32 = 22;
    pub const EMFILE: u32 = 24;
    pub const ENOSPC: u32 = 28;
    pub const ESPIPE: u32 = 29;
    pub const EROFS: u32 = 30;
    pub const ENOSYS: u32 = 88;
    pub const ENOTEMPTY: u32 = 90;
    pub const ENAMETOOLONG: u32 = 91;
}

/// newlib `SYS_*` numbers used with TRAP 7 (libgloss `syscall.h`).
mod sys {
    pub const EXIT: u32 = 1;
    pub const OPEN: u32 = 2;
    pub const CLOSE: u32 = 3;
    pub const READ: u32 = 4;
    pub const WRITE: u32 = 5;
    pub const LSEEK: u32 = 6;
    pub const UNLINK: u32 = 7;
    pub const GETPID: u32 = 8;
    pub const KILL: u32 = 9;
    pub const FSTAT: u32 = 10;
    pub const STAT: u32 = 15;
    pub const TIME: u32 = 18;
    pub const GETTIMEOFDAY: u32 = 19;
    pub const LINK: u32 = 21;
    pub const ARGC: u32 = 22;
    pub const ARGNLEN: u32 = 23;
    pub const ARGN: u32 = 24;
}

/// newlib open(2) flags (`sys/_default_fcntl.h`).
mod oflag {
    pub const ACCMODE: u32 = 3;
    pub const WRONLY: u32 = 1;
    pub const RDWR: u32 = 2;
    pub const APPEND: u32 = 0x8;
    pub const CREAT: u32 = 0x200;
    pub const TRUNC: u32 = 0x400;
    pub const EXCL: u32 = 0x800;
}

const S_IFIFO: u32 = 0o010000;
const S_IFCHR: u32 = 0o020000;
const S_IFDIR: u32 = 0o040000;
const S_IFREG: u32 = 0o100000;
/// Longest path a guest may pass.
const PATH_MAX: u32 = 4096;
/// The pid every guest program sees.
const GUEST_PID: u32 = 1;

/// What the core does after a system call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyscallOutcome {
    /// Continue at the next instruction (results are in r0/r3).
    Continue,
    /// The program ended with this status.
    Exit(i32),
    /// The program killed itself with this signal (abort → SIGABRT).
    Signalled(u32),
}

/// The host side of the libgloss system calls for one simulation.
#[derive(Debug)]
pub struct Syscalls {
    pub stdout: Sink,
    pub stderr: Sink,
    pub stdin: Source,
    /// argv as the guest sees it (`argv[0]` is the program name).
    pub args: Vec<String>,
    /// Whether the guest may reach the host's file system (open, stat,
    /// unlink, link). When false those calls fail with EACCES.
    pub allow_files: bool,
    files: BTreeMap<u32, File>,
    /// When set, standard output and error are written a line at a time,
    /// each line prefixed with the label of the core that wrote it
    /// ([`Syscalls::speaker`]); partial lines wait per core and stream.
    pub prefix_lines: bool,
    /// The label of the core whose system call is being serviced.
    speaker: String,
    /// Per (label, fd): the unfinished line.
    partial: BTreeMap<(String, u32), Vec<u8>>,
}

/// The registers a system call reads and writes.
pub struct SyscallRegs<'a> {
    pub r: &'a mut [u32; 64],
}

impl Syscalls {
    /// Standard streams inherited from the host process.
    pub fn inherit(args: Vec<String>) -> Syscalls {
        Syscalls {
            stdout: Sink::Stdout,
            stderr: Sink::Stderr,
            stdin: Source::Stdin,
            args,
            allow_files: true,
            files: BTreeMap::new(),
            prefix_lines: false,
            speaker: String::new(),
            partial: BTreeMap::new(),
        }
    }

    /// Standard streams captured in memory, stdin from `input`, and no
    /// access to the host's files (set `allow_files` to grant it).
    pub fn captured(args: Vec<String>, input: Vec<u8>) -> Syscalls {
        Syscalls {
            stdout: Sink::Buffer(Vec::new()),
            stderr: Sink::Buffer(Vec::new()),
            stdin: Source::Bytes {
                data: input,
                pos: 0,
            },
            args,
            allow_files: false,
            files: BTreeMap::new(),
            prefix_lines: false,
            speaker: String::new(),
            partial: BTreeMap::new(),
        }
    }

    /// Services `TRAP num` for a core whose registers are `r`, at simulated
    /// time `now_ns` nanoseconds since reset.
    pub fn service<M: GuestMemory>(
        &mut self,
        num: u8,
        r: &mut [u32; 64],
        mem: &mut M,
        now_ns: u64,
    ) -> SyscallOutcome {
        let (a0, a1, a2) = (r[0], r[1], r[2]);
        let result = match num {
            0 => self.write(a0, a1, a2, mem),
            1 => self.read(a0, a1, a2, mem),
            2 => self.open(a0, a1, mem),
            3 => return SyscallOutcome::Exit(a0 as i32),
            4 => return SyscallOutcome::Exit(0),
            5 => return SyscallOutcome::Exit(1),
            6 => self.close(a0),
            7 => match r[3] {
                sys::EXIT => return SyscallOutcome::Exit(a0 as i32),
                sys::OPEN => self.open(a0, a1, mem),
                sys::CLOSE => self.close(a0),
                sys::READ => self.read(a0, a1, a2, mem),
                sys::WRITE => self.write(a0, a1, a2, mem),
                sys::LSEEK => self.lseek(a0, a1, a2),
                sys::UNLINK => self.path_op(a0, mem, |p| std::fs::remove_file(p)),
                sys::GETPID => Ok(GUEST_PID),
                sys::KILL => {
                    if a0 == GUEST_PID {
                        return SyscallOutcome::Signalled(a1);
                    }
                    Err(errno::EPERM)
                }
                sys::FSTAT => self.fstat(a0, a1, mem),
                sys::STAT => self.stat(a0, a1, mem),
                sys::TIME => time_of_day(a0, now_ns, mem, false),
                sys::GETTIMEOFDAY => time_of_day(a0, now_ns, mem, true),
                sys::LINK => self.link(a0, a1, mem),
                sys::ARGC => Ok(self.args.len() as u32),
                sys::ARGNLEN => self.arg(a0).map(|a| a.len() as u32),
                sys::ARGN => self.argn(a0, a1, mem),
                _ => Err(errno::ENOSYS),
            },
            _ => Err(errno::ENOSYS),
        };
        match result {
            Ok(v) => {
                r[0] = v;
                r[3] = 0;
            }
            Err(e) => {
                r[0] = u32::MAX;
                r[3] = e;
            }
        }
        SyscallOutcome::Continue
    }

    fn write<M: GuestMemory>(
        &mut self,
        fd: u32,
        buf: u32,
        len: u32,
        mem: &mut M,
    ) -> Result<u32, u32> {
        let data = mem.read_guest(buf, len).ok_or(errno::EFAULT)?;
        let res = match fd {
            1 | 2 if self.prefix_lines => self.write_lines(fd, &data),
            1 => self.stdout.write_all(&data),
            2 => self.stderr.write_all(&data),
            _ => self.file(fd)?.write_all(&data),
        };
        res.map(|()| len).map_err(|e| host_errno(&e))
    }

    /// Names the core whose system calls follow (for prefixed lines).
    pub fn speaker(&mut self, label: &str) {
        if self.speaker != label {
            self.speaker.clear();
            self.speaker.push_str(label);
        }
    }

    /// Writes `data` to standard output (fd 1) or error (2) a complete line
    /// at a time, each prefixed with the speaker's label.
    fn write_lines(&mut self, fd: u32, data: &[u8]) -> io::Result<()> {
        let key = (self.speaker.clone(), fd);
        let mut pending = self.partial.remove(&key).unwrap_or_default();
        let mut out = Vec::new();
        for b in data {
            pending.push(*b);
            if *b == b'\n' {
                out.extend_from_slice(key.0.as_bytes());
                out.append(&mut pending);
            }
        }
        if !pending.is_empty() {
            self.partial.insert(key, pending);
        }
        match fd {
            1 => self.stdout.write_all(&out),
            _ => self.stderr.write_all(&out),
        }
    }

    /// Writes out the unfinished lines (at the end of a run), each with its
    /// label and a newline.
    pub fn flush_lines(&mut self) {
        for ((label, fd), mut line) in std::mem::take(&mut self.partial) {
            let mut out = label.into_bytes();
            out.append(&mut line);
            out.push(b'\n');
            let _ = match fd {
                1 => self.stdout.write_all(&out),
                _ => self.stderr.write_all(&out),
            };
        }
    }

    fn read<M: GuestMemory>(
        &mut self,
        fd: u32,
        buf: u32,
        len: u32,
        mem: &mut M,
    ) -> Result<u32, u32> {
        let mut data = vec![0; len.min(1 << 20) as usize];
        let n = match fd {
            0 => self.stdin.read(&mut data),
            _ => self.file(fd)?.read(&mut data),
        }
        .map_err(|e| host_errno(&e))?;
        if !mem.write_guest(buf, &data[..n]) {
            return Err(errno::EFAULT);
        }
        Ok(n as u32)
    }

    fn open<M: GuestMemory>(&mut self, path: u32, flags: u32, mem: &mut M) -> Result<u32, u32> {
        self.check_files()?;
        let path = read_cstr(mem, path)?;
        let mut o = OpenOptions::new();
        match flags & oflag::ACCMODE {
            oflag::WRONLY => o.write(true),
            oflag::RDWR => o.read(true).write(true),
            _ => o.read(true),
        };
        o.append(flags & oflag::APPEND != 0);
        o.truncate(flags & oflag::TRUNC != 0);
        if flags & oflag::CREAT != 0 {
            if flags & oflag::EXCL != 0 {
                o.create_new(true);
            } else {
                o.create(true);
            }
        }
        let file = o.open(&path).map_err(|e| host_errno(&e))?;
        let fd = (3..)
            .find(|fd| !self.files.contains_key(fd))
            .ok_or(errno::EMFILE)?;
        self.files.insert(fd, file);
        Ok(fd)
    }

    fn close(&mut self, fd: u32) -> Result<u32, u32> {
        if fd <= 2 {
            return Ok(0);
        }
        self.files.remove(&fd).map(|_| 0).ok_or(errno::EBADF)
    }

    fn lseek(&mut self, fd: u32, off: u32, whence: u32) -> Result<u32, u32> {
        let off = off as i32 as i64;
        let pos = match whence {
            0 => SeekFrom::Start(u64::try_from(off).map_err(|_| errno::EINVAL)?),
            1 => SeekFrom::Current(off),
            2 => SeekFrom::End(off),
            _ => return Err(errno::EINVAL),
        };
        if fd <= 2 {
            return Err(errno::ESPIPE);
        }
        let n = self.file(fd)?.seek(pos).map_err(|e| host_errno(&e))?;
        u32::try_from(n).map_err(|_| errno::EINVAL)
    }

    fn fstat<M: GuestMemory>(&mut self, fd: u32, buf: u32, mem: &mut M) -> Result<u32, u32> {
        let st = if fd <= 2 {
            // A terminal is a character device (newlib then line-buffers
            // stdout); anything else is a pipe (fully buffered), as a native
            // program would see it.
            let mode = if self.is_terminal(fd) {
                S_IFCHR | 0o620
            } else {
                S_IFIFO | 0o600
            };
            GuestStat {
                mode,
                size: 0,
                mtime: 0,
                nlink: 1,
            }
        } else {
            let meta = self.file(fd)?.metadata().map_err(|e| host_errno(&e))?;
            GuestStat::from_host(&meta)
        };
        write_stat(mem, buf, &st)
    }

    fn stat<M: GuestMemory>(&mut self, path: u32, buf: u32, mem: &mut M) -> Result<u32, u32> {
        self.check_files()?;
        let path = read_cstr(mem, path)?;
        let meta = std::fs::metadata(&path).map_err(|e| host_errno(&e))?;
        write_stat(mem, buf, &GuestStat::from_host(&meta))
    }

    fn link<M: GuestMemory>(&mut self, from: u32, to: u32, mem: &mut M) -> Result<u32, u32> {
        self.check_files()?;
        let from = read_cstr(mem, from)?;
        let to = read_cstr(mem, to)?;
        std::fs::hard_link(from, to)
            .map(|()| 0)
            .map_err(|e| host_errno(&e))
    }

    fn path_op<M: GuestMemory>(
        &mut self,
        path: u32,
        mem: &mut M,
        f: impl FnOnce(&str) -> io::Result<()>,
    ) -> Result<u32, u32> {
        self.check_files()?;
        let path = read_cstr(mem, path)?;
        f(&path).map(|()| 0).map_err(|e| host_errno(&e))
    }

    fn check_files(&self) -> Result<(), u32> {
        if self.allow_files {
            Ok(())
        } else {
            Err(errno::EACCES)
        }
    }

    fn arg(&self, n: u32) -> Result<&str, u32> {
        self.args
            .get(n as usize)
            .map(String::as_str)
            .ok_or(errno::EINVAL)
    }

    fn argn<M: GuestMemory>(&mut self, n: u32, buf: u32, mem: &mut M) -> Result<u32, u32> {
        let mut s = self.arg(n)?.as_bytes().to_vec();
        s.push(0);
        if mem.write_guest(buf, &s) {
            Ok(0)
        } else {
            Err(errno::EFAULT)
        }
    }

    /// Whether guest fd 0-2 is connected to a host terminal.
    fn is_terminal(&self, fd: u32) -> bool {
        use std::io::IsTerminal;
        match fd {
            0 => matches!(self.stdin, Source::Stdin) && io::stdin().is_terminal(),
            1 => matches!(self.stdout, Sink::Stdout) && io::stdout().is_terminal(),
            _ => matches!(self.stderr, Sink::Stderr) && io::stderr().is_terminal(),
        }
    }

    fn file(&mut self, fd: u32) -> Result<&mut File, u32> {
        self.files.get_mut(&fd).ok_or(errno::EBADF)
    }
}

/// The fields of `struct stat` the guest gets.
struct GuestStat {
    mode: u32,
    size: u64,
    mtime: i64,
    nlink: u64,
}

impl GuestStat {
    fn from_host(m: &std::fs::Metadata) -> GuestStat {
        use std::os::unix::fs::MetadataExt;
        let kind = if m.is_dir() {
            S_IFDIR
        } else if m.is_file() {
            S_IFREG
        } else {
            S_IFCHR
        };
        GuestStat {
            mode: kind | (m.mode() & 0o7777),
            size: m.len(),
            mtime: m.mtime(),
            nlink: m.nlink(),
        }
    }
}

/// Writes newlib 3.3's `struct stat` (88 bytes): st_dev u16 @0, st_ino u16
/// @2, st_mode u32 @4, st_nlink u16 @8, st_uid/gid/rdev u16 @10/12/14,
/// st_size i32 @16, st_atim/mtim/ctim {i64 sec, i32 nsec} @24/40/56,
/// st_blksize @72, st_blocks @76.
fn write_stat<M: GuestMemory>(mem: &mut M, buf: u32, st: &GuestStat) -> Result<u32, u32> {
    let mut b = [0u8; 88];
    b[4..8].copy_from_slice(&st.mode.to_le_bytes());
    b[8..10].copy_from_slice(&(st.nlink.min(0xffff) as u16).to_le_bytes());
    b[16..20].copy_from_slice(&(st.size.min(i32::MAX as u64) as u32).to_le_bytes());
    for at in [24, 40, 56] {
        b[at..at + 8].copy_from_slice(&st.mtime.to_le_bytes());
    }
    b[72..76].copy_from_slice(&1024u32.to_le_bytes());
    b[76..80].copy_from_slice(&(st.size.div_ceil(512) as u32).to_le_bytes());
    if mem.write_guest(buf, &b) {
        Ok(0)
    } else {
        Err(errno::EFAULT)
    }
}

/// `gettimeofday(tv, tz)` (writes `{i64 sec, i32 usec}`) or `time(t)`
/// (returns seconds, stores them at `t` if non-null), from simulated time.
fn time_of_day<M: GuestMemory>(
    ptr: u32,
    now_ns: u64,
    mem: &mut M,
    timeval: bool,
) -> Result<u32, u32> {
    let secs = now_ns / 1_000_000_000;
    let usecs = (now_ns % 1_000_000_000) / 1000;
    if timeval {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&secs.to_le_bytes());
        b[8..12].copy_from_slice(&(usecs as u32).to_le_bytes());
        if ptr != 0 && !mem.write_guest(ptr, &b) {
            return Err(errno::EFAULT);
        }
        Ok(0)
    } else {
        if ptr != 0 && !mem.write_guest(ptr, &secs.to_le_bytes()) {
            return Err(errno::EFAULT);
        }
        Ok(secs as u32)
    }
}

/// Reads a NUL-terminated path from guest memory.
fn read_cstr<M: GuestMemory>(mem: &mut M, addr: u32) -> Result<String, u32> {
    let mut out = Vec::new();
    let mut a = addr;
    loop {
        let chunk = mem.read_guest(a, 1).ok_or(errno::EFAULT)?;
        if chunk[0] == 0 {
            break;
        }
        out.push(chunk[0]);
        if out.len() as u32 >= PATH_MAX {
            return Err(errno::ENAMETOOLONG);
        }
        a = a.wrapping_add(1);
    }
    String::from_utf8(out).map_err(|_| errno::EINVAL)
}

/// newlib's errno for a host I/O error.
fn host_errno(e: &io::Error) -> u32 {
    use io::ErrorKind as K;
    match e.kind() {
        K::NotFound => errno::ENOENT,
        K::PermissionDenied => errno::EACCES,
        K::AlreadyExists => errno::EEXIST,
        K::InvalidInput => errno::EINVAL,
        K::IsADirectory => errno::EISDIR,
        K::NotADirectory => errno::ENOTDIR,
        K::DirectoryNotEmpty => errno::ENOTEMPTY,
        K::ReadOnlyFilesystem => errno::EROFS,
        K::StorageFull => errno::ENOSPC,
        _ => errno::EIO,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A flat guest memory at address 0.
    struct Flat(Vec<u8>);
    impl GuestMemory for Flat {
        fn read_guest(&mut self, addr: u32, len: u32) -> Option<Vec<u8>> {
            self.0
                .get(addr as usize..(addr + len) as usize)
                .map(<[u8]>::to_vec)
        }
        fn write_guest(&mut self, addr: u32, data: &[u8]) -> bool {
            match self.0.get_mut(addr as usize..addr as usize + data.len()) {
                Some(s) => {
                    s.copy_from_slice(data);
                    true
                }
                None => false,
            }
        }
    }

    #[test]
    fn write_to_stdout_is_captured_and_returns_length() {
        let mut sc = Syscalls::captured(vec!["prog".into()], Vec::new());
        let mut mem = Flat(b"hello\n".to_vec());
        let mut r = [0u32; 64];
        r[0] = 1;
        r[1] = 0;
        r[2] = 6;
        assert_eq!(sc.service(0, &mut r, &mut mem, 0), SyscallOutcome::Continue);
        assert_eq!((r[0], r[3]), (6, 0));
        assert_eq!(sc.stdout.captured(), b"hello\n");
    }

    #[test]
    fn bad_fd_and_bad_pointer_give_errno() {
        let mut sc = Syscalls::captured(vec![], Vec::new());
        let mut mem = Flat(vec![0; 16]);
        let mut r = [0u32; 64];
        r[0] = 9;
        r[2] = 1;
        sc.service(0, &mut r, &mut mem, 0);
        assert_eq!((r[0], r[3]), (u32::MAX, errno::EBADF));
        r[0] = 1;
        r[1] = 100;
        sc.service(0, &mut r, &mut mem, 0);
        assert_eq!((r[0], r[3]), (u32::MAX, errno::EFAULT));
        r[3] = 77;
        sc.service(7, &mut r, &mut mem, 0);
        assert_eq!(r[3], errno::ENOSYS);
    }

    #[test]
    fn file_round_trip_through_open_write_lseek_read_unlink() {
        let dir = std::env::temp_dir().join(format!("epsim-sys-{}", std::process::id()));
        let path = format!("{}\0", dir.display());
        let mut mem = Flat(vec![0; 256]);
        mem.0[..path.len()].copy_from_slice(path.as_bytes());
        mem.0[200..204].copy_from_slice(b"data");
        let mut sc = Syscalls::captured(vec![], Vec::new());
        let mut r = [0u32; 64];
        r[1] = oflag::RDWR | oflag::CREAT | oflag::TRUNC;
        sc.service(2, &mut r, &mut mem, 0);
        assert_eq!(
            (r[0], r[3]),
            (u32::MAX, errno::EACCES),
            "files are off by default"
        );
        sc.allow_files = true;
        r[0] = 0;
        sc.service(2, &mut r, &mut mem, 0);
        let fd = r[0];
        assert_eq!((fd, r[3]), (3, 0));
        (r[0], r[1], r[2]) = (fd, 200, 4);
        sc.service(0, &mut r, &mut mem, 0);
        (r[0], r[1], r[2], r[3]) = (fd, 0, 0, sys::LSEEK);
        sc.service(7, &mut r, &mut mem, 0);
        assert_eq!(r[0], 0);
        (r[0], r[1], r[2]) = (fd, 210, 10);
        sc.service(1, &mut r, &mut mem, 0);
        assert_eq!(r[0], 4);
        assert_eq!(&mem.0[210..214], b"data");
        (r[0], r[1], r[3]) = (fd, 100, sys::FSTAT);
        sc.service(7, &mut r, &mut mem, 0);
        assert_eq!(u32::from_le_bytes(mem.0[116..120].try_into().unwrap()), 4);
        r[0] = fd;
        sc.service(6, &mut r, &mut mem, 0);
        (r[0], r[3]) = (0, sys::UNLINK);
        sc.service(7, &mut r, &mut mem, 0);
        assert_eq!(r[3], 0);
        assert!(!dir.exists());
    }

    #[test]
    fn time_is_simulated() {
        let mut sc = Syscalls::captured(vec![], Vec::new());
        let mut mem = Flat(vec![0; 32]);
        let mut r = [0u32; 64];
        (r[0], r[3]) = (8, sys::GETTIMEOFDAY);
        sc.service(7, &mut r, &mut mem, 2_500_000_000);
        assert_eq!(u64::from_le_bytes(mem.0[8..16].try_into().unwrap()), 2);
        assert_eq!(
            u32::from_le_bytes(mem.0[16..20].try_into().unwrap()),
            500_000
        );
    }

    #[test]
    fn kill_self_is_a_signal_and_args_are_visible() {
        let mut sc = Syscalls::captured(vec!["p".into(), "xy".into()], Vec::new());
        let mut mem = Flat(vec![0; 32]);
        let mut r = [0u32; 64];
        r[3] = sys::ARGC;
        sc.service(7, &mut r, &mut mem, 0);
        assert_eq!(r[0], 2);
        (r[0], r[1], r[3]) = (1, 4, sys::ARGN);
        sc.service(7, &mut r, &mut mem, 0);
        assert_eq!(&mem.0[4..7], b"xy\0");
        (r[0], r[1], r[3]) = (GUEST_PID, 6, sys::KILL);
        assert_eq!(
            sc.service(7, &mut r, &mut mem, 0),
            SyscallOutcome::Signalled(6)
        );
    }
}
