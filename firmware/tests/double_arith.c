/* double_arith: IEEE double through libgcc soft-float (fp-bit: __adddf3,
 * __subdf3, __muldf3, __divdf3, __eqdf2, __ltdf2, ...). */
#define CHECK_USE_STDIO
#include <math.h>
#include "check.h"

static volatile double va = 1.5, vb = -2.25, vc = 3.0, vd = 0.1, vz = 0.0, vbig = 1e300, vtiny = 1e-300;

static uint64_t bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

static double from_bits(uint64_t u)
{
    double d;
    memcpy(&d, &u, 8);
    return d;
}

int main(void)
{
    double a = va, b = vb, c = vc, d = vd;
    double s;
    int i;

    CHECK(a + b == -0.75);
    CHECK(a - b == 3.75);
    CHECK(a * b == -3.375);
    CHECK(b / a == -1.5);
    printf("%.17g %.17g %.17g %.17g\n", a + b, a - b, a * b, b / a);

    CHECK_EQ_U64(bits(d + d + d), 0x3fd3333333333334ULL);
    CHECK_EQ_U64(bits(1.0 / c), 0x3fd5555555555555ULL);
    CHECK(d + d + d != 0.3);
    printf("0.1+0.1+0.1 = %.17g\n", d + d + d);
    printf("1/3 = %.17g\n", 1.0 / c);
    printf("2/3 = %.17g\n", 2.0 / c);

    s = 0.0;
    for (i = 1; i <= 1000; i++)
        s += 1.0 / i;
    printf("harmonic(1000) = %.17g\n", s);

    /* Leibniz series for pi/4, 2000 terms */
    s = 0.0;
    for (i = 0; i < 2000; i++)
        s += (i & 1 ? -1.0 : 1.0) / (2 * i + 1);
    printf("leibniz(2000)*4 = %.15f\n", 4.0 * s);

    /* Newton iteration for sqrt(2) */
    {
        double q = 1.0;
        for (i = 0; i < 8; i++)
            q = 0.5 * (q + 2.0 / q);
        CHECK_EQ_U64(bits(q), 0x3ff6a09e667f3bccULL);
        printf("sqrt(2) = %.17g\n", q);
    }

    /* large and small magnitudes, overflow to inf, underflow, denormals */
    {
        double big = vbig * 1e10;
        double inf = vbig * vbig;
        double tiny = vtiny * 1e-10;
        double den = vtiny * 1e-20;
        double under = vtiny * vtiny;
        printf("1e300*1e10 = %g\n", big);
        printf("1e300*1e300 = %g (isinf %d)\n", inf, isinf(inf) != 0);
        printf("1e-300*1e-10 = %g\n", tiny);
        printf("1e-300*1e-20 = %g (denormal)\n", den);
        printf("1e-300*1e-300 = %g\n", under);
        CHECK(isinf(inf) && inf > 0);
        CHECK(under == 0.0);
        CHECK(den > 0.0 && den < 2.2250738585072014e-308);
        CHECK(from_bits(1) == 4.9406564584124654e-324);
    }

    /* comparisons incl. NaN and -0 */
    {
        double nan = from_bits(0x7ff8000000000000ULL);
        double nz = from_bits(0x8000000000000000ULL);
        CHECK(nan != nan && !(nan == nan) && !(nan < 1.0) && !(nan >= 1.0));
        CHECK(nz == vz && !(nz < vz));
        CHECK(b < a && a > b && a >= a && b <= b);
        printf("nan==nan %d, -0==0 %d, 1/-0 = %g\n", nan == nan, nz == vz, 1.0 / nz);
        CHECK(isnan(vz / vz));
    }

    /* polynomial evaluation and a product that exercises rounding */
    {
        double x = 1.2345678901234567, p = 0.0;
        static const double coef[6] = {1.0, -0.5, 0.25, -0.125, 0.0625, -0.03125};
        for (i = 5; i >= 0; i--)
            p = p * x + coef[i];
        printf("poly = %.17g\n", p);
        double prod = 1.0;
        for (i = 1; i <= 20; i++)
            prod *= (double)i;
        CHECK(prod == 2432902008176640000.0);
        printf("20! = %.17g\n", prod);
        prod *= 21.0;
        printf("21! = %.17g\n", prod);
    }
    return check_done("double_arith");
}
