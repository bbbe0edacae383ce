//! FPU semantics through `exec` (isa.md §2.7): both rounding modes, NaN,
//! infinities, denormal inputs and outputs, overflow and underflow, fused
//! multiply-add, FLOAT/FIX/FABS, flags, FPU exceptions, and integer mode.

mod semantics_util;

use epsim_isa::op::FpuOp::{self, *};
use epsim_isa::state::config;
use epsim_isa::{Excause, Op, Step};
use semantics_util::{flag_names, flags, Machine};

// Configurations.
const N: u32 = 0; // float, round to nearest
const T: u32 = config::RMODE; // float, truncate
const I: u32 = config::ARITHMODE_INT; // integer mode

// Bit patterns.
const ZERO: u32 = 0x0000_0000;
const NZERO: u32 = 0x8000_0000;
const ONE: u32 = 0x3F80_0000;
const NONE: u32 = 0xBF80_0000;
const TWO: u32 = 0x4000_0000;
const THREE: u32 = 0x4040_0000;
const HALF: u32 = 0x3F00_0000;
const MAX: u32 = 0x7F7F_FFFF;
const NMAX: u32 = 0xFF7F_FFFF;
const MINN: u32 = 0x0080_0000; // smallest normal, 2^-126
const DEN: u32 = 0x0000_0001; // smallest denormal
const NDEN: u32 = 0x8000_0001;
const INF: u32 = 0x7F80_0000;
const NINF: u32 = 0xFF80_0000;
const DNAN: u32 = 0x7FC0_0000; // default NaN for invalid operations
const SNAN: u32 = 0x7F80_0001;
const ONE_U: u32 = 0x3F80_0001; // 1 + 2^-23

const NEXT: Step = Step::Next;
const EXC: Step = Step::Exception(Excause::Fpu);

const fn f(bits: f32) -> u32 {
    bits.to_bits()
}

#[rustfmt::skip]
type FpuRow = (FpuOp, u32, u32, u32, u32, u32, &'static str, &'static str, Step);

/// (op, CONFIG, rd before, rn, rm, rd after, flags before, flags after, step).
/// rd = r3, rn = r1, rm = r2; the A flags are set before each row and must
/// survive it.
#[rustfmt::skip]
const ROWS: &[FpuRow] = &[
    // ---- FADD / FSUB ----
    (Fadd, N, 0, ONE,   TWO,   THREE,       "-",       "-",            NEXT),
    (Fadd, N, 0, ONE,   NONE,  ZERO,        "bn",      "bz",           NEXT), // x + -x = +0
    (Fadd, T, 0, ONE,   NONE,  ZERO,        "-",       "bz",           NEXT), // +0 in truncate too
    (Fsub, N, 0, TWO,   TWO,   ZERO,        "-",       "bz",           NEXT),
    (Fadd, N, 0, NZERO, NZERO, NZERO,       "-",       "bz bn",        NEXT),
    (Fadd, N, 0, ZERO,  NZERO, ZERO,        "-",       "bz",           NEXT),
    (Fsub, N, 0, NZERO, ZERO,  NZERO,       "-",       "bz bn",        NEXT), // -0 - +0
    (Fadd, N, 0, DEN,   ZERO,  ZERO,        "-",       "bz",           NEXT), // denormal input = 0, no BUS
    (Fadd, N, 0, NDEN,  NZERO, NZERO,       "-",       "bz bn",        NEXT), // sign kept
    (Fadd, N, 0, DEN,   ONE,   ONE,         "-",       "-",            NEXT),
    (Fsub, N, 0, NDEN,  THREE, f(-3.0),     "-",       "bn",           NEXT),
    (Fadd, N, 0, ONE,   0x3380_0000, ONE,   "-",       "-",            NEXT), // 1 + 2^-24: tie to even
    (Fadd, N, 0, ONE,   0x3440_0000, 0x3F80_0002, "-", "-",            NEXT), // 1 + 3·2^-24: up
    (Fadd, T, 0, ONE,   0x3440_0000, 0x3F80_0001, "-", "-",            NEXT), // truncated
    (Fsub, T, 0, NONE,  0x3440_0000, 0xBF80_0001, "-", "bn",           NEXT), // toward zero
    (Fsub, N, 0, NONE,  0x3440_0000, 0xBF80_0002, "-", "bn",           NEXT),
    (Fsub, N, 0, 0x4B80_0000, ONE, 0x4B7F_FFFF, "-",   "-",            NEXT), // 2^24 - 1 exact
    // overflow: ±inf when rounding to nearest, ±MAX when truncating; BV and BVS
    (Fadd, N, 0, MAX,   MAX,   INF,         "-",       "bv bvs",       NEXT),
    (Fadd, T, 0, MAX,   MAX,   MAX,         "-",       "bv bvs",       NEXT),
    (Fadd, N, 0, NMAX,  NMAX,  NINF,        "-",       "bn bv bvs",    NEXT),
    (Fsub, T, 0, NMAX,  MAX,   NMAX,        "-",       "bn bv bvs",    NEXT),
    (Fadd, N, 0, MAX,   0x7300_0000, INF,   "-",       "bv bvs",       NEXT), // MAX + half ulp: tie goes to even = inf
    (Fadd, N, 0, MAX,   0x72FF_FFFF, MAX,   "-",       "-",            NEXT), // just below half ulp
    (Fadd, N, 0, ONE,   TWO,   THREE,       "bv bvs",  "bvs",          NEXT), // BV per op, BVS sticky
    // underflow: flushed to ±0 with BUS (sticky)
    (Fsub, N, 0, 0x0080_0001, MINN, ZERO,   "-",       "bz bus",       NEXT),
    (Fsub, N, 0, MINN, 0x0080_0001, NZERO,  "-",       "bz bn bus",    NEXT),
    (Fsub, T, 0, 0x00C0_0000, MINN, ZERO,   "-",       "bz bus",       NEXT),
    (Fadd, N, 0, ONE,   TWO,   THREE,       "bus",     "bus",          NEXT),
    // infinities and NaN
    (Fadd, N, 0, INF,   ONE,   INF,         "-",       "-",            NEXT), // no BV for an exact inf
    (Fsub, N, 0, ONE,   INF,   NINF,        "-",       "bn",           NEXT),
    (Fadd, N, 0, NINF,  NINF,  NINF,        "-",       "bn",           NEXT),
    (Fadd, N, 0, INF,   NINF,  DNAN,        "-",       "bis",          NEXT), // inf - inf
    (Fsub, N, 0, INF,   INF,   DNAN,        "-",       "bis",          NEXT),
    (Fadd, N, 0, DNAN,  ONE,   DNAN,        "-",       "bis",          NEXT),
    (Fadd, N, 0, SNAN,  ONE,   0x7FC0_0001, "-",       "bis",          NEXT), // quieted, payload kept
    (Fadd, N, 0, ONE,   0xFF80_0001, 0xFFC0_0001, "-", "bn bis",       NEXT), // sign kept
    (Fsub, N, 0, ONE,   0x7FC0_0003, 0x7FC0_0003, "-", "bis",          NEXT), // FSUB does not flip a NaN
    (Fadd, N, 0, 0x7FC0_0002, 0xFFC0_0003, 0x7FC0_0002, "-", "bis",    NEXT), // RN first
    (Fadd, N, 0, INF,   SNAN,  0x7FC0_0001, "-",       "bis",          NEXT),
    (Fadd, N, 0, ONE,   TWO,   THREE,       "bis",     "bis",          NEXT), // sticky
    // ---- FMUL ----
    (Fmul, N, 0, TWO,   THREE, f(6.0),      "-",       "-",            NEXT),
    (Fmul, N, 0, NONE,  THREE, f(-3.0),     "-",       "bn",           NEXT),
    (Fmul, N, 0, NZERO, THREE, NZERO,       "-",       "bz bn",        NEXT),
    (Fmul, N, 0, NDEN,  NONE,  ZERO,        "-",       "bz",           NEXT), // -den = -0, times -1
    (Fmul, N, 0, 0x3FC0_0000, ONE_U, 0x3FC0_0002, "-", "-",            NEXT), // 1.5(1+u): tie to even
    (Fmul, T, 0, 0x3FC0_0000, ONE_U, 0x3FC0_0001, "-", "-",            NEXT),
    (Fmul, N, 0, 0x3FC0_0001, ONE_U, 0x3FC0_0003, "-", "-",            NEXT), // above the tie
    (Fmul, T, 0, 0x3FC0_0001, ONE_U, 0x3FC0_0002, "-", "-",            NEXT),
    (Fmul, N, 0, 0xBFC0_0001, ONE_U, 0xBFC0_0003, "-", "bn",           NEXT),
    (Fmul, T, 0, 0xBFC0_0001, ONE_U, 0xBFC0_0002, "-", "bn",           NEXT),
    (Fmul, N, 0, MAX,   TWO,   INF,         "-",       "bv bvs",       NEXT),
    (Fmul, T, 0, MAX,   f(-2.0), NMAX,      "-",       "bn bv bvs",    NEXT),
    (Fmul, N, 0, MINN,  HALF,  ZERO,        "-",       "bz bus",       NEXT),
    (Fmul, N, 0, MINN,  f(-0.5), NZERO,     "-",       "bz bn bus",    NEXT),
    (Fmul, N, 0, MINN,  ONE,   MINN,        "-",       "-",            NEXT),
    // 2^-126(1 - 2^-46): rounds up to MINN when nearest (tiny only before
    // rounding: no underflow), flushes when truncating.
    (Fmul, N, 0, 0x2000_0001, 0x1FFF_FFFE, MINN, "-",  "-",            NEXT),
    (Fmul, T, 0, 0x2000_0001, 0x1FFF_FFFE, ZERO, "-",  "bz bus",       NEXT),
    // Exact 2^-126·(1 - 2^-24): fits 24 bits below 2^-126, so it is tiny and
    // flushes (an IEEE FPU with denormals would round this tie up to MINN).
    (Fmul, N, 0, 0x3E00_0000, 0x01FF_FFFF, ZERO, "-",  "bz bus",       NEXT),
    (Fmul, N, 0, 0xBE00_0000, 0x01FF_FFFF, NZERO, "-", "bz bn bus",    NEXT),
    (Fmul, N, 0, INF,   f(-2.0), NINF,      "-",       "bn",           NEXT),
    (Fmul, N, 0, INF,   ZERO,  DNAN,        "-",       "bis",          NEXT), // 0 · inf
    (Fmul, N, 0, DEN,   NINF,  DNAN,        "-",       "bis",          NEXT), // denormal is 0
    (Fmul, N, 0, 0xFFC0_0000, ZERO, 0xFFC0_0000, "-",  "bn bis",       NEXT),
    (Fmul, N, 0, ONE,   0x7F80_1234, 0x7FC0_1234, "-", "bis",          NEXT),
    // ---- FMADD / FMSUB: rd ± rn·rm, fused ----
    (Fmadd, N, ONE,  TWO,  THREE, f(7.0),   "-",       "-",            NEXT),
    (Fmsub, N, ONE,  TWO,  THREE, f(-5.0),  "-",       "bn",           NEXT),
    (Fmadd, N, 0xBF80_0002, ONE_U, ONE_U, 0x2880_0000, "-", "-",       NEXT), // single rounding: 2^-46
    (Fmsub, N, 0x3F80_0002, ONE_U, ONE_U, 0xA880_0000, "-", "bn",      NEXT),
    (Fmadd, T, 0xBF80_0002, ONE_U, ONE_U, 0x2880_0000, "-", "-",       NEXT),
    (Fmsub, N, f(6.0), TWO, THREE, ZERO,    "-",       "bz",           NEXT), // exact cancellation
    (Fmsub, T, f(6.0), TWO, THREE, ZERO,    "-",       "bz",           NEXT),
    (Fmadd, N, NZERO, ZERO, NONE, NZERO,    "-",       "bz bn",        NEXT), // -0 + -0
    (Fmsub, N, NZERO, ZERO, ONE,  NZERO,    "-",       "bz bn",        NEXT), // -0 - +0
    (Fmsub, N, ZERO,  ZERO, ONE,  ZERO,     "-",       "bz",           NEXT), // +0 - +0
    (Fmadd, N, ZERO,  NZERO, ONE, ZERO,     "-",       "bz",           NEXT),
    (Fmadd, N, 0x0000_0005, TWO, THREE, f(6.0), "-",   "-",            NEXT), // denormal acc = 0
    (Fmadd, N, f(5.0), ZERO, INF, DNAN,     "-",       "bis",          NEXT), // 0 · inf
    (Fmadd, N, NINF, TWO, INF,  DNAN,       "-",       "bis",          NEXT), // -inf + inf
    (Fmsub, N, INF,  TWO, INF,  DNAN,       "-",       "bis",          NEXT),
    (Fmadd, N, INF,  TWO, THREE, INF,       "-",       "-",            NEXT),
    (Fmsub, N, ONE,  TWO, INF,  NINF,       "-",       "bn",           NEXT),
    // (1+u) + 2^-24(1+u)(1-u) = 1 + u + 2^-24 - 2^-70: just below a tie, so
    // down; rounding to f64 first would land on the tie and go up.
    (Fmadd, N, ONE_U, 0x3380_0001, 0x3F7F_FFFE, ONE_U, "-", "-",       NEXT),
    (Fmsub, N, 0xBF80_0001, 0x3380_0001, 0x3F7F_FFFE, 0xBF80_0001, "-", "bn", NEXT),
    // A cancellation far below 2^-149 is an underflow, not an exact zero.
    (Fmadd, N, 0x8080_0002, 0x0D80_0001, 0x3280_0001, ZERO, "-", "bz bus", NEXT),
    (Fmadd, N, 0x7FC0_0005, ONE, ONE, 0x7FC0_0005, "-", "bis",         NEXT), // NaN accumulator
    (Fmadd, N, 0x7FC0_0001, 0x7F80_0002, 0x7FC0_0003, 0x7FC0_0002, "-", "bis", NEXT), // RN, RM, RD
    (Fmadd, N, 0x7FC0_0001, ONE, 0x7FC0_0003, 0x7FC0_0003, "-", "bis", NEXT),
    (Fmadd, N, 0x7FC0_0001, ZERO, INF, 0x7FC0_0001, "-", "bis",        NEXT), // NaN beats invalid
    (Fmadd, N, MAX,  MAX,  ONE,  INF,       "-",       "bv bvs",       NEXT),
    (Fmadd, T, MAX,  MAX,  ONE,  MAX,       "-",       "bv bvs",       NEXT),
    (Fmadd, N, MINN, MINN, 0xBF7F_FFFF, ZERO, "-",     "bz bus",       NEXT), // 2^-150 flushed
    (Fmadd, N, ONE,  MAX,  TWO,  INF,       "-",       "bv bvs",       NEXT), // product overflows
    (Fmsub, N, NMAX, MAX,  TWO,  NINF,      "-",       "bn bv bvs",    NEXT),
    (Fmsub, N, MAX,  MAX,  TWO,  NMAX,      "-",       "bn",           NEXT), // product beyond MAX, result not
    (Fmadd, N, ONE,  MINN, MINN, ONE,       "-",       "-",            NEXT), // tiny product, no flag
    (Fmadd, N, ZERO, MINN, MINN, ZERO,      "-",       "bz bus",       NEXT), // product underflows
    (Fmadd, N, ZERO, TWO,  THREE, f(6.0),   "-",       "-",            NEXT),
    // ---- FLOAT ----
    (Float, N, 0, 0,           0, ZERO,           "bn bv", "bz",      NEXT),
    (Float, N, 0, 1,           0, ONE,            "-",     "-",       NEXT),
    (Float, N, 0, 0xFFFF_FFFF, 0, NONE,           "-",     "bn",      NEXT),
    (Float, N, 0, 0x8000_0000, 0, 0xCF00_0000,    "-",     "bn",      NEXT), // INT_MIN exact
    (Float, N, 0, 0x7FFF_FFFF, 0, 0x4F00_0000,    "-",     "-",       NEXT), // rounds up to 2^31
    (Float, T, 0, 0x7FFF_FFFF, 0, 0x4EFF_FFFF,    "-",     "-",       NEXT),
    (Float, N, 0, 0x0100_0001, 0, 0x4B80_0000,    "-",     "-",       NEXT), // tie to even
    (Float, N, 0, 0x0100_0003, 0, 0x4B80_0002,    "-",     "-",       NEXT),
    (Float, T, 0, 0x0100_0003, 0, 0x4B80_0001,    "-",     "-",       NEXT),
    (Float, N, 0, 0xFEFF_FFFD, 0, 0xCB80_0002,    "-",     "bn",      NEXT), // -(2^24+3)
    (Float, T, 0, 0xFEFF_FFFD, 0, 0xCB80_0001,    "-",     "bn",      NEXT),
    // ---- FIX: rounds per mode (ties to even), saturates ----
    (Fix, N, 0, f(1.5),  0, 2,            "-",     "-",              NEXT),
    (Fix, T, 0, f(1.5),  0, 1,            "-",     "-",              NEXT),
    (Fix, N, 0, f(2.5),  0, 2,            "-",     "-",              NEXT),
    (Fix, N, 0, f(3.5),  0, 4,            "-",     "-",              NEXT),
    (Fix, N, 0, f(-1.5), 0, 0xFFFF_FFFE,  "-",     "bn",             NEXT),
    (Fix, T, 0, f(-1.5), 0, 0xFFFF_FFFF,  "-",     "bn",             NEXT),
    (Fix, N, 0, f(-2.5), 0, 0xFFFF_FFFE,  "-",     "bn",             NEXT),
    (Fix, N, 0, f(0.5),  0, 0,            "-",     "bz",             NEXT),
    (Fix, N, 0, f(0.75), 0, 1,            "-",     "-",              NEXT),
    (Fix, T, 0, f(0.75), 0, 0,            "-",     "bz",             NEXT),
    (Fix, N, 0, f(-0.75),0, 0xFFFF_FFFF,  "-",     "bn",             NEXT),
    (Fix, T, 0, f(-0.75),0, 0,            "-",     "bz",             NEXT),
    (Fix, N, 0, f(1e-10),0, 0,            "-",     "bz",             NEXT), // no BUS
    (Fix, N, 0, NZERO,   0, 0,            "bn",    "bz",             NEXT),
    (Fix, N, 0, NDEN,    0, 0,            "-",     "bz",             NEXT),
    (Fix, N, 0, 0x4B00_0001, 0, 8_388_609, "-",    "-",              NEXT),
    (Fix, N, 0, 0x4EFF_FFFF, 0, 0x7FFF_FF80, "-",  "-",              NEXT),
    (Fix, N, 0, 0x4F00_0000, 0, 0x7FFF_FFFF, "-",  "bv bvs",         NEXT), // 2^31 saturates
    (Fix, N, 0, 0xCF00_0000, 0, 0x8000_0000, "-",  "bn",             NEXT), // -2^31 fits
    (Fix, T, 0, 0xCF00_0001, 0, 0x8000_0000, "-",  "bn bv bvs",      NEXT),
    (Fix, N, 0, f(1e20), 0, 0x7FFF_FFFF,  "-",     "bv bvs",         NEXT),
    (Fix, N, 0, MAX,     0, 0x7FFF_FFFF,  "-",     "bv bvs",         NEXT),
    (Fix, N, 0, INF,     0, 0x7FFF_FFFF,  "-",     "bv bvs",         NEXT),
    (Fix, N, 0, NINF,    0, 0x8000_0000,  "-",     "bn bv bvs",      NEXT),
    (Fix, N, 0, DNAN,    0, 0x7FFF_FFFF,  "-",     "bis",            NEXT),
    (Fix, N, 0, 0xFF80_0001, 0, 0x8000_0000, "-",  "bn bis",         NEXT),
    // ---- FABS ----
    (Fabs, N, 0, NONE,   0, ONE,          "bn bv", "-",              NEXT),
    (Fabs, N, 0, ONE,    0, ONE,          "-",     "-",              NEXT),
    (Fabs, N, 0, NZERO,  0, ZERO,         "-",     "bz",             NEXT),
    (Fabs, N, 0, NDEN,   0, ZERO,         "-",     "bz",             NEXT),
    (Fabs, N, 0, 0x007F_FFFF, 0, ZERO,    "-",     "bz",             NEXT),
    (Fabs, N, 0, NINF,   0, INF,          "-",     "-",              NEXT),
    (Fabs, N, 0, NMAX,   0, MAX,          "-",     "-",              NEXT),
    (Fabs, N, 0, 0xFF80_0001, 0, 0x7FC0_0001, "-", "bis",            NEXT),
    // ---- FPU exceptions: raised per operation when enabled ----
    (Fadd, N | config::IEN, 0, INF, NINF, DNAN,  "-",   "bis",        EXC),
    (Fadd, N | config::IEN, 0, ONE, TWO,  THREE, "bis", "bis",        NEXT), // sticky alone: no
    (Fadd, N | config::OEN, 0, MAX, MAX,  INF,   "-",   "bv bvs",     EXC),
    (Fadd, T | config::OEN, 0, MAX, MAX,  MAX,   "-",   "bv bvs",     EXC),
    (Fadd, N | config::OEN, 0, ONE, TWO,  THREE, "bvs", "bvs",        NEXT),
    (Fmul, N | config::UEN, 0, MINN, HALF, ZERO, "-",   "bz bus",     EXC),
    (Fmul, N | config::UEN | config::OEN, 0, MINN, HALF, ZERO, "-", "bz bus", EXC),
    (Fmul, N | config::OEN, 0, MINN, HALF, ZERO, "-",   "bz bus",     NEXT), // not enabled
    (Fadd, N | config::OEN | config::UEN, 0, INF, NINF, DNAN, "-", "bis", NEXT),
    (Fix,  N | config::OEN, 0, INF, 0, 0x7FFF_FFFF, "-", "bv bvs",    EXC),
    (Fix,  N | config::IEN, 0, DNAN, 0, 0x7FFF_FFFF, "-", "bis",      EXC),
    (Fabs, N | config::IEN, 0, SNAN, 0, 0x7FC0_0001, "-", "bis",      EXC),
    (Fmadd, N | config::IEN, ONE, ZERO, INF, DNAN, "-", "bis",        EXC),
    (Float, N | 0xE, 0, 7, 0, f(7.0),   "bis bvs bus", "bis bvs bus", NEXT),
    // ---- integer mode (IALU2): low 32 bits, BZ = 32-bit zero, BN, BV = 0 ----
    (Fadd,  I, 0, 1,           2,           3,           "bv bvs bis bus", "bvs bis bus", NEXT),
    (Fadd,  I, 0, 0x7FFF_FFFF, 1,           0x8000_0000, "-",     "bn",    NEXT), // no overflow flag
    (Fsub,  I, 0, 5,           5,           0,           "bn",    "bz",    NEXT),
    (Fsub,  I, 0, 0,           1,           0xFFFF_FFFF, "-",     "bn",    NEXT),
    (Fmul,  I, 0, 0xFFFF_FFFD, 4,           0xFFFF_FFF4, "-",     "bn",    NEXT), // -3 · 4
    (Fmul,  I, 0, 0x0001_0000, 0x0001_0000, 0,           "-",     "bz",    NEXT), // low 32 bits
    (Fmul,  I, 0, 0x8000_0000, 0xFFFF_FFFF, 0x8000_0000, "-",     "bn",    NEXT), // INT_MIN · -1
    (Fmul,  I, 0, 0x0001_0001, 0x0001_0001, 0x0002_0001, "-",     "-",     NEXT),
    (Fmadd, I, 10, 3,          4,           22,          "-",     "-",     NEXT),
    (Fmsub, I, 10, 3,          4,           0xFFFF_FFFE, "-",     "bn",    NEXT),
    (Fmadd, I, 0x8000_0000, 0, 5,           0x8000_0000, "-",     "bn",    NEXT), // BZ is a 32-bit test
    (Fmsub, I, 12, 3,          4,           0,           "-",     "bz",    NEXT),
    (Fadd,  I | config::IEN | config::OEN | config::UEN, 0, 0x7FFF_FFFF, 1, 0x8000_0000, "-", "bn", NEXT),
    (Fadd,  I | config::RMODE, 0, 2, 3, 5,              "-",     "-",     NEXT), // RMODE irrelevant
];

#[test]
fn fpu_table() {
    for (i, &(op, cfg, acc, a, b, want, before, after, step)) in ROWS.iter().enumerate() {
        let mut m = Machine::new();
        m.s.config = cfg;
        m.set(1, a).set(2, b).set(3, acc);
        let mut fl = flags(before);
        (fl.az, fl.an, fl.ac, fl.av, fl.avs) = (true, false, true, false, true);
        m.s.flags = fl;
        let got = m.run(Op::Fpu {
            op,
            rd: 3,
            rn: 1,
            rm: 2,
        });
        let ctx = format!("row {i}: {op:?} cfg={cfg:#x} rd={acc:#010x} rn={a:#010x} rm={b:#010x}");
        assert_eq!(got, step, "{ctx}");
        assert_eq!(
            m.r(3),
            want,
            "{ctx}: got {:#010x} want {want:#010x}",
            m.r(3)
        );
        let mut want_fl = flags(after);
        (want_fl.az, want_fl.an, want_fl.ac, want_fl.av, want_fl.avs) =
            (true, false, true, false, true);
        assert_eq!(flag_names(&m.s.flags), flag_names(&want_fl), "{ctx}");
        assert_eq!((m.r(1), m.r(2)), (a, b), "{ctx}: sources unchanged");
    }
}

#[test]
fn unary_ops_in_integer_mode_are_unimplemented() {
    for op in [Float, Fix, Fabs] {
        let mut m = Machine::new();
        m.s.config = I;
        m.set(1, 0x4000_0000).set(3, 0x1234);
        m.s.flags = flags("an bz bv bis");
        let s0 = m.s.clone();
        assert_eq!(
            m.run(Op::Fpu {
                op,
                rd: 3,
                rn: 1,
                rm: 1
            }),
            Step::Exception(Excause::Unimplemented),
            "{op:?}"
        );
        assert_eq!(m.s, s0, "{op:?}: no effects");
    }
}

#[test]
fn reserved_arithmodes_behave_as_float() {
    for mode in [1u32, 2, 3, 5, 6, 7] {
        let mut m = Machine::new();
        m.s.config = mode << 17;
        m.set(1, ONE).set(2, TWO);
        assert_eq!(
            m.run(Op::Fpu {
                op: Fadd,
                rd: 3,
                rn: 1,
                rm: 2
            }),
            Step::Next
        );
        assert_eq!(m.r(3), THREE, "ARITHMODE {mode:03b}");
    }
}

#[test]
fn fpu_operands_may_alias() {
    // FMADD r3, r3, r3: acc and both factors are the old r3.
    let mut m = Machine::new();
    m.set(3, THREE);
    m.run(Op::Fpu {
        op: Fmadd,
        rd: 3,
        rn: 3,
        rm: 3,
    });
    assert_eq!(m.r(3), f(12.0));
    m.run(Op::Fpu {
        op: Fsub,
        rd: 3,
        rn: 3,
        rm: 3,
    });
    assert_eq!(m.r(3), ZERO);
    assert!(m.s.flags.bz);
}

#[test]
fn fpu_leaves_integer_flags_and_alu_leaves_fpu_flags() {
    let mut m = Machine::new();
    m.s.flags = flags("az an ac av avs");
    m.set(1, NONE).set(2, NONE);
    m.run(Op::Fpu {
        op: Fmul,
        rd: 3,
        rn: 1,
        rm: 2,
    });
    assert_eq!(m.s.flags, flags("az an ac av avs"));
    m.s.flags = flags("bz bn bv bis bvs bus");
    m.run(Op::Add {
        rd: 3,
        rn: 1,
        rm: 2,
    });
    let f = m.s.flags;
    assert!(f.bz && f.bn && f.bv && f.bis && f.bvs && f.bus);
}
