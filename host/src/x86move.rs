//! The plain moves of a host program through the watched DRAM pointer,
//! done by the fault handler instead of stepped (`host/src/dramwatch.rs`).
//!
//! Stepping an access costs two signals and two `mprotect` calls (the
//! fault, the page opened, the trap after the instruction, the page
//! closed): most of the host's time when it polls a flag in shared DRAM
//! millions of times (ePython's host does). Nearly every such access is
//! one `mov` between a register (or an immediate) and memory, so the
//! handler decodes the faulting instruction, and when it is one of the
//! forms below, does its access on the simulator's view of the same
//! bytes, writes the register and moves the instruction pointer past it:
//! one signal, no system call, the same charge and the same result.
//!
//! Forms (x86-64 and i686, any addressing form without a segment or
//! address-size prefix): `mov r8/r16/r32/r64, m` (8A, 8B), `mov m, r`
//! (88, 89), `mov m, imm` (C6 /0, C7 /0), `movzx` and `movsx` from m8 and
//! m16 (0F B6, B7, BE, BF), `movsxd r64, m32` (REX.W 63). Anything else
//! (string moves, vector moves, arithmetic on memory, a destination
//! register that is the stack pointer, lock or rep prefixes) is stepped
//! as before. The decoder checks itself: the effective address it works
//! out from the interrupted registers must be the faulting address the
//! kernel reports, and the whole access must lie in the view, or the
//! instruction is stepped.

/// How a loaded value fills its destination register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Widen {
    /// As wide as the memory operand (`mov`).
    None,
    /// Zero-extended (`movzx`).
    Zero,
    /// Sign-extended (`movsx`, `movsxd`).
    Sign,
}

/// A register operand: its number (0-15, as the encoding gives it), and
/// whether it is one of the high byte registers AH, CH, DH, BH.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reg {
    pub num: u8,
    pub high: bool,
}

/// What the instruction does with its memory operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `reg`, `dst` bytes wide, gets the memory operand, widened.
    Load { reg: Reg, dst: u8, widen: Widen },
    /// The low bytes of `reg` go to memory.
    StoreReg(Reg),
    /// The immediate goes to memory.
    StoreImm(u64),
}

/// The memory operand's address: `base + index * scale + disp`, the base
/// being a register number or [`RIP`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Addr {
    pub base: Option<u8>,
    pub index: Option<(u8, u8)>,
    pub disp: i64,
}

/// The instruction pointer as a base (RIP-relative addressing).
pub const RIP: u8 = 16;

/// A decoded move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    /// The instruction's length in bytes.
    pub len: usize,
    /// The memory operand's width in bytes (1, 2, 4 or 8).
    pub size: usize,
    pub op: Op,
    pub addr: Addr,
}

/// Decodes the instruction whose bytes `byte(i)` gives (called only for
/// bytes of the instruction, in order), in 64-bit mode (`long`) or 32-bit
/// mode; None if it is not one of the forms this module does.
pub fn decode(mut byte: impl FnMut(usize) -> u8, long: bool) -> Option<Move> {
    let mut i = 0;
    let mut op16 = false;
    // Prefixes: only the operand-size one.
    let mut b = byte(i);
    while b == 0x66 {
        op16 = true;
        i += 1;
        b = byte(i);
    }
    let mut rex = 0u8;
    if long && (0x40..=0x4f).contains(&b) {
        rex = b;
        i += 1;
        b = byte(i);
    }
    let w = rex & 8 != 0;
    let wide = if w {
        8
    } else if op16 {
        2
    } else {
        4
    };
    i += 1;
    // (memory size, what, immediate bytes)
    enum Kind {
        Load(u8, Widen),
        Store,
        Imm,
    }
    let (size, kind, imm) = match b {
        0x8a => (1, Kind::Load(1, Widen::None), 0),
        0x8b => (wide, Kind::Load(wide, Widen::None), 0),
        0x88 => (1, Kind::Store, 0),
        0x89 => (wide, Kind::Store, 0),
        0xc6 => (1, Kind::Imm, 1),
        0xc7 => (wide, Kind::Imm, if op16 { 2 } else { 4 }),
        0x63 if long && w => (4, Kind::Load(8, Widen::Sign), 0),
        0x0f => {
            let b2 = byte(i);
            i += 1;
            match b2 {
                0xb6 => (1, Kind::Load(wide, Widen::Zero), 0),
                0xb7 => (2, Kind::Load(wide, Widen::Zero), 0),
                0xbe => (1, Kind::Load(wide, Widen::Sign), 0),
                0xbf => (2, Kind::Load(wide, Widen::Sign), 0),
                _ => return None,
            }
        }
        _ => return None,
    };
    let modrm = byte(i);
    i += 1;
    let md = modrm >> 6;
    let reg_field = (modrm >> 3) & 7;
    let rm = modrm & 7;
    if md == 3 {
        return None;
    }
    if matches!(kind, Kind::Imm) && reg_field != 0 {
        return None;
    }
    let reg_num = reg_field | if rex & 4 != 0 { 8 } else { 0 };
    // AH..BH: byte registers 4-7 without any REX prefix.
    let byte_reg = matches!((&kind, size), (Kind::Load(1, _), _) | (Kind::Store, 1));
    let reg = Reg {
        num: reg_num,
        high: byte_reg && rex == 0 && (4..8).contains(&reg_num),
    };
    let (mut base, mut index) = (None, None);
    let mut disp_bytes = match md {
        1 => 1,
        2 => 4,
        _ => 0,
    };
    if rm == 4 {
        let sib = byte(i);
        i += 1;
        let idx = ((sib >> 3) & 7) | if rex & 2 != 0 { 8 } else { 0 };
        if idx != 4 {
            index = Some((idx, 1u8 << (sib >> 6)));
        }
        let bs = sib & 7;
        if bs == 5 && md == 0 {
            disp_bytes = 4;
        } else {
            base = Some(bs | if rex & 1 != 0 { 8 } else { 0 });
        }
    } else if rm == 5 && md == 0 {
        disp_bytes = 4;
        if long {
            base = Some(RIP);
        }
    } else {
        base = Some(rm | if rex & 1 != 0 { 8 } else { 0 });
    }
    let mut le = |n: usize, i: &mut usize| -> u64 {
        let mut v = 0u64;
        for k in 0..n {
            v |= u64::from(byte(*i)) << (8 * k);
            *i += 1;
        }
        v
    };
    let disp = match disp_bytes {
        1 => i64::from(le(1, &mut i) as u8 as i8),
        4 => i64::from(le(4, &mut i) as u32 as i32),
        _ => 0,
    };
    let op = match kind {
        Kind::Load(dst, widen) => {
            // A load into the stack pointer is left to the CPU.
            if reg.num == 4 && !reg.high {
                return None;
            }
            Op::Load { reg, dst, widen }
        }
        Kind::Store => Op::StoreReg(reg),
        Kind::Imm => {
            let v = le(imm, &mut i);
            // imm32 into a 64-bit operand is sign-extended.
            let v = if imm == 4 && size == 8 {
                v as u32 as i32 as i64 as u64
            } else {
                v
            };
            Op::StoreImm(v)
        }
    };
    if i > 15 {
        return None;
    }
    Some(Move {
        len: i,
        size: usize::from(size),
        op,
        addr: Addr { base, index, disp },
    })
}

/// The registers of an interrupted thread, by encoding number (0 rAX,
/// 1 rCX, 2 rDX, 3 rBX, 4 rSP, 5 rBP, 6 rSI, 7 rDI, 8-15 r8-r15).
pub trait Regs {
    fn get(&self, num: u8) -> u64;
    fn set(&mut self, num: u8, v: u64);
    fn ip(&self) -> u64;
    fn set_ip(&mut self, v: u64);
}

/// The address `m` accesses with `regs` (32-bit arithmetic unless `long`).
pub fn effective(m: &Move, regs: &impl Regs, long: bool) -> u64 {
    let a = &m.addr;
    let mut ea = a.disp as u64;
    match a.base {
        Some(RIP) => ea = ea.wrapping_add(regs.ip().wrapping_add(m.len as u64)),
        Some(r) => ea = ea.wrapping_add(regs.get(r)),
        None => {}
    }
    if let Some((r, scale)) = a.index {
        ea = ea.wrapping_add(regs.get(r).wrapping_mul(u64::from(scale)));
    }
    if long {
        ea
    } else {
        ea & 0xffff_ffff
    }
}

/// Reads `size` bytes at `p`, little-endian.
///
/// # Safety
/// `p..p + size` is readable.
unsafe fn read(p: *const u8, size: usize) -> u64 {
    // SAFETY: as the caller promises; one access of the operand's width.
    unsafe {
        match size {
            1 => u64::from(p.read_volatile()),
            2 => u64::from(p.cast::<u16>().read_unaligned()),
            4 => u64::from(p.cast::<u32>().read_unaligned()),
            _ => p.cast::<u64>().read_unaligned(),
        }
    }
}

/// Writes the low `size` bytes of `v` at `p`.
///
/// # Safety
/// `p..p + size` is writable.
unsafe fn write(p: *mut u8, size: usize, v: u64) {
    // SAFETY: as the caller promises.
    unsafe {
        match size {
            1 => p.write_volatile(v as u8),
            2 => p.cast::<u16>().write_unaligned(v as u16),
            4 => p.cast::<u32>().write_unaligned(v as u32),
            _ => p.cast::<u64>().write_unaligned(v),
        }
    }
}

fn sign_extend(v: u64, bytes: usize) -> u64 {
    let shift = 64 - 8 * bytes as u32;
    (((v << shift) as i64) >> shift) as u64
}

/// Does `m` with its memory operand at `mem`: the access, the register
/// written as the CPU writes it, the instruction pointer moved past it.
///
/// # Safety
/// `mem..mem + m.size` is memory the caller may read and write.
pub unsafe fn perform(m: &Move, regs: &mut impl Regs, mem: *mut u8, long: bool) {
    let mask32 = |v: u64| if long { v } else { v & 0xffff_ffff };
    match m.op {
        Op::Load { reg, dst, widen } => {
            // SAFETY: as the caller promises.
            let raw = unsafe { read(mem, m.size) };
            let v = match widen {
                Widen::Sign => sign_extend(raw, m.size),
                _ => raw,
            };
            let slot = if reg.high { reg.num - 4 } else { reg.num };
            let old = regs.get(slot);
            let new = match (dst, reg.high) {
                (1, true) => (old & !0xff00) | ((v & 0xff) << 8),
                (1, false) => (old & !0xff) | (v & 0xff),
                (2, _) => (old & !0xffff) | (v & 0xffff),
                // A 32-bit write clears the upper half in 64-bit mode.
                (4, _) => v & 0xffff_ffff,
                _ => v,
            };
            regs.set(slot, mask32(new));
        }
        Op::StoreReg(reg) => {
            let v = if reg.high {
                regs.get(reg.num - 4) >> 8
            } else {
                regs.get(reg.num)
            };
            // SAFETY: as the caller promises.
            unsafe { write(mem, m.size, v) };
        }
        // SAFETY: as the caller promises.
        Op::StoreImm(v) => unsafe { write(mem, m.size, v) },
    }
    regs.set_ip(mask32(regs.ip().wrapping_add(m.len as u64)));
}

/// The registers of a signal handler's `ucontext_t`.
#[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
pub struct Context(pub *mut libc::ucontext_t);

#[cfg(target_arch = "x86_64")]
const GREGS: [libc::c_int; 16] = [
    libc::REG_RAX,
    libc::REG_RCX,
    libc::REG_RDX,
    libc::REG_RBX,
    libc::REG_RSP,
    libc::REG_RBP,
    libc::REG_RSI,
    libc::REG_RDI,
    libc::REG_R8,
    libc::REG_R9,
    libc::REG_R10,
    libc::REG_R11,
    libc::REG_R12,
    libc::REG_R13,
    libc::REG_R14,
    libc::REG_R15,
];
#[cfg(target_arch = "x86_64")]
const IP: libc::c_int = libc::REG_RIP;

#[cfg(target_arch = "x86")]
const GREGS: [libc::c_int; 8] = [
    libc::REG_EAX,
    libc::REG_ECX,
    libc::REG_EDX,
    libc::REG_EBX,
    libc::REG_ESP,
    libc::REG_EBP,
    libc::REG_ESI,
    libc::REG_EDI,
];
#[cfg(target_arch = "x86")]
const IP: libc::c_int = libc::REG_EIP;

/// Whether the host runs in 64-bit mode.
pub const LONG: bool = cfg!(target_arch = "x86_64");

#[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
impl Context {
    fn slot(&self, i: libc::c_int) -> *mut libc::greg_t {
        // SAFETY: the handler's context, valid while it runs.
        unsafe { &raw mut (*self.0).uc_mcontext.gregs[i as usize] }
    }
}

#[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
impl Regs for Context {
    fn get(&self, num: u8) -> u64 {
        // SAFETY: a register slot of the context (decode gives no number
        // above 7 in 32-bit mode).
        unsafe { *self.slot(GREGS[usize::from(num)]) as u64 }
    }
    fn set(&mut self, num: u8, v: u64) {
        // SAFETY: as in get.
        unsafe { *self.slot(GREGS[usize::from(num)]) = v as libc::greg_t }
    }
    fn ip(&self) -> u64 {
        // SAFETY: as in get.
        unsafe { *self.slot(IP) as u64 }
    }
    fn set_ip(&mut self, v: u64) {
        // SAFETY: as in get.
        unsafe { *self.slot(IP) = v as libc::greg_t }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(bytes: &[u8], long: bool) -> Option<Move> {
        decode(|i| bytes[i], long)
    }

    struct Arr([u64; 16], u64);
    impl Regs for Arr {
        fn get(&self, n: u8) -> u64 {
            self.0[usize::from(n)]
        }
        fn set(&mut self, n: u8, v: u64) {
            self.0[usize::from(n)] = v;
        }
        fn ip(&self) -> u64 {
            self.1
        }
        fn set_ip(&mut self, v: u64) {
            self.1 = v;
        }
    }

    #[test]
    fn the_forms_decode_with_their_lengths_and_operands() {
        // mov 0x4(%esi),%eax (ePython's host's poll, i686)
        let m = dec(&[0x8b, 0x46, 0x04], false).unwrap();
        assert_eq!(m.len, 3);
        assert_eq!(m.size, 4);
        assert_eq!(m.addr.base, Some(6));
        assert_eq!(m.addr.disp, 4);
        // mov 0x12345678(%r12,%r9,8),%r11 : 4f 8b 9c cc 78 56 34 12
        let m = dec(&[0x4f, 0x8b, 0x9c, 0xcc, 0x78, 0x56, 0x34, 0x12], true).unwrap();
        assert_eq!((m.len, m.size), (8, 8));
        assert_eq!(m.addr.base, Some(12));
        assert_eq!(m.addr.index, Some((9, 8)));
        assert_eq!(m.addr.disp, 0x12345678);
        assert!(matches!(
            m.op,
            Op::Load {
                reg: Reg {
                    num: 11,
                    high: false
                },
                dst: 8,
                ..
            }
        ));
        // movw $0x1234,-0x2(%rbp): 66 c7 45 fe 34 12
        let m = dec(&[0x66, 0xc7, 0x45, 0xfe, 0x34, 0x12], true).unwrap();
        assert_eq!((m.len, m.size), (6, 2));
        assert_eq!(m.op, Op::StoreImm(0x1234));
        assert_eq!(m.addr.disp, -2);
        // movq $-1,(%rax): 48 c7 00 ff ff ff ff
        let m = dec(&[0x48, 0xc7, 0x00, 0xff, 0xff, 0xff, 0xff], true).unwrap();
        assert_eq!(m.op, Op::StoreImm(u64::MAX));
        // mov %ah,(%rbx): 88 23; with REX it is %spl: 40 88 23
        let m = dec(&[0x88, 0x23], true).unwrap();
        assert_eq!(m.op, Op::StoreReg(Reg { num: 4, high: true }));
        let m = dec(&[0x40, 0x88, 0x23], true).unwrap();
        assert_eq!(
            m.op,
            Op::StoreReg(Reg {
                num: 4,
                high: false
            })
        );
        // movzbl (%rdi),%eax: 0f b6 07; movswq 8(%rsp),%rcx: 48 0f bf 4c 24 08
        let m = dec(&[0x0f, 0xb6, 0x07], true).unwrap();
        assert_eq!((m.len, m.size), (3, 1));
        let m = dec(&[0x48, 0x0f, 0xbf, 0x4c, 0x24, 0x08], true).unwrap();
        assert_eq!((m.len, m.size), (6, 2));
        assert_eq!(m.addr.base, Some(4));
        assert_eq!(m.addr.index, None);
        // movslq (%rdx),%rax: 48 63 02
        assert_eq!(dec(&[0x48, 0x63, 0x02], true).unwrap().size, 4);
        // RIP-relative in 64-bit mode, absolute in 32-bit: 8b 05 disp32
        let b = [0x8b, 0x05, 0x10, 0, 0, 0];
        assert_eq!(dec(&b, true).unwrap().addr.base, Some(RIP));
        assert_eq!(dec(&b, false).unwrap().addr.base, None);
        // SIB with no base: mov 0x0(,%ecx,4),%edx : 8b 14 8d 00 00 00 00
        let m = dec(&[0x8b, 0x14, 0x8d, 0, 0, 0, 0], false).unwrap();
        assert_eq!((m.len, m.addr.base, m.addr.index), (7, None, Some((1, 4))));
    }

    #[test]
    fn other_instructions_are_left_to_stepping() {
        for b in [
            &[0xf3, 0xa5][..],               // rep movsl
            &[0x83, 0x38, 0x01],             // cmpl $1,(%rax)
            &[0xc5, 0xfe, 0x6f, 0x06],       // vmovdqu (%rsi),%ymm0
            &[0x64, 0x8b, 0x00],             // mov %fs:(%rax),%eax
            &[0x67, 0x8b, 0x00],             // address-size prefix
            &[0xf0, 0x89, 0x00],             // lock
            &[0x8b, 0xc0],                   // register to register
            &[0xc7, 0x48, 0x04, 0, 0, 0, 0], // c7 /1 is not a move
            &[0x8b, 0x20],                   // mov (%rax),%esp
        ] {
            assert_eq!(dec(b, true), None, "{b:x?}");
        }
        // 0x48 is `dec %eax` in 32-bit mode, not REX.W.
        assert_eq!(dec(&[0x48, 0x8b, 0x00], false), None);
    }

    #[test]
    fn loads_write_registers_as_the_cpu_does() {
        let mut mem = [0u8; 8];
        mem.copy_from_slice(&0x8877_6655_f4f3_f2f1u64.to_le_bytes());
        let p = mem.as_mut_ptr();
        let run = |bytes: &[u8], long: bool, regs: &mut Arr| {
            let m = dec(bytes, long).unwrap();
            unsafe { perform(&m, regs, p, long) };
            m.len as u64
        };
        let fresh = || Arr([0x1111_2222_3333_4444; 16], 0x1000);
        // mov (%rax),%ecx: upper half cleared
        let mut r = fresh();
        assert_eq!(run(&[0x8b, 0x08], true, &mut r), 2);
        assert_eq!(r.0[1], 0xf4f3_f2f1);
        assert_eq!(r.1, 0x1002);
        // mov (%rax),%cx: 16 bits merged
        let mut r = fresh();
        run(&[0x66, 0x8b, 0x08], true, &mut r);
        assert_eq!(r.0[1], 0x1111_2222_3333_f2f1);
        // mov (%rax),%ch: bits 8-15 of rcx
        let mut r = fresh();
        run(&[0x8a, 0x28], true, &mut r);
        assert_eq!(r.0[1], 0x1111_2222_3333_f144);
        // movsbq (%rax),%r9 and movzwl (%rax),%r9d
        let mut r = fresh();
        run(&[0x4c, 0x0f, 0xbe, 0x08], true, &mut r);
        assert_eq!(r.0[9], 0xffff_ffff_ffff_fff1);
        run(&[0x44, 0x0f, 0xb7, 0x08], true, &mut r);
        assert_eq!(r.0[9], 0xf2f1);
        // movslq (%rax),%rdx
        run(&[0x48, 0x63, 0x10], true, &mut r);
        assert_eq!(r.0[2], 0xffff_ffff_f4f3_f2f1);
        // mov (%rax),%rdx
        run(&[0x48, 0x8b, 0x10], true, &mut r);
        assert_eq!(r.0[2], 0x8877_6655_f4f3_f2f1);
        // 32-bit mode: movsbl (%eax),%edx stays 32 bits wide
        let mut r = Arr([0x4444; 16], 0xffff_fffe);
        run(&[0x0f, 0xbe, 0x10], false, &mut r);
        assert_eq!(r.0[2], 0xffff_fff1);
        assert_eq!(r.1, 1, "the instruction pointer wraps at 32 bits");
    }

    #[test]
    fn stores_write_the_operands_bytes_only() {
        let mut mem = [0xaau8; 8];
        let p = mem.as_mut_ptr();
        let mut r = Arr([0; 16], 0);
        r.0[1] = 0x0102_0304_0506_0708;
        let m = dec(&[0x88, 0x28], true).unwrap(); // mov %ch,(%rax)
        unsafe { perform(&m, &mut r, p, true) };
        assert_eq!(mem, [0x07, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa]);
        let m = dec(&[0x66, 0x89, 0x08], true).unwrap(); // mov %cx,(%rax)
        unsafe { perform(&m, &mut r, p, true) };
        assert_eq!(mem, [0x08, 0x07, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa]);
        let m = dec(&[0xc7, 0x00, 0x78, 0x56, 0x34, 0x12], true).unwrap(); // movl $..,(%rax)
        unsafe { perform(&m, &mut r, p, true) };
        assert_eq!(mem, [0x78, 0x56, 0x34, 0x12, 0xaa, 0xaa, 0xaa, 0xaa]);
        let m = dec(&[0x48, 0x89, 0x08], true).unwrap(); // mov %rcx,(%rax)
        unsafe { perform(&m, &mut r, p, true) };
        assert_eq!(u64::from_le_bytes(mem), 0x0102_0304_0506_0708);
    }

    #[test]
    fn the_effective_address_follows_the_registers() {
        let mut r = Arr([0; 16], 0x40_0000);
        r.0[3] = 0x1000; // rbx
        r.0[1] = 3; // rcx
                    // mov 0x10(%rbx,%rcx,4),%eax : 8b 44 8b 10
        let m = dec(&[0x8b, 0x44, 0x8b, 0x10], true).unwrap();
        assert_eq!(effective(&m, &r, true), 0x1000 + 12 + 0x10);
        // mov -0x20(%rip),%eax : 8b 05 e0 ff ff ff
        let m = dec(&[0x8b, 0x05, 0xe0, 0xff, 0xff, 0xff], true).unwrap();
        assert_eq!(effective(&m, &r, true), 0x40_0000 + 6 - 0x20);
        // 32-bit: wraps
        r.0[3] = 0xffff_fff0;
        let m = dec(&[0x8b, 0x43, 0x20], false).unwrap();
        assert_eq!(effective(&m, &r, false), 0x10);
        r.1 = 0;
        r.set_ip(5);
        assert_eq!(r.ip(), 5);
    }
}
