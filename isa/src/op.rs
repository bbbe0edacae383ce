//! Typed, pre-decoded instructions.
//!
//! `Op` is what the semantics execute: every operand is already extracted and
//! scaled (displacements in bytes, branch offsets in bytes), so execution
//! never looks at raw bits. `Decoded` adds the encoding row the word matched
//! (for the disassembler) and the instruction length.
//!
//! Register numbers are plain `u8` in `0..64`; the decoder guarantees the range.

/// Branch / conditional-move condition, `[7:4]` of the word (isa.md §2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(u8)]
pub enum Cond {
    Eq = 0,
    Ne = 1,
    Gtu = 2,
    Gteu = 3,
    Lteu = 4,
    Ltu = 5,
    Gt = 6,
    Gte = 7,
    Lt = 8,
    Lte = 9,
    Beq = 10,
    Bne = 11,
    Blt = 12,
    Blte = 13,
    /// Unconditional (`B`, plain `MOV`).
    Always = 14,
    /// Unconditional and link (`BL`); never appears in `MovCond`.
    Link = 15,
}

impl Cond {
    /// The condition for a 4-bit field value.
    pub const fn from_bits(bits: u32) -> Cond {
        match bits & 0xf {
            0 => Cond::Eq,
            1 => Cond::Ne,
            2 => Cond::Gtu,
            3 => Cond::Gteu,
            4 => Cond::Lteu,
            5 => Cond::Ltu,
            6 => Cond::Gt,
            7 => Cond::Gte,
            8 => Cond::Lt,
            9 => Cond::Lte,
            10 => Cond::Beq,
            11 => Cond::Bne,
            12 => Cond::Blt,
            13 => Cond::Blte,
            14 => Cond::Always,
            _ => Cond::Link,
        }
    }
}

/// Memory access size, the `[6:5]` field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(u8)]
pub enum Size {
    Byte = 0,
    Half = 1,
    Word = 2,
    Double = 3,
}

impl Size {
    pub const fn from_bits(bits: u32) -> Size {
        match bits & 3 {
            0 => Size::Byte,
            1 => Size::Half,
            2 => Size::Word,
            _ => Size::Double,
        }
    }
    /// log2 of the size in bytes (the displacement scale).
    pub const fn shift(self) -> u32 {
        self as u32
    }
    pub const fn bytes(self) -> u32 {
        1 << (self as u32)
    }
}

/// Register-register integer ALU operations (ALU16 / MISC 1010, `[6:4]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum AluOp {
    Add,
    Sub,
    And,
    Orr,
    Eor,
    Asr,
    Lsr,
    Lsl,
}

/// Shift-by-immediate operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ShiftOp {
    Lsr,
    Lsl,
    Asr,
}

/// FPU operations (DSP16 / MISC 0111, `[6:4]`). In integer mode
/// (CONFIG.ARITHMODE = 100) FADD..FMSUB are IADD..IMSUB.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum FpuOp {
    Fadd,
    Fsub,
    Fmul,
    Fmadd,
    Fmsub,
    Float,
    Fix,
    Fabs,
}

/// A special register operand of MOVTS/MOVFS: `group << 6 | index`
/// (group 0 core, 1 DMA, 2 memory protection, 3 mesh). Its memory-mapped
/// address is `0xF0400 + 0x100 * group + 4 * index` (isa.md §3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Sreg(pub u8);

impl Sreg {
    pub const fn new(group: u32, index: u32) -> Sreg {
        Sreg((((group & 3) << 6) | (index & 63)) as u8)
    }
    pub const fn group(self) -> u32 {
        (self.0 >> 6) as u32
    }
    pub const fn index(self) -> u32 {
        (self.0 & 63) as u32
    }
    /// Core-local memory-mapped address of this register.
    pub const fn mmr_addr(self) -> u32 {
        0xF0400 + 0x100 * self.group() + 4 * self.index()
    }
}

/// One decoded instruction with typed operands.
///
/// Displacements (`off`) are signed byte offsets, already scaled by the
/// access size; `disp` of a branch is the signed byte offset from the
/// branch's own address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Op {
    // ---- control flow ----
    /// `B<cond> simm` / `B` / `BL`.
    Bcond {
        cond: Cond,
        disp: i32,
    },
    /// `JR rn` (`RTS` is `JR r14`).
    Jr {
        rn: u8,
    },
    /// `JALR rn`.
    Jalr {
        rn: u8,
    },

    // ---- integer ALU ----
    // One variant per operation (not one with an `AluOp` inside) so that
    // execution dispatches with a single jump. [`Op::alu`] builds them.
    /// `ADD rd, rn, rm`.
    Add {
        rd: u8,
        rn: u8,
        rm: u8,
    },
    /// `SUB rd, rn, rm`.
    Sub {
        rd: u8,
        rn: u8,
        rm: u8,
    },
    /// `AND rd, rn, rm`.
    And {
        rd: u8,
        rn: u8,
        rm: u8,
    },
    /// `ORR rd, rn, rm`.
    Orr {
        rd: u8,
        rn: u8,
        rm: u8,
    },
    /// `EOR rd, rn, rm`.
    Eor {
        rd: u8,
        rn: u8,
        rm: u8,
    },
    /// `ASR rd, rn, rm`.
    Asr {
        rd: u8,
        rn: u8,
        rm: u8,
    },
    /// `LSR rd, rn, rm`.
    Lsr {
        rd: u8,
        rn: u8,
        rm: u8,
    },
    /// `LSL rd, rn, rm`.
    Lsl {
        rd: u8,
        rn: u8,
        rm: u8,
    },
    /// `ADD rd, rn, #simm3/#simm11`.
    AddImm {
        rd: u8,
        rn: u8,
        imm: i32,
    },
    /// `SUB rd, rn, #simm3/#simm11`.
    SubImm {
        rd: u8,
        rn: u8,
        imm: i32,
    },
    /// `LSR rd, rn, #imm5`.
    LsrImm {
        rd: u8,
        rn: u8,
        amount: u8,
    },
    /// `LSL rd, rn, #imm5`.
    LslImm {
        rd: u8,
        rn: u8,
        amount: u8,
    },
    /// `ASR rd, rn, #imm5`.
    AsrImm {
        rd: u8,
        rn: u8,
        amount: u8,
    },
    /// `BITR rd, rn`.
    Bitr {
        rd: u8,
        rn: u8,
    },
    /// `MOV rd, #imm8/#imm16` (zero-extended).
    MovImm {
        rd: u8,
        imm: u32,
    },
    /// `MOVT rd, #imm16`.
    Movt {
        rd: u8,
        imm: u32,
    },
    /// `MOV<cond> rd, rn` (cond `Always` = plain `MOV`).
    MovCond {
        cond: Cond,
        rd: u8,
        rn: u8,
    },
    /// `MOVTS sreg, rn`.
    Movts {
        sreg: Sreg,
        rn: u8,
    },
    /// `MOVFS rd, sreg`.
    Movfs {
        rd: u8,
        sreg: Sreg,
    },

    // ---- loads and stores ----
    /// `LDR* rd, [rn, #±disp]`.
    Ld {
        size: Size,
        rd: u8,
        rn: u8,
        off: i32,
    },
    /// `LDR* rd, [rn, ±rm]`.
    LdX {
        size: Size,
        rd: u8,
        rn: u8,
        rm: u8,
        sub: bool,
    },
    /// `LDR* rd, [rn], ±rm` (post-modify by register).
    LdP {
        size: Size,
        rd: u8,
        rn: u8,
        rm: u8,
        sub: bool,
    },
    /// `LDR* rd, [rn], #±disp` (post-modify by displacement).
    LdPi {
        size: Size,
        rd: u8,
        rn: u8,
        off: i32,
    },
    /// `STR* rd, [rn, #±disp]`.
    St {
        size: Size,
        rd: u8,
        rn: u8,
        off: i32,
    },
    /// `STR* rd, [rn, ±rm]`.
    StX {
        size: Size,
        rd: u8,
        rn: u8,
        rm: u8,
        sub: bool,
    },
    /// `STR* rd, [rn], ±rm`.
    StP {
        size: Size,
        rd: u8,
        rn: u8,
        rm: u8,
        sub: bool,
    },
    /// `STR* rd, [rn], #±disp`.
    StPi {
        size: Size,
        rd: u8,
        rn: u8,
        off: i32,
    },
    /// `TESTSET rd, [rn, ±rm]` (word).
    TestSet {
        rd: u8,
        rn: u8,
        rm: u8,
        sub: bool,
    },

    // ---- FPU / IALU2 ----
    /// FADD..FABS (IADD..IMSUB in integer mode). Unary ops ignore `rm`.
    Fpu {
        op: FpuOp,
        rd: u8,
        rn: u8,
        rm: u8,
    },

    // ---- system ----
    Nop,
    Idle,
    Gie,
    Gid,
    Rti,
    /// `SWI` (the 6-bit number of the undocumented `swi n` form is kept).
    Swi {
        num: u8,
    },
    /// `TRAP n`.
    Trap {
        num: u8,
    },
    Bkpt,
    Mbkpt,
    Wand,
    Sync,
    /// A word that decodes to no instruction implemented on Epiphany-III/IV
    /// (including `UNIMPL` and the CGEN placeholder forms): executing it
    /// raises the unimplemented-instruction exception.
    Unimpl,
}

impl Op {
    /// The register-register ALU instruction `op rd, rn, rm`.
    pub const fn alu(op: AluOp, rd: u8, rn: u8, rm: u8) -> Op {
        match op {
            AluOp::Add => Op::Add { rd, rn, rm },
            AluOp::Sub => Op::Sub { rd, rn, rm },
            AluOp::And => Op::And { rd, rn, rm },
            AluOp::Orr => Op::Orr { rd, rn, rm },
            AluOp::Eor => Op::Eor { rd, rn, rm },
            AluOp::Asr => Op::Asr { rd, rn, rm },
            AluOp::Lsr => Op::Lsr { rd, rn, rm },
            AluOp::Lsl => Op::Lsl { rd, rn, rm },
        }
    }

    /// The shift-by-immediate instruction `op rd, rn, #amount`.
    pub const fn shift_imm(op: ShiftOp, rd: u8, rn: u8, amount: u8) -> Op {
        match op {
            ShiftOp::Lsr => Op::LsrImm { rd, rn, amount },
            ShiftOp::Lsl => Op::LslImm { rd, rn, amount },
            ShiftOp::Asr => Op::AsrImm { rd, rn, amount },
        }
    }

    /// Whether this is a load (`LDR` in any of its addressing forms): the
    /// memory instructions that change only registers. Not TESTSET, which
    /// also writes memory.
    pub const fn is_load(&self) -> bool {
        matches!(
            self,
            Op::Ld { .. } | Op::LdX { .. } | Op::LdP { .. } | Op::LdPi { .. }
        )
    }

    /// The dual-issue group of this instruction (isa.md §5.2).
    pub const fn class(&self) -> OpClass {
        match self {
            Op::Add { .. }
            | Op::Sub { .. }
            | Op::And { .. }
            | Op::Orr { .. }
            | Op::Eor { .. }
            | Op::Asr { .. }
            | Op::Lsr { .. }
            | Op::Lsl { .. }
            | Op::AddImm { .. }
            | Op::SubImm { .. }
            | Op::LsrImm { .. }
            | Op::LslImm { .. }
            | Op::AsrImm { .. }
            | Op::Bitr { .. }
            | Op::MovImm { .. }
            | Op::Movt { .. }
            | Op::MovCond { .. } => OpClass::Ialu,
            Op::Fpu { .. } => OpClass::Fpu,
            _ if self.is_load() => OpClass::LoadStore,
            Op::St { .. }
            | Op::StX { .. }
            | Op::StP { .. }
            | Op::StPi { .. }
            | Op::TestSet { .. } => OpClass::LoadStore,
            _ => OpClass::Control,
        }
    }
}

/// Dual-issue group (isa.md §5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum OpClass {
    Ialu,
    Fpu,
    LoadStore,
    Control,
}
