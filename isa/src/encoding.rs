//! The encoding table: one row per instruction form of the Epiphany-III/IV
//! (isa.md Appendix A, 202 forms), from which the decoder (`decode.rs`) and
//! the disassembler (`disasm.rs`) are derived.
//!
//! This module owns two decisions: *which bit patterns are instructions*, and
//! *which row wins when several match*. Both follow binutils' CGEN description
//! (`cpu/epiphany.cpu`), because `epiphany-elf-objdump` is our oracle:
//!
//! * Matching is strict: every bit CGEN fixes, including the bits it marks
//!   reserved (must be zero), must match. A word that matches no row is not
//!   an instruction ([`EncId::NoRow`]); the decoder turns it into `Op::Unimpl`.
//! * Two pairs of rows overlap, and in both the more specific row wins:
//!   `rts` is `jr r14` (32-bit), and `swi` is `swi 0`. Lookup therefore scans
//!   candidates most fixed bits first (as Dynarmic sorts its table), which is
//!   also what CGEN's disassembler does.
//!
//! # Pattern syntax (STYLE §7.4)
//!
//! A pattern is written most significant bit first: 16 characters for a
//! 16-bit form, 32 for a 32-bit form (second halfword `h1` first, then the
//! first halfword `h0`, i.e. the bits of the little-endian word
//! `h1 << 16 | h0`). `_` is a visual separator. `0`/`1` are fixed bits, `-`
//! an ignored bit, and a letter an operand field. The same letter may occur
//! in several runs; the runs are concatenated high to low, because 32-bit
//! forms split each register number into 3 high bits in `h1` and 3 low bits
//! in `h0`.
//!
//! | letter | field |
//! |---|---|
//! | `d` | RD (also the GPR of MOVTS) |
//! | `n` | RN (also the special-register index of MOVTS/MOVFS) |
//! | `m` | RM |
//! | `i` | immediate: imm8/imm16, simm3/simm11, disp3/disp11, shift amount |
//! | `o` | branch offset in halfwords (simm8/simm24) |
//! | `t` | TRAP / SWI number |
//! | `g` | sign: 1 = subtract (index `[20]`, displacement `[24]`) |
//!
//! # Syntax templates
//!
//! Each row's `syntax` is what objdump prints; `disasm.rs` expands it. Every
//! character is copied except `%` followed by a key:
//!
//! | key | expands to |
//! |---|---|
//! | `%d` `%n` `%m` | general register name of that field (`r0`…, `fp`, `sp`, `lr`) |
//! | `%x` | field `i` as `0x…` hex |
//! | `%i` | field `i` sign-extended, decimal |
//! | `%t` | field `t` as `0x…` hex |
//! | `%b` | absolute branch target `addr + sext(o)*2`, as `0x…` |
//! | `%g` | `-` if field `g` is 1, else `+` |
//! | `%0`…`%3` | special register of group 0…3 whose index is field `n` |

use crate::op::{AluOp, Cond, FpuOp, ShiftOp, Size};
use Mode::{Disp, DispPost, Index, IndexPost};
use Size::{Byte, Double, Half, Word};

/// Addressing mode of a load/store row (isa.md §2.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// `[rn,#±disp]`: displacement scaled by the access size, no update.
    Disp,
    /// `[rn],#±disp`: access at `rn`, then `rn ±= disp << size`.
    DispPost,
    /// `[rn,±rm]`: register index, no update.
    Index,
    /// `[rn],±rm`: access at `rn`, then `rn ±= rm`.
    IndexPost,
}

/// What a row means, for the decoder. Operands come from the row's fields;
/// this says which `Op` to build from them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sem {
    /// `B<cond>` / `B` / `BL` with offset field `o`.
    Branch(Cond),
    Jr,
    /// `RTS`, the fully fixed special case of 32-bit `JR r14`.
    Rts,
    Jalr,
    /// Load of the given size and addressing mode.
    Ld(Size, Mode),
    /// Store of the given size and addressing mode.
    St(Size, Mode),
    /// `TESTSET` (word).
    TestSet,
    MovCond(Cond),
    /// `MOVTS` to special-register group 0..3 (the GPR is field `d`).
    Movts(u8),
    /// `MOVFS` from special-register group 0..3.
    Movfs(u8),
    Alu(AluOp),
    AddImm,
    SubImm,
    ShiftImm(ShiftOp),
    Bitr,
    MovImm,
    Movt,
    Fpu(FpuOp),
    /// `NOP` and the undocumented `SNOP`.
    Nop,
    Idle,
    Gie,
    Gid,
    Rti,
    /// `SWI` and the undocumented `swi n` (number in field `t`).
    Swi,
    Trap,
    Bkpt,
    Mbkpt,
    Wand,
    Sync,
    /// Forms objdump knows but the E3/E4 does not implement (`UNIMPL` and
    /// the CGEN placeholders): executing them raises the
    /// unimplemented-instruction exception.
    Unimpl,
}

/// The operand letters, in slot order.
const LETTERS: [u8; 7] = *b"dnmiotg";
/// Most runs one field may be split into (32-bit fields use two).
const MAX_RUNS: usize = 3;

const fn letter_slot(letter: u8) -> usize {
    let mut k = 0;
    while k < LETTERS.len() {
        if LETTERS[k] == letter {
            return k;
        }
        k += 1;
    }
    panic!("unknown operand letter in encoding pattern");
}

/// Where one operand field lives: runs of bits (`(shift, width)`, high run
/// first), computed from the pattern at compile time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Field {
    runs: [(u8, u8); MAX_RUNS],
    nruns: u8,
    width: u8,
}

impl Field {
    const EMPTY: Field = Field {
        runs: [(0, 0); MAX_RUNS],
        nruns: 0,
        width: 0,
    };

    #[inline]
    fn gather(&self, word: u32) -> u32 {
        let mut v = 0;
        for &(shift, width) in &self.runs[..self.nruns as usize] {
            v = (v << width) | ((word >> shift) & ((1 << width) - 1));
        }
        v
    }
}

/// One row of the table: an instruction form.
#[derive(Clone, Copy, Debug)]
pub struct Encoding {
    /// Which row this is (`TABLE[id as usize]`).
    pub id: EncId,
    /// The bit pattern (see the module docs).
    pub pattern: &'static str,
    /// Bits fixed by the pattern.
    pub mask: u32,
    /// Values of the fixed bits: a word matches when `word & mask == bits`.
    pub bits: u32,
    /// Length in bytes (2 or 4).
    pub len: u8,
    /// What the decoder builds.
    pub sem: Sem,
    /// Disassembly template (see the module docs).
    pub syntax: &'static str,
    fields: [Field; LETTERS.len()],
}

impl Encoding {
    /// Builds a row, computing mask, fixed bits and field positions from
    /// `pattern`. Panics (at compile time, since the table is a `const`) on
    /// a malformed pattern.
    pub const fn new(id: EncId, pattern: &'static str, sem: Sem, syntax: &'static str) -> Self {
        let p = pattern.as_bytes();
        let mut nbits = 0u32;
        let mut k = 0;
        while k < p.len() {
            if p[k] != b'_' {
                nbits += 1;
            }
            k += 1;
        }
        assert!(
            nbits == 16 || nbits == 32,
            "pattern must have 16 or 32 bits"
        );
        let mut mask = 0u32;
        let mut bits = 0u32;
        let mut fields = [Field::EMPTY; LETTERS.len()];
        let mut pos = nbits;
        k = 0;
        while k < p.len() {
            let c = p[k];
            k += 1;
            if c == b'_' {
                continue;
            }
            pos -= 1;
            match c {
                b'0' => mask |= 1 << pos,
                b'1' => {
                    mask |= 1 << pos;
                    bits |= 1 << pos;
                }
                b'-' => {}
                _ => {
                    let s = letter_slot(c);
                    let f = fields[s];
                    let n = f.nruns as usize;
                    // Extend the current run if this bit continues it
                    // downwards, else open a new run.
                    if n > 0 && f.runs[n - 1].0 as u32 == pos + 1 {
                        fields[s].runs[n - 1] = (pos as u8, f.runs[n - 1].1 + 1);
                    } else {
                        assert!(n < MAX_RUNS, "field split into too many runs");
                        fields[s].runs[n] = (pos as u8, 1);
                        fields[s].nruns += 1;
                    }
                    fields[s].width += 1;
                }
            }
        }
        Encoding {
            id,
            pattern,
            mask,
            bits,
            len: (nbits / 8) as u8,
            sem,
            syntax,
            fields,
        }
    }

    /// Whether `word` (the 32-bit fetch window, first halfword low) is an
    /// instance of this row. A 16-bit row looks at the low halfword only.
    #[inline]
    pub const fn matches(&self, word: u32) -> bool {
        word & self.mask == self.bits
    }

    /// Gathers every bit labelled `letter` from `word`, most significant
    /// run first. A letter the pattern does not use gives 0.
    #[inline]
    pub fn field(&self, letter: u8, word: u32) -> u32 {
        match slot(letter) {
            Some(s) => self.fields[s].gather(word),
            None => 0,
        }
    }

    /// [`field`](Self::field), sign-extended from the field's width.
    #[inline]
    pub fn sfield(&self, letter: u8, word: u32) -> i32 {
        let w = self.field_width(letter);
        if w == 0 {
            return 0;
        }
        let sh = 32 - w;
        ((self.field(letter, word) << sh) as i32) >> sh
    }

    /// Width in bits of field `letter` (0 if the pattern has no such field).
    pub fn field_width(&self, letter: u8) -> u32 {
        slot(letter).map_or(0, |s| self.fields[s].width as u32)
    }

    /// Whether the pattern has field `letter`.
    pub fn has_field(&self, letter: u8) -> bool {
        self.field_width(letter) != 0
    }
}

/// Run-time version of [`letter_slot`] that does not panic.
#[inline]
fn slot(letter: u8) -> Option<usize> {
    LETTERS.iter().position(|&l| l == letter)
}

macro_rules! encodings {
    ($( $id:ident : $pat:literal, $sem:expr, $syn:literal; )*) => {
        /// Identifies one row of the encoding table (the variant names are
        /// the row names: mnemonic, then `X`/`P`/`D`/`Pm` for the
        /// load/store addressing modes or `Z` for a zero-displacement
        /// alias, then the width in bits), or
        /// [`EncId::NoRow`] for a word that matches no row.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum EncId {
            $( $id, )*
            /// The word matches no row (objdump prints `*unknown*`).
            NoRow,
        }

        const ROWS: &[Encoding] = &[
            $( Encoding::new(EncId::$id, $pat, $sem, $syn), )*
        ];
    };
}

/// Number of rows in [`TABLE`].
pub const NUM_ROWS: usize = ROWS.len();

/// The encoding table, indexed by `EncId as usize`.
pub static TABLE: [Encoding; NUM_ROWS] = {
    let mut t = [ROWS[0]; NUM_ROWS];
    let mut k = 0;
    while k < NUM_ROWS {
        t[k] = ROWS[k];
        k += 1;
    }
    t
};

impl EncId {
    /// The table row, or `None` for [`EncId::NoRow`].
    #[inline]
    pub fn encoding(self) -> Option<&'static Encoding> {
        TABLE.get(self as usize)
    }
}

// Appendix A order. The 16-bit MOVTS/MOVFS reach group 0 only. `fabs rd,rn`
// (16-bit) is printed literally because CGEN's syntax string for it lacks
// operand markers (isa.md Appendix A notes); objdump really prints that.
#[rustfmt::skip]
encodings! {
    Beq16:       "oooooooo_0000_0000",                           Sem::Branch(Cond::Eq),       "beq %b";
    Beq32:       "oooooooo_oooooooo_oooooooo_0000_1000",         Sem::Branch(Cond::Eq),       "beq %b";
    Bne16:       "oooooooo_0001_0000",                           Sem::Branch(Cond::Ne),       "bne %b";
    Bne32:       "oooooooo_oooooooo_oooooooo_0001_1000",         Sem::Branch(Cond::Ne),       "bne %b";
    Bgtu16:      "oooooooo_0010_0000",                           Sem::Branch(Cond::Gtu),      "bgtu %b";
    Bgtu32:      "oooooooo_oooooooo_oooooooo_0010_1000",         Sem::Branch(Cond::Gtu),      "bgtu %b";
    Bgteu16:     "oooooooo_0011_0000",                           Sem::Branch(Cond::Gteu),     "bgteu %b";
    Bgteu32:     "oooooooo_oooooooo_oooooooo_0011_1000",         Sem::Branch(Cond::Gteu),     "bgteu %b";
    Blteu16:     "oooooooo_0100_0000",                           Sem::Branch(Cond::Lteu),     "blteu %b";
    Blteu32:     "oooooooo_oooooooo_oooooooo_0100_1000",         Sem::Branch(Cond::Lteu),     "blteu %b";
    Bltu16:      "oooooooo_0101_0000",                           Sem::Branch(Cond::Ltu),      "bltu %b";
    Bltu32:      "oooooooo_oooooooo_oooooooo_0101_1000",         Sem::Branch(Cond::Ltu),      "bltu %b";
    Bgt16:       "oooooooo_0110_0000",                           Sem::Branch(Cond::Gt),       "bgt %b";
    Bgt32:       "oooooooo_oooooooo_oooooooo_0110_1000",         Sem::Branch(Cond::Gt),       "bgt %b";
    Bgte16:      "oooooooo_0111_0000",                           Sem::Branch(Cond::Gte),      "bgte %b";
    Bgte32:      "oooooooo_oooooooo_oooooooo_0111_1000",         Sem::Branch(Cond::Gte),      "bgte %b";
    Blt16:       "oooooooo_1000_0000",                           Sem::Branch(Cond::Lt),       "blt %b";
    Blt32:       "oooooooo_oooooooo_oooooooo_1000_1000",         Sem::Branch(Cond::Lt),       "blt %b";
    Blte16:      "oooooooo_1001_0000",                           Sem::Branch(Cond::Lte),      "blte %b";
    Blte32:      "oooooooo_oooooooo_oooooooo_1001_1000",         Sem::Branch(Cond::Lte),      "blte %b";
    Bbeq16:      "oooooooo_1010_0000",                           Sem::Branch(Cond::Beq),      "bbeq %b";
    Bbeq32:      "oooooooo_oooooooo_oooooooo_1010_1000",         Sem::Branch(Cond::Beq),      "bbeq %b";
    Bbne16:      "oooooooo_1011_0000",                           Sem::Branch(Cond::Bne),      "bbne %b";
    Bbne32:      "oooooooo_oooooooo_oooooooo_1011_1000",         Sem::Branch(Cond::Bne),      "bbne %b";
    Bblt16:      "oooooooo_1100_0000",                           Sem::Branch(Cond::Blt),      "bblt %b";
    Bblt32:      "oooooooo_oooooooo_oooooooo_1100_1000",         Sem::Branch(Cond::Blt),      "bblt %b";
    Bblte16:     "oooooooo_1101_0000",                           Sem::Branch(Cond::Blte),     "bblte %b";
    Bblte32:     "oooooooo_oooooooo_oooooooo_1101_1000",         Sem::Branch(Cond::Blte),     "bblte %b";
    B16:         "oooooooo_1110_0000",                           Sem::Branch(Cond::Always),   "b %b";
    B32:         "oooooooo_oooooooo_oooooooo_1110_1000",         Sem::Branch(Cond::Always),   "b %b";
    Bl16:        "oooooooo_1111_0000",                           Sem::Branch(Cond::Link),     "bl %b";
    Bl32:        "oooooooo_oooooooo_oooooooo_1111_1000",         Sem::Branch(Cond::Link),     "bl %b";
    Jr16:        "000_nnn_0_10100_0010",                         Sem::Jr,                     "jr %n";
    Rts32:       "0000_0100_0000_0010__0001_1001_0100_1111",     Sem::Rts,                    "rts";
    Jr32:        "000_nnn_000000_0010__000_nnn_0_10100_1111",    Sem::Jr,                     "jr %n";
    Jalr16:      "000_nnn_0_10101_0010",                         Sem::Jalr,                   "jalr %n";
    Jalr32:      "000_nnn_000000_0010__000_nnn_0_10101_1111",    Sem::Jalr,                   "jalr %n";
    LdrbX16:     "ddd_nnn_mmm_00_0_0001",                        Sem::Ld(Byte, Index),        "ldrb %d,[%n,%m]";
    LdrbX32:     "ddd_nnn_mmm_00_g_0000__ddd_nnn_mmm_00_0_1001", Sem::Ld(Byte, Index),        "ldrb %d,[%n,%g%m]";
    LdrbP16:     "ddd_nnn_mmm_00_0_0101",                        Sem::Ld(Byte, IndexPost),    "ldrb %d,[%n],%m";
    LdrbP32:     "ddd_nnn_mmm_00_g_0000__ddd_nnn_mmm_00_0_1101", Sem::Ld(Byte, IndexPost),    "ldrb %d,[%n],%g%m";
    LdrbD16:     "ddd_nnn_iii_00_0_0100",                        Sem::Ld(Byte, Disp),         "ldrb %d,[%n,%x]";
    LdrbD32:     "ddd_nnn_0_g_iiiiiiii__ddd_nnn_iii_00_0_1100",  Sem::Ld(Byte, Disp),         "ldrb %d,[%n,%g%x]";
    LdrbPm32:    "ddd_nnn_1_g_iiiiiiii__ddd_nnn_iii_00_0_1100",  Sem::Ld(Byte, DispPost),     "ldrb %d,[%n],%g%x";
    LdrhX16:     "ddd_nnn_mmm_01_0_0001",                        Sem::Ld(Half, Index),        "ldrh %d,[%n,%m]";
    LdrhX32:     "ddd_nnn_mmm_00_g_0000__ddd_nnn_mmm_01_0_1001", Sem::Ld(Half, Index),        "ldrh %d,[%n,%g%m]";
    LdrhP16:     "ddd_nnn_mmm_01_0_0101",                        Sem::Ld(Half, IndexPost),    "ldrh %d,[%n],%m";
    LdrhP32:     "ddd_nnn_mmm_00_g_0000__ddd_nnn_mmm_01_0_1101", Sem::Ld(Half, IndexPost),    "ldrh %d,[%n],%g%m";
    LdrhD16:     "ddd_nnn_iii_01_0_0100",                        Sem::Ld(Half, Disp),         "ldrh %d,[%n,%x]";
    LdrhD32:     "ddd_nnn_0_g_iiiiiiii__ddd_nnn_iii_01_0_1100",  Sem::Ld(Half, Disp),         "ldrh %d,[%n,%g%x]";
    LdrhPm32:    "ddd_nnn_1_g_iiiiiiii__ddd_nnn_iii_01_0_1100",  Sem::Ld(Half, DispPost),     "ldrh %d,[%n],%g%x";
    LdrX16:      "ddd_nnn_mmm_10_0_0001",                        Sem::Ld(Word, Index),        "ldr %d,[%n,%m]";
    LdrX32:      "ddd_nnn_mmm_00_g_0000__ddd_nnn_mmm_10_0_1001", Sem::Ld(Word, Index),        "ldr %d,[%n,%g%m]";
    LdrP16:      "ddd_nnn_mmm_10_0_0101",                        Sem::Ld(Word, IndexPost),    "ldr %d,[%n],%m";
    LdrP32:      "ddd_nnn_mmm_00_g_0000__ddd_nnn_mmm_10_0_1101", Sem::Ld(Word, IndexPost),    "ldr %d,[%n],%g%m";
    LdrD16:      "ddd_nnn_iii_10_0_0100",                        Sem::Ld(Word, Disp),         "ldr %d,[%n,%x]";
    LdrD32:      "ddd_nnn_0_g_iiiiiiii__ddd_nnn_iii_10_0_1100",  Sem::Ld(Word, Disp),         "ldr %d,[%n,%g%x]";
    LdrPm32:     "ddd_nnn_1_g_iiiiiiii__ddd_nnn_iii_10_0_1100",  Sem::Ld(Word, DispPost),     "ldr %d,[%n],%g%x";
    LdrdX16:     "ddd_nnn_mmm_11_0_0001",                        Sem::Ld(Double, Index),      "ldrd %d,[%n,%m]";
    LdrdX32:     "ddd_nnn_mmm_00_g_0000__ddd_nnn_mmm_11_0_1001", Sem::Ld(Double, Index),      "ldrd %d,[%n,%g%m]";
    LdrdP16:     "ddd_nnn_mmm_11_0_0101",                        Sem::Ld(Double, IndexPost),  "ldrd %d,[%n],%m";
    LdrdP32:     "ddd_nnn_mmm_00_g_0000__ddd_nnn_mmm_11_0_1101", Sem::Ld(Double, IndexPost),  "ldrd %d,[%n],%g%m";
    LdrdD16:     "ddd_nnn_iii_11_0_0100",                        Sem::Ld(Double, Disp),       "ldrd %d,[%n,%x]";
    LdrdD32:     "ddd_nnn_0_g_iiiiiiii__ddd_nnn_iii_11_0_1100",  Sem::Ld(Double, Disp),       "ldrd %d,[%n,%g%x]";
    LdrdPm32:    "ddd_nnn_1_g_iiiiiiii__ddd_nnn_iii_11_0_1100",  Sem::Ld(Double, DispPost),   "ldrd %d,[%n],%g%x";
    TestsetB32:  "ddd_nnn_mmm_01_g_0000__ddd_nnn_mmm_00_0_1001", Sem::Unimpl,                 "testsetb %d,[%n,%g%m]";
    TestsetH32:  "ddd_nnn_mmm_01_g_0000__ddd_nnn_mmm_01_0_1001", Sem::Unimpl,                 "testseth %d,[%n,%g%m]";
    Testset32:   "ddd_nnn_mmm_01_g_0000__ddd_nnn_mmm_10_0_1001", Sem::TestSet,                "testset %d,[%n,%g%m]";
    StrbX16:     "ddd_nnn_mmm_00_1_0001",                        Sem::St(Byte, Index),        "strb %d,[%n,%m]";
    StrbX32:     "ddd_nnn_mmm_00_g_0000__ddd_nnn_mmm_00_1_1001", Sem::St(Byte, Index),        "strb %d,[%n,%g%m]";
    StrbP16:     "ddd_nnn_mmm_00_1_0101",                        Sem::St(Byte, IndexPost),    "strb %d,[%n],%m";
    StrbP32:     "ddd_nnn_mmm_00_g_0000__ddd_nnn_mmm_00_1_1101", Sem::St(Byte, IndexPost),    "strb %d,[%n],%g%m";
    StrbD16:     "ddd_nnn_iii_00_1_0100",                        Sem::St(Byte, Disp),         "strb %d,[%n,%x]";
    StrbD32:     "ddd_nnn_0_g_iiiiiiii__ddd_nnn_iii_00_1_1100",  Sem::St(Byte, Disp),         "strb %d,[%n,%g%x]";
    StrbPm32:    "ddd_nnn_1_g_iiiiiiii__ddd_nnn_iii_00_1_1100",  Sem::St(Byte, DispPost),     "strb %d,[%n],%g%x";
    StrhX16:     "ddd_nnn_mmm_01_1_0001",                        Sem::St(Half, Index),        "strh %d,[%n,%m]";
    StrhX32:     "ddd_nnn_mmm_00_g_0000__ddd_nnn_mmm_01_1_1001", Sem::St(Half, Index),        "strh %d,[%n,%g%m]";
    StrhP16:     "ddd_nnn_mmm_01_1_0101",                        Sem::St(Half, IndexPost),    "strh %d,[%n],%m";
    StrhP32:     "ddd_nnn_mmm_00_g_0000__ddd_nnn_mmm_01_1_1101", Sem::St(Half, IndexPost),    "strh %d,[%n],%g%m";
    StrhD16:     "ddd_nnn_iii_01_1_0100",                        Sem::St(Half, Disp),         "strh %d,[%n,%x]";
    StrhD32:     "ddd_nnn_0_g_iiiiiiii__ddd_nnn_iii_01_1_1100",  Sem::St(Half, Disp),         "strh %d,[%n,%g%x]";
    StrhPm32:    "ddd_nnn_1_g_iiiiiiii__ddd_nnn_iii_01_1_1100",  Sem::St(Half, DispPost),     "strh %d,[%n],%g%x";
    StrX16:      "ddd_nnn_mmm_10_1_0001",                        Sem::St(Word, Index),        "str %d,[%n,%m]";
    StrX32:      "ddd_nnn_mmm_00_g_0000__ddd_nnn_mmm_10_1_1001", Sem::St(Word, Index),        "str %d,[%n,%g%m]";
    StrP16:      "ddd_nnn_mmm_10_1_0101",                        Sem::St(Word, IndexPost),    "str %d,[%n],%m";
    StrP32:      "ddd_nnn_mmm_00_g_0000__ddd_nnn_mmm_10_1_1101", Sem::St(Word, IndexPost),    "str %d,[%n],%g%m";
    StrD16:      "ddd_nnn_iii_10_1_0100",                        Sem::St(Word, Disp),         "str %d,[%n,%x]";
    StrD32:      "ddd_nnn_0_g_iiiiiiii__ddd_nnn_iii_10_1_1100",  Sem::St(Word, Disp),         "str %d,[%n,%g%x]";
    StrPm32:     "ddd_nnn_1_g_iiiiiiii__ddd_nnn_iii_10_1_1100",  Sem::St(Word, DispPost),     "str %d,[%n],%g%x";
    StrdX16:     "ddd_nnn_mmm_11_1_0001",                        Sem::St(Double, Index),      "strd %d,[%n,%m]";
    StrdX32:     "ddd_nnn_mmm_00_g_0000__ddd_nnn_mmm_11_1_1001", Sem::St(Double, Index),      "strd %d,[%n,%g%m]";
    StrdP16:     "ddd_nnn_mmm_11_1_0101",                        Sem::St(Double, IndexPost),  "strd %d,[%n],%m";
    StrdP32:     "ddd_nnn_mmm_00_g_0000__ddd_nnn_mmm_11_1_1101", Sem::St(Double, IndexPost),  "strd %d,[%n],%g%m";
    StrdD16:     "ddd_nnn_iii_11_1_0100",                        Sem::St(Double, Disp),       "strd %d,[%n,%x]";
    StrdD32:     "ddd_nnn_0_g_iiiiiiii__ddd_nnn_iii_11_1_1100",  Sem::St(Double, Disp),       "strd %d,[%n,%g%x]";
    StrdPm32:    "ddd_nnn_1_g_iiiiiiii__ddd_nnn_iii_11_1_1100",  Sem::St(Double, DispPost),   "strd %d,[%n],%g%x";
    Moveq16:     "ddd_nnn_0_0_0000_0010",                        Sem::MovCond(Cond::Eq),      "moveq %d,%n";
    Moveq32:     "ddd_nnn_000000_0010__ddd_nnn_0_0_0000_1111",   Sem::MovCond(Cond::Eq),      "moveq %d,%n";
    Movne16:     "ddd_nnn_0_0_0001_0010",                        Sem::MovCond(Cond::Ne),      "movne %d,%n";
    Movne32:     "ddd_nnn_000000_0010__ddd_nnn_0_0_0001_1111",   Sem::MovCond(Cond::Ne),      "movne %d,%n";
    Movgtu16:    "ddd_nnn_0_0_0010_0010",                        Sem::MovCond(Cond::Gtu),     "movgtu %d,%n";
    Movgtu32:    "ddd_nnn_000000_0010__ddd_nnn_0_0_0010_1111",   Sem::MovCond(Cond::Gtu),     "movgtu %d,%n";
    Movgteu16:   "ddd_nnn_0_0_0011_0010",                        Sem::MovCond(Cond::Gteu),    "movgteu %d,%n";
    Movgteu32:   "ddd_nnn_000000_0010__ddd_nnn_0_0_0011_1111",   Sem::MovCond(Cond::Gteu),    "movgteu %d,%n";
    Movlteu16:   "ddd_nnn_0_0_0100_0010",                        Sem::MovCond(Cond::Lteu),    "movlteu %d,%n";
    Movlteu32:   "ddd_nnn_000000_0010__ddd_nnn_0_0_0100_1111",   Sem::MovCond(Cond::Lteu),    "movlteu %d,%n";
    Movltu16:    "ddd_nnn_0_0_0101_0010",                        Sem::MovCond(Cond::Ltu),     "movltu %d,%n";
    Movltu32:    "ddd_nnn_000000_0010__ddd_nnn_0_0_0101_1111",   Sem::MovCond(Cond::Ltu),     "movltu %d,%n";
    Movgt16:     "ddd_nnn_0_0_0110_0010",                        Sem::MovCond(Cond::Gt),      "movgt %d,%n";
    Movgt32:     "ddd_nnn_000000_0010__ddd_nnn_0_0_0110_1111",   Sem::MovCond(Cond::Gt),      "movgt %d,%n";
    Movgte16:    "ddd_nnn_0_0_0111_0010",                        Sem::MovCond(Cond::Gte),     "movgte %d,%n";
    Movgte32:    "ddd_nnn_000000_0010__ddd_nnn_0_0_0111_1111",   Sem::MovCond(Cond::Gte),     "movgte %d,%n";
    Movlt16:     "ddd_nnn_0_0_1000_0010",                        Sem::MovCond(Cond::Lt),      "movlt %d,%n";
    Movlt32:     "ddd_nnn_000000_0010__ddd_nnn_0_0_1000_1111",   Sem::MovCond(Cond::Lt),      "movlt %d,%n";
    Movlte16:    "ddd_nnn_0_0_1001_0010",                        Sem::MovCond(Cond::Lte),     "movlte %d,%n";
    Movlte32:    "ddd_nnn_000000_0010__ddd_nnn_0_0_1001_1111",   Sem::MovCond(Cond::Lte),     "movlte %d,%n";
    Mov16:       "ddd_nnn_0_0_1110_0010",                        Sem::MovCond(Cond::Always),  "mov %d,%n";
    Mov32:       "ddd_nnn_000000_0010__ddd_nnn_0_0_1110_1111",   Sem::MovCond(Cond::Always),  "mov %d,%n";
    Movbeq16:    "ddd_nnn_0_0_1010_0010",                        Sem::MovCond(Cond::Beq),     "movbeq %d,%n";
    Movbeq32:    "ddd_nnn_000000_0010__ddd_nnn_0_0_1010_1111",   Sem::MovCond(Cond::Beq),     "movbeq %d,%n";
    Movbne16:    "ddd_nnn_0_0_1011_0010",                        Sem::MovCond(Cond::Bne),     "movbne %d,%n";
    Movbne32:    "ddd_nnn_000000_0010__ddd_nnn_0_0_1011_1111",   Sem::MovCond(Cond::Bne),     "movbne %d,%n";
    Movblt16:    "ddd_nnn_0_0_1100_0010",                        Sem::MovCond(Cond::Blt),     "movblt %d,%n";
    Movblt32:    "ddd_nnn_000000_0010__ddd_nnn_0_0_1100_1111",   Sem::MovCond(Cond::Blt),     "movblt %d,%n";
    Movblte16:   "ddd_nnn_0_0_1101_0010",                        Sem::MovCond(Cond::Blte),    "movblte %d,%n";
    Movblte32:   "ddd_nnn_000000_0010__ddd_nnn_0_0_1101_1111",   Sem::MovCond(Cond::Blte),    "movblte %d,%n";
    Movts16:     "ddd_nnn_0_10000_0010",                         Sem::Movts(0),               "movts %0,%d";
    Movts32:     "ddd_nnn_0000_00_0010__ddd_nnn_0_10000_1111",   Sem::Movts(0),               "movts %0,%d";
    MovtsDma32:  "ddd_nnn_0000_01_0010__ddd_nnn_0_10000_1111",   Sem::Movts(1),               "movts %1,%d";
    MovtsMem32:  "ddd_nnn_0000_10_0010__ddd_nnn_0_10000_1111",   Sem::Movts(2),               "movts %2,%d";
    MovtsMesh32: "ddd_nnn_0000_11_0010__ddd_nnn_0_10000_1111",   Sem::Movts(3),               "movts %3,%d";
    Movfs16:     "ddd_nnn_0_10001_0010",                         Sem::Movfs(0),               "movfs %d,%0";
    Movfs32:     "ddd_nnn_0000_00_0010__ddd_nnn_0_10001_1111",   Sem::Movfs(0),               "movfs %d,%0";
    MovfsDma32:  "ddd_nnn_0000_01_0010__ddd_nnn_0_10001_1111",   Sem::Movfs(1),               "movfs %d,%1";
    MovfsMem32:  "ddd_nnn_0000_10_0010__ddd_nnn_0_10001_1111",   Sem::Movfs(2),               "movfs %d,%2";
    MovfsMesh32: "ddd_nnn_0000_11_0010__ddd_nnn_0_10001_1111",   Sem::Movfs(3),               "movfs %d,%3";
    Nop16:       "000000_0_11010_0010",                          Sem::Nop,                    "nop";
    Snop16:      "000000_1_11010_0010",                          Sem::Nop,                    "snop";
    Unimpl32:    "0000_0000_0000_1111__0000_0000_0000_1111",     Sem::Unimpl,                 "unimpl";
    Idle16:      "000000_0_11011_0010",                          Sem::Idle,                   "idle";
    Bkpt16:      "000000_0_11100_0010",                          Sem::Bkpt,                   "bkpt";
    Mbkpt16:     "000000_1_11100_0010",                          Sem::Mbkpt,                  "mbkpt";
    Rti16:       "000000_0_11101_0010",                          Sem::Rti,                    "rti";
    Wand16:      "000000_0_11000_0010",                          Sem::Wand,                   "wand";
    Sync16:      "000000_0_11111_0010",                          Sem::Sync,                   "sync";
    Gie16:       "000000_0_11001_0010",                          Sem::Gie,                    "gie";
    Gid16:       "000000_1_11001_0010",                          Sem::Gid,                    "gid";
    SwiNum16:    "tttttt_0_11110_0010",                          Sem::Swi,                    "swi %t";
    Swi16:       "000000_0_11110_0010",                          Sem::Swi,                    "swi";
    Trap16:      "tttttt_1_11110_0010",                          Sem::Trap,                   "trap %t";
    Add16:       "ddd_nnn_mmm_001_1010",                         Sem::Alu(AluOp::Add),        "add %d,%n,%m";
    Add32:       "ddd_nnn_mmm_000_1010__ddd_nnn_mmm_001_1111",   Sem::Alu(AluOp::Add),        "add %d,%n,%m";
    Sub16:       "ddd_nnn_mmm_011_1010",                         Sem::Alu(AluOp::Sub),        "sub %d,%n,%m";
    Sub32:       "ddd_nnn_mmm_000_1010__ddd_nnn_mmm_011_1111",   Sem::Alu(AluOp::Sub),        "sub %d,%n,%m";
    And16:       "ddd_nnn_mmm_101_1010",                         Sem::Alu(AluOp::And),        "and %d,%n,%m";
    And32:       "ddd_nnn_mmm_000_1010__ddd_nnn_mmm_101_1111",   Sem::Alu(AluOp::And),        "and %d,%n,%m";
    Orr16:       "ddd_nnn_mmm_111_1010",                         Sem::Alu(AluOp::Orr),        "orr %d,%n,%m";
    Orr32:       "ddd_nnn_mmm_000_1010__ddd_nnn_mmm_111_1111",   Sem::Alu(AluOp::Orr),        "orr %d,%n,%m";
    Eor16:       "ddd_nnn_mmm_000_1010",                         Sem::Alu(AluOp::Eor),        "eor %d,%n,%m";
    Eor32:       "ddd_nnn_mmm_000_1010__ddd_nnn_mmm_000_1111",   Sem::Alu(AluOp::Eor),        "eor %d,%n,%m";
    AddImm16:    "ddd_nnn_iii_001_0011",                         Sem::AddImm,                 "add %d,%n,%i";
    AddImm32:    "ddd_nnn_00_iiiiiiii__ddd_nnn_iii_001_1011",    Sem::AddImm,                 "add %d,%n,%i";
    SubImm16:    "ddd_nnn_iii_011_0011",                         Sem::SubImm,                 "sub %d,%n,%i";
    SubImm32:    "ddd_nnn_00_iiiiiiii__ddd_nnn_iii_011_1011",    Sem::SubImm,                 "sub %d,%n,%i";
    Asr16:       "ddd_nnn_mmm_110_1010",                         Sem::Alu(AluOp::Asr),        "asr %d,%n,%m";
    Asr32:       "ddd_nnn_mmm_000_1010__ddd_nnn_mmm_110_1111",   Sem::Alu(AluOp::Asr),        "asr %d,%n,%m";
    Lsr16:       "ddd_nnn_mmm_100_1010",                         Sem::Alu(AluOp::Lsr),        "lsr %d,%n,%m";
    Lsr32:       "ddd_nnn_mmm_000_1010__ddd_nnn_mmm_100_1111",   Sem::Alu(AluOp::Lsr),        "lsr %d,%n,%m";
    Lsl16:       "ddd_nnn_mmm_010_1010",                         Sem::Alu(AluOp::Lsl),        "lsl %d,%n,%m";
    Lsl32:       "ddd_nnn_mmm_000_1010__ddd_nnn_mmm_010_1111",   Sem::Alu(AluOp::Lsl),        "lsl %d,%n,%m";
    LsrImm16:    "ddd_nnn_iiiii_0_0110",                         Sem::ShiftImm(ShiftOp::Lsr), "lsr %d,%n,%x";
    LsrImm32:    "ddd_nnn_000000_0110__ddd_nnn_iiiii_0_1111",    Sem::ShiftImm(ShiftOp::Lsr), "lsr %d,%n,%x";
    LslImm16:    "ddd_nnn_iiiii_1_0110",                         Sem::ShiftImm(ShiftOp::Lsl), "lsl %d,%n,%x";
    LslImm32:    "ddd_nnn_000000_0110__ddd_nnn_iiiii_1_1111",    Sem::ShiftImm(ShiftOp::Lsl), "lsl %d,%n,%x";
    AsrImm16:    "ddd_nnn_iiiii_0_1110",                         Sem::ShiftImm(ShiftOp::Asr), "asr %d,%n,%x";
    AsrImm32:    "ddd_nnn_000000_1110__ddd_nnn_iiiii_0_1111",    Sem::ShiftImm(ShiftOp::Asr), "asr %d,%n,%x";
    Bitr16:      "ddd_nnn_00000_1_1110",                         Sem::Bitr,                   "bitr %d,%n";
    Bitr32:      "ddd_nnn_000000_1110__ddd_nnn_00000_1_1111",    Sem::Bitr,                   "bitr %d,%n";
    Fext32:      "ddd_nnn_mmm_001_1010__ddd_nnn_mmm_000_1111",   Sem::Unimpl,                 "fext %d,%n,%m";
    Fdep32:      "ddd_nnn_mmm_001_1010__ddd_nnn_mmm_001_1111",   Sem::Unimpl,                 "fdep %d,%n,%m";
    Lfsr32:      "ddd_nnn_mmm_001_1010__ddd_nnn_mmm_010_1111",   Sem::Unimpl,                 "lfsr %d,%n,%m";
    MovImm16:    "ddd_iiiiiiii_0_0011",                          Sem::MovImm,                 "mov %d,%x";
    MovImm32:    "ddd_0_iiiiiiii_0010__ddd_iiiiiiii_0_1011",     Sem::MovImm,                 "mov %d,%x";
    Movt32:      "ddd_1_iiiiiiii_0010__ddd_iiiiiiii_0_1011",     Sem::Movt,                   "movt %d,%x";
    Fadd16:      "ddd_nnn_mmm_000_0111",                         Sem::Fpu(FpuOp::Fadd),       "fadd %d,%n,%m";
    Fadd32:      "ddd_nnn_mmm_000_0111__ddd_nnn_mmm_000_1111",   Sem::Fpu(FpuOp::Fadd),       "fadd %d,%n,%m";
    Fsub16:      "ddd_nnn_mmm_001_0111",                         Sem::Fpu(FpuOp::Fsub),       "fsub %d,%n,%m";
    Fsub32:      "ddd_nnn_mmm_000_0111__ddd_nnn_mmm_001_1111",   Sem::Fpu(FpuOp::Fsub),       "fsub %d,%n,%m";
    Fmul16:      "ddd_nnn_mmm_010_0111",                         Sem::Fpu(FpuOp::Fmul),       "fmul %d,%n,%m";
    Fmul32:      "ddd_nnn_mmm_000_0111__ddd_nnn_mmm_010_1111",   Sem::Fpu(FpuOp::Fmul),       "fmul %d,%n,%m";
    Fmadd16:     "ddd_nnn_mmm_011_0111",                         Sem::Fpu(FpuOp::Fmadd),      "fmadd %d,%n,%m";
    Fmadd32:     "ddd_nnn_mmm_000_0111__ddd_nnn_mmm_011_1111",   Sem::Fpu(FpuOp::Fmadd),      "fmadd %d,%n,%m";
    Fmsub16:     "ddd_nnn_mmm_100_0111",                         Sem::Fpu(FpuOp::Fmsub),      "fmsub %d,%n,%m";
    Fmsub32:     "ddd_nnn_mmm_000_0111__ddd_nnn_mmm_100_1111",   Sem::Fpu(FpuOp::Fmsub),      "fmsub %d,%n,%m";
    Fabs16:      "ddd_nnn_mmm_111_0111",                         Sem::Fpu(FpuOp::Fabs),       "fabs rd,rn";
    Fabs32:      "ddd_nnn_mmm_000_0111__ddd_nnn_mmm_111_1111",   Sem::Fpu(FpuOp::Fabs),       "fabs %d,%n";
    Float16:     "ddd_nnn_mmm_101_0111",                         Sem::Fpu(FpuOp::Float),      "float %d,%n";
    Float32:     "ddd_nnn_mmm_000_0111__ddd_nnn_mmm_101_1111",   Sem::Fpu(FpuOp::Float),      "float %d,%n";
    Fix16:       "ddd_nnn_mmm_110_0111",                         Sem::Fpu(FpuOp::Fix),        "fix %d,%n";
    Fix32:       "ddd_nnn_mmm_000_0111__ddd_nnn_mmm_110_1111",   Sem::Fpu(FpuOp::Fix),        "fix %d,%n";
    Frecip32:    "ddd_nnn_mmm_001_0111__ddd_nnn_mmm_000_1111",   Sem::Unimpl,                 "frecip %d,%n";
    Fsqrt32:     "ddd_nnn_mmm_001_0111__ddd_nnn_mmm_001_1111",   Sem::Unimpl,                 "fsqrt %d,%n";

    // Disassembly aliases: CGEN macro-insns that objdump prefers over the
    // rows above for a zero displacement (`ldrb r0,[r1]`). Not in Appendix A,
    // which lists real instructions only. The 32-bit alias exists for stores
    // only: binutils marks the load one NO-DIS, so objdump prints
    // `ldr r0,[r1,+0x0]` but `str r0,[r1]`.
    LdrbZ16:     "ddd_nnn_000_00_0_0100",                        Sem::Ld(Byte, Disp),         "ldrb %d,[%n]";
    LdrhZ16:     "ddd_nnn_000_01_0_0100",                        Sem::Ld(Half, Disp),         "ldrh %d,[%n]";
    LdrZ16:      "ddd_nnn_000_10_0_0100",                        Sem::Ld(Word, Disp),         "ldr %d,[%n]";
    LdrdZ16:     "ddd_nnn_000_11_0_0100",                        Sem::Ld(Double, Disp),       "ldrd %d,[%n]";
    StrbZ16:     "ddd_nnn_000_00_1_0100",                        Sem::St(Byte, Disp),         "strb %d,[%n]";
    StrhZ16:     "ddd_nnn_000_01_1_0100",                        Sem::St(Half, Disp),         "strh %d,[%n]";
    StrZ16:      "ddd_nnn_000_10_1_0100",                        Sem::St(Word, Disp),         "str %d,[%n]";
    StrdZ16:     "ddd_nnn_000_11_1_0100",                        Sem::St(Double, Disp),       "strd %d,[%n]";
    StrbZ32:     "ddd_nnn_0_0_00000000__ddd_nnn_000_00_1_1100",  Sem::St(Byte, Disp),         "strb %d,[%n]";
    StrhZ32:     "ddd_nnn_0_0_00000000__ddd_nnn_000_01_1_1100",  Sem::St(Half, Disp),         "strh %d,[%n]";
    StrZ32:      "ddd_nnn_0_0_00000000__ddd_nnn_000_10_1_1100",  Sem::St(Word, Disp),         "str %d,[%n]";
    StrdZ32:     "ddd_nnn_0_0_00000000__ddd_nnn_000_11_1_1100",  Sem::St(Double, Disp),       "strd %d,[%n]";
}

// ---------------------------------------------------------------------------
// Lookup: buckets on the low 7 bits (Spike's opcode_map), candidates most
// fixed bits first (Dynarmic's sort). Every row fixes op4 = bits [3:0], so a
// bucket never mixes 16- and 32-bit rows.

const BUCKET_BITS: u32 = 7;
const NUM_BUCKETS: usize = 1 << BUCKET_BITS;
const BUCKET_MASK: u32 = (1 << BUCKET_BITS) - 1;
const MAX_PER_BUCKET: usize = 24;

struct Buckets {
    ids: [[u8; MAX_PER_BUCKET]; NUM_BUCKETS],
    len: [u8; NUM_BUCKETS],
}

// Buckets hold row ids as `u8`.
const _: () = assert!(NUM_ROWS <= 256, "row ids must fit a u8");

const fn build_buckets() -> Buckets {
    let mut b = Buckets {
        ids: [[0; MAX_PER_BUCKET]; NUM_BUCKETS],
        len: [0; NUM_BUCKETS],
    };
    let mut key = 0;
    while key < NUM_BUCKETS {
        let mut r = 0;
        while r < NUM_ROWS {
            let e = &ROWS[r];
            let low = e.mask & BUCKET_MASK;
            if key as u32 & low == e.bits & low {
                // Insertion sort: after every row with at least as many
                // fixed bits, so ties keep table order.
                let n = b.len[key] as usize;
                assert!(n < MAX_PER_BUCKET, "bucket overflow: raise MAX_PER_BUCKET");
                let ones = e.mask.count_ones();
                let mut at = n;
                while at > 0 && ROWS[b.ids[key][at - 1] as usize].mask.count_ones() < ones {
                    b.ids[key][at] = b.ids[key][at - 1];
                    at -= 1;
                }
                b.ids[key][at] = r as u8;
                b.len[key] += 1;
            }
            r += 1;
        }
        key += 1;
    }
    b
}

static BUCKETS: Buckets = build_buckets();

/// The row `word` is an instance of, or `None` if it is not an instruction.
/// `word` is the 32-bit fetch window (first halfword in the low 16 bits);
/// for a 16-bit form the high halfword is ignored.
#[inline]
pub fn lookup(word: u32) -> Option<&'static Encoding> {
    let key = (word & BUCKET_MASK) as usize;
    let ids = &BUCKETS.ids[key][..BUCKETS.len[key] as usize];
    ids.iter()
        .map(|&id| &TABLE[id as usize])
        .find(|e| e.matches(word))
}

/// Reference lookup by linear scan over the whole table (most fixed bits
/// wins, first row on a tie). Slow; for tests and as executable
/// documentation of what [`lookup`] computes.
pub fn lookup_linear(word: u32) -> Option<&'static Encoding> {
    let mut best: Option<&'static Encoding> = None;
    for e in TABLE.iter().filter(|e| e.matches(word)) {
        match best {
            Some(b) if b.mask.count_ones() >= e.mask.count_ones() => {}
            _ => best = Some(e),
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// isa.md Appendix A, transcribed: (row number, id, mask, match). An
    /// independent copy, so a typo in a pattern cannot go unnoticed.
    #[rustfmt::skip]
    const APPENDIX_A: &[(u32, EncId, u32, u32)] = &[
        (1, EncId::Beq16, 0x00ff, 0x0000), // beq.s simm8
        (2, EncId::Beq32, 0x000000ff, 0x00000008), // beq.l simm24
        (3, EncId::Bne16, 0x00ff, 0x0010), // bne.s simm8
        (4, EncId::Bne32, 0x000000ff, 0x00000018), // bne.l simm24
        (5, EncId::Bgtu16, 0x00ff, 0x0020), // bgtu.s simm8
        (6, EncId::Bgtu32, 0x000000ff, 0x00000028), // bgtu.l simm24
        (7, EncId::Bgteu16, 0x00ff, 0x0030), // bgteu.s simm8
        (8, EncId::Bgteu32, 0x000000ff, 0x00000038), // bgteu.l simm24
        (9, EncId::Blteu16, 0x00ff, 0x0040), // blteu.s simm8
        (10, EncId::Blteu32, 0x000000ff, 0x00000048), // blteu.l simm24
        (11, EncId::Bltu16, 0x00ff, 0x0050), // bltu.s simm8
        (12, EncId::Bltu32, 0x000000ff, 0x00000058), // bltu.l simm24
        (13, EncId::Bgt16, 0x00ff, 0x0060), // bgt.s simm8
        (14, EncId::Bgt32, 0x000000ff, 0x00000068), // bgt.l simm24
        (15, EncId::Bgte16, 0x00ff, 0x0070), // bgte.s simm8
        (16, EncId::Bgte32, 0x000000ff, 0x00000078), // bgte.l simm24
        (17, EncId::Blt16, 0x00ff, 0x0080), // blt.s simm8
        (18, EncId::Blt32, 0x000000ff, 0x00000088), // blt.l simm24
        (19, EncId::Blte16, 0x00ff, 0x0090), // blte.s simm8
        (20, EncId::Blte32, 0x000000ff, 0x00000098), // blte.l simm24
        (21, EncId::Bbeq16, 0x00ff, 0x00a0), // bbeq.s simm8
        (22, EncId::Bbeq32, 0x000000ff, 0x000000a8), // bbeq.l simm24
        (23, EncId::Bbne16, 0x00ff, 0x00b0), // bbne.s simm8
        (24, EncId::Bbne32, 0x000000ff, 0x000000b8), // bbne.l simm24
        (25, EncId::Bblt16, 0x00ff, 0x00c0), // bblt.s simm8
        (26, EncId::Bblt32, 0x000000ff, 0x000000c8), // bblt.l simm24
        (27, EncId::Bblte16, 0x00ff, 0x00d0), // bblte.s simm8
        (28, EncId::Bblte32, 0x000000ff, 0x000000d8), // bblte.l simm24
        (29, EncId::B16, 0x00ff, 0x00e0), // b.s simm8
        (30, EncId::B32, 0x000000ff, 0x000000e8), // b.l simm24
        (31, EncId::Bl16, 0x00ff, 0x00f0), // bl.s simm8
        (32, EncId::Bl32, 0x000000ff, 0x000000f8), // bl.l simm24
        (33, EncId::Jr16, 0xe3ff, 0x0142), // jr rn
        (34, EncId::Rts32, 0xffffffff, 0x0402194f), // rts
        (35, EncId::Jr32, 0xe3ffe3ff, 0x0002014f), // jr rn6
        (36, EncId::Jalr16, 0xe3ff, 0x0152), // jalr rn
        (37, EncId::Jalr32, 0xe3ffe3ff, 0x0002015f), // jalr rn6
        (38, EncId::LdrbX16, 0x007f, 0x0001), // ldrb rd,[rn,rm]
        (39, EncId::LdrbP16, 0x007f, 0x0005), // ldrb rd,[rn],rm
        (40, EncId::LdrbX32, 0x006f007f, 0x00000009), // ldrb rd6,[rn6,±rm6]
        (41, EncId::LdrbP32, 0x006f007f, 0x0000000d), // ldrb rd6,[rn6],±rm6
        (42, EncId::LdrbD16, 0x007f, 0x0004), // ldrb rd,[rn,disp3]
        (43, EncId::LdrbD32, 0x0200007f, 0x0000000c), // ldrb rd6,[rn6,±disp11]
        (44, EncId::LdrbPm32, 0x0200007f, 0x0200000c), // ldrb rd6,[rn6],±disp11
        (45, EncId::LdrhX16, 0x007f, 0x0021), // ldrh rd,[rn,rm]
        (46, EncId::LdrhP16, 0x007f, 0x0025), // ldrh rd,[rn],rm
        (47, EncId::LdrhX32, 0x006f007f, 0x00000029), // ldrh rd6,[rn6,±rm6]
        (48, EncId::LdrhP32, 0x006f007f, 0x0000002d), // ldrh rd6,[rn6],±rm6
        (49, EncId::LdrhD16, 0x007f, 0x0024), // ldrh rd,[rn,disp3]
        (50, EncId::LdrhD32, 0x0200007f, 0x0000002c), // ldrh rd6,[rn6,±disp11]
        (51, EncId::LdrhPm32, 0x0200007f, 0x0200002c), // ldrh rd6,[rn6],±disp11
        (52, EncId::LdrX16, 0x007f, 0x0041), // ldr rd,[rn,rm]
        (53, EncId::LdrP16, 0x007f, 0x0045), // ldr rd,[rn],rm
        (54, EncId::LdrX32, 0x006f007f, 0x00000049), // ldr rd6,[rn6,±rm6]
        (55, EncId::LdrP32, 0x006f007f, 0x0000004d), // ldr rd6,[rn6],±rm6
        (56, EncId::LdrD16, 0x007f, 0x0044), // ldr rd,[rn,disp3]
        (57, EncId::LdrD32, 0x0200007f, 0x0000004c), // ldr rd6,[rn6,±disp11]
        (58, EncId::LdrPm32, 0x0200007f, 0x0200004c), // ldr rd6,[rn6],±disp11
        (59, EncId::LdrdX16, 0x007f, 0x0061), // ldrd rd,[rn,rm]
        (60, EncId::LdrdP16, 0x007f, 0x0065), // ldrd rd,[rn],rm
        (61, EncId::LdrdX32, 0x006f007f, 0x00000069), // ldrd rd6,[rn6,±rm6]
        (62, EncId::LdrdP32, 0x006f007f, 0x0000006d), // ldrd rd6,[rn6],±rm6
        (63, EncId::LdrdD16, 0x007f, 0x0064), // ldrd rd,[rn,disp3]
        (64, EncId::LdrdD32, 0x0200007f, 0x0000006c), // ldrd rd6,[rn6,±disp11]
        (65, EncId::LdrdPm32, 0x0200007f, 0x0200006c), // ldrd rd6,[rn6],±disp11
        (66, EncId::TestsetB32, 0x006f007f, 0x00200009), // † testsetb rd6,[rn6,±rm6]
        (67, EncId::TestsetH32, 0x006f007f, 0x00200029), // † testseth rd6,[rn6,±rm6]
        (68, EncId::Testset32, 0x006f007f, 0x00200049), // testset rd6,[rn6,±rm6]
        (69, EncId::StrbX16, 0x007f, 0x0011), // strb rd,[rn,rm]
        (70, EncId::StrbX32, 0x006f007f, 0x00000019), // strb rd6,[rn6,±rm6]
        (71, EncId::StrbP16, 0x007f, 0x0015), // strb rd,[rn],rm
        (72, EncId::StrbP32, 0x006f007f, 0x0000001d), // strb rd6,[rn6],±rm6
        (73, EncId::StrbD16, 0x007f, 0x0014), // strb rd,[rn,disp3]
        (74, EncId::StrbD32, 0x0200007f, 0x0000001c), // strb rd6,[rn6,±disp11]
        (75, EncId::StrbPm32, 0x0200007f, 0x0200001c), // strb rd6,[rn6],±disp11
        (76, EncId::StrhX16, 0x007f, 0x0031), // strh rd,[rn,rm]
        (77, EncId::StrhX32, 0x006f007f, 0x00000039), // strh rd6,[rn6,±rm6]
        (78, EncId::StrhP16, 0x007f, 0x0035), // strh rd,[rn],rm
        (79, EncId::StrhP32, 0x006f007f, 0x0000003d), // strh rd6,[rn6],±rm6
        (80, EncId::StrhD16, 0x007f, 0x0034), // strh rd,[rn,disp3]
        (81, EncId::StrhD32, 0x0200007f, 0x0000003c), // strh rd6,[rn6,±disp11]
        (82, EncId::StrhPm32, 0x0200007f, 0x0200003c), // strh rd6,[rn6],±disp11
        (83, EncId::StrX16, 0x007f, 0x0051), // str rd,[rn,rm]
        (84, EncId::StrX32, 0x006f007f, 0x00000059), // str rd6,[rn6,±rm6]
        (85, EncId::StrP16, 0x007f, 0x0055), // str rd,[rn],rm
        (86, EncId::StrP32, 0x006f007f, 0x0000005d), // str rd6,[rn6],±rm6
        (87, EncId::StrD16, 0x007f, 0x0054), // str rd,[rn,disp3]
        (88, EncId::StrD32, 0x0200007f, 0x0000005c), // str rd6,[rn6,±disp11]
        (89, EncId::StrPm32, 0x0200007f, 0x0200005c), // str rd6,[rn6],±disp11
        (90, EncId::StrdX16, 0x007f, 0x0071), // strd rd,[rn,rm]
        (91, EncId::StrdX32, 0x006f007f, 0x00000079), // strd rd6,[rn6,±rm6]
        (92, EncId::StrdP16, 0x007f, 0x0075), // strd rd,[rn],rm
        (93, EncId::StrdP32, 0x006f007f, 0x0000007d), // strd rd6,[rn6],±rm6
        (94, EncId::StrdD16, 0x007f, 0x0074), // strd rd,[rn,disp3]
        (95, EncId::StrdD32, 0x0200007f, 0x0000007c), // strd rd6,[rn6,±disp11]
        (96, EncId::StrdPm32, 0x0200007f, 0x0200007c), // strd rd6,[rn6],±disp11
        (97, EncId::Moveq16, 0x03ff, 0x0002), // moveq rd,rn
        (98, EncId::Moveq32, 0x03ff03ff, 0x0002000f), // moveq rd6,rn6
        (99, EncId::Movne16, 0x03ff, 0x0012), // movne rd,rn
        (100, EncId::Movne32, 0x03ff03ff, 0x0002001f), // movne rd6,rn6
        (101, EncId::Movgtu16, 0x03ff, 0x0022), // movgtu rd,rn
        (102, EncId::Movgtu32, 0x03ff03ff, 0x0002002f), // movgtu rd6,rn6
        (103, EncId::Movgteu16, 0x03ff, 0x0032), // movgteu rd,rn
        (104, EncId::Movgteu32, 0x03ff03ff, 0x0002003f), // movgteu rd6,rn6
        (105, EncId::Movlteu16, 0x03ff, 0x0042), // movlteu rd,rn
        (106, EncId::Movlteu32, 0x03ff03ff, 0x0002004f), // movlteu rd6,rn6
        (107, EncId::Movltu16, 0x03ff, 0x0052), // movltu rd,rn
        (108, EncId::Movltu32, 0x03ff03ff, 0x0002005f), // movltu rd6,rn6
        (109, EncId::Movgt16, 0x03ff, 0x0062), // movgt rd,rn
        (110, EncId::Movgt32, 0x03ff03ff, 0x0002006f), // movgt rd6,rn6
        (111, EncId::Movgte16, 0x03ff, 0x0072), // movgte rd,rn
        (112, EncId::Movgte32, 0x03ff03ff, 0x0002007f), // movgte rd6,rn6
        (113, EncId::Movlt16, 0x03ff, 0x0082), // movlt rd,rn
        (114, EncId::Movlt32, 0x03ff03ff, 0x0002008f), // movlt rd6,rn6
        (115, EncId::Movlte16, 0x03ff, 0x0092), // movlte rd,rn
        (116, EncId::Movlte32, 0x03ff03ff, 0x0002009f), // movlte rd6,rn6
        (117, EncId::Mov16, 0x03ff, 0x00e2), // mov rd,rn
        (118, EncId::Mov32, 0x03ff03ff, 0x000200ef), // mov rd6,rn6
        (119, EncId::Movbeq16, 0x03ff, 0x00a2), // movbeq rd,rn
        (120, EncId::Movbeq32, 0x03ff03ff, 0x000200af), // movbeq rd6,rn6
        (121, EncId::Movbne16, 0x03ff, 0x00b2), // movbne rd,rn
        (122, EncId::Movbne32, 0x03ff03ff, 0x000200bf), // movbne rd6,rn6
        (123, EncId::Movblt16, 0x03ff, 0x00c2), // movblt rd,rn
        (124, EncId::Movblt32, 0x03ff03ff, 0x000200cf), // movblt rd6,rn6
        (125, EncId::Movblte16, 0x03ff, 0x00d2), // movblte rd,rn
        (126, EncId::Movblte32, 0x03ff03ff, 0x000200df), // movblte rd6,rn6
        (127, EncId::Movts16, 0x03ff, 0x0102), // movts sn,rd
        (128, EncId::Movts32, 0x03ff03ff, 0x0002010f), // movts sn6,rd6
        (129, EncId::MovtsDma32, 0x03ff03ff, 0x0012010f), // movts sndma,rd6
        (130, EncId::MovtsMem32, 0x03ff03ff, 0x0022010f), // movts snmem,rd6
        (131, EncId::MovtsMesh32, 0x03ff03ff, 0x0032010f), // movts snmesh,rd6
        (132, EncId::Movfs16, 0x03ff, 0x0112), // movfs rd,sn
        (133, EncId::Movfs32, 0x03ff03ff, 0x0002011f), // movfs rd6,sn6
        (134, EncId::MovfsDma32, 0x03ff03ff, 0x0012011f), // movfs rd6,sndma
        (135, EncId::MovfsMem32, 0x03ff03ff, 0x0022011f), // movfs rd6,snmem
        (136, EncId::MovfsMesh32, 0x03ff03ff, 0x0032011f), // movfs rd6,snmesh
        (137, EncId::Nop16, 0xffff, 0x01a2), // nop
        (138, EncId::Snop16, 0xffff, 0x03a2), // † snop
        (139, EncId::Unimpl32, 0xffffffff, 0x000f000f), // † unimpl
        (140, EncId::Idle16, 0xffff, 0x01b2), // idle
        (141, EncId::Bkpt16, 0xffff, 0x01c2), // bkpt
        (142, EncId::Mbkpt16, 0xffff, 0x03c2), // mbkpt
        (143, EncId::Rti16, 0xffff, 0x01d2), // rti
        (144, EncId::Wand16, 0xffff, 0x0182), // wand
        (145, EncId::Sync16, 0xffff, 0x01f2), // sync
        (146, EncId::Gie16, 0xffff, 0x0192), // gie
        (147, EncId::Gid16, 0xffff, 0x0392), // gid
        (148, EncId::SwiNum16, 0x03ff, 0x01e2), // † swi swi_num
        (149, EncId::Swi16, 0xffff, 0x01e2), // swi
        (150, EncId::Trap16, 0x03ff, 0x03e2), // trap trapnum6
        (151, EncId::Add16, 0x007f, 0x001a), // add rd,rn,rm
        (152, EncId::Add32, 0x007f007f, 0x000a001f), // add rd6,rn6,rm6
        (153, EncId::Sub16, 0x007f, 0x003a), // sub rd,rn,rm
        (154, EncId::Sub32, 0x007f007f, 0x000a003f), // sub rd6,rn6,rm6
        (155, EncId::And16, 0x007f, 0x005a), // and rd,rn,rm
        (156, EncId::And32, 0x007f007f, 0x000a005f), // and rd6,rn6,rm6
        (157, EncId::Orr16, 0x007f, 0x007a), // orr rd,rn,rm
        (158, EncId::Orr32, 0x007f007f, 0x000a007f), // orr rd6,rn6,rm6
        (159, EncId::Eor16, 0x007f, 0x000a), // eor rd,rn,rm
        (160, EncId::Eor32, 0x007f007f, 0x000a000f), // eor rd6,rn6,rm6
        (161, EncId::AddImm16, 0x007f, 0x0013), // add.s rd,rn,simm3
        (162, EncId::AddImm32, 0x0300007f, 0x0000001b), // add.l rd6,rn6,simm11
        (163, EncId::SubImm16, 0x007f, 0x0033), // sub.s rd,rn,simm3
        (164, EncId::SubImm32, 0x0300007f, 0x0000003b), // sub.l rd6,rn6,simm11
        (165, EncId::Asr16, 0x007f, 0x006a), // asr rd,rn,rm
        (166, EncId::Asr32, 0x007f007f, 0x000a006f), // asr rd6,rn6,rm6
        (167, EncId::Lsr16, 0x007f, 0x004a), // lsr rd,rn,rm
        (168, EncId::Lsr32, 0x007f007f, 0x000a004f), // lsr rd6,rn6,rm6
        (169, EncId::Lsl16, 0x007f, 0x002a), // lsl rd,rn,rm
        (170, EncId::Lsl32, 0x007f007f, 0x000a002f), // lsl rd6,rn6,rm6
        (171, EncId::LsrImm16, 0x001f, 0x0006), // lsr rd,rn,shift
        (172, EncId::LsrImm32, 0x03ff001f, 0x0006000f), // lsr rd6,rn6,shift
        (173, EncId::LslImm16, 0x001f, 0x0016), // lsl rd,rn,shift
        (174, EncId::LslImm32, 0x03ff001f, 0x0006001f), // lsl rd6,rn6,shift
        (175, EncId::AsrImm16, 0x001f, 0x000e), // asr rd,rn,shift
        (176, EncId::AsrImm32, 0x03ff001f, 0x000e000f), // asr rd6,rn6,shift
        (177, EncId::Bitr16, 0x03ff, 0x001e), // bitr rd,rn
        (178, EncId::Bitr32, 0x03ff03ff, 0x000e001f), // bitr rd6,rn6
        (179, EncId::Fext32, 0x007f007f, 0x001a000f), // † fext rd6,rn6,rm6
        (180, EncId::Fdep32, 0x007f007f, 0x001a001f), // † fdep rd6,rn6,rm6
        (181, EncId::Lfsr32, 0x007f007f, 0x001a002f), // † lfsr rd6,rn6,rm6
        (182, EncId::MovImm16, 0x001f, 0x0003), // mov.b rd,imm8
        (183, EncId::MovImm32, 0x100f001f, 0x0002000b), // mov.l rd6,imm16
        (184, EncId::Movt32, 0x100f001f, 0x1002000b), // movt rd6,imm16
        (185, EncId::Fadd16, 0x007f, 0x0007), // fadd rd,rn,rm
        (186, EncId::Fadd32, 0x007f007f, 0x0007000f), // fadd rd6,rn6,rm6
        (187, EncId::Fsub16, 0x007f, 0x0017), // fsub rd,rn,rm
        (188, EncId::Fsub32, 0x007f007f, 0x0007001f), // fsub rd6,rn6,rm6
        (189, EncId::Fmul16, 0x007f, 0x0027), // fmul rd,rn,rm
        (190, EncId::Fmul32, 0x007f007f, 0x0007002f), // fmul rd6,rn6,rm6
        (191, EncId::Fmadd16, 0x007f, 0x0037), // fmadd rd,rn,rm
        (192, EncId::Fmadd32, 0x007f007f, 0x0007003f), // fmadd rd6,rn6,rm6
        (193, EncId::Fmsub16, 0x007f, 0x0047), // fmsub rd,rn,rm
        (194, EncId::Fmsub32, 0x007f007f, 0x0007004f), // fmsub rd6,rn6,rm6
        (195, EncId::Fabs16, 0x007f, 0x0077), // fabs rd,rn
        (196, EncId::Fabs32, 0x007f007f, 0x0007007f), // fabs rd6,rn6
        (197, EncId::Float16, 0x007f, 0x0057), // float rd,rn
        (198, EncId::Float32, 0x007f007f, 0x0007005f), // float rd6,rn6
        (199, EncId::Fix16, 0x007f, 0x0067), // fix rd,rn
        (200, EncId::Fix32, 0x007f007f, 0x0007006f), // fix rd6,rn6
        (201, EncId::Frecip32, 0x007f007f, 0x0017000f), // † frecip frd6,frn6
        (202, EncId::Fsqrt32, 0x007f007f, 0x0017001f), // † fsqrt frd6,frn6
    ];

    /// The disassembly aliases (zero displacement) and the row each one
    /// specialises.
    #[rustfmt::skip]
    const ALIASES: &[(EncId, EncId)] = &[
        (EncId::LdrbZ16, EncId::LdrbD16), (EncId::LdrhZ16, EncId::LdrhD16),
        (EncId::LdrZ16, EncId::LdrD16), (EncId::LdrdZ16, EncId::LdrdD16),
        (EncId::StrbZ16, EncId::StrbD16), (EncId::StrhZ16, EncId::StrhD16),
        (EncId::StrZ16, EncId::StrD16), (EncId::StrdZ16, EncId::StrdD16),
        (EncId::StrbZ32, EncId::StrbD32), (EncId::StrhZ32, EncId::StrhD32),
        (EncId::StrZ32, EncId::StrD32), (EncId::StrdZ32, EncId::StrdD32),
    ];

    #[test]
    fn rows_are_indexed_by_id() {
        for (k, e) in TABLE.iter().enumerate() {
            assert_eq!(e.id as usize, k, "{:?}", e.id);
            assert_eq!(e.id.encoding().map(|r| r.id), Some(e.id));
        }
        assert!(EncId::NoRow.encoding().is_none());
        assert_eq!(NUM_ROWS, 202 + ALIASES.len());
    }

    #[test]
    fn mask_and_match_agree_with_appendix_a() {
        assert_eq!(APPENDIX_A.len() + ALIASES.len(), NUM_ROWS);
        let mut seen = HashSet::new();
        for &(num, id, mask, bits) in APPENDIX_A {
            let e = &TABLE[id as usize];
            assert!(seen.insert(id), "row {num}: {id:?} listed twice");
            assert_eq!(
                (e.mask, e.bits),
                (mask, bits),
                "Appendix A row {num} ({id:?}): table has mask {:#x} match {:#x}",
                e.mask,
                e.bits
            );
            let bits_len = if mask > 0xffff || bits > 0xffff {
                4
            } else {
                e.len
            };
            assert_eq!(e.len, bits_len, "{id:?}");
        }
        // An alias is its base row with the displacement (and its sign)
        // fixed to zero, and means the same.
        for &(alias, base) in ALIASES {
            let (a, b) = (&TABLE[alias as usize], &TABLE[base as usize]);
            let disp = if b.len == 2 { 0x0380 } else { 0x01ff_0380 };
            assert_eq!(
                (a.mask, a.bits, a.sem, a.len),
                (b.mask | disp, b.bits, b.sem, b.len)
            );
            assert!(seen.insert(alias), "{alias:?}");
        }
    }

    #[test]
    fn every_row_fixes_op4_and_agrees_with_insn_len() {
        for e in &TABLE {
            assert_eq!(e.mask & 0xf, 0xf, "{:?} must fix op4", e.id);
            assert_eq!(crate::insn_len(e.bits as u16), e.len as u32, "{:?}", e.id);
            if e.len == 2 {
                assert!(e.mask <= 0xffff, "{:?}", e.id);
            }
            // The fields and the fixed bits cover every bit of the form.
            let fields: u32 = LETTERS
                .iter()
                .map(|&l| {
                    let s = letter_slot(l);
                    e.fields[s].runs[..e.fields[s].nruns as usize]
                        .iter()
                        .map(|&(sh, w)| (((1u64 << w) - 1) as u32) << sh)
                        .fold(0, |a, b| a | b)
                })
                .fold(0, |a, b| {
                    assert_eq!(a & b, 0, "{:?}: fields overlap", e.id);
                    a | b
                });
            assert_eq!(fields & e.mask, 0, "{:?}", e.id);
            let all = if e.len == 2 { 0xffff } else { u32::MAX };
            assert_eq!(fields | e.mask, all, "{:?}: pattern has ignored bits", e.id);
        }
    }

    /// Spike's overlap check: two rows of the same length overlap when some
    /// word matches both. The only overlaps allowed are these (the first row
    /// is a special case of the second and must win).
    #[test]
    fn no_unlisted_overlaps() {
        let mut allowed = vec![(EncId::Rts32, EncId::Jr32), (EncId::Swi16, EncId::SwiNum16)];
        allowed.extend_from_slice(ALIASES);
        let mut found = Vec::new();
        for (i, a) in TABLE.iter().enumerate() {
            for b in &TABLE[i + 1..] {
                if a.len == b.len && (a.bits ^ b.bits) & a.mask & b.mask == 0 {
                    // (more specific, less specific)
                    if a.mask.count_ones() >= b.mask.count_ones() {
                        found.push((a.id, b.id));
                    } else {
                        found.push((b.id, a.id));
                    }
                }
            }
        }
        found.sort();
        let mut want = allowed.clone();
        want.sort();
        assert_eq!(found, want);
        for (special, general) in allowed {
            let (s, g) = (&TABLE[special as usize], &TABLE[general as usize]);
            assert_eq!(
                s.mask & g.mask,
                g.mask,
                "{special:?} must be nested in {general:?}"
            );
            assert!(s.mask.count_ones() > g.mask.count_ones());
            assert_eq!(lookup(s.bits).map(|e| e.id), Some(special));
        }
    }

    #[test]
    fn field_widths() {
        for e in &TABLE {
            let reg = if e.len == 2 { 3 } else { 6 };
            for l in *b"dnm" {
                let w = e.field_width(l);
                assert!(w == 0 || w == reg, "{:?} field {}: {w}", e.id, l as char);
            }
            let alias = ALIASES.iter().any(|&(a, _)| a == e.id);
            let want_i: &[u32] = match e.sem {
                _ if alias => &[0],
                Sem::Ld(_, m) | Sem::St(_, m) if matches!(m, Disp | DispPost) => {
                    if e.len == 2 {
                        &[3]
                    } else {
                        &[11]
                    }
                }
                Sem::AddImm | Sem::SubImm => {
                    if e.len == 2 {
                        &[3]
                    } else {
                        &[11]
                    }
                }
                Sem::ShiftImm(_) => &[5],
                Sem::MovImm => {
                    if e.len == 2 {
                        &[8]
                    } else {
                        &[16]
                    }
                }
                Sem::Movt => &[16],
                _ => &[0],
            };
            assert!(want_i.contains(&e.field_width(b'i')), "{:?} field i", e.id);
            let want_o = match e.sem {
                Sem::Branch(_) => {
                    if e.len == 2 {
                        8
                    } else {
                        24
                    }
                }
                _ => 0,
            };
            assert_eq!(e.field_width(b'o'), want_o, "{:?} field o", e.id);
            assert!([0, 1].contains(&e.field_width(b'g')), "{:?}", e.id);
            assert!([0, 6].contains(&e.field_width(b't')), "{:?}", e.id);
        }
        // The split register fields gather high part first.
        let e = &TABLE[EncId::Jalr32 as usize];
        assert_eq!(e.field(b'n', 0x1402_015f), 40);
        let e = &TABLE[EncId::MovImm32 as usize];
        assert_eq!(e.field(b'i', 0x2122_068b), 0x1234);
        assert_eq!(e.field(b'd', 0x2122_068b), 8);
        let e = &TABLE[EncId::AddImm32 as usize];
        assert_eq!(e.sfield(b'i', 0x2080_041b), -1024);
    }

    #[test]
    fn syntax_templates_use_existing_fields() {
        for e in &TABLE {
            let s = e.syntax.as_bytes();
            let mut k = 0;
            while k < s.len() {
                if s[k] == b'%' {
                    let key = s[k + 1];
                    let letter = match key {
                        b'd' | b'n' | b'm' | b't' | b'g' => key,
                        b'x' | b'i' => b'i',
                        b'b' => b'o',
                        b'0'..=b'3' => b'n',
                        _ => panic!("{:?}: bad key %{}", e.id, key as char),
                    };
                    assert!(
                        e.has_field(letter),
                        "{:?}: %{} without field",
                        e.id,
                        key as char
                    );
                    k += 1;
                }
                k += 1;
            }
        }
    }

    fn check_lookup(word: u32) {
        let a = lookup(word).map(|e| e.id);
        let b = lookup_linear(word).map(|e| e.id);
        assert_eq!(a, b, "word {word:#010x}");
    }

    #[test]
    fn bucketed_lookup_agrees_with_linear_scan() {
        // Every 16-bit halfword (with a fixed second halfword) ...
        for h0 in 0..=0xffffu32 {
            check_lookup(h0 | 0x01a2 << 16);
        }
        // ... every row's fixed bits with its free bits all 0 / all 1, and a
        // seeded sample of 32-bit words.
        for e in &TABLE {
            check_lookup(e.bits);
            check_lookup(e.bits | !e.mask & if e.len == 2 { 0xffff } else { u32::MAX });
        }
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            check_lookup(x as u32);
            check_lookup((x >> 32) as u32);
        }
    }
}
