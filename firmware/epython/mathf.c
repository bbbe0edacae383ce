/* mathf.c -- single-precision maths for the math builtins, float only (no
 * libm, no double): argument reduction to a small interval, then a
 * polynomial; README.md gives the accuracy measured against CPython. */
#include "epy.h"

#define NANF u2f(0x7fc00000u)
#define INFF u2f(0x7f800000u)

/* c[0] + z * (c[1] + z * (... c[n-1])) */
static float poly(const float *c, u32 n, float z)
{
    float p = c[--n];
    while (n--)
        p = c[n] + z * p;
    return p;
}

static const float exp_c[] = {1.0f, 1.0f, 0.5f, 1.66666667e-1f, 4.16666667e-2f, 8.33333333e-3f, 1.38888889e-3f, 1.98412698e-4f};
static const float log_c[] = {6.66666667e-1f, 4.0e-1f, 2.85714286e-1f, 2.22222222e-1f, 1.81818182e-1f};
static const float sin_c[] = {-1.66666667e-1f, 8.33333333e-3f, -1.98412698e-4f, 2.75573192e-6f};
static const float cos_c[] = {0.5f, -4.16666667e-2f, 1.38888889e-3f, -2.48015873e-5f, 2.75573192e-7f};
static const float atan_c[] = {3.33333333e-1f, -2.0e-1f, 1.42857143e-1f, -1.11111111e-1f, 9.09090909e-2f};

/* Float division, correctly rounded (round to nearest even), denormals
 * flushed as the FPU does; replaces libgcc's soft-float __divsf3. */
float __divsf3(float a, float b)
{
    u32 ua = f2u(a), ub = f2u(b), s = (ua ^ ub) & 0x80000000u;
    i32 ea = (i32)((ua >> 23) & 0xff), eb = (i32)((ub >> 23) & 0xff);
    if (ea == 255) {
        if ((ua << 9) || eb == 255)
            return (ua << 9) ? a : NANF;
        return u2f(s | 0x7f800000u);
    }
    if (eb == 255)
        return (ub << 9) ? b : u2f(s);
    if (eb == 0)
        return ea == 0 ? NANF : u2f(s | 0x7f800000u);
    if (ea == 0)
        return u2f(s);
    u32 ma = (ua & 0x7fffffu) | 0x800000u, mb = (ub & 0x7fffffu) | 0x800000u;
    i32 e = ea - eb + 127;
    if (ma < mb) {
        ma <<= 1;
        e--;
    }
    u32 q = 0;
    for (u32 i = 0; i < 24; i++) {
        q <<= 1;
        if (ma >= mb) {
            ma -= mb;
            q |= 1;
        }
        ma <<= 1;
    }
    q += ma > mb || (ma == mb && (q & 1));
    if (q == 0x1000000u) {
        q >>= 1;
        e++;
    }
    if (e >= 255)
        return u2f(s | 0x7f800000u);
    if (e <= 0)
        return u2f(s);
    return u2f(s | ((u32)e << 23) | (q & 0x7fffffu));
}

/* round-to-nearest integer part of x (|x| < 2^22), as float and int:
 * adding 1.5 * 2^23 leaves the rounded value in the low mantissa bits. */
static float round_k(float x, i32 *k)
{
    volatile float t = x + 12582912.0f;
    *k = (i32)(f2u(t) - 0x4b400000u);
    return t - 12582912.0f;
}

static float scale2(float x, i32 k)
{
    while (k > 127) {
        x *= u2f(0x7f000000u); /* 2^127 */
        k -= 127;
    }
    while (k < -126) {
        x *= u2f(0x00800000u); /* 2^-126 */
        k += 126;
    }
    return x * u2f((u32)(k + 127) << 23);
}

float epy_floorf(float x)
{
    u32 u = f2u(x);
    i32 e = (i32)((u >> 23) & 0xff) - 127;
    if (e >= 23)
        return x;
    if (e < 0) {
        if ((u << 1) == 0)
            return x;
        return (u >> 31) ? -1.0f : 0.0f;
    }
    u32 m = 0x007fffffu >> e;
    if ((u & m) == 0)
        return x;
    if (u >> 31)
        u += m;
    return u2f(u & ~m);
}

/* Exact remainder with the sign of x (C fmodf), by shift and subtract. */
float epy_fmodf(float x, float y)
{
    u32 ux = f2u(x), uy = f2u(y) & 0x7fffffffu, sx = ux & 0x80000000u;
    ux &= 0x7fffffffu;
    if (uy == 0 || ux >= 0x7f800000u || uy > 0x7f800000u)
        return NANF;
    if (ux < uy)
        return x;
    i32 ex = (i32)(ux >> 23), ey = (i32)(uy >> 23);
    u32 mx = (ux & 0x7fffffu) | (ex ? 0x800000u : 0), my = (uy & 0x7fffffu) | (ey ? 0x800000u : 0);
    if (!ex)
        ex = 1;
    if (!ey)
        ey = 1;
    for (; ex > ey; ex--) {
        if (mx >= my)
            mx -= my;
        mx <<= 1;
    }
    if (mx >= my)
        mx -= my;
    if (mx == 0)
        return u2f(sx);
    while (mx < 0x800000u) {
        mx <<= 1;
        ey--;
    }
    if (ey <= 0)
        return u2f(sx); /* the FPU flushes denormals */
    return u2f(sx | ((u32)ey << 23) | (mx & 0x7fffffu));
}

/* Correctly rounded square root, digit by digit on the significand. */
float epy_sqrtf(float x)
{
    u32 ix = f2u(x);
    if ((ix & 0x7fffffffu) == 0)
        return x;
    if (ix >> 31)
        return NANF;
    if (ix >= 0x7f800000u)
        return x;
    i32 e = (i32)(ix >> 23);
    if (e == 0)
        return 0.0f;
    e -= 127;
    u32 m = (ix & 0x7fffffu) | 0x800000u;
    if (e & 1)
        m <<= 1;
    e >>= 1;
    m <<= 1;
    u32 q = 0, s = 0;
    for (u32 r = 0x01000000u; r; r >>= 1) {
        u32 t = s + r;
        if (t <= m) {
            s = t + r;
            m -= t;
            q += r;
        }
        m <<= 1;
    }
    if (m)
        q += q & 1;
    return u2f((q >> 1) + 0x3f000000u + ((u32)e << 23));
}

float epy_expf(float x)
{
    if (x != x)
        return x;
    if (x > 88.7228394f)
        return INFF;
    if (x < -103.972084f)
        return 0.0f;
    i32 k;
    float kf = round_k(x * 1.44269502f, &k);
    float r = (x - kf * 0.693115234375f) - kf * 3.19461833e-05f;
    float p = poly(exp_c, 8, r);
    return scale2(p, k);
}

float epy_logf(float x)
{
    u32 u = f2u(x);
    if (x != x || (u >> 31 && (u << 1)))
        return NANF;
    if ((u << 1) == 0)
        return -INFF;
    if (u >= 0x7f800000u)
        return x;
    i32 e = (i32)(u >> 23) - 127;
    if (e == -127)
        return -INFF; /* denormal: flushed */
    u32 mb = (u & 0x7fffffu) | 0x3f800000u; /* m in [1, 2) */
    if (mb > 0x3fb504f3u) {                 /* m > sqrt(2): use m / 2 */
        mb -= 0x00800000u;
        e++;
    }
    float f = u2f(mb) - 1.0f;
    float s = f / (2.0f + f), z = s * s;
    float hf = 0.5f * f * f;
    /* log(1+f) = f - hf + s * (hf + R(z)), R = 2z/3 + 2z^2/5 + ... */
    float R = z * poly(log_c, 5, z);
    float ef = (float)e;
    return ef * 0.693115234375f + ((f - hf + s * (hf + R)) + ef * 3.19461833e-05f);
}

/* sin and cos of r in [-pi/4, pi/4] */
static float k_sin(float r)
{
    float z = r * r;
    return r + r * z * poly(sin_c, 4, z);
}

static float k_cos(float r)
{
    float z = r * r;
    return 1.0f - z * poly(cos_c, 5, z);
}

/* x - k pi/2 (pi/2 in three parts of 12 bits), k mod 4 in *q */
static float reduce(float x, u32 *q)
{
    i32 k;
    float kf = round_k(x * 0.636619747f, &k);
    *q = (u32)k & 3;
    return ((x - kf * 1.5703125f) - kf * 4.83751297e-4f) - kf * 7.54978995e-8f;
}

float epy_sinf(float x)
{
    if (x != x || (f2u(x) & 0x7fffffffu) >= 0x7f800000u)
        return NANF;
    if ((f2u(x) & 0x7fffffffu) < 0x39800000u) /* |x| < 2^-12 */
        return x;
    u32 q;
    float r = reduce(x, &q);
    switch (q) {
    case 0:
        return k_sin(r);
    case 1:
        return k_cos(r);
    case 2:
        return -k_sin(r);
    default:
        return -k_cos(r);
    }
}

float epy_cosf(float x)
{
    if (x != x || (f2u(x) & 0x7fffffffu) >= 0x7f800000u)
        return NANF;
    u32 q;
    float r = reduce(x, &q);
    switch (q) {
    case 0:
        return k_cos(r);
    case 1:
        return -k_sin(r);
    case 2:
        return -k_cos(r);
    default:
        return k_sin(r);
    }
}

float epy_tanf(float x)
{
    return epy_sinf(x) / epy_cosf(x);
}

/* atan of t >= 0 */
static float k_atan(float t)
{
    float add = 0.0f;
    int inv = t > 1.0f;
    if (inv)
        t = 1.0f / t;
    if (t > 0.267949194f) { /* tan(pi/12) */
        t = (t * 1.73205081f - 1.0f) / (1.73205081f + t);
        add = 0.523598776f; /* pi/6 */
    }
    float z = t * t;
    float p = t - t * z * poly(atan_c, 5, z);
    p += add;
    if (inv)
        p = (1.57079633f - p);
    return p;
}

float epy_atan2f(float y, float x)
{
    if (x != x || y != y)
        return NANF;
    u32 sy = f2u(y) >> 31, sx = f2u(x) >> 31;
    float ay = u2f(f2u(y) & 0x7fffffffu), ax = u2f(f2u(x) & 0x7fffffffu);
    float r;
    if (ay == 0.0f) {
        r = sx ? 3.14159265f : 0.0f;
    } else if (ax == 0.0f) {
        r = 1.57079633f;
    } else if (f2u(ax) == 0x7f800000u && f2u(ay) == 0x7f800000u) {
        r = sx ? 2.35619449f : 0.785398163f;
    } else { /* y/x may be 0 or inf: k_atan handles both */
        r = k_atan(ay / ax);
        if (sx)
            r = 3.14159265f - r;
    }
    return sy ? -r : r;
}

float epy_powf(float x, float y)
{
    if (y == 0.0f || x == 1.0f)
        return 1.0f;
    if (x != x || y != y)
        return NANF;
    float ay = u2f(f2u(y) & 0x7fffffffu);
    int yint = epy_floorf(y) == y;
    int odd = 0;
    if (yint && ay < 16777216.0f) {
        float h = y * 0.5f;
        odd = epy_floorf(h) != h;
    }
    if (x == 0.0f) /* y < 0 is the caller's error */
        return odd ? x : 0.0f;
    float ax = u2f(f2u(x) & 0x7fffffffu);
    if (x < 0.0f && !yint)
        return NANF;
    float r;
    if (yint && ay <= 64.0f) {
        /* exact-ish: binary powering */
        u32 n = (u32)epy_ftoi(ay);
        float b = ax, p = 1.0f;
        while (n) {
            if (n & 1)
                p *= b;
            b *= b;
            n >>= 1;
        }
        r = y < 0.0f ? 1.0f / p : p;
    } else {
        r = epy_expf(y * epy_logf(ax));
    }
    return (x < 0.0f && odd) ? -r : r;
}
