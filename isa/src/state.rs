//! Architectural state of one e-core: the register file, the PC, the flags
//! and the core's special registers (group 0 of MOVTS/MOVFS).
//!
//! Model decision owned here: which STATUS bits MOVTS may write (everything
//! except ACTIVE, GID and KM, bits `[2:0]`; FSTATUS writes all of them), and
//! how the flags are stored (one `bool` each, composed into STATUS on read).

/// STATUS bit positions (isa.md §3.4).
pub mod status {
    pub const ACTIVE: u32 = 1 << 0;
    pub const GID: u32 = 1 << 1;
    pub const KM: u32 = 1 << 2;
    pub const WAND: u32 = 1 << 3;
    pub const AZ: u32 = 1 << 4;
    pub const AN: u32 = 1 << 5;
    pub const AC: u32 = 1 << 6;
    pub const AV: u32 = 1 << 7;
    pub const BZ: u32 = 1 << 8;
    pub const BN: u32 = 1 << 9;
    pub const BV: u32 = 1 << 10;
    pub const AVS: u32 = 1 << 12;
    pub const BIS: u32 = 1 << 13;
    pub const BVS: u32 = 1 << 14;
    pub const BUS: u32 = 1 << 15;
    pub const EXCAUSE_SHIFT: u32 = 16;
    pub const EXCAUSE_MASK: u32 = 0xf << EXCAUSE_SHIFT;
}

/// Indices of the group-0 special registers (MOVTS/MOVFS index, isa.md §3.2).
pub mod sreg {
    pub const CONFIG: u32 = 0;
    pub const STATUS: u32 = 1;
    pub const PC: u32 = 2;
    pub const DEBUGSTATUS: u32 = 3;
    pub const LC: u32 = 5;
    pub const LS: u32 = 6;
    pub const LE: u32 = 7;
    pub const IRET: u32 = 8;
    pub const IMASK: u32 = 9;
    pub const ILAT: u32 = 10;
    pub const ILATST: u32 = 11;
    pub const ILATCL: u32 = 12;
    pub const IPEND: u32 = 13;
    pub const CTIMER0: u32 = 14;
    pub const CTIMER1: u32 = 15;
    pub const FSTATUS: u32 = 16;
    pub const DEBUGCMD: u32 = 18;
}

/// CONFIG bit fields (isa.md §3.3).
pub mod config {
    /// 1 = truncate (round toward zero), 0 = round to nearest even.
    pub const RMODE: u32 = 1 << 0;
    pub const IEN: u32 = 1 << 1;
    pub const OEN: u32 = 1 << 2;
    pub const UEN: u32 = 1 << 3;
    pub const ARITHMODE_SHIFT: u32 = 17;
    pub const ARITHMODE_MASK: u32 = 7 << ARITHMODE_SHIFT;
    /// ARITHMODE value selecting signed-integer mode (IADD..IMSUB).
    pub const ARITHMODE_INT: u32 = 4 << ARITHMODE_SHIFT;
}

/// Interrupt numbers = ILAT/IMASK/IPEND bit = vector / 4 (isa.md §6.1).
pub mod irq {
    pub const SYNC: u32 = 0;
    pub const SWEXC: u32 = 1;
    pub const MEMFAULT: u32 = 2;
    pub const TIMER0: u32 = 3;
    pub const TIMER1: u32 = 4;
    pub const MESSAGE: u32 = 5;
    pub const DMA0: u32 = 6;
    pub const DMA1: u32 = 7;
    pub const WAND: u32 = 8;
    pub const USER: u32 = 9;
    /// The 10 implemented interrupt bits.
    pub const MASK: u32 = 0x3ff;
}

/// Software-exception causes written to STATUS.EXCAUSE (E16G301 encoding,
/// isa.md §3.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(u8)]
pub enum Excause {
    Swi = 1,
    Unaligned = 2,
    Fpu = 3,
    Unimplemented = 4,
    IllegalAccess = 5,
}

/// The arithmetic flags, one `bool` each (isa.md §2.1). `repr(C)` and in
/// this order: `exec::cond_holds` reads the first eight as one word.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(C)]
pub struct Flags {
    pub az: bool,
    pub an: bool,
    pub ac: bool,
    pub av: bool,
    pub avs: bool,
    pub bz: bool,
    pub bn: bool,
    pub bv: bool,
    pub bis: bool,
    pub bvs: bool,
    pub bus: bool,
}

/// Architectural state of one core.
#[derive(Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ArchState {
    pub r: [u32; 64],
    /// Address of the next instruction to execute.
    pub pc: u32,
    pub flags: Flags,
    /// STATUS bits that are not flags: ACTIVE, GID, KM, WAND, EXCAUSE and
    /// the reserved bits, kept as they were written.
    pub status_rest: u32,
    pub config: u32,
    pub debugstatus: u32,
    pub lc: u32,
    pub ls: u32,
    pub le: u32,
    pub iret: u32,
    pub imask: u32,
    pub ilat: u32,
    pub ipend: u32,
    pub ctimer0: u32,
    pub ctimer1: u32,
}

const FLAG_BITS: u32 = status::AZ
    | status::AN
    | status::AC
    | status::AV
    | status::BZ
    | status::BN
    | status::BV
    | status::AVS
    | status::BIS
    | status::BVS
    | status::BUS;

impl Clone for ArchState {
    fn clone(&self) -> Self {
        let mut c = ArchState::new();
        c.clone_from(self);
        c
    }

    /// Field by field into `self`: the derived `clone_from` built a copy
    /// and then moved it in, two passes over the 320 bytes (a core's state
    /// before each load from DRAM answered in a block is kept so,
    /// `epsim_sim`'s `solo::InBlock`).
    #[inline]
    fn clone_from(&mut self, source: &Self) {
        let ArchState {
            r,
            pc,
            flags,
            status_rest,
            config,
            debugstatus,
            lc,
            ls,
            le,
            iret,
            imask,
            ilat,
            ipend,
            ctimer0,
            ctimer1,
        } = source;
        self.r = *r;
        self.pc = *pc;
        self.flags = *flags;
        self.status_rest = *status_rest;
        self.config = *config;
        self.debugstatus = *debugstatus;
        self.lc = *lc;
        self.ls = *ls;
        self.le = *le;
        self.iret = *iret;
        self.imask = *imask;
        self.ilat = *ilat;
        self.ipend = *ipend;
        self.ctimer0 = *ctimer0;
        self.ctimer1 = *ctimer1;
    }
}

impl Default for ArchState {
    fn default() -> Self {
        ArchState::new()
    }
}

impl ArchState {
    /// The state e-hal leaves before a load (`ee_reset_regs`, isa.md §3.8):
    /// registers zero, CONFIG = 0x00400000, everything masked except SYNC.
    pub const fn new() -> ArchState {
        ArchState {
            r: [0; 64],
            pc: 0,
            flags: Flags {
                az: false,
                an: false,
                ac: false,
                av: false,
                avs: false,
                bz: false,
                bn: false,
                bv: false,
                bis: false,
                bvs: false,
                bus: false,
            },
            status_rest: 0,
            config: 0x0040_0000,
            debugstatus: 0,
            lc: 0,
            ls: 0,
            le: 0,
            iret: 0,
            imask: irq::MASK & !1,
            ilat: 0,
            ipend: 0,
            ctimer0: 0,
            ctimer1: 0,
        }
    }

    #[inline(always)]
    pub fn reg(&self, n: u8) -> u32 {
        self.r[(n & 63) as usize]
    }

    #[inline(always)]
    pub fn set_reg(&mut self, n: u8, v: u32) {
        self.r[(n & 63) as usize] = v;
    }

    /// STATUS as software reads it.
    pub fn status(&self) -> u32 {
        let f = &self.flags;
        let mut s = self.status_rest & !FLAG_BITS;
        for (on, bit) in [
            (f.az, status::AZ),
            (f.an, status::AN),
            (f.ac, status::AC),
            (f.av, status::AV),
            (f.bz, status::BZ),
            (f.bn, status::BN),
            (f.bv, status::BV),
            (f.avs, status::AVS),
            (f.bis, status::BIS),
            (f.bvs, status::BVS),
            (f.bus, status::BUS),
        ] {
            if on {
                s |= bit;
            }
        }
        s
    }

    /// Writes every STATUS bit (FSTATUS semantics).
    pub fn set_status_all(&mut self, v: u32) {
        self.status_rest = v & !FLAG_BITS;
        self.flags = Flags {
            az: v & status::AZ != 0,
            an: v & status::AN != 0,
            ac: v & status::AC != 0,
            av: v & status::AV != 0,
            bz: v & status::BZ != 0,
            bn: v & status::BN != 0,
            bv: v & status::BV != 0,
            avs: v & status::AVS != 0,
            bis: v & status::BIS != 0,
            bvs: v & status::BVS != 0,
            bus: v & status::BUS != 0,
        };
    }

    /// Writes STATUS as MOVTS does: bits `[2:0]` (ACTIVE, GID, KM) keep their value.
    pub fn set_status(&mut self, v: u32) {
        let keep = self.status_rest & (status::ACTIVE | status::GID | status::KM);
        self.set_status_all((v & !(status::ACTIVE | status::GID | status::KM)) | keep);
    }

    #[inline]
    pub fn gid(&self) -> bool {
        self.status_rest & status::GID != 0
    }

    #[inline]
    pub fn set_bit(&mut self, bit: u32, on: bool) {
        if on {
            self.status_rest |= bit;
        } else {
            self.status_rest &= !bit;
        }
    }

    /// Records a software-exception cause and latches interrupt 1.
    pub fn raise_exception(&mut self, cause: Excause) {
        self.status_rest =
            (self.status_rest & !status::EXCAUSE_MASK) | ((cause as u32) << status::EXCAUSE_SHIFT);
        self.ilat |= 1 << irq::SWEXC;
    }

    /// True when CONFIG selects the FPU's signed-integer mode.
    #[inline]
    pub fn int_mode(&self) -> bool {
        self.config & config::ARITHMODE_MASK == config::ARITHMODE_INT
    }

    /// Reads a group-0 special register by index. `None` for indices that are
    /// not core registers (reserved or write-only: ILATST, ILATCL, FSTATUS,
    /// DEBUGCMD), which the caller treats as the system sees fit.
    pub fn read_core_sreg(&self, index: u32) -> Option<u32> {
        Some(match index {
            sreg::CONFIG => self.config,
            sreg::STATUS => self.status(),
            sreg::PC => self.pc,
            sreg::DEBUGSTATUS => self.debugstatus,
            sreg::LC => self.lc,
            sreg::LS => self.ls,
            sreg::LE => self.le,
            sreg::IRET => self.iret,
            sreg::IMASK => self.imask,
            sreg::ILAT => self.ilat,
            sreg::IPEND => self.ipend,
            sreg::CTIMER0 => self.ctimer0,
            sreg::CTIMER1 => self.ctimer1,
            _ => return None,
        })
    }

    /// Writes a group-0 special register by index with the architectural
    /// side effects (ILATST/ILATCL, STATUS read-only bits, FSTATUS). Returns
    /// false for indices that are not writable core registers (PC and
    /// DEBUGCMD are the system's business: they redirect or halt the core).
    pub fn write_core_sreg(&mut self, index: u32, v: u32) -> bool {
        match index {
            sreg::CONFIG => self.config = v,
            sreg::STATUS => self.set_status(v),
            sreg::LC => self.lc = v,
            sreg::LS => self.ls = v,
            sreg::LE => self.le = v,
            sreg::IRET => self.iret = v,
            sreg::IMASK => self.imask = v & irq::MASK,
            sreg::ILAT => self.ilat = v & irq::MASK,
            sreg::ILATST => self.ilat |= v & irq::MASK,
            sreg::ILATCL => self.ilat &= !v,
            sreg::IPEND => self.ipend = v & irq::MASK,
            sreg::CTIMER0 => self.ctimer0 = v,
            sreg::CTIMER1 => self.ctimer1 = v,
            sreg::FSTATUS => self.set_status_all(v),
            _ => return false,
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `clone_from` (written out field by field) leaves every field of
    /// the source, over a state whose every field differs from a fresh one.
    #[test]
    fn clone_from_copies_every_field() {
        let mut src = ArchState::new();
        for (i, r) in src.r.iter_mut().enumerate() {
            *r = 0x1000 + i as u32;
        }
        src.pc = 0x8e00_0010;
        src.set_status_all(u32::MAX);
        for (i, v) in [
            &mut src.config,
            &mut src.debugstatus,
            &mut src.lc,
            &mut src.ls,
            &mut src.le,
            &mut src.iret,
            &mut src.imask,
            &mut src.ilat,
            &mut src.ipend,
            &mut src.ctimer0,
            &mut src.ctimer1,
        ]
        .into_iter()
        .enumerate()
        {
            *v = 0x5a5a_0000 + i as u32;
        }
        let mut dst = ArchState::new();
        assert_ne!(dst, src);
        dst.clone_from(&src);
        assert_eq!(dst, src);
        assert_eq!(src.clone(), src);
    }
}
