//! Epiphany single-precision arithmetic as pure functions on bit patterns.
//!
//! Model decisions owned here (reasons in `isa/SEMANTICS.md` §FPU):
//! * rounding is exact, done with integer arithmetic: operands are unpacked
//!   to `significand × 2^exponent`, the exact result (or, when the smaller
//!   addend is far below the rounding point, the exact result with a sticky
//!   bit jammed far below it) is formed in a `u128`, and rounded once, to
//!   nearest-even or toward zero ([`Rmode`]);
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
    Fin { sign: bool, exp: i32, sig: u64 },
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
fn round_pack(sign: bool, exp: i32, mag: u128, rm: Rmode) -> FpResult {
    debug_assert!(mag != 0);
    let top = 127 - mag.leading_zeros() as i32;
    let mut shift = top - 23;
    let mut kept: u32;
    if shift > 0 {
        kept = (mag >> shift) as u32;
        if rm == Rmode::Nearest {
            let rem = mag & ((1u128 << shift) - 1);
            let half = 1u128 << (shift - 1);
            if rem > half || (rem == half && kept & 1 != 0) {
                kept += 1;
                if kept == 1 << 24 {
                    kept >>= 1;
                    shift += 1;
                }
            }
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

/// Bit position of the top bit a significand is aligned to in [`add_exact`]:
/// two bits of headroom for the carry of an addition.
const ALIGN_TOP: i32 = 125;

/// Correctly rounded `x + y` for two non-zero exact values
/// `(-1)^s × sig × 2^exp` with significands of at most 48 bits.
///
/// Both are aligned in a `u128` with the larger one's top bit at bit 125.
/// The smaller one keeps every bit unless its top lies more than 77 bits
/// lower; then its lost bits are jammed into bit 0. In that case the sum's
/// top bit is at bit 124 or above, its rounding position at bit 101 or
/// above, so the jammed value rounds exactly like the true one.
#[inline]
fn add_exact(xs: bool, xe: i32, xsig: u64, ys: bool, ye: i32, ysig: u64, rm: Rmode) -> FpResult {
    let xlen = 64 - xsig.leading_zeros() as i32;
    let ylen = 64 - ysig.leading_zeros() as i32;
    // Order by the position of the top bit.
    let (bs, be, bsig, blen, ss, se, ssig) = if xe + xlen >= ye + ylen {
        (xs, xe, xsig, xlen, ys, ye, ysig)
    } else {
        (ys, ye, ysig, ylen, xs, xe, xsig)
    };
    let bshift = ALIGN_TOP - (blen - 1);
    let e = be - bshift;
    let bmag = u128::from(bsig) << bshift;
    let sh = se - e;
    let smag = if sh >= 0 {
        u128::from(ssig) << sh
    } else if -sh >= 64 {
        1
    } else {
        let n = -sh;
        let lost = ssig & ((1u64 << n) - 1);
        u128::from(ssig >> n) | u128::from(lost != 0)
    };
    let (sign, mag) = if bs == ss {
        (bs, bmag + smag)
    } else if bmag >= smag {
        (bs, bmag - smag)
    } else {
        (ss, smag - bmag)
    };
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
        (Val::Fin { exp: ea, sig: ma, .. }, Val::Fin { exp: eb, sig: mb, .. }) => {
            round_pack(sign, ea + eb, u128::from(ma * mb), rm)
        }
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
        (Val::Fin { exp: ea, sig: ma, .. }, Val::Fin { exp: eb, sig: mb, .. }) => {
            let (pe, pm) = (ea + eb, ma * mb);
            match vc {
                Val::Inf(sc) => FpResult::ok(signed(sc, INF)),
                Val::Zero(_) => round_pack(psign, pe, u128::from(pm), rm),
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
    round_pack(sign, 0, u128::from((i as i32).unsigned_abs()), rm)
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
