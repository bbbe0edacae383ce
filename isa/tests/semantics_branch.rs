//! Branches, jumps and calls (isa.md §2.2, §2.5): every condition taken and
//! not taken, offsets relative to the branch itself, BL/JALR link values.

mod semantics_util;

use epsim_isa::exec::cond_holds;
use epsim_isa::op::Cond;
use epsim_isa::{Flags, Op, Step};
use semantics_util::{flags, Machine, PC};

/// (flags, condition, taken).
#[rustfmt::skip]
const ROWS: &[(&str, Cond, bool)] = &[
    ("az",       Cond::Eq,   true),  ("-",        Cond::Eq,   false),
    ("-",        Cond::Ne,   true),  ("az",       Cond::Ne,   false),
    ("ac",       Cond::Gtu,  true),  ("az ac",    Cond::Gtu,  false), ("-", Cond::Gtu, false),
    ("ac",       Cond::Gteu, true),  ("az ac",    Cond::Gteu, true),  ("az", Cond::Gteu, false),
    ("az ac",    Cond::Lteu, true),  ("-",        Cond::Lteu, true),  ("ac", Cond::Lteu, false),
    ("-",        Cond::Ltu,  true),  ("az",       Cond::Ltu,  true),  ("ac", Cond::Ltu, false),
    ("-",        Cond::Gt,   true),  ("an av",    Cond::Gt,   true),  ("az", Cond::Gt, false),
    ("an",       Cond::Gt,   false), ("av",       Cond::Gt,   false),
    ("-",        Cond::Gte,  true),  ("az an av", Cond::Gte,  true),  ("an", Cond::Gte, false),
    ("av",       Cond::Gte,  false),
    ("an",       Cond::Lt,   true),  ("av",       Cond::Lt,   true),  ("an av", Cond::Lt, false),
    ("-",        Cond::Lt,   false),
    ("az",       Cond::Lte,  true),  ("an",       Cond::Lte,  true),  ("av", Cond::Lte, true),
    ("-",        Cond::Lte,  false), ("an av",    Cond::Lte,  false),
    ("bz",       Cond::Beq,  true),  ("az",       Cond::Beq,  false),
    ("-",        Cond::Bne,  true),  ("bz",       Cond::Bne,  false),
    ("bn",       Cond::Blt,  true),  ("bz bn",    Cond::Blt,  false), ("an", Cond::Blt, false),
    ("bn",       Cond::Blte, true),  ("bz",       Cond::Blte, true),  ("-", Cond::Blte, false),
    ("-",        Cond::Always, true), ("az an ac av bz bn", Cond::Always, true),
];

#[test]
fn bcond_table() {
    for &(fl, cond, taken) in ROWS {
        assert_eq!(
            cond_holds(&flags(fl), cond),
            taken,
            "cond_holds {fl:?} {cond:?}"
        );
        for (disp, len) in [
            (-256, 2),
            (254, 2),
            (-0x100_0000, 4),
            (0xFF_FFFE, 4),
            (0, 4),
        ] {
            let mut m = Machine::new();
            m.s.flags = flags(fl);
            m.set(14, 0x5555);
            let step = m.run_at(Op::Bcond { cond, disp }, PC, len);
            let want = if taken {
                Step::Jump {
                    target: PC.wrapping_add(disp as u32),
                }
            } else {
                Step::Next
            };
            assert_eq!(step, want, "{fl:?} {cond:?} disp {disp}");
            assert_eq!(m.r(14), 0x5555, "only BL links");
            assert_eq!(m.s.flags, flags(fl), "branches set no flags");
        }
    }
}

#[test]
fn cond_holds_matches_the_formulas_on_every_flag_combination() {
    // All 11 flags: the ones no condition tests must not change the answer.
    for bits in 0u32..1 << 11 {
        let f = Flags {
            az: bits & 1 != 0,
            an: bits & 2 != 0,
            ac: bits & 4 != 0,
            av: bits & 8 != 0,
            bz: bits & 16 != 0,
            bn: bits & 32 != 0,
            avs: bits & 64 != 0,
            bv: bits & 128 != 0,
            bis: bits & 256 != 0,
            bvs: bits & 512 != 0,
            bus: bits & 1024 != 0,
        };
        let (z, n, c, v, bz, bn) = (f.az, f.an, f.ac, f.av, f.bz, f.bn);
        let table = [
            (Cond::Eq, z),
            (Cond::Ne, !z),
            (Cond::Gtu, !z && c),
            (Cond::Gteu, c),
            (Cond::Lteu, z || !c),
            (Cond::Ltu, !c),
            (Cond::Gt, !z && v == n),
            (Cond::Gte, v == n),
            (Cond::Lt, v != n),
            (Cond::Lte, z || v != n),
            (Cond::Beq, bz),
            (Cond::Bne, !bz),
            (Cond::Blt, bn && !bz),
            (Cond::Blte, bn || bz),
            (Cond::Always, true),
            (Cond::Link, true),
        ];
        for (cond, want) in table {
            assert_eq!(cond_holds(&f, cond), want, "{f:?} {cond:?}");
        }
    }
}

#[test]
fn branch_wraps_around_the_address_space() {
    let mut m = Machine::new();
    assert_eq!(
        m.run_at(
            Op::Bcond {
                cond: Cond::Always,
                disp: -8
            },
            4,
            4
        ),
        Step::Jump {
            target: 0xFFFF_FFFC
        }
    );
}

#[test]
fn bl_links_next_instruction() {
    for (len, disp) in [(2u32, 0x40i32), (4, -0x80), (4, 0)] {
        let mut m = Machine::new();
        m.s.flags = flags("-");
        let step = m.run_at(
            Op::Bcond {
                cond: Cond::Link,
                disp,
            },
            0x1000,
            len,
        );
        assert_eq!(
            step,
            Step::Jump {
                target: 0x1000u32.wrapping_add(disp as u32)
            }
        );
        assert_eq!(m.r(14), 0x1000 + len);
    }
}

#[test]
fn jr_and_rts() {
    let mut m = Machine::new();
    m.set(7, 0x8E00_1234);
    assert_eq!(
        m.run(Op::Jr { rn: 7 }),
        Step::Jump {
            target: 0x8E00_1234
        }
    );
    m.set(14, 0x0000_0ABC);
    assert_eq!(m.run(Op::Jr { rn: 14 }), Step::Jump { target: 0xABC });
    assert_eq!(m.r(14), 0xABC, "JR does not link");
    // Bit 0 of the target is ignored (instructions are halfword aligned).
    m.set(7, 0x201);
    assert_eq!(m.run(Op::Jr { rn: 7 }), Step::Jump { target: 0x200 });
}

#[test]
fn jalr_links_and_reads_target_first() {
    let mut m = Machine::new();
    m.set(3, 0x4000);
    assert_eq!(
        m.run_at(Op::Jalr { rn: 3 }, 0x300, 2),
        Step::Jump { target: 0x4000 }
    );
    assert_eq!(m.r(14), 0x302);
    assert_eq!(
        m.run_at(Op::Jalr { rn: 3 }, 0x300, 4),
        Step::Jump { target: 0x4000 }
    );
    assert_eq!(m.r(14), 0x304);
    // JALR r14: jumps to the old LR, then LR = next instruction.
    m.set(14, 0x7000);
    assert_eq!(
        m.run_at(Op::Jalr { rn: 14 }, 0x500, 4),
        Step::Jump { target: 0x7000 }
    );
    assert_eq!(m.r(14), 0x504);
}
