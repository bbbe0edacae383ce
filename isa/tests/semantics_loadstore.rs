//! Loads, stores and TESTSET (isa.md §2.6): every size and addressing mode,
//! post-modify, negative displacements, zero extension, misaligned and
//! unmapped faults, odd double registers, and the Busy/Pending/Fault
//! answers of the bus.

mod semantics_util;

use epsim_isa::exec::{complete_load, exec};
use epsim_isa::flat::FlatBus;
use epsim_isa::op::{Size, Sreg};
use epsim_isa::{Access, ArchState, Bus, MemFault, Op, Step};
use semantics_util::{Machine, MEM, MEM_SIZE, PC};

use Size::{Byte as B, Double as D, Half as H, Word as W};

/// A machine whose memory holds `addr & 0xFF` at every byte, r4/r5
/// poisoned, r1 = base, r2 = index.
fn machine(base: u32, index: u32) -> Machine {
    let mut m = Machine::new();
    for i in 0..MEM_SIZE {
        m.bus.write(MEM + i, B, u64::from((MEM + i) & 0xFF));
    }
    m.set(1, base)
        .set(2, index)
        .set(4, 0xAAAA_AAAA)
        .set(5, 0x5555_5555);
    m
}

fn ld(size: Size, off: i32) -> Op {
    Op::Ld {
        size,
        rd: 4,
        rn: 1,
        off,
    }
}
fn ldx(size: Size, sub: bool) -> Op {
    Op::LdX {
        size,
        rd: 4,
        rn: 1,
        rm: 2,
        sub,
    }
}
fn ldp(size: Size, sub: bool) -> Op {
    Op::LdP {
        size,
        rd: 4,
        rn: 1,
        rm: 2,
        sub,
    }
}
fn ldpi(size: Size, off: i32) -> Op {
    Op::LdPi {
        size,
        rd: 4,
        rn: 1,
        off,
    }
}
fn st(size: Size, off: i32) -> Op {
    Op::St {
        size,
        rd: 4,
        rn: 1,
        off,
    }
}
fn stx(size: Size, sub: bool) -> Op {
    Op::StX {
        size,
        rd: 4,
        rn: 1,
        rm: 2,
        sub,
    }
}
fn stp(size: Size, sub: bool) -> Op {
    Op::StP {
        size,
        rd: 4,
        rn: 1,
        rm: 2,
        sub,
    }
}
fn stpi(size: Size, off: i32) -> Op {
    Op::StPi {
        size,
        rd: 4,
        rn: 1,
        off,
    }
}

/// (op, r1 base, r2 index, r4 after, r5 after, r1 after).
#[rustfmt::skip]
fn load_rows() -> Vec<(Op, u32, u32, u32, u32, u32)> {
    const P: u32 = 0x5555_5555; // r5 untouched
    vec![
        // displacement
        (ld(B, 0),      MEM + 0x13, 0, 0x13,        P,           MEM + 0x13),
        (ld(B, 7),      MEM + 0x10, 0, 0x17,        P,           MEM + 0x10),
        (ld(B, -1),     MEM + 0x14, 0, 0x13,        P,           MEM + 0x14),
        (ld(B, 0),      MEM + 0xF0, 0, 0xF0,        P,           MEM + 0xF0), // zero-extended
        (ld(H, 2),      MEM + 0x10, 0, 0x1312,      P,           MEM + 0x10),
        (ld(H, -2),     MEM + 0x100,0, 0xFFFE,      P,           MEM + 0x100),
        (ld(W, 4),      MEM + 0x10, 0, 0x1716_1514, P,           MEM + 0x10),
        (ld(W, -8),     MEM + 0x20, 0, 0x1B1A_1918, P,           MEM + 0x20),
        (ld(W, 0x1FFC), MEM,        0, 0xFFFE_FDFC, P,           MEM),        // +2047 words
        (ld(W, -0x1FFC),MEM + 0x1FFC, 0, 0x0302_0100, P,         MEM + 0x1FFC),
        (ld(D, 8),      MEM + 0x10, 0, 0x1B1A_1918, 0x1F1E_1D1C, MEM + 0x10),
        (ld(D, -16),    MEM + 0x40, 0, 0x3332_3130, 0x3736_3534, MEM + 0x40),
        // index
        (ldx(B, false), MEM + 0x10, 5, 0x15,        P,           MEM + 0x10),
        (ldx(B, true),  MEM + 0x10, 5, 0x0B,        P,           MEM + 0x10),
        (ldx(H, false), MEM + 0x10, 0x20, 0x3130,   P,           MEM + 0x10),
        (ldx(W, true),  MEM + 0x30, 0x10, 0x2322_2120, P,        MEM + 0x30),
        (ldx(W, false), MEM + 0x30, 0xFFFF_FFF0, 0x2322_2120, P, MEM + 0x30), // rn + (-16)
        (ldx(D, false), MEM + 0x30, 8, 0x3B3A_3938, 0x3F3E_3D3C, MEM + 0x30),
        (ldx(D, true),  MEM + 0x30, 8, 0x2B2A_2928, 0x2F2E_2D2C, MEM + 0x30),
        // post-modify by register (rm not scaled)
        (ldp(B, false), MEM + 0x10, 3, 0x10,        P,           MEM + 0x13),
        (ldp(H, true),  MEM + 0x10, 6, 0x1110,      P,           MEM + 0x0A),
        (ldp(W, false), MEM + 0x10, 4, 0x1312_1110, P,           MEM + 0x14),
        (ldp(D, true),  MEM + 0x10, 8, 0x1312_1110, 0x1716_1514, MEM + 0x08),
        // post-modify by displacement (already scaled to bytes)
        (ldpi(B, 1),    MEM + 0x10, 0, 0x10,        P,           MEM + 0x11),
        (ldpi(H, -2),   MEM + 0x10, 0, 0x1110,      P,           MEM + 0x0E),
        (ldpi(W, 0x1FFC), MEM + 0x10, 0, 0x1312_1110, P,         MEM + 0x200C),
        (ldpi(D, -8),   MEM + 0x10, 0, 0x1312_1110, 0x1716_1514, MEM + 0x08),
        (ldpi(D, 0),    MEM + 0x10, 0, 0x1312_1110, 0x1716_1514, MEM + 0x10),
    ]
}

#[test]
fn load_table() {
    for (i, (op, base, idx, r4, r5, r1)) in load_rows().into_iter().enumerate() {
        let mut m = machine(base, idx);
        let mem_before = m.bus.clone();
        assert_eq!(m.run(op), Step::Next, "row {i}: {op:?}");
        assert_eq!((m.r(4), m.r(5), m.r(1)), (r4, r5, r1), "row {i}: {op:?}");
        assert_eq!(m.r(2), idx, "row {i}: index unchanged");
        assert_eq!(m.bus, mem_before, "row {i}: loads do not write memory");
    }
}

/// (op, r1 base, r2 index, r4, r5, address written, bytes written, r1 after).
type StoreRow = (Op, u32, u32, u32, u32, u32, Vec<u8>, u32);

#[rustfmt::skip]
fn store_rows() -> Vec<StoreRow> {
    let v = 0x8483_8281u32;
    let w = 0x8887_8685u32;
    vec![
        (st(B, 0),       MEM + 0x40, 0, v, w, MEM + 0x40, vec![0x81], MEM + 0x40),
        (st(B, -3),      MEM + 0x40, 0, v, w, MEM + 0x3D, vec![0x81], MEM + 0x40),
        (st(H, 6),       MEM + 0x40, 0, v, w, MEM + 0x46, vec![0x81, 0x82], MEM + 0x40),
        (st(W, -4),      MEM + 0x40, 0, v, w, MEM + 0x3C, vec![0x81, 0x82, 0x83, 0x84], MEM + 0x40),
        (st(D, 8),       MEM + 0x40, 0, v, w, MEM + 0x48, vec![0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88], MEM + 0x40),
        (st(D, -0x3FF8), MEM + 0x4000, 0, v, w, MEM + 8, vec![0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88], MEM + 0x4000),
        (stx(B, false),  MEM + 0x40, 9, v, w, MEM + 0x49, vec![0x81], MEM + 0x40),
        (stx(H, true),   MEM + 0x40, 2, v, w, MEM + 0x3E, vec![0x81, 0x82], MEM + 0x40),
        (stx(W, false),  MEM + 0x40, 0xFFFF_FFFC, v, w, MEM + 0x3C, vec![0x81, 0x82, 0x83, 0x84], MEM + 0x40),
        (stx(D, true),   MEM + 0x40, 0x10, v, w, MEM + 0x30, vec![0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88], MEM + 0x40),
        (stp(B, false),  MEM + 0x40, 1, v, w, MEM + 0x40, vec![0x81], MEM + 0x41),
        (stp(H, true),   MEM + 0x40, 2, v, w, MEM + 0x40, vec![0x81, 0x82], MEM + 0x3E),
        (stp(W, false),  MEM + 0x40, 0x100, v, w, MEM + 0x40, vec![0x81, 0x82, 0x83, 0x84], MEM + 0x140),
        (stp(D, false),  MEM + 0x40, 8, v, w, MEM + 0x40, vec![0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88], MEM + 0x48),
        (stpi(B, -1),    MEM + 0x40, 0, v, w, MEM + 0x40, vec![0x81], MEM + 0x3F),
        (stpi(H, 4),     MEM + 0x40, 0, v, w, MEM + 0x40, vec![0x81, 0x82], MEM + 0x44),
        (stpi(W, -0x1FFC), MEM + 0x1FF0, 0, v, w, MEM + 0x1FF0, vec![0x81, 0x82, 0x83, 0x84], MEM - 0xC),
        (stpi(D, 16),    MEM + 0x40, 0, v, w, MEM + 0x40, vec![0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88], MEM + 0x50),
    ]
}

#[test]
fn store_table() {
    for (i, (op, base, idx, r4, r5, at, bytes, r1)) in store_rows().into_iter().enumerate() {
        let mut m = machine(base, idx);
        m.set(4, r4).set(5, r5);
        let mut want = m.bus.clone();
        assert!(want.write_bytes(at, &bytes));
        let regs_before = m.s.clone();
        assert_eq!(m.run(op), Step::Next, "row {i}: {op:?}");
        assert_eq!(m.bus, want, "row {i}: {op:?} memory");
        assert_eq!(m.r(1), r1, "row {i}: {op:?} base");
        let mut regs_want = regs_before;
        regs_want.set_reg(1, r1);
        assert_eq!(m.s, regs_want, "row {i}: {op:?} only the base changes");
    }
}

#[test]
fn misaligned_accesses_fault_before_any_effect() {
    for (size, offsets) in [
        (H, &[1u32][..]),
        (W, &[1, 2, 3]),
        (D, &[1, 2, 3, 4, 5, 6, 7]),
    ] {
        for &o in offsets {
            let base = MEM + 0x40 + o;
            let ops = [
                ld(size, 0),
                ldx(size, false),
                ldp(size, false),
                ldpi(size, 8),
                st(size, 0),
                stx(size, false),
                stp(size, true),
                stpi(size, -8),
            ];
            for op in ops {
                let mut m = machine(base, 0);
                let (s0, b0) = (m.s.clone(), m.bus.clone());
                let step = m.run(op);
                assert_eq!(
                    step,
                    Step::Fault {
                        addr: base,
                        fault: MemFault::Unaligned
                    },
                    "{op:?} at {base:#x}"
                );
                assert_eq!(m.s, s0, "{op:?}: no register changed (not even the base)");
                assert_eq!(m.bus, b0, "{op:?}: no memory changed");
            }
        }
    }
    // Displacement applied before the check: aligned base, misaligned ea.
    let mut m = machine(MEM + 0x40, 0);
    assert_eq!(
        m.run(ld(W, 2)),
        Step::Fault {
            addr: MEM + 0x42,
            fault: MemFault::Unaligned
        }
    );
    // Bytes are never misaligned.
    let mut m = machine(MEM + 0x41, 0);
    assert_eq!(m.run(ld(B, 0)), Step::Next);
    assert_eq!(m.r(4), 0x41);
}

#[test]
fn double_with_odd_register_faults() {
    for op in [
        Op::Ld {
            size: D,
            rd: 5,
            rn: 1,
            off: 0,
        },
        Op::LdPi {
            size: D,
            rd: 5,
            rn: 1,
            off: 8,
        },
        Op::St {
            size: D,
            rd: 5,
            rn: 1,
            off: 0,
        },
        Op::StP {
            size: D,
            rd: 63,
            rn: 1,
            rm: 2,
            sub: false,
        },
    ] {
        let mut m = machine(MEM + 0x40, 8);
        let (s0, b0) = (m.s.clone(), m.bus.clone());
        assert_eq!(
            m.run(op),
            Step::Fault {
                addr: MEM + 0x40,
                fault: MemFault::Unaligned
            },
            "{op:?}"
        );
        assert_eq!((&m.s, &m.bus), (&s0, &b0), "{op:?}: no effect");
    }
    // The highest even pair works.
    let mut m = machine(MEM + 0x40, 0);
    m.run(Op::Ld {
        size: D,
        rd: 62,
        rn: 1,
        off: 0,
    });
    assert_eq!((m.r(62), m.r(63)), (0x4342_4140, 0x4746_4544));
}

#[test]
fn unmapped_accesses_fault_without_effects() {
    for op in [
        ld(W, 0),
        ldp(W, false),
        ldpi(D, 8),
        st(H, 0),
        stp(W, false),
        stpi(B, 1),
    ] {
        let mut m = machine(0x10_0000, 4);
        let (s0, b0) = (m.s.clone(), m.bus.clone());
        assert_eq!(
            m.run(op),
            Step::Fault {
                addr: 0x10_0000,
                fault: MemFault::Unmapped
            },
            "{op:?}"
        );
        assert_eq!((&m.s, &m.bus), (&s0, &b0), "{op:?}: no effect");
    }
    // A double straddling the end of memory.
    let mut m = machine(MEM + MEM_SIZE - 4, 0);
    assert!(matches!(m.run(ld(W, 0)), Step::Next));
    let mut m = machine(MEM + MEM_SIZE - 8, 0);
    assert_eq!(
        m.run(ld(D, 8)),
        Step::Fault {
            addr: MEM + MEM_SIZE,
            fault: MemFault::Unmapped
        }
    );
}

#[test]
fn post_modify_with_rd_equal_to_rn_loads_then_updates_base() {
    let mut m = machine(MEM + 0x10, 4);
    m.run(Op::LdP {
        size: W,
        rd: 1,
        rn: 1,
        rm: 2,
        sub: false,
    });
    assert_eq!(m.r(1), MEM + 0x14, "base update wins");
    let mut m = machine(MEM + 0x10, 0);
    m.run(Op::LdPi {
        size: W,
        rd: 1,
        rn: 1,
        off: -4,
    });
    assert_eq!(m.r(1), MEM + 0x0C);
    // Double whose high half is the base: low half loaded, base updated.
    let mut m = machine(MEM + 0x10, 0);
    m.run(Op::LdPi {
        size: D,
        rd: 0,
        rn: 1,
        off: 8,
    });
    assert_eq!((m.r(0), m.r(1)), (0x1312_1110, MEM + 0x18));
    // Index mode with rd == rn: just the load.
    let mut m = machine(MEM + 0x10, 4);
    m.run(Op::LdX {
        size: W,
        rd: 1,
        rn: 1,
        rm: 2,
        sub: false,
    });
    assert_eq!(m.r(1), 0x1716_1514);
    // A store post-modify with rd == rn stores the old base.
    let mut m = machine(MEM + 0x40, 4);
    m.run(Op::StP {
        size: W,
        rd: 1,
        rn: 1,
        rm: 2,
        sub: false,
    });
    assert_eq!(m.bus.read_u32(MEM + 0x40), Some(MEM + 0x40));
    assert_eq!(m.r(1), MEM + 0x44);
}

#[test]
fn testset() {
    // Word at MEM + 0x80 is 0: it is set, rd gets the old 0.
    let mut m = machine(MEM + 0x80, 0);
    m.bus.write_u32(MEM + 0x80, 0);
    m.set(4, 0xCAFE);
    let op = Op::TestSet {
        rd: 4,
        rn: 1,
        rm: 2,
        sub: false,
    };
    assert_eq!(m.run(op), Step::Next);
    assert_eq!((m.r(4), m.bus.read_u32(MEM + 0x80)), (0, Some(0xCAFE)));
    // Second attempt: memory unchanged, rd gets the holder's value.
    m.set(4, 0xBEEF);
    assert_eq!(m.run(op), Step::Next);
    assert_eq!((m.r(4), m.bus.read_u32(MEM + 0x80)), (0xCAFE, Some(0xCAFE)));
    // Negative index.
    let mut m = machine(MEM + 0x90, 0x10);
    m.bus.write_u32(MEM + 0x80, 0);
    m.set(4, 7);
    assert_eq!(
        m.run(Op::TestSet {
            rd: 4,
            rn: 1,
            rm: 2,
            sub: true
        }),
        Step::Next
    );
    assert_eq!((m.r(4), m.bus.read_u32(MEM + 0x80)), (0, Some(7)));
    // Misaligned / unmapped: nothing happens.
    let mut m = machine(MEM + 0x82, 0);
    let s0 = m.s.clone();
    assert_eq!(
        m.run(op),
        Step::Fault {
            addr: MEM + 0x82,
            fault: MemFault::Unaligned
        }
    );
    assert_eq!(m.s, s0);
    let mut m = machine(0x20_0000, 0);
    assert_eq!(
        m.run(op),
        Step::Fault {
            addr: 0x20_0000,
            fault: MemFault::Unmapped
        }
    );
    assert_eq!(m.r(4), 0xAAAA_AAAA);
}

// ---------------------------------------------------------------------------
// A bus that answers as told, to exercise Busy / Pending / Fault.

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Answer {
    Pass,
    Busy,
    Pending,
    Fault(MemFault),
}

struct Scripted {
    mem: FlatBus,
    answer: Answer,
    calls: u32,
}

impl Scripted {
    fn answer<T>(&mut self, pass: impl FnOnce(&mut FlatBus) -> Access<T>) -> Access<T> {
        self.calls += 1;
        match self.answer {
            Answer::Pass => pass(&mut self.mem),
            Answer::Busy => Access::Busy,
            Answer::Pending => Access::Pending,
            Answer::Fault(f) => Access::Fault(f),
        }
    }
}

impl Bus for Scripted {
    fn load(&mut self, s: &mut ArchState, addr: u32, size: Size) -> Access<u64> {
        self.answer(|m| m.load(s, addr, size))
    }
    fn store(&mut self, s: &mut ArchState, addr: u32, size: Size, value: u64) -> Access<()> {
        self.answer(|m| m.store(s, addr, size, value))
    }
    fn testset(&mut self, s: &mut ArchState, addr: u32, value: u32) -> Access<u32> {
        self.answer(|m| m.testset(s, addr, value))
    }
    fn read_sreg(&mut self, s: &mut ArchState, sreg: Sreg) -> Access<u32> {
        self.mem.read_sreg(s, sreg)
    }
    fn write_sreg(&mut self, s: &mut ArchState, sreg: Sreg, value: u32) -> Access<()> {
        self.mem.write_sreg(s, sreg, value)
    }
}

fn scripted(answer: Answer) -> (ArchState, Scripted) {
    let m = machine(MEM + 0x40, 8);
    (
        m.s,
        Scripted {
            mem: m.bus,
            answer,
            calls: 0,
        },
    )
}

fn all_access_ops() -> Vec<Op> {
    let mut v = Vec::new();
    for size in [B, H, W, D] {
        v.extend([
            ld(size, 8),
            ldx(size, false),
            ldp(size, true),
            ldpi(size, -8),
            st(size, 8),
            stx(size, true),
            stp(size, false),
            stpi(size, 8),
        ]);
    }
    v.push(Op::TestSet {
        rd: 4,
        rn: 1,
        rm: 2,
        sub: false,
    });
    v
}

#[test]
fn busy_stalls_with_no_state_change() {
    for op in all_access_ops() {
        let (mut s, mut bus) = scripted(Answer::Busy);
        let (s0, m0) = (s.clone(), bus.mem.clone());
        assert_eq!(exec(&mut s, &mut bus, op, PC, 4), Step::Stall, "{op:?}");
        assert_eq!(bus.calls, 1);
        assert_eq!(
            (&s, &bus.mem),
            (&s0, &m0),
            "{op:?}: retry must see the same state"
        );
    }
}

#[test]
fn bus_fault_changes_nothing() {
    for fault in [MemFault::Unmapped, MemFault::Protected, MemFault::Unaligned] {
        for op in all_access_ops() {
            let (mut s, mut bus) = scripted(Answer::Fault(fault));
            let s0 = s.clone();
            let step = exec(&mut s, &mut bus, op, PC, 4);
            assert!(
                matches!(step, Step::Fault { fault: f, .. } if f == fault),
                "{op:?}: {step:?}"
            );
            assert_eq!(s, s0, "{op:?}");
        }
    }
    // The fault carries the effective address.
    let (mut s, mut bus) = scripted(Answer::Fault(MemFault::Protected));
    assert_eq!(
        exec(&mut s, &mut bus, ldx(W, false), PC, 4),
        Step::Fault {
            addr: MEM + 0x48,
            fault: MemFault::Protected
        }
    );
}

#[test]
fn pending_load_applies_post_modify_at_issue() {
    let rows: [(Op, u32); 5] = [
        (ld(W, 8), MEM + 0x40),
        (ldx(H, true), MEM + 0x40),
        (ldp(D, false), MEM + 0x48),
        (ldpi(B, -8), MEM + 0x38),
        (
            Op::TestSet {
                rd: 4,
                rn: 1,
                rm: 2,
                sub: false,
            },
            MEM + 0x40,
        ),
    ];
    for (op, base_after) in rows {
        let (mut s, mut bus) = scripted(Answer::Pending);
        let step = exec(&mut s, &mut bus, op, PC, 4);
        let size = match op {
            Op::Ld { size, .. }
            | Op::LdX { size, .. }
            | Op::LdP { size, .. }
            | Op::LdPi { size, .. } => size,
            _ => W,
        };
        assert_eq!(step, Step::LoadPending { rd: 4, size }, "{op:?}");
        assert_eq!(s.reg(1), base_after, "{op:?}: base");
        assert_eq!(
            (s.reg(4), s.reg(5)),
            (0xAAAA_AAAA, 0x5555_5555),
            "{op:?}: rd written later"
        );
    }
    // The system completes it.
    let mut s = ArchState::new();
    complete_load(&mut s, 4, D, 0x1122_3344_5566_7788);
    assert_eq!((s.reg(4), s.reg(5)), (0x5566_7788, 0x1122_3344));
    complete_load(&mut s, 4, B, 0xFFFF_FF80);
    assert_eq!((s.reg(4), s.reg(5)), (0x80, 0x1122_3344));
    complete_load(&mut s, 4, H, 0x1_8001);
    assert_eq!(s.reg(4), 0x8001);
    complete_load(&mut s, 4, W, 0x1_8000_0001);
    assert_eq!(s.reg(4), 0x8000_0001);
}

#[test]
fn pending_store_is_posted() {
    for (op, base_after) in [
        (st(W, 8), MEM + 0x40),
        (stp(D, false), MEM + 0x48),
        (stpi(H, -8), MEM + 0x38),
    ] {
        let (mut s, mut bus) = scripted(Answer::Pending);
        assert_eq!(exec(&mut s, &mut bus, op, PC, 4), Step::Next, "{op:?}");
        assert_eq!(s.reg(1), base_after, "{op:?}");
    }
}

#[test]
fn misaligned_access_never_reaches_the_bus() {
    let (mut s, mut bus) = scripted(Answer::Pass);
    s.set_reg(1, MEM + 0x41);
    for op in [
        ld(W, 0),
        st(D, 0),
        Op::TestSet {
            rd: 4,
            rn: 1,
            rm: 2,
            sub: false,
        },
    ] {
        let _ = exec(&mut s, &mut bus, op, PC, 4);
    }
    assert_eq!(bus.calls, 0);
}
