//! What each instruction reads and writes: the register and flag
//! dependencies a timing model interlocks on (isa.md §5.3).
//!
//! Model decisions owned here:
//! * a register written by a load is split by *when* it is written: the
//!   loaded data ([`Deps::load`]) arrives late, the post-modified base
//!   ([`Deps::ialu`]) at E1 like any IALU result;
//! * `FMADD`/`FMSUB` (and `IMADD`/`IMSUB`) read their destination; `FABS`,
//!   `FIX` and `FLOAT` read only `rn`;
//! * a double access reads or writes the pair `rd & !1`, `rd | 1`;
//! * `MOVFS` is an E1 write; `MOVTS` and the special registers are not
//!   tracked here (they are not general registers);
//! * the flags: ALU instructions write AZ/AN/AC/AV/AVS, FPU instructions
//!   the B flags; `B<cond>`/`MOV<cond>` read the A or the B flags depending
//!   on the condition. `MOVTS status` writes both and `MOVFS status` reads
//!   both.
//!
//! The tests check this table against the semantics themselves: executing
//! any instruction changes no register it does not declare, and changing a
//! register it does not read changes nothing it computes.

use crate::op::{Cond, FpuOp, Op, Size};
use crate::state::sreg;

/// Register and flag dependencies of one instruction. Register sets are
/// bit masks (bit n = rn).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Deps {
    /// Registers read (operands, store data, addresses).
    pub reads: u64,
    /// The registers of `reads` that are store data (an FPU result reaches
    /// a store sooner than an operand).
    pub data: u64,
    /// Registers written with an IALU-timed result (IALU, MOVFS, the link
    /// register of BL/JALR, a post-modified base).
    pub ialu: u64,
    /// Registers written by a load's data.
    pub load: u64,
    /// Registers written by the FPU/IALU2.
    pub fpu: u64,
    /// Flag groups read and written ([`AFLAGS`], [`BFLAGS`]).
    pub flags_read: u8,
    pub flags_written: u8,
}

/// The integer flags AZ, AN, AC, AV (and sticky AVS).
pub const AFLAGS: u8 = 1;
/// The FPU flags BZ, BN, BV, BIS, BUS, BVS.
pub const BFLAGS: u8 = 2;

const LR: u8 = 14;

#[inline]
const fn bit(r: u8) -> u64 {
    1 << (r & 63)
}

/// The register (pair) of a load or store's data.
const fn data(size: Size, rd: u8) -> u64 {
    match size {
        Size::Double => bit(rd & !1) | bit(rd | 1),
        _ => bit(rd),
    }
}

/// The flag group a condition reads.
const fn cond_flags(cond: Cond) -> u8 {
    match cond {
        Cond::Always | Cond::Link => 0,
        Cond::Beq | Cond::Bne | Cond::Blt | Cond::Blte => BFLAGS,
        _ => AFLAGS,
    }
}

impl Op {
    /// What this instruction reads and writes.
    pub const fn deps(&self) -> Deps {
        let none = Deps {
            reads: 0,
            data: 0,
            ialu: 0,
            load: 0,
            fpu: 0,
            flags_read: 0,
            flags_written: 0,
        };
        match *self {
            Op::Bcond { cond, .. } => Deps {
                ialu: if matches!(cond, Cond::Link) {
                    bit(LR)
                } else {
                    0
                },
                flags_read: cond_flags(cond),
                ..none
            },
            Op::Jr { rn } => Deps {
                reads: bit(rn),
                ..none
            },
            Op::Jalr { rn } => Deps {
                reads: bit(rn),
                ialu: bit(LR),
                ..none
            },
            Op::Add { rd, rn, rm }
            | Op::Sub { rd, rn, rm }
            | Op::And { rd, rn, rm }
            | Op::Orr { rd, rn, rm }
            | Op::Eor { rd, rn, rm }
            | Op::Asr { rd, rn, rm }
            | Op::Lsr { rd, rn, rm }
            | Op::Lsl { rd, rn, rm } => Deps {
                reads: bit(rn) | bit(rm),
                ialu: bit(rd),
                flags_written: AFLAGS,
                ..none
            },
            Op::AddImm { rd, rn, .. }
            | Op::SubImm { rd, rn, .. }
            | Op::LsrImm { rd, rn, .. }
            | Op::LslImm { rd, rn, .. }
            | Op::AsrImm { rd, rn, .. }
            | Op::Bitr { rd, rn } => Deps {
                reads: bit(rn),
                ialu: bit(rd),
                flags_written: AFLAGS,
                ..none
            },
            Op::MovImm { rd, .. } => Deps {
                ialu: bit(rd),
                ..none
            },
            // MOVT keeps the low half of rd.
            Op::Movt { rd, .. } => Deps {
                reads: bit(rd),
                ialu: bit(rd),
                ..none
            },
            // A MOV<cond> that does not move leaves rd as it was: rd is
            // read (the old value flows through) as well as written.
            Op::MovCond { cond, rd, rn } => Deps {
                reads: bit(rn)
                    | if matches!(cond, Cond::Always) {
                        0
                    } else {
                        bit(rd)
                    },
                ialu: bit(rd),
                flags_read: cond_flags(cond),
                ..none
            },
            Op::Movts { sreg, rn } => Deps {
                reads: bit(rn),
                flags_written: if sreg.group() == 0 && sreg.index() == sreg::STATUS {
                    AFLAGS | BFLAGS
                } else {
                    0
                },
                ..none
            },
            Op::Movfs { rd, sreg } => Deps {
                ialu: bit(rd),
                flags_read: if sreg.group() == 0 && sreg.index() == sreg::STATUS {
                    AFLAGS | BFLAGS
                } else {
                    0
                },
                ..none
            },
            Op::Ld { size, rd, rn, .. } => Deps {
                reads: bit(rn),
                load: data(size, rd),
                ..none
            },
            Op::LdX {
                size, rd, rn, rm, ..
            } => Deps {
                reads: bit(rn) | bit(rm),
                load: data(size, rd),
                ..none
            },
            Op::LdP {
                size, rd, rn, rm, ..
            } => Deps {
                reads: bit(rn) | bit(rm),
                load: data(size, rd),
                ialu: bit(rn),
                ..none
            },
            Op::LdPi { size, rd, rn, .. } => Deps {
                reads: bit(rn),
                load: data(size, rd),
                ialu: bit(rn),
                ..none
            },
            Op::St { size, rd, rn, .. } => Deps {
                reads: data(size, rd) | bit(rn),
                data: data(size, rd),
                ..none
            },
            Op::StX {
                size, rd, rn, rm, ..
            } => Deps {
                reads: data(size, rd) | bit(rn) | bit(rm),
                data: data(size, rd),
                ..none
            },
            Op::StP {
                size, rd, rn, rm, ..
            } => Deps {
                reads: data(size, rd) | bit(rn) | bit(rm),
                ialu: bit(rn),
                data: data(size, rd),
                ..none
            },
            Op::StPi { size, rd, rn, .. } => Deps {
                reads: data(size, rd) | bit(rn),
                ialu: bit(rn),
                data: data(size, rd),
                ..none
            },
            Op::TestSet { rd, rn, rm, .. } => Deps {
                reads: bit(rd) | bit(rn) | bit(rm),
                load: bit(rd),
                data: bit(rd),
                ..none
            },
            Op::Fpu { op, rd, rn, rm } => Deps {
                reads: match op {
                    FpuOp::Fmadd | FpuOp::Fmsub => bit(rd) | bit(rn) | bit(rm),
                    FpuOp::Float | FpuOp::Fix | FpuOp::Fabs => bit(rn),
                    FpuOp::Fadd | FpuOp::Fsub | FpuOp::Fmul => bit(rn) | bit(rm),
                },
                fpu: bit(rd),
                flags_written: BFLAGS,
                ..none
            },
            Op::Nop
            | Op::Idle
            | Op::Gie
            | Op::Gid
            | Op::Rti
            | Op::Swi { .. }
            | Op::Trap { .. }
            | Op::Bkpt
            | Op::Mbkpt
            | Op::Wand
            | Op::Sync
            | Op::Unimpl => none,
        }
    }
}

impl Deps {
    /// Every register written, whenever.
    pub const fn writes(&self) -> u64 {
        self.ialu | self.load | self.fpu
    }
}
