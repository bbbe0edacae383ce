//! The decoder: instruction word -> typed [`Op`], derived from the encoding
//! table ([`crate::encoding`]).
//!
//! This module owns the mapping from encoding rows to `Op` values: how
//! immediates are scaled and signed, and which rows become `Op::Unimpl`.
//! Decoding is strict, as binutils' CGEN tables are: a word whose reserved
//! bits are not zero matches no row and decodes to `Op::Unimpl` (isa.md §1.3
//! "Reserved bits"; hardware behaviour there is unknown, and strictness is
//! what `epiphany-elf-objdump` shows).

use crate::encoding::{lookup, EncId, Encoding, Mode, Sem};
use crate::op::{Op, Size, Sreg};

/// A decoded instruction: the typed operation, its length in bytes (2 or 4)
/// and the encoding row it matched (for the disassembler).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Decoded {
    pub op: Op,
    pub len: u8,
    pub enc: EncId,
}

/// Decodes the instruction whose first halfword is `word & 0xffff` and whose
/// second halfword (used only by 32-bit forms) is `word >> 16`.
///
/// The length always follows `h0[3:0]` ([`crate::insn_len`]), also for a word
/// that matches no row: that one decodes to `Op::Unimpl` with
/// [`EncId::NoRow`].
pub fn decode(word: u32) -> Decoded {
    let len = crate::insn_len(word as u16) as u8;
    match lookup(word) {
        Some(e) => {
            debug_assert_eq!(e.len, len, "invariant: every row agrees with insn_len");
            Decoded {
                op: build(e, word),
                len,
                enc: e.id,
            }
        }
        None => Decoded {
            op: Op::Unimpl,
            len,
            enc: EncId::NoRow,
        },
    }
}

/// Builds the `Op` for `word`, an instance of row `e`.
fn build(e: &Encoding, w: u32) -> Op {
    // Register fields are at most 6 bits wide, so the casts cannot truncate.
    let rd = e.field(b'd', w) as u8;
    let rn = e.field(b'n', w) as u8;
    let rm = e.field(b'm', w) as u8;
    let sub = e.field(b'g', w) != 0;
    let imm = e.field(b'i', w);
    // Displacements are in units of the access size; the 32-bit one is
    // sign-magnitude (bit 24 = minus), the 16-bit one unsigned.
    let disp = |size: Size| {
        let mag = (imm << size.shift()) as i32;
        if sub {
            -mag
        } else {
            mag
        }
    };
    match e.sem {
        Sem::Branch(cond) => Op::Bcond {
            cond,
            disp: e.sfield(b'o', w) * 2,
        },
        Sem::Jr => Op::Jr { rn },
        Sem::Rts => Op::Jr { rn: 14 },
        Sem::Jalr => Op::Jalr { rn },
        Sem::Ld(size, mode) => match mode {
            Mode::Disp => Op::Ld {
                size,
                rd,
                rn,
                off: disp(size),
            },
            Mode::DispPost => Op::LdPi {
                size,
                rd,
                rn,
                off: disp(size),
            },
            Mode::Index => Op::LdX {
                size,
                rd,
                rn,
                rm,
                sub,
            },
            Mode::IndexPost => Op::LdP {
                size,
                rd,
                rn,
                rm,
                sub,
            },
        },
        Sem::St(size, mode) => match mode {
            Mode::Disp => Op::St {
                size,
                rd,
                rn,
                off: disp(size),
            },
            Mode::DispPost => Op::StPi {
                size,
                rd,
                rn,
                off: disp(size),
            },
            Mode::Index => Op::StX {
                size,
                rd,
                rn,
                rm,
                sub,
            },
            Mode::IndexPost => Op::StP {
                size,
                rd,
                rn,
                rm,
                sub,
            },
        },
        Sem::TestSet => Op::TestSet { rd, rn, rm, sub },
        Sem::MovCond(cond) => Op::MovCond { cond, rd, rn },
        // MOVTS/MOVFS: the GPR sits in the RD slot, the special-register
        // index in the RN slot.
        Sem::Movts(group) => Op::Movts {
            sreg: Sreg::new(group as u32, rn as u32),
            rn: rd,
        },
        Sem::Movfs(group) => Op::Movfs {
            rd,
            sreg: Sreg::new(group as u32, rn as u32),
        },
        Sem::Alu(op) => Op::alu(op, rd, rn, rm),
        Sem::AddImm => Op::AddImm {
            rd,
            rn,
            imm: e.sfield(b'i', w),
        },
        Sem::SubImm => Op::SubImm {
            rd,
            rn,
            imm: e.sfield(b'i', w),
        },
        Sem::ShiftImm(op) => Op::shift_imm(op, rd, rn, imm as u8),
        Sem::Bitr => Op::Bitr { rd, rn },
        Sem::MovImm => Op::MovImm { rd, imm },
        Sem::Movt => Op::Movt { rd, imm },
        Sem::Fpu(op) => Op::Fpu { op, rd, rn, rm },
        Sem::Nop => Op::Nop,
        Sem::Idle => Op::Idle,
        Sem::Gie => Op::Gie,
        Sem::Gid => Op::Gid,
        Sem::Rti => Op::Rti,
        Sem::Swi => Op::Swi {
            num: e.field(b't', w) as u8,
        },
        Sem::Trap => Op::Trap {
            num: e.field(b't', w) as u8,
        },
        Sem::Bkpt => Op::Bkpt,
        Sem::Mbkpt => Op::Mbkpt,
        Sem::Wand => Op::Wand,
        Sem::Sync => Op::Sync,
        Sem::Unimpl => Op::Unimpl,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::{Cond, FpuOp};

    fn op(word: u32) -> Op {
        decode(word).op
    }

    #[test]
    fn worked_decodes_from_isa_md() {
        assert_eq!(op(0x2122_068b), Op::MovImm { rd: 8, imm: 0x1234 });
        assert_eq!(op(0x3ab2_19ab), Op::Movt { rd: 8, imm: 0xabcd });
        assert_eq!(
            op(0x010006cc),
            Op::Ld {
                size: Size::Word,
                rd: 0,
                rn: 1,
                off: -20
            }
        );
        assert_eq!(
            op(0x030006cc),
            Op::LdPi {
                size: Size::Word,
                rd: 0,
                rn: 1,
                off: -20
            }
        );
        assert_eq!(
            op(0x2400056c),
            Op::Ld {
                size: Size::Double,
                rd: 8,
                rn: 9,
                off: 16
            }
        );
        assert_eq!(
            op(0x0584),
            Op::Ld {
                size: Size::Byte,
                rd: 0,
                rn: 1,
                off: 3
            }
        );
        assert_eq!(
            op(0x00200549),
            Op::TestSet {
                rd: 0,
                rn: 1,
                rm: 2,
                sub: false
            }
        );
        assert_eq!(
            op(0x3200),
            Op::Bcond {
                cond: Cond::Eq,
                disp: 100
            }
        );
        assert_eq!(
            op(0x800000f8),
            Op::Bcond {
                cond: Cond::Link,
                disp: -0x100_0000
            }
        );
        assert_eq!(op(0x0402194f), Op::Jr { rn: 14 });
        assert_eq!(op(0x1402015f), Op::Jalr { rn: 40 });
        assert_eq!(
            op(0x0613),
            Op::AddImm {
                rd: 0,
                rn: 1,
                imm: -4
            }
        );
        assert_eq!(
            op(0x207f079b),
            Op::AddImm {
                rd: 8,
                rn: 1,
                imm: 1023
            }
        );
        assert_eq!(
            op(0x480c963b),
            Op::SubImm {
                rd: 20,
                rn: 21,
                imm: 100
            }
        );
        assert_eq!(
            op(0xb40604ef),
            Op::LsrImm {
                rd: 40,
                rn: 41,
                amount: 7
            }
        );
        assert_eq!(
            op(0x920a299f),
            Op::Add {
                rd: 33,
                rn: 34,
                rm: 35
            }
        );
        assert_eq!(
            op(0xff87970f),
            Op::Fpu {
                op: FpuOp::Fadd,
                rd: 60,
                rn: 61,
                rm: 62
            }
        );
        assert_eq!(
            op(0x2012010f),
            Op::Movts {
                sreg: Sreg::new(1, 0),
                rn: 8
            }
        );
        assert_eq!(
            op(0x2032251f),
            Op::Movfs {
                rd: 9,
                sreg: Sreg::new(3, 1)
            }
        );
        assert_eq!(
            op(0x0512),
            Op::Movfs {
                rd: 0,
                sreg: Sreg::new(0, 1)
            }
        );
        assert_eq!(
            op(0x8002282f),
            Op::MovCond {
                cond: Cond::Gtu,
                rd: 33,
                rn: 2
            }
        );
        assert_eq!(
            op(0xb690054d),
            Op::LdP {
                size: Size::Word,
                rd: 40,
                rn: 41,
                rm: 42,
                sub: true
            }
        );
        assert_eq!(op(0x0fe2), Op::Trap { num: 3 });
        assert_eq!(op(0x01e2), Op::Swi { num: 0 });
        assert_eq!(op(0x15e2), Op::Swi { num: 5 });
        assert_eq!(op(0x03a2), Op::Nop);
    }

    #[test]
    fn placeholders_and_unknown_words_are_unimpl() {
        for w in [
            0x000f000f, 0x0017000f, 0x0017001f, 0x001a000f, 0x001a001f, 0x001a002f,
        ] {
            assert_eq!(op(w), Op::Unimpl, "{w:#x}");
            assert_ne!(decode(w).enc, EncId::NoRow);
        }
        // testsetb/testseth
        assert_eq!(op(0x00200009), Op::Unimpl);
        assert_eq!(op(0x00200029), Op::Unimpl);
        // Unassigned FLOW16 key, and reserved bit [9] of MOV<cond> set.
        for (w, len) in [(0x0122, 2), (0x0212, 2), (0x0f0f_0f0f, 4), (0x0000_0feb, 4)] {
            let d = decode(w);
            assert_eq!(
                (d.op, d.len, d.enc),
                (Op::Unimpl, len, EncId::NoRow),
                "{w:#x}"
            );
        }
    }

    #[test]
    fn sixteen_bit_forms_ignore_the_second_halfword() {
        for h0 in 0..=0xffffu32 {
            if crate::insn_len(h0 as u16) == 2 {
                assert_eq!(decode(h0), decode(h0 | 0xdead_0000), "{h0:#06x}");
            }
        }
    }
}
