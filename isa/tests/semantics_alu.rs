//! Integer ALU and moves: ADD/SUB (register and immediate), AND/ORR/EOR,
//! shifts, BITR, MOV/MOVT, MOV<cond> (isa.md §2.2–§2.4).

mod semantics_util;

use epsim_isa::op::{AluOp, Cond, ShiftOp};
use epsim_isa::{Op, Step};
use semantics_util::{flag_names, flags, Machine, Rng};

const fn alu(op: AluOp) -> Op {
    Op::alu(op, 2, 0, 1)
}
const fn addi(imm: i32) -> Op {
    Op::AddImm { rd: 2, rn: 0, imm }
}
const fn subi(imm: i32) -> Op {
    Op::SubImm { rd: 2, rn: 0, imm }
}
const fn shi(op: ShiftOp, amount: u8) -> Op {
    Op::shift_imm(op, 2, 0, amount)
}

const ADD: Op = alu(AluOp::Add);
const SUB: Op = alu(AluOp::Sub);
const AND: Op = alu(AluOp::And);
const ORR: Op = alu(AluOp::Orr);
const EOR: Op = alu(AluOp::Eor);
const ASR: Op = alu(AluOp::Asr);
const LSR: Op = alu(AluOp::Lsr);
const LSL: Op = alu(AluOp::Lsl);
const BITR: Op = Op::Bitr { rd: 2, rn: 0 };

/// (op, r0, r1, flags before, r2 after, flags after). rd = r2, rn = r0, rm = r1.
#[rustfmt::skip]
const ROWS: &[(Op, u32, u32, &str, u32, &str)] = &[
    // ---- ADD: carry, signed overflow both ways, zero, INT_MIN ----
    (ADD, 1,           2,           "-",            3,           "-"),
    (ADD, 0,           0,           "an ac av",     0,           "az"),
    (ADD, 0x7FFF_FFFF, 1,           "-",            0x8000_0000, "an av avs"),
    (ADD, 0x8000_0000, 0x8000_0000, "-",            0,           "az ac av avs"),
    (ADD, 0x8000_0000, 0xFFFF_FFFF, "-",            0x7FFF_FFFF, "ac av avs"),
    (ADD, 0xFFFF_FFFF, 1,           "-",            0,           "az ac"),
    (ADD, 0xFFFF_FFFF, 0xFFFF_FFFF, "-",            0xFFFF_FFFE, "an ac"),
    (ADD, 0x8000_0000, 0,           "-",            0x8000_0000, "an"),
    (ADD, 0x7FFF_FFFF, 0x8000_0000, "-",            0xFFFF_FFFF, "an"),
    (ADD, 1,           2,           "av avs",       3,           "avs"),        // AVS is sticky
    (ADD, 1,           2,           "bz bn bv bis bvs bus", 3,   "bz bn bv bis bvs bus"), // B flags untouched
    // ---- SUB: AC = NOT borrow ----
    (SUB, 5,           3,           "-",            2,           "ac"),
    (SUB, 3,           5,           "ac",           0xFFFF_FFFE, "an"),
    (SUB, 5,           5,           "-",            0,           "az ac"),
    (SUB, 0,           0,           "-",            0,           "az ac"),
    (SUB, 0,           1,           "-",            0xFFFF_FFFF, "an"),
    (SUB, 0x8000_0000, 1,           "-",            0x7FFF_FFFF, "ac av avs"),  // negative overflow
    (SUB, 0x7FFF_FFFF, 0xFFFF_FFFF, "-",            0x8000_0000, "an av avs"),  // positive overflow, borrow
    (SUB, 0,           0x8000_0000, "-",            0x8000_0000, "an av avs"),  // 0 - INT_MIN
    (SUB, 0x8000_0000, 0x8000_0000, "-",            0,           "az ac"),
    (SUB, 0xFFFF_FFFF, 0x7FFF_FFFF, "-",            0x8000_0000, "an ac"),
    (SUB, 5,           3,           "avs",          2,           "ac avs"),
    // ---- immediate forms (operand sign-extended by the decoder) ----
    (addi(-1),   5,           0, "-",  4,           "ac"),
    (addi(-1),   0,           0, "-",  0xFFFF_FFFF, "an"),
    (addi(1),    0x7FFF_FFFF, 0, "-",  0x8000_0000, "an av avs"),
    (addi(1023), 0xFFFF_FC01, 0, "-",  0,           "az ac"),
    (addi(-1024),0x8000_0000, 0, "-",  0x7FFF_FC00, "ac av avs"),
    (subi(3),    3,           0, "-",  0,           "az ac"),
    (subi(3),    2,           0, "-",  0xFFFF_FFFF, "an"),
    (subi(-3),   0xFFFF_FFFD, 0, "-",  0,           "az ac"),                   // -3 - -3
    (subi(-3),   2,           0, "-",  5,           "-"),                       // 2 - 0xFFFFFFFD borrows
    (subi(1),    0x8000_0000, 0, "-",  0x7FFF_FFFF, "ac av avs"),
    (subi(-1),   0x7FFF_FFFF, 0, "-",  0x8000_0000, "an av avs"),
    // ---- logic: AZ AN, AC = AV = 0, AVS kept ----
    (AND, 0xF0F0_F0F0, 0x0FF0_0FF0, "ac av avs",   0x00F0_00F0, "avs"),
    (AND, 0xF0F0_F0F0, 0x0F0F_0F0F, "ac av",       0,           "az"),
    (AND, 0x8000_0001, 0x8000_0000, "-",           0x8000_0000, "an"),
    (ORR, 0,           0,           "ac av",       0,           "az"),
    (ORR, 0x8000_0000, 1,           "-",           0x8000_0001, "an"),
    (EOR, 0x1234_5678, 0x1234_5678, "an ac av",    0,           "az"),
    (EOR, 0xFFFF_FFFF, 0x7FFF_FFFF, "-",           0x8000_0000, "an"),
    // ---- shifts by register: amount = rm & 31 ----
    (LSL, 0x8000_0001, 0,           "ac av",       0x8000_0001, "an"),
    (LSL, 0x8000_0001, 1,           "-",           2,           "-"),
    (LSL, 1,           31,          "-",           0x8000_0000, "an"),
    (LSL, 3,           31,          "-",           0x8000_0000, "an"),
    (LSL, 0x8000_0000, 1,           "-",           0,           "az"),
    (LSL, 1,           32,          "-",           1,           "-"),            // 32 & 31 = 0
    (LSL, 1,           33,          "-",           2,           "-"),
    (LSL, 1,           0xFFFF_FFFF, "-",           0x8000_0000, "an"),           // & 31 = 31
    (LSR, 0x8000_0000, 31,          "-",           1,           "-"),
    (LSR, 0x8000_0000, 0,           "av",          0x8000_0000, "an"),
    (LSR, 0xFFFF_FFFF, 1,           "-",           0x7FFF_FFFF, "-"),
    (LSR, 1,           1,           "ac",          0,           "az"),
    (LSR, 0x8000_0000, 63,          "-",           1,           "-"),
    (ASR, 0x8000_0000, 31,          "-",           0xFFFF_FFFF, "an"),
    (ASR, 0x8000_0000, 0,           "-",           0x8000_0000, "an"),
    (ASR, 0x8000_0000, 4,           "-",           0xF800_0000, "an"),
    (ASR, 0x7FFF_FFFF, 31,          "-",           0,           "az"),
    (ASR, 0x4000_0000, 32,          "-",           0x4000_0000, "-"),
    // ---- shifts by immediate ----
    (shi(ShiftOp::Lsl, 0),  0x8000_0000, 0, "ac av avs", 0x8000_0000, "an avs"),
    (shi(ShiftOp::Lsl, 31), 0x0000_0003, 0, "-",         0x8000_0000, "an"),
    (shi(ShiftOp::Lsl, 4),  0x1000_0000, 0, "-",         0,           "az"),
    (shi(ShiftOp::Lsr, 0),  0x1234_5678, 0, "-",         0x1234_5678, "-"),
    (shi(ShiftOp::Lsr, 31), 0xFFFF_FFFF, 0, "-",         1,           "-"),
    (shi(ShiftOp::Lsr, 4),  0x8765_4321, 0, "-",         0x0876_5432, "-"),
    (shi(ShiftOp::Asr, 0),  0x8765_4321, 0, "-",         0x8765_4321, "an"),
    (shi(ShiftOp::Asr, 31), 0x8000_0000, 0, "-",         0xFFFF_FFFF, "an"),
    (shi(ShiftOp::Asr, 31), 0x7FFF_FFFF, 0, "-",         0,           "az"),
    (shi(ShiftOp::Asr, 4),  0x8765_4321, 0, "-",         0xF876_5432, "an"),
    // ---- BITR ----
    (BITR, 0x8765_4321, 0, "ac av avs", 0x84C2_A6E1, "an avs"),
    (BITR, 0x0000_0001, 0, "-",         0x8000_0000, "an"),
    (BITR, 0x8000_0000, 0, "-",         0x0000_0001, "-"),
    (BITR, 0,           0, "ac av",     0,           "az"),
    (BITR, 0xFFFF_FFFF, 0, "-",         0xFFFF_FFFF, "an"),
];

#[test]
fn alu_table() {
    for (i, &(op, a, b, before, want, want_flags)) in ROWS.iter().enumerate() {
        let mut m = Machine::new();
        m.set(0, a).set(1, b).set(2, 0xDEAD_BEEF);
        m.s.flags = flags(before);
        let step = m.run(op);
        assert_eq!(step, Step::Next, "row {i}: {op:?}");
        assert_eq!(m.r(2), want, "row {i}: {op:?} r0={a:#x} r1={b:#x}");
        assert_eq!(
            flag_names(&m.s.flags),
            flag_names(&flags(want_flags)),
            "row {i}: {op:?} r0={a:#x} r1={b:#x}"
        );
        assert_eq!((m.r(0), m.r(1)), (a, b), "row {i}: sources unchanged");
    }
}

#[test]
fn alu_rd_may_alias_sources() {
    let mut m = Machine::new();
    m.set(5, 7);
    m.run(Op::Add {
        rd: 5,
        rn: 5,
        rm: 5,
    });
    assert_eq!(m.r(5), 14);
    m.run(Op::Sub {
        rd: 5,
        rn: 5,
        rm: 5,
    });
    assert_eq!(m.r(5), 0);
    assert!(m.s.flags.az && m.s.flags.ac);
    // High registers work like low ones.
    m.set(63, 0x10).set(40, 4);
    m.run(Op::Lsr {
        rd: 63,
        rn: 63,
        rm: 40,
    });
    assert_eq!(m.r(63), 1);
}

#[test]
fn add_sub_flags_match_wide_arithmetic() {
    // Random operands biased to the interesting edges; the reference uses
    // 64-bit arithmetic, independent of the bit tricks in exec.
    let edges = [
        0,
        1,
        2,
        0x7FFF_FFFE,
        0x7FFF_FFFF,
        0x8000_0000,
        0x8000_0001,
        0xFFFF_FFFE,
        0xFFFF_FFFF,
    ];
    let mut rng = Rng(0x00AD_D50B);
    for i in 0..20_000 {
        let pick = |rng: &mut Rng| {
            if rng.one_in(3) {
                edges[(rng.next() % edges.len() as u64) as usize]
            } else {
                rng.u32()
            }
        };
        let (a, b) = (pick(&mut rng), pick(&mut rng));
        for sub in [false, true] {
            let mut m = Machine::new();
            m.set(0, a).set(1, b);
            m.run(if sub { SUB } else { ADD });
            let (sa, sb) = (i64::from(a as i32), i64::from(b as i32));
            let (ua, ub) = (u64::from(a), u64::from(b));
            let (signed, carry) = if sub {
                (sa - sb, ua >= ub)
            } else {
                (sa + sb, ua + ub > 0xFFFF_FFFF)
            };
            let r = signed as u32;
            let f = m.s.flags;
            assert_eq!(m.r(2), r, "case {i} sub={sub} {a:#x} {b:#x}");
            assert_eq!(f.az, r == 0);
            assert_eq!(f.an, (r as i32) < 0);
            assert_eq!(f.ac, carry, "carry case {i} sub={sub} {a:#x} {b:#x}");
            let overflow = signed != i64::from(r as i32);
            assert_eq!(f.av, overflow, "overflow case {i} sub={sub} {a:#x} {b:#x}");
            assert_eq!(f.avs, overflow);
        }
    }
}

#[rustfmt::skip]
#[test]
fn moves() {
    let mut m = Machine::new();
    m.s.flags = flags("az an ac av avs bz bn bv bis bvs bus");
    let before = m.s.flags;
    // MOV #imm zero-extends, MOVT replaces the high half only.
    m.set(3, 0xFFFF_FFFF);
    assert_eq!(m.run(Op::MovImm { rd: 3, imm: 0xFF }), Step::Next);
    assert_eq!(m.r(3), 0x0000_00FF);
    m.run(Op::MovImm { rd: 3, imm: 0x5678 });
    assert_eq!(m.r(3), 0x0000_5678);
    m.run(Op::Movt { rd: 3, imm: 0x1234 });
    assert_eq!(m.r(3), 0x1234_5678);
    m.run(Op::Movt { rd: 3, imm: 0xFFFF });
    assert_eq!(m.r(3), 0xFFFF_5678);
    m.run(Op::Movt { rd: 3, imm: 0 });
    assert_eq!(m.r(3), 0x0000_5678);
    m.run(Op::MovImm { rd: 3, imm: 0 });
    assert_eq!(m.r(3), 0);
    // Plain MOV rd, rn.
    m.set(9, 0xCAFE_F00D);
    m.run(Op::MovCond { cond: Cond::Always, rd: 50, rn: 9 });
    assert_eq!(m.r(50), 0xCAFE_F00D);
    assert_eq!(m.s.flags, before, "moves set no flags");
}

/// Every condition code, on a grid of flag values, against the table of
/// isa.md §2.2 written out as rows: (flags, conditions that hold).
#[rustfmt::skip]
const COND_ROWS: &[(&str, &[Cond])] = &[
    ("-",           &[Cond::Ne, Cond::Ltu, Cond::Lteu, Cond::Gt, Cond::Gte, Cond::Bne]),
    ("az",          &[Cond::Eq, Cond::Ltu, Cond::Lteu, Cond::Gte, Cond::Lte, Cond::Bne]),
    ("ac",          &[Cond::Ne, Cond::Gtu, Cond::Gteu, Cond::Gt, Cond::Gte, Cond::Bne]),
    ("az ac",       &[Cond::Eq, Cond::Gteu, Cond::Lteu, Cond::Gte, Cond::Lte, Cond::Bne]),
    ("an",          &[Cond::Ne, Cond::Ltu, Cond::Lteu, Cond::Lt, Cond::Lte, Cond::Bne]),
    ("av",          &[Cond::Ne, Cond::Ltu, Cond::Lteu, Cond::Lt, Cond::Lte, Cond::Bne]),
    ("an av",       &[Cond::Ne, Cond::Ltu, Cond::Lteu, Cond::Gt, Cond::Gte, Cond::Bne]),
    ("az an av",    &[Cond::Eq, Cond::Ltu, Cond::Lteu, Cond::Gte, Cond::Lte, Cond::Bne]),
    ("az an ac",    &[Cond::Eq, Cond::Gteu, Cond::Lteu, Cond::Lt, Cond::Lte, Cond::Bne]),
    ("bz",          &[Cond::Ne, Cond::Ltu, Cond::Lteu, Cond::Gt, Cond::Gte, Cond::Beq, Cond::Blte]),
    ("bn",          &[Cond::Ne, Cond::Ltu, Cond::Lteu, Cond::Gt, Cond::Gte, Cond::Bne, Cond::Blt, Cond::Blte]),
    ("bz bn",       &[Cond::Ne, Cond::Ltu, Cond::Lteu, Cond::Gt, Cond::Gte, Cond::Beq, Cond::Blte]),
    ("avs bv bis bvs bus", &[Cond::Ne, Cond::Ltu, Cond::Lteu, Cond::Gt, Cond::Gte, Cond::Bne]),
];

const ALL_CONDS: [Cond; 14] = [
    Cond::Eq,
    Cond::Ne,
    Cond::Gtu,
    Cond::Gteu,
    Cond::Lteu,
    Cond::Ltu,
    Cond::Gt,
    Cond::Gte,
    Cond::Lt,
    Cond::Lte,
    Cond::Beq,
    Cond::Bne,
    Cond::Blt,
    Cond::Blte,
];

#[test]
fn mov_cond_every_condition() {
    for &(fl, holds) in COND_ROWS {
        for cond in ALL_CONDS {
            let mut m = Machine::new();
            m.s.flags = flags(fl);
            m.set(1, 0x1111).set(2, 0x2222);
            assert_eq!(m.run(Op::MovCond { cond, rd: 2, rn: 1 }), Step::Next);
            let want = if holds.contains(&cond) {
                0x1111
            } else {
                0x2222
            };
            assert_eq!(m.r(2), want, "flags {fl:?} cond {cond:?}");
            assert_eq!(m.s.flags, flags(fl), "MOV<cond> leaves flags");
        }
        // Always (plain MOV) and Link both move unconditionally.
        for cond in [Cond::Always, Cond::Link] {
            let mut m = Machine::new();
            m.s.flags = flags(fl);
            m.set(1, 0x1111);
            m.run(Op::MovCond { cond, rd: 2, rn: 1 });
            assert_eq!(m.r(2), 0x1111);
        }
    }
}

/// The integer conditions after `SUB x, a, b` are the comparisons of a and
/// b they are named after (with signed overflow handled by AV).
#[test]
fn conditions_after_sub_compare_operands() {
    let edges = [
        0u32,
        1,
        2,
        0x7FFF_FFFF,
        0x8000_0000,
        0x8000_0001,
        0xFFFF_FFFF,
        0xFFFF_FFFE,
    ];
    let mut rng = Rng(0xC0DE);
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for &a in &edges {
        for &b in &edges {
            pairs.push((a, b));
        }
    }
    for _ in 0..5000 {
        pairs.push((rng.u32(), rng.u32()));
        let a = rng.u32();
        pairs.push((a, a));
    }
    for (a, b) in pairs {
        let (sa, sb) = (a as i32, b as i32);
        let expect = [
            (Cond::Eq, a == b),
            (Cond::Ne, a != b),
            (Cond::Gtu, a > b),
            (Cond::Gteu, a >= b),
            (Cond::Lteu, a <= b),
            (Cond::Ltu, a < b),
            (Cond::Gt, sa > sb),
            (Cond::Gte, sa >= sb),
            (Cond::Lt, sa < sb),
            (Cond::Lte, sa <= sb),
        ];
        for (cond, want) in expect {
            let mut m = Machine::new();
            m.set(0, a).set(1, b).set(4, 1).set(5, 0);
            m.run(SUB);
            m.run(Op::MovCond { cond, rd: 5, rn: 4 });
            assert_eq!(m.r(5) == 1, want, "{cond:?} after SUB {a:#x}, {b:#x}");
        }
    }
}
