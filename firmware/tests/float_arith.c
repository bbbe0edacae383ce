/* float_arith: single precision.  On the Epiphany, add/sub/mul are FPU
 * instructions (fadd/fsub/fmul, round-to-nearest-even), division and the
 * comparisons go through libgcc (__divsf3, __eqsf2/__ltsf2/...: this GCC
 * defaults to -msoft-cmpsf).  Values stay normal (the FPU flushes denormals)
 * and no NaN or overflow comes out of an FPU instruction, so the host and the
 * Epiphany agree bit for bit. */
#define CHECK_USE_STDIO
#include <math.h>
#include "check.h"

static volatile float va = 1.5f, vb = -2.25f, vc = 3.0f, vd = 0.1f, ve = 1e10f, vz = 0.0f;

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

int main(void)
{
    float a = va, b = vb, c = vc, d = vd, e = ve;
    float s, p, q;
    int i;

    /* exact results */
    CHECK(a + b == -0.75f);
    CHECK(a - b == 3.75f);
    CHECK(a * b == -3.375f);
    CHECK(b / a == -1.5f);
    CHECK(c * c * c == 27.0f);
    printf("%.9g %.9g %.9g %.9g\n", a + b, a - b, a * b, b / a);

    /* rounded results (round to nearest even) */
    CHECK_EQ_U32(bits(d + d + d), 0x3e99999au);
    CHECK_EQ_U32(bits(1.0f / c), 0x3eaaaaabu);
    CHECK_EQ_U32(bits(2.0f / c), 0x3f2aaaabu);
    CHECK_EQ_U32(bits(d * c), 0x3e99999au);
    CHECK_EQ_U32(bits(e + 1.0f), bits(1e10f));
    printf("0.1f+0.1f+0.1f = %.9g (0x%08x)\n", d + d + d, (unsigned)bits(d + d + d));
    printf("1/3f = %.9g, 2/3f = %.9g\n", 1.0f / c, 2.0f / c);
    printf("1e10f + 1 = %.9g\n", e + 1.0f);

    /* accumulation */
    s = 0.0f;
    for (i = 1; i <= 1000; i++)
        s += 1.0f / (float)i;
    printf("harmonic(1000) = %.9g (0x%08x)\n", s, (unsigned)bits(s));
    p = 1.0f;
    for (i = 0; i < 20; i++)
        p = p * 1.25f - 0.125f;
    printf("iterated affine = %.9g (0x%08x)\n", p, (unsigned)bits(p));
    q = 2.0f;
    for (i = 0; i < 6; i++)
        q = 0.5f * (q + 2.0f / q); /* Newton for sqrt(2) */
    CHECK_EQ_U32(bits(q), 0x3fb504f3u);
    printf("sqrt(2) by Newton = %.9g\n", q);

    /* comparisons, including NaN and signed zero (libgcc compares) */
    {
        float nan = from_bits(0x7fc00000u);
        float nz = from_bits(0x80000000u);
        volatile float one = 1.0f;
        CHECK(!(nan == nan));
        CHECK(nan != nan);
        CHECK(!(nan < one) && !(nan > one) && !(nan <= one) && !(nan >= one));
        CHECK(nz == vz);
        CHECK(!(nz < vz));
        CHECK(one > vz && vz < one && one >= one && one <= one);
        CHECK(b < a && a > b && b != a);
        printf("nan==nan %d, nan!=nan %d, -0==0 %d, isnan %d, signbit(-0) %d\n", nan == nan,
               nan != nan, nz == vz, isnan(nan) != 0, signbit(nz) != 0);
    }

    /* infinity from division (through __divsf3, not the FPU) */
    {
        float inf = 1.0f / vz;
        CHECK(isinf(inf) && inf > 0);
        printf("1/0f = %f, -1/0f = %f\n", inf, -1.0f / vz);
        CHECK(isnan(vz / vz));
        printf("isnan(0/0f) = %d\n", isnan(vz / vz) != 0);
    }

    /* a small dot product and a 3x3 determinant */
    {
        static const float x[8] = {1.5f, -2.0f, 0.25f, 8.0f, -0.5f, 3.0f, 7.25f, -1.0f};
        static const float y[8] = {2.0f, 0.5f, -4.0f, 0.125f, 6.0f, -1.5f, 0.75f, 9.0f};
        float dot = 0.0f;
        for (i = 0; i < 8; i++)
            dot += x[i] * y[i];
        CHECK(dot == -9.0625f);
        printf("dot = %.9g\n", dot);
        float m[3][3] = {{2.0f, -1.0f, 0.5f}, {1.0f, 3.0f, -2.0f}, {0.25f, 4.0f, 1.0f}};
        float det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                    m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                    m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
        printf("det = %.9g\n", det);
    }
    return check_done("float_arith");
}
