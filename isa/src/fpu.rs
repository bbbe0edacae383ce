//! Epiphany single-precision arithmetic as pure functions on bit patterns.
//!
//! Model decisions owned here (reasons in `isa/SEMANTICS.md` §FPU):
//! * rounding is exact and done with integer arithmetic ([`soft`]):
//!   operands are unpacked to `significand × 2^exponent`, the exact result
//!   (or, when the smaller addend is far below the rounding point, the exact
//!   result with a sticky bit jammed far below it) is formed in a `u64` and
//!   rounded once, to nearest-even or toward zero ([`Rmode`]); the public
//!   functions add a host fast path only where the identical result is
//!   guaranteed (round to nearest, normal operands, a normal result above
//!   2^-126; for FMADD/FMSUB an exact f64 product and a tie guard);
//! * FMADD/FMSUB are fused: `rd ± rn·rm` with a single rounding;
//! * denormal inputs are zero (sign kept) and raise nothing; results that are
//!   tiny *after* rounding to 24 bits (unbounded exponent) flush to ±0 and
//!   raise underflow;
//! * overflow gives ±∞ when rounding to nearest and ±`f32::MAX` when
//!   truncating (IEEE round-toward-zero), and raises overflow;
//! * NaN operands propagate, quieted (bit 22 set), the first NaN in the order
//!   RN, RM, RD; invalid operations on non-NaN operands (∞−∞, 0·∞) give the
//!   positive default NaN [`DEFAULT_NAN`]; both raise invalid;
//! * FIX rounds per mode (ties to even), saturates with overflow, and turns
//!   NaN into the saturated value of its sign with invalid.
//!
//! The per-operation conditions come back in [`FpResult::exc`], laid out like
//! the CONFIG enable bits (IEN/OEN/UEN), so `exc & config` says whether an
//! enabled FPU exception occurred.

use crate::state::config;

/// Rounding mode, CONFIG.RMODE.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rmode {
    /// Round to nearest, ties to even (RMODE = 0).
    Nearest,
    /// Round toward zero (RMODE = 1).
    Truncate,
}

impl Rmode {
    /// The rounding mode selected by a CONFIG value.
    #[inline(always)]
    pub const fn from_config(cfg: u32) -> Rmode {
        if cfg & config::RMODE != 0 {
            Rmode::Truncate
        } else {
            Rmode::Nearest
        }
    }
}

/// Invalid operation (a NaN operand, ∞−∞, 0·∞, FIX of NaN). Same bit as CONFIG.IEN.
pub const EXC_INVALID: u32 = config::IEN;
/// Overflow (finite result too large; FIX out of range). Same bit as CONFIG.OEN.
pub const EXC_OVERFLOW: u32 = config::OEN;
/// Underflow (non-zero result flushed to ±0). Same bit as CONFIG.UEN.
pub const EXC_UNDERFLOW: u32 = config::UEN;

/// The NaN produced by an invalid operation whose operands are not NaN.
pub const DEFAULT_NAN: u32 = 0x7FC0_0000;
/// Largest finite single, the truncate-mode overflow result (with a sign).
pub const MAX_FINITE: u32 = 0x7F7F_FFFF;
/// +∞.
pub const INF: u32 = 0x7F80_0000;

const SIGN: u32 = 0x8000_0000;
const QUIET: u32 = 0x0040_0000;

/// Result of one FPU operation: the bit pattern written to RD and the
/// per-operation exception conditions (`EXC_*` bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FpResult {
    pub bits: u32,
    pub exc: u32,
}

impl FpResult {
    #[inline(always)]
    const fn ok(bits: u32) -> FpResult {
        FpResult { bits, exc: 0 }
    }
}

/// An unpacked operand.
#[derive(Clone, Copy, Debug)]
enum Val {
    /// ±0, including denormals (flushed, sign kept).
    Zero(bool),
    /// A normal number `(-1)^sign × sig × 2^exp`, `sig` in `[2^23, 2^24)`.
    Fin {
        sign: bool,
        exp: i32,
        sig: u64,
    },
    Inf(bool),
    Nan,
}

#[inline(always)]
fn unpack(x: u32) -> Val {
    let sign = x & SIGN != 0;
    let e = (x >> 23) & 0xff;
    match e {
        0 => Val::Zero(sign),
        0xff if x & 0x007F_FFFF == 0 => Val::Inf(sign),
        0xff => Val::Nan,
        _ => Val::Fin {
            sign,
            exp: e as i32 - 150,
            sig: u64::from((x & 0x007F_FFFF) | 0x0080_0000),
        },
    }
}

#[inline(always)]
const fn is_nan(x: u32) -> bool {
    x & 0x7FFF_FFFF > INF
}

#[inline(always)]
const fn signed(sign: bool, bits: u32) -> u32 {
    if sign {
        bits | SIGN
    } else {
        bits
    }
}

#[inline(always)]
const fn quiet(x: u32) -> FpResult {
    FpResult {
        bits: x | QUIET,
        exc: EXC_INVALID,
    }
}

const INVALID: FpResult = FpResult {
    bits: DEFAULT_NAN,
    exc: EXC_INVALID,
};

/// Rounds the exact value `(-1)^sign × mag × 2^exp` (`mag != 0`) to a
/// single, flushing tiny results and saturating huge ones. `mag` may carry a
/// sticky bit jammed at bit 0 as long as its top bit is far above the
/// rounding position (see [`add_exact`]).
#[inline]
fn round_pack(sign: bool, exp: i32, mag: u64, rm: Rmode) -> FpResult {
    debug_assert!(mag != 0);
    let top = 63 - mag.leading_zeros() as i32;
    let mut shift = top - 23;
    let mut kept: u32;
    if shift > 0 {
        kept = (mag >> shift) as u32;
        if rm == Rmode::Nearest {
            // Branch-free: the round-up decision is data, not control flow.
            let rem = mag & ((1u64 << shift) - 1);
            let half = 1u64 << (shift - 1);
            let up = (rem > half) | ((rem == half) & (kept & 1 != 0));
            kept += u32::from(up);
            let carry = kept >> 24; // rounded up to 2^24
            kept >>= carry;
            shift += carry as i32;
        }
    } else {
        kept = (mag << -shift) as u32;
    }
    // value = kept × 2^(exp + shift), kept in [2^23, 2^24)
    let biased = exp + shift + 150;
    if biased >= 0xff {
        let bits = match rm {
            Rmode::Nearest => INF,
            Rmode::Truncate => MAX_FINITE,
        };
        FpResult {
            bits: signed(sign, bits),
            exc: EXC_OVERFLOW,
        }
    } else if biased <= 0 {
        FpResult {
            bits: signed(sign, 0),
            exc: EXC_UNDERFLOW,
        }
    } else {
        FpResult::ok(signed(sign, ((biased as u32) << 23) | (kept & 0x007F_FFFF)))
    }
}

/// Bit position the higher top bit of two addends is aligned to in
/// [`add_exact`]: two bits of headroom for the carry of an addition.
const ALIGN_TOP: i32 = 61;

/// `sig × 2^sh` as an integer when `sh >= 0`; otherwise `sig` shifted right
/// by `-sh` with every lost bit ORed (jammed) into bit 0. Branch-free.
#[inline(always)]
fn align(sig: u64, sh: i32) -> u64 {
    let right = (-sh).clamp(0, 63) as u32;
    let left = sh.max(0) as u32;
    let lost = sig & ((1u64 << right) - 1);
    ((sig >> right) << left) | u64::from(lost != 0)
}

/// Correctly rounded `x + y` for two non-zero exact values
/// `(-1)^s × sig × 2^exp` with significands of at most 48 bits.
///
/// Both are scaled to a common exponent that puts the higher of their top
/// bits at bit 61. The other keeps every bit unless its lowest bit would
/// fall below bit 0, which needs its top at bit 46 or lower (it has at most
/// 48 bits); then its lost bits are jammed into bit 0. In that case the
/// sum is above 2^61 - 2^47, its top bit at 60 or above and its rounding
/// position (24 bits) at bit 37 or above, so the jammed value rounds exactly
/// like the true one (the jammed bit stays far below the guard position and
/// is non-zero exactly when the lost remainder is). Sums stay below 2^63.
#[inline]
fn add_exact(xs: bool, xe: i32, xsig: u64, ys: bool, ye: i32, ysig: u64, rm: Rmode) -> FpResult {
    let xtop = xe + 63 - xsig.leading_zeros() as i32;
    let ytop = ye + 63 - ysig.leading_zeros() as i32;
    let e = xtop.max(ytop) - ALIGN_TOP;
    let xm = align(xsig, xe - e);
    let ym = align(ysig, ye - e);
    let same = xs == ys;
    let mag = if same { xm + ym } else { xm.abs_diff(ym) };
    // The result takes the sign of the larger magnitude when signs differ.
    let sign = xs ^ (!same & (xm < ym));
    if mag == 0 {
        // Exact cancellation: +0 in both rounding modes (IEEE 754 §6.3).
        return FpResult::ok(0);
    }
    round_pack(sign, e, mag, rm)
}

/// `a + b` on unpacked non-NaN operands; `a_bits`/`b_bits` are returned
/// unchanged when the other operand is zero.
#[inline]
fn add_vals(a: Val, a_bits: u32, b: Val, b_bits: u32, rm: Rmode) -> FpResult {
    match (a, b) {
        (Val::Inf(sa), Val::Inf(sb)) if sa != sb => INVALID,
        (Val::Inf(s), _) | (_, Val::Inf(s)) => FpResult::ok(signed(s, INF)),
        (Val::Zero(sa), Val::Zero(sb)) => FpResult::ok(signed(sa && sb, 0)),
        (Val::Zero(_), _) => FpResult::ok(b_bits),
        (_, Val::Zero(_)) => FpResult::ok(a_bits),
        (
            Val::Fin {
                sign: sa,
                exp: ea,
                sig: ma,
            },
            Val::Fin {
                sign: sb,
                exp: eb,
                sig: mb,
            },
        ) => add_exact(sa, ea, ma, sb, eb, mb, rm),
        // NaNs were handled by the caller.
        _ => INVALID,
    }
}

/// The whole arithmetic in integers, without any host floating-point
/// operation: the reference implementation. The top-level functions are the
/// same functions with a host fast path where that is provably identical.
pub mod soft {
    use super::*;

    /// `FADD`: `a + b`.
    #[inline]
    pub fn fadd(a: u32, b: u32, rm: Rmode) -> FpResult {
        if is_nan(a) {
            return quiet(a);
        }
        if is_nan(b) {
            return quiet(b);
        }
        add_vals(unpack(a), a, unpack(b), b, rm)
    }

    /// `FSUB`: `a - b`.
    #[inline]
    pub fn fsub(a: u32, b: u32, rm: Rmode) -> FpResult {
        if is_nan(a) {
            return quiet(a);
        }
        if is_nan(b) {
            return quiet(b);
        }
        let nb = b ^ SIGN;
        add_vals(unpack(a), a, unpack(nb), nb, rm)
    }

    /// `FMUL`: `a × b`.
    #[inline]
    pub fn fmul(a: u32, b: u32, rm: Rmode) -> FpResult {
        if is_nan(a) {
            return quiet(a);
        }
        if is_nan(b) {
            return quiet(b);
        }
        let sign = (a ^ b) & SIGN != 0;
        match (unpack(a), unpack(b)) {
            (Val::Inf(_), Val::Zero(_)) | (Val::Zero(_), Val::Inf(_)) => INVALID,
            (Val::Inf(_), _) | (_, Val::Inf(_)) => FpResult::ok(signed(sign, INF)),
            (Val::Zero(_), _) | (_, Val::Zero(_)) => FpResult::ok(signed(sign, 0)),
            (
                Val::Fin {
                    exp: ea, sig: ma, ..
                },
                Val::Fin {
                    exp: eb, sig: mb, ..
                },
            ) => round_pack(sign, ea + eb, ma * mb, rm),
            _ => INVALID,
        }
    }

    /// Fused `acc ± a × b` (`negate` selects minus), one rounding.
    #[inline]
    fn fused(acc: u32, a: u32, b: u32, negate: bool, rm: Rmode) -> FpResult {
        if is_nan(a) {
            return quiet(a);
        }
        if is_nan(b) {
            return quiet(b);
        }
        if is_nan(acc) {
            return quiet(acc);
        }
        let psign = ((a ^ b) & SIGN != 0) ^ negate;
        let (va, vb, vc) = (unpack(a), unpack(b), unpack(acc));
        match (va, vb) {
            (Val::Inf(_), Val::Zero(_)) | (Val::Zero(_), Val::Inf(_)) => INVALID,
            (Val::Inf(_), _) | (_, Val::Inf(_)) => match vc {
                Val::Inf(sc) if sc != psign => INVALID,
                _ => FpResult::ok(signed(psign, INF)),
            },
            (Val::Zero(_), _) | (_, Val::Zero(_)) => match vc {
                Val::Inf(sc) => FpResult::ok(signed(sc, INF)),
                Val::Zero(sc) => FpResult::ok(signed(sc && psign, 0)),
                _ => FpResult::ok(acc),
            },
            (
                Val::Fin {
                    exp: ea, sig: ma, ..
                },
                Val::Fin {
                    exp: eb, sig: mb, ..
                },
            ) => {
                let (pe, pm) = (ea + eb, ma * mb);
                match vc {
                    Val::Inf(sc) => FpResult::ok(signed(sc, INF)),
                    Val::Zero(_) => round_pack(psign, pe, pm, rm),
                    Val::Fin {
                        sign: sc,
                        exp: ec,
                        sig: mc,
                    } => add_exact(sc, ec, mc, psign, pe, pm, rm),
                    Val::Nan => INVALID,
                }
            }
            _ => INVALID,
        }
    }

    /// `FMADD`: `acc + a × b`, fused (single rounding).
    #[inline]
    pub fn fmadd(acc: u32, a: u32, b: u32, rm: Rmode) -> FpResult {
        fused(acc, a, b, false, rm)
    }

    /// `FMSUB`: `acc - a × b`, fused (single rounding).
    #[inline]
    pub fn fmsub(acc: u32, a: u32, b: u32, rm: Rmode) -> FpResult {
        fused(acc, a, b, true, rm)
    }

    /// `FLOAT`: signed 32-bit integer to single, rounded per mode. Never raises.
    #[inline]
    pub fn float(i: u32, rm: Rmode) -> FpResult {
        if i == 0 {
            return FpResult::ok(0);
        }
        let sign = (i as i32) < 0;
        round_pack(sign, 0, u64::from((i as i32).unsigned_abs()), rm)
    }

    /// `FIX`: single to signed 32-bit integer, rounded per mode (ties to even).
    /// Out of range and ±∞ saturate to `0x7FFFFFFF`/`0x80000000` with overflow;
    /// NaN gives the saturated value of its sign with invalid; zero and
    /// denormals give 0.
    #[inline]
    pub fn fix(x: u32, rm: Rmode) -> FpResult {
        let sat = |neg: bool| if neg { 0x8000_0000 } else { 0x7FFF_FFFF };
        match unpack(x) {
            Val::Nan => FpResult {
                bits: sat(x & SIGN != 0),
                exc: EXC_INVALID,
            },
            Val::Inf(s) => FpResult {
                bits: sat(s),
                exc: EXC_OVERFLOW,
            },
            Val::Zero(_) => FpResult::ok(0),
            Val::Fin { sign, exp, sig } => {
                // |x| >= 2^32 whenever exp >= 9: saturated either way.
                let mag: u64 = if exp >= 9 {
                    1 << 33
                } else if exp >= 0 {
                    sig << exp
                } else {
                    let n = (-exp) as u32;
                    if n >= 64 {
                        0
                    } else {
                        let mut kept = sig >> n;
                        if rm == Rmode::Nearest {
                            let rem = sig & ((1u64 << n) - 1);
                            let half = 1u64 << (n - 1);
                            if rem > half || (rem == half && kept & 1 != 0) {
                                kept += 1;
                            }
                        }
                        kept
                    }
                };
                let limit = if sign { 0x8000_0000 } else { 0x7FFF_FFFF };
                if mag > limit {
                    FpResult {
                        bits: sat(sign),
                        exc: EXC_OVERFLOW,
                    }
                } else if sign {
                    FpResult::ok((mag as u32).wrapping_neg())
                } else {
                    FpResult::ok(mag as u32)
                }
            }
        }
    }

    /// `FABS`: clears the sign; denormals become +0; a NaN is quieted (sign
    /// cleared) and raises invalid.
    #[inline]
    pub fn fabs(x: u32) -> FpResult {
        if is_nan(x) {
            return FpResult {
                bits: (x | QUIET) & !SIGN,
                exc: EXC_INVALID,
            };
        }
        if x & 0x7F80_0000 == 0 {
            return FpResult::ok(0);
        }
        FpResult::ok(x & !SIGN)
    }
}

#[inline(always)]
const fn is_normal(x: u32) -> bool {
    ((x >> 23) & 0xff).wrapping_sub(1) < 0xfe
}

/// A host result the fast path may return: finite, normal and strictly
/// above the smallest normal in magnitude. The host rounds tiny values at
/// denormal precision, so it can round an exact `2^-126·(1 - 2^-24)` up to
/// exactly ±2^-126, where the Epiphany flushes it (tiny after rounding to
/// 24 bits); any result above 2^-126 comes from an exact value above it.
#[inline(always)]
const fn fast_ok(r: u32) -> bool {
    (r & 0x7FFF_FFFF).wrapping_sub(0x0080_0001) < 0x7F7F_FFFF - 0x0080_0000
}

// Fast paths. With round-to-nearest-even, normal operands and a normal (or
// exactly zero) result above ±2^-126, IEEE 754 fixes the result bit for bit,
// and it is the Epiphany result too: no denormal input to flush, no NaN, no overflow or
// underflow, no flag. Rust runs with the default floating-point environment
// (nearest, no flush-to-zero), so the host's `f32` operation computes exactly
// that; everything else (truncate, specials, edges) takes the integer path.

/// `FADD`: `a + b`.
#[inline]
pub fn fadd(a: u32, b: u32, rm: Rmode) -> FpResult {
    if rm == Rmode::Nearest && is_normal(a) && is_normal(b) {
        // A sum of normals is zero only by exact cancellation: +0, as here.
        let r = (f32::from_bits(a) + f32::from_bits(b)).to_bits();
        if fast_ok(r) || r == 0 {
            return FpResult::ok(r);
        }
    }
    fadd_slow(a, b, rm)
}

#[inline(never)]
fn fadd_slow(a: u32, b: u32, rm: Rmode) -> FpResult {
    soft::fadd(a, b, rm)
}

/// `FSUB`: `a - b`.
#[inline]
pub fn fsub(a: u32, b: u32, rm: Rmode) -> FpResult {
    if rm == Rmode::Nearest && is_normal(a) && is_normal(b) {
        let r = (f32::from_bits(a) - f32::from_bits(b)).to_bits();
        if fast_ok(r) || r == 0 {
            return FpResult::ok(r);
        }
    }
    fsub_slow(a, b, rm)
}

#[inline(never)]
fn fsub_slow(a: u32, b: u32, rm: Rmode) -> FpResult {
    soft::fsub(a, b, rm)
}

/// `FMUL`: `a × b`.
#[inline]
pub fn fmul(a: u32, b: u32, rm: Rmode) -> FpResult {
    if rm == Rmode::Nearest && is_normal(a) && is_normal(b) {
        // A zero product of normals is an underflow: not taken here.
        let r = (f32::from_bits(a) * f32::from_bits(b)).to_bits();
        if fast_ok(r) {
            return FpResult::ok(r);
        }
    }
    fmul_slow(a, b, rm)
}

#[inline(never)]
fn fmul_slow(a: u32, b: u32, rm: Rmode) -> FpResult {
    soft::fmul(a, b, rm)
}

/// `FLOAT`: signed 32-bit integer to single, rounded per mode. Never raises.
#[inline]
pub fn float(i: u32, rm: Rmode) -> FpResult {
    match rm {
        // Integer to single conversion is always exact-or-rounded-to-nearest.
        Rmode::Nearest => FpResult::ok((i as i32 as f32).to_bits()),
        Rmode::Truncate => soft::float(i, rm),
    }
}

/// `FMADD`: `acc + a × b`, fused (single rounding).
#[inline]
pub fn fmadd(acc: u32, a: u32, b: u32, rm: Rmode) -> FpResult {
    match fused_fast(acc, a, b, false, rm) {
        Some(r) => r,
        None => fused_slow(acc, a, b, false, rm),
    }
}

/// `FMSUB`: `acc - a × b`, fused (single rounding).
#[inline]
pub fn fmsub(acc: u32, a: u32, b: u32, rm: Rmode) -> FpResult {
    match fused_fast(acc, a, b, true, rm) {
        Some(r) => r,
        None => fused_slow(acc, a, b, true, rm),
    }
}

/// Fused fast path (round to nearest, normal operands), exact by argument,
/// not by trusting a host FMA: the `f64` product of two singles is exact
/// (48 significant bits); the `f64` sum `s` is the exact sum rounded once;
/// single precision values and midpoints between them are `f64` values, so
/// rounding is monotone across them and `s` rounds to the same single as
/// the exact sum unless `s` itself is a midpoint (then the lost part decides:
/// take the integer path). `s == 0` only for an exact cancellation (+0);
/// results at or below ±2^-126 also take the integer path.
#[inline(always)]
fn fused_fast(acc: u32, a: u32, b: u32, negate: bool, rm: Rmode) -> Option<FpResult> {
    if rm != Rmode::Nearest || !(is_normal(acc) & is_normal(a) & is_normal(b)) {
        return None;
    }
    let p = f64::from(f32::from_bits(a)) * f64::from(f32::from_bits(b));
    let p = if negate { -p } else { p };
    let s = f64::from(f32::from_bits(acc)) + p;
    if s == 0.0 {
        return Some(FpResult::ok(0));
    }
    // Bits 28:0 of an f64 are what a single drops; exactly 1 << 28 is a tie.
    if s.to_bits() & 0x1FFF_FFFF == 0x1000_0000 {
        return None;
    }
    let r = (s as f32).to_bits();
    fast_ok(r).then_some(FpResult::ok(r))
}

#[inline(never)]
fn fused_slow(acc: u32, a: u32, b: u32, negate: bool, rm: Rmode) -> FpResult {
    if negate {
        soft::fmsub(acc, a, b, rm)
    } else {
        soft::fmadd(acc, a, b, rm)
    }
}

pub use soft::{fabs, fix};

#[cfg(test)]
mod tests {
    use super::*;

    const N: Rmode = Rmode::Nearest;
    const T: Rmode = Rmode::Truncate;

    fn b(f: f32) -> u32 {
        f.to_bits()
    }

    #[test]
    fn simple_values() {
        assert_eq!(fadd(b(1.0), b(2.0), N).bits, b(3.0));
        assert_eq!(fsub(b(1.0), b(2.0), N).bits, b(-1.0));
        assert_eq!(fmul(b(1.5), b(-2.0), N).bits, b(-3.0));
        assert_eq!(fmadd(b(1.0), b(2.0), b(3.0), N).bits, b(7.0));
        assert_eq!(fmsub(b(1.0), b(2.0), b(3.0), N).bits, b(-5.0));
        assert_eq!(float(7, N).bits, b(7.0));
        assert_eq!(float((-7i32) as u32, N).bits, b(-7.0));
        assert_eq!(fix(b(-7.0), N).bits, (-7i32) as u32);
        assert_eq!(fabs(b(-7.0)).bits, b(7.0));
    }

    #[test]
    fn ties_and_truncation() {
        // 1 + 2^-24 is a tie between 1 and 1 + 2^-23: even is 1.
        let tiny = b(f32::from_bits(0x3380_0000)); // 2^-24
        assert_eq!(fadd(b(1.0), tiny, N).bits, b(1.0));
        // 1 + 3·2^-24 rounds up to 1 + 2^-22 in nearest, truncates to 1 + 2^-23.
        let three = 0x3440_0000; // 3 × 2^-24
        assert_eq!(fadd(b(1.0), three, N).bits, 0x3F80_0002);
        assert_eq!(fadd(b(1.0), three, T).bits, 0x3F80_0001);
        // Truncation of a negative result goes toward zero.
        assert_eq!(fadd(b(-1.0), three ^ SIGN, T).bits, 0xBF80_0001);
    }

    #[test]
    fn float_rounding() {
        // 2^24 + 1 is a tie: nearest-even gives 2^24; 2^24 + 3 rounds up.
        assert_eq!(float(0x0100_0001, N).bits, b(16_777_216.0));
        assert_eq!(float(0x0100_0003, N).bits, b(16_777_220.0));
        assert_eq!(float(0x0100_0003, T).bits, b(16_777_218.0));
        assert_eq!(float(0x8000_0000, N).bits, b(-2_147_483_648.0));
        assert_eq!(float(0x7FFF_FFFF, N).bits, b(2_147_483_648.0));
        assert_eq!(float(0x7FFF_FFFF, T).bits, 0x4EFF_FFFF);
    }
}
