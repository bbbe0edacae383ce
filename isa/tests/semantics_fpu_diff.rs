//! Seeded differential tests of the FPU arithmetic against independent
//! references, on random normal operands whose exact result is a normal
//! single. Both the public functions (`epsim_isa::fpu`, which take a host
//! fast path in round-to-nearest) and the all-integer reference
//! (`epsim_isa::fpu::soft`) are checked:
//! * round to nearest FADD/FSUB/FMUL/FLOAT = the host's `f32` operation, bit
//!   for bit; FIX = host `round_ties_even` then saturating conversion;
//! * truncate FMUL = the exact `f64` product truncated toward zero;
//!   truncate FADD/FSUB/FMADD/FMSUB and nearest FMADD/FMSUB = the exact
//!   result `s + e` (Knuth's TwoSum in `f64` around the exact `f64` product)
//!   rounded with an explicit midpoint/boundary correction; nearest
//!   FMADD is also checked against the host's `f32::mul_add`;
//! * on arbitrary bit patterns (NaN, ∞, denormals, edges), the public
//!   functions equal `soft` in both modes, flags included.

mod semantics_util;

use epsim_isa::fpu::{self, soft, FpResult, Rmode};
use semantics_util::Rng;

const SEED: u64 = 0xE51A_0001;
const CASES: usize = 300_000;

/// A random normal single with biased exponent in `lo..=hi`; the mantissa is
/// sometimes structured (runs of ones or zeros) to hit ties and carries.
fn normal(rng: &mut Rng, lo: u32, hi: u32) -> u32 {
    let sign = (rng.u32() & 1) << 31;
    let exp = rng.range(lo, hi);
    let mant = match rng.next() % 6 {
        0 => 0,
        1 => 0x7F_FFFF,
        2 => rng.u32() & 0x7F_FFFF & !((1 << rng.range(0, 22)) - 1), // low zeros
        3 => (rng.u32() | ((1 << rng.range(0, 22)) - 1)) & 0x7F_FFFF, // low ones
        _ => rng.u32() & 0x7F_FFFF,
    };
    sign | exp << 23 | mant
}

fn exp_of(x: u32) -> u32 {
    (x >> 23) & 0xFF
}

/// True when `bits` is a finite normal single strictly above the smallest
/// normal in magnitude (so the exact value it rounds is normal too).
fn safely_normal(bits: u32) -> bool {
    let e = exp_of(bits);
    e != 0 && e != 0xFF && bits & 0x7FFF_FFFF != 0x0080_0000
}

/// A pair of operands for an addition: exponents close (cancellation) or
/// far apart (alignment, sticky).
fn add_operands(rng: &mut Rng) -> (u32, u32) {
    let a = normal(rng, 1, 254);
    let ea = exp_of(a);
    let spread = [0u32, 1, 2, 24, 26, 60][(rng.next() % 6) as usize];
    let lo = ea.saturating_sub(spread).max(1);
    let hi = (ea + spread).min(254);
    let mut b = normal(rng, lo, hi);
    if rng.one_in(8) {
        // Near-total cancellation: b = -a plus a few ulps.
        b = (a ^ 0x8000_0000).wrapping_add(rng.range(0, 4));
        if !safely_normal(b) {
            b = normal(rng, lo, hi);
        }
    }
    (a, b)
}

/// A pair of factors whose product is (roughly) in the normal range.
fn mul_operands(rng: &mut Rng) -> (u32, u32) {
    let a = normal(rng, 1, 254);
    let ea = exp_of(a) as i32;
    // product biased exponent ≈ ea + eb - 127, keep it within 1..=254
    let lo = (128 - ea).max(1) as u32;
    let hi = (381 - ea).min(254) as u32;
    let b = normal(rng, lo.min(hi), hi);
    (a, b)
}

/// f64 → single truncated toward zero, for values in the normal range.
fn trunc_to_f32(x: f64) -> Option<u32> {
    let bits = x.to_bits();
    let sign = ((bits >> 63) as u32) << 31;
    let e = ((bits >> 52) & 0x7FF) as i32 - 1023 + 127;
    if !(1..=254).contains(&e) {
        return None;
    }
    let mant = ((bits >> 29) & 0x7F_FFFF) as u32;
    Some(sign | (e as u32) << 23 | mant)
}

/// Knuth's TwoSum: `s = fl(a + b)` and the exact error, `a + b = s + e`.
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// Rounds the exact value `s + e` (with `|e| <= ulp64(s)/2`) to a single.
/// `None` when the result is not safely normal.
fn round_sum(s: f64, e: f64, mode: Rmode) -> Option<u32> {
    if s == 0.0 {
        assert_eq!(e, 0.0);
        return Some(0); // exact cancellation: +0
    }
    let t = trunc_to_f32(s)?; // |t| <= |s|, toward zero
    let low = s.to_bits() & ((1 << 29) - 1); // bits of s below single precision
    let up = |x: u32| x + 1; // next magnitude (same sign)
    let toward_zero_of_exact = e != 0.0 && (e < 0.0) != (s < 0.0);
    let r = match mode {
        Rmode::Truncate => {
            if low == 0 && toward_zero_of_exact {
                t - 1 // s is a single, the exact value is just below it in magnitude
            } else {
                t
            }
        }
        Rmode::Nearest => {
            let half = 1u64 << 28;
            if low < half {
                t
            } else if low > half {
                up(t)
            } else if e == 0.0 {
                if t & 1 == 0 {
                    t
                } else {
                    up(t)
                } // true tie: to even
            } else if toward_zero_of_exact {
                t
            } else {
                up(t)
            }
        }
    };
    safely_normal(r).then_some(r)
}

#[test]
fn nearest_add_sub_mul_match_host_f32() {
    let mut rng = Rng(SEED);
    let mut checked = [0usize; 3];
    for _ in 0..CASES {
        let (a, b) = add_operands(&mut rng);
        let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
        let sum = (fa + fb).to_bits();
        if safely_normal(sum) || sum == 0 {
            for got in [
                fpu::fadd(a, b, Rmode::Nearest),
                soft::fadd(a, b, Rmode::Nearest),
            ] {
                assert_eq!(got.bits, sum, "FADD {a:#010x} {b:#010x}");
                assert_eq!(got.exc, 0);
            }
            checked[0] += 1;
        }
        let diff = (fa - fb).to_bits();
        if safely_normal(diff) || diff == 0 {
            for got in [
                fpu::fsub(a, b, Rmode::Nearest),
                soft::fsub(a, b, Rmode::Nearest),
            ] {
                assert_eq!(got.bits, diff, "FSUB {a:#010x} {b:#010x}");
                assert_eq!(got.exc, 0);
            }
            checked[1] += 1;
        }
        let (a, b) = mul_operands(&mut rng);
        let prod = (f32::from_bits(a) * f32::from_bits(b)).to_bits();
        if safely_normal(prod) {
            for got in [
                fpu::fmul(a, b, Rmode::Nearest),
                soft::fmul(a, b, Rmode::Nearest),
            ] {
                assert_eq!(got.bits, prod, "FMUL {a:#010x} {b:#010x}");
                assert_eq!(got.exc, 0);
            }
            checked[2] += 1;
        }
    }
    assert!(
        checked.iter().all(|&n| n > CASES / 2),
        "too few cases checked: {checked:?}"
    );
}

#[test]
fn truncate_mul_is_exact_product_truncated() {
    let mut rng = Rng(SEED ^ 1);
    let mut checked = 0;
    for _ in 0..CASES {
        let (a, b) = mul_operands(&mut rng);
        let exact = f64::from(f32::from_bits(a)) * f64::from(f32::from_bits(b)); // 48 bits: exact
        let Some(want) = trunc_to_f32(exact).filter(|&w| safely_normal(w)) else {
            continue;
        };
        let got = fpu::fmul(a, b, Rmode::Truncate);
        assert_eq!(got.bits, want, "FMUL.T {a:#010x} {b:#010x}");
        checked += 1;
    }
    assert!(checked > CASES / 2, "{checked}");
}

#[test]
fn add_sub_both_modes_match_two_sum_reference() {
    let mut rng = Rng(SEED ^ 2);
    let mut checked = 0;
    for _ in 0..CASES {
        let (a, b) = add_operands(&mut rng);
        let (fa, fb) = (f64::from(f32::from_bits(a)), f64::from(f32::from_bits(b)));
        for mode in [Rmode::Nearest, Rmode::Truncate] {
            let (s, e) = two_sum(fa, fb);
            if let Some(want) = round_sum(s, e, mode) {
                assert_eq!(
                    fpu::fadd(a, b, mode).bits,
                    want,
                    "FADD {mode:?} {a:#010x} {b:#010x}"
                );
                assert_eq!(
                    soft::fadd(a, b, mode).bits,
                    want,
                    "soft FADD {mode:?} {a:#010x} {b:#010x}"
                );
                checked += 1;
            }
            let (s, e) = two_sum(fa, -fb);
            if let Some(want) = round_sum(s, e, mode) {
                assert_eq!(
                    fpu::fsub(a, b, mode).bits,
                    want,
                    "FSUB {mode:?} {a:#010x} {b:#010x}"
                );
                assert_eq!(
                    soft::fsub(a, b, mode).bits,
                    want,
                    "soft FSUB {mode:?} {a:#010x} {b:#010x}"
                );
            }
        }
    }
    assert!(checked > CASES, "{checked}");
}

#[test]
fn fused_multiply_add_is_rounded_once() {
    let mut rng = Rng(SEED ^ 3);
    let mut checked = 0;
    let mut differs_from_unfused = 0;
    for i in 0..CASES {
        let (b, c) = mul_operands(&mut rng);
        let p = f64::from(f32::from_bits(b)) * f64::from(f32::from_bits(c)); // exact
                                                                             // Accumulator near the product (cancellation) or anywhere.
        let acc = if i % 2 == 0 {
            let near = f32::from_bits(trunc_to_f32(p).unwrap_or(0x3F80_0000));
            let mut x = near.to_bits() ^ if i % 4 == 0 { 0x8000_0000 } else { 0 };
            x = x.wrapping_add(rng.range(0, 3)).wrapping_sub(1);
            if safely_normal(x) {
                x
            } else {
                normal(&mut rng, 1, 254)
            }
        } else {
            let ep = trunc_to_f32(p).map_or(127, exp_of);
            normal(&mut rng, ep.saturating_sub(30).max(1), (ep + 30).min(254))
        };
        let fa = f64::from(f32::from_bits(acc));
        for mode in [Rmode::Nearest, Rmode::Truncate] {
            let (s, e) = two_sum(fa, p);
            if let Some(want) = round_sum(s, e, mode) {
                let got = fpu::fmadd(acc, b, c, mode);
                assert_eq!(
                    got.bits, want,
                    "FMADD {mode:?} acc={acc:#010x} {b:#010x} {c:#010x}"
                );
                assert_eq!(got.exc, 0);
                if mode == Rmode::Nearest {
                    let host = f32::from_bits(b).mul_add(f32::from_bits(c), f32::from_bits(acc));
                    assert_eq!(got.bits, host.to_bits(), "FMADD vs host fma");
                    let unfused = f32::from_bits(acc) + f32::from_bits(b) * f32::from_bits(c);
                    if unfused.to_bits() != got.bits {
                        differs_from_unfused += 1;
                    }
                }
                checked += 1;
            }
            let (s, e) = two_sum(fa, -p);
            if let Some(want) = round_sum(s, e, mode) {
                let got = fpu::fmsub(acc, b, c, mode);
                assert_eq!(
                    got.bits, want,
                    "FMSUB {mode:?} acc={acc:#010x} {b:#010x} {c:#010x}"
                );
            }
        }
    }
    assert!(checked > CASES / 2, "{checked}");
    assert!(
        differs_from_unfused > 100,
        "the test must exercise fusion: {differs_from_unfused}"
    );
}

#[test]
fn float_and_fix_match_host_conversions() {
    let mut rng = Rng(SEED ^ 4);
    for i in 0..CASES {
        let x = match i % 4 {
            0 => rng.u32(),
            1 => rng.u32() >> rng.range(0, 31),
            2 => (rng.u32() >> rng.range(0, 31)).wrapping_neg(),
            _ => [
                0,
                1,
                0x7FFF_FFFF,
                0x8000_0000,
                0xFFFF_FFFF,
                0x0100_0001,
                0x7FFF_FFC0,
            ][(i / 4) % 7],
        };
        let n = soft::float(x, Rmode::Nearest);
        assert_eq!(n.bits, (x as i32 as f32).to_bits(), "FLOAT {x:#x}");
        assert_eq!(n.exc, 0);
        assert_eq!(fpu::float(x, Rmode::Nearest), n);
        let t = fpu::float(x, Rmode::Truncate);
        let want_t = if x == 0 {
            0
        } else {
            trunc_to_f32(f64::from(x as i32)).unwrap_or(0)
        };
        assert_eq!(t.bits, want_t, "FLOAT.T {x:#x}");
    }
    for i in 0..CASES {
        let bits = if i % 3 == 0 {
            normal(&mut rng, 100, 160) // around the integer range and beyond
        } else {
            normal(&mut rng, 120, 159) | (rng.u32() & 0x8000_0000)
        };
        let v = f32::from_bits(bits);
        let wn = v.round_ties_even() as i32 as u32; // saturating
        let wt = v as i32 as u32;
        let in_range = (-2_147_483_648.0..2_147_483_648.0).contains(&v.round_ties_even());
        let gn = fpu::fix(bits, Rmode::Nearest);
        assert_eq!(gn.bits, wn, "FIX {bits:#010x} ({v})");
        assert_eq!(gn.exc == 0, in_range, "FIX overflow flag {bits:#010x}");
        let gt = fpu::fix(bits, Rmode::Truncate);
        assert_eq!(gt.bits, wt, "FIX.T {bits:#010x} ({v})");
    }
}

#[test]
fn reference_rounding_self_check() {
    // The TwoSum reference agrees with the host on plain additions.
    let mut rng = Rng(SEED ^ 5);
    for _ in 0..50_000 {
        let (a, b) = add_operands(&mut rng);
        let (s, e) = two_sum(f64::from(f32::from_bits(a)), f64::from(f32::from_bits(b)));
        let host = (f32::from_bits(a) + f32::from_bits(b)).to_bits();
        if let Some(r) = round_sum(s, e, Rmode::Nearest) {
            assert_eq!(r, host, "{a:#010x} + {b:#010x}");
        }
    }
}

/// Any 32-bit pattern: every class, with the edges over-represented.
fn any_bits(rng: &mut Rng) -> u32 {
    const EDGES: [u32; 16] = [
        0x0000_0000,
        0x8000_0000,
        0x0000_0001,
        0x807F_FFFF,
        0x0080_0000,
        0x8080_0001,
        0x7F7F_FFFF,
        0xFF7F_FFFE,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0xFF80_0001,
        0x3F80_0000,
        0xBF80_0001,
        0x0100_0000,
        0x7F00_0000,
    ];
    match rng.next() % 4 {
        0 => EDGES[(rng.next() % 16) as usize],
        1 => EDGES[(rng.next() % 16) as usize] ^ (rng.u32() & 0xFF),
        _ => rng.u32(),
    }
}

type BinOp = fn(u32, u32, Rmode) -> FpResult;

#[test]
fn fast_paths_agree_with_soft_on_any_bit_pattern() {
    let mut rng = Rng(SEED ^ 6);
    let pairs: [(BinOp, BinOp, &str); 3] = [
        (fpu::fadd, soft::fadd, "FADD"),
        (fpu::fsub, soft::fsub, "FSUB"),
        (fpu::fmul, soft::fmul, "FMUL"),
    ];
    for _ in 0..CASES {
        let (a, b) = (any_bits(&mut rng), any_bits(&mut rng));
        for mode in [Rmode::Nearest, Rmode::Truncate] {
            for (fast, reference, name) in pairs {
                assert_eq!(
                    fast(a, b, mode),
                    reference(a, b, mode),
                    "{name} {mode:?} {a:#010x} {b:#010x}"
                );
            }
            assert_eq!(
                fpu::float(a, mode),
                soft::float(a, mode),
                "FLOAT {mode:?} {a:#x}"
            );
        }
    }
    // Normal operands near the edges of the normal range, where the fast
    // path must hand over to the integer path (overflow, underflow, denormal
    // results on the host).
    for _ in 0..CASES {
        let a = normal(&mut rng, 1, 254);
        let b = match rng.next() % 3 {
            0 => normal(&mut rng, 1, 3),
            1 => normal(&mut rng, 252, 254),
            _ => (a ^ 0x8000_0000).wrapping_add(rng.range(0, 2)),
        };
        for (fast, reference, name) in pairs {
            let m = Rmode::Nearest;
            assert_eq!(
                fast(a, b, m),
                reference(a, b, m),
                "{name} {a:#010x} {b:#010x}"
            );
        }
    }
}

type TernOp = fn(u32, u32, u32, Rmode) -> FpResult;

#[test]
fn fused_fast_path_agrees_with_soft() {
    let mut rng = Rng(SEED ^ 7);
    let pairs: [(TernOp, TernOp, &str); 2] = [
        (fpu::fmadd, soft::fmadd, "FMADD"),
        (fpu::fmsub, soft::fmsub, "FMSUB"),
    ];
    let check = |acc: u32, a: u32, b: u32| {
        for mode in [Rmode::Nearest, Rmode::Truncate] {
            for (fast, reference, name) in pairs {
                assert_eq!(
                    fast(acc, a, b, mode),
                    reference(acc, a, b, mode),
                    "{name} {mode:?} acc={acc:#010x} {a:#010x} {b:#010x}"
                );
            }
        }
    };
    for _ in 0..CASES {
        check(any_bits(&mut rng), any_bits(&mut rng), any_bits(&mut rng));
    }
    // Products about half an ulp of the accumulator with low bits far below
    // it: the f64 sum often lands exactly on a single-precision tie.
    let mut ties = 0;
    for i in 0..CASES {
        let acc = normal(&mut rng, 30, 220);
        let e = exp_of(acc);
        let a = (rng.u32() & 0x8000_0000) | (e - 24 - (i as u32 & 1)) << 23 | (rng.u32() & 0xF);
        let b = match i % 3 {
            0 => 0x3F80_0000 | (rng.u32() & 0x7),
            1 => 0x3F7F_FFFF - (rng.u32() & 0x7),
            _ => 0x3FFF_FFFF - (rng.u32() & 0x7),
        };
        let p = f64::from(f32::from_bits(a)) * f64::from(f32::from_bits(b));
        let s = f64::from(f32::from_bits(acc)) + p;
        if s.to_bits() & 0x1FFF_FFFF == 0x1000_0000 {
            ties += 1;
        }
        check(acc, a, b);
        check(acc ^ 0x8000_0000, a, b);
    }
    assert!(ties > 1000, "the tie guard must be exercised: {ties}");
    // Cancellations, and results near the bottom and top of the range.
    for _ in 0..CASES {
        let a = normal(&mut rng, 1, 254);
        let b = normal(&mut rng, 1, 254);
        let p = f64::from(f32::from_bits(a)) * f64::from(f32::from_bits(b));
        let near = trunc_to_f32(-p).unwrap_or_else(|| any_bits(&mut rng));
        let acc = near.wrapping_add(rng.range(0, 2)).wrapping_sub(1);
        check(acc, a, b);
    }
}
