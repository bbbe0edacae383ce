/* double_convert: conversions between double and the integer types (32 and
 * 64 bit, signed and unsigned) through libgcc (__fixdfsi, __floatsidf,
 * __fixdfdi, __floatdidf, __fixunsdfsi, ...), and libm rounding (floor,
 * ceil, trunc, round, rint, lrint, modf, frexp, ldexp). */
/* Every value converted to int is inside int32 range: (int) of an
 * out-of-range double is undefined in C (x86 gives INT_MIN, libgcc saturates),
 * and lrint returns a 32-bit long on the Epiphany but 64-bit on the host. */
#define CHECK_USE_STDIO
#include <math.h>
#include "check.h"

static volatile double vd[] = {0.0, 0.4, 0.5, 0.6, 1.5, 2.5, -0.5, -1.5, -2.5, -2.7, 2.7,
                               1e9, -2147483648.0, 2147483647.0, 1073741824.5, 1234.5678};
static volatile int64_t v64[] = {0, 1, -1, 9007199254740993LL, -9007199254740993LL,
                                 9223372036854775807LL, 1234567890123LL};

int main(void)
{
    unsigned i;
    printf("double -> int, floor, ceil, trunc, round, rint, lrint:\n");
    for (i = 0; i < sizeof vd / sizeof vd[0]; i++) {
        double d = vd[i];
        printf("  %.17g -> %d %.17g %.17g %.17g %.17g %.17g %ld\n", d, (int)d, floor(d), ceil(d),
               trunc(d), round(d), rint(d), (long)lrint(d));
    }
    CHECK((int)vd[9] == -2 && (int)vd[10] == 2);
    CHECK(rint(vd[5]) == 2.0 && rint(vd[8]) == -2.0 && round(vd[5]) == 3.0);
    CHECK((int)vd[12] == -2147483647 - 1 && (int)vd[13] == 2147483647);

    printf("int64 -> double -> int64:\n");
    for (i = 0; i < sizeof v64 / sizeof v64[0]; i++) {
        double d = (double)v64[i];
        printf("  ");
        out_i64(v64[i]);
        printf(" -> %.17g -> ", d);
        if (d < 9.2e18)
            out_i64((int64_t)d);
        else
            out_str("(out of range)");
        out_nl();
    }
    CHECK((double)v64[3] == 9007199254740992.0);

    printf("unsigned:\n");
    {
        volatile uint32_t u = 4000000000u;
        volatile double du = 4000000000.5;
        volatile uint64_t u64 = 18446744073709551615ULL;
        CHECK((double)u == 4000000000.0);
        CHECK((uint32_t)du == 4000000000u);
        printf("  %.17g %u %.17g\n", (double)u, (unsigned)(uint32_t)du, (double)u64);
        volatile double d64 = 1.8446744073709550e19;
        out_str("  ");
        out_u64((uint64_t)d64);
        out_nl();
    }

    printf("modf, frexp, ldexp:\n");
    {
        double ip, fp = modf(-3.75, &ip);
        int e;
        double m = frexp(vd[15], &e);
        CHECK(ip == -3.0 && fp == -0.75);
        CHECK(ldexp(m, e) == vd[15]);
        printf("  modf(-3.75) = %g + %g\n", ip, fp);
        printf("  frexp(1234.5678) = %.17g * 2^%d\n", m, e);
        printf("  ldexp(1, -1074) = %g, ldexp(1, 1023) = %g\n", ldexp(1.0, -1074), ldexp(1.0, 1023));
    }
    return check_done("double_convert");
}
