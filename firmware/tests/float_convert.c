/* float_convert: conversions and rounding in single precision.
 * int->float uses the FPU "float" instruction (round to nearest even),
 * float->int uses "fix" with CONFIG switched to truncation for the C cast,
 * unsigned and 64-bit conversions go through libgcc, float<->double through
 * libgcc's fp-bit (__extendsfdf2/__truncdfsf2).  libm rounding functions:
 * floorf, ceilf, truncf, roundf, lrintf. */
#define CHECK_USE_STDIO
#include <math.h>
#include "check.h"

static volatile int32_t vi[] = {0, 1, -1, 7, -7, 16777216, 16777217, 16777219, 2147483647,
                                -2147483647 - 1, 123456789, -987654321};
static volatile float vf[] = {0.0f, 0.4f, 0.5f, 0.6f, 1.5f, 2.5f, -0.4f, -0.5f, -1.5f, -2.5f,
                              -2.7f, 2.7f, 1e9f, -1e9f, 3.999999f, 8388608.5f, 12345.678f};
static volatile uint32_t vu[] = {0u, 1u, 2147483648u, 4294967295u, 3000000000u, 16777217u};

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

int main(void)
{
    unsigned i;

    printf("int -> float:\n");
    for (i = 0; i < sizeof vi / sizeof vi[0]; i++) {
        float f = (float)vi[i];
        printf("  %d -> %.9g (0x%08x)\n", (int)vi[i], f, (unsigned)bits(f));
    }
    CHECK((float)vi[6] == 16777216.0f);
    CHECK((float)vi[7] == 16777220.0f);
    CHECK((float)vi[8] == 2147483648.0f);

    printf("unsigned -> float:\n");
    for (i = 0; i < sizeof vu / sizeof vu[0]; i++)
        printf("  %u -> %.9g\n", (unsigned)vu[i], (float)vu[i]);
    CHECK((float)vu[3] == 4294967296.0f);

    printf("float -> int (truncation), floor, ceil, trunc, round, lrint:\n");
    for (i = 0; i < sizeof vf / sizeof vf[0]; i++) {
        float f = vf[i];
        printf("  %.9g -> %d %.9g %.9g %.9g %.9g %ld\n", f, (int)f, floorf(f), ceilf(f), truncf(f),
               roundf(f), (long)lrintf(f));
    }
    CHECK((int)vf[10] == -2);
    CHECK((int)vf[11] == 2);
    CHECK((int)vf[12] == 1000000000);
    CHECK(lrintf(vf[5]) == 2 && lrintf(vf[4]) == 2 && lrintf(vf[9]) == -2);
    CHECK(roundf(vf[5]) == 3.0f && roundf(vf[9]) == -3.0f);

    printf("float -> unsigned:\n");
    {
        volatile float big = 3000000000.0f, small = 123.75f;
        CHECK((uint32_t)big == 3000000000u);
        CHECK((uint32_t)small == 123u);
        printf("  %u %u\n", (unsigned)(uint32_t)big, (unsigned)(uint32_t)small);
    }

    printf("float <-> double:\n");
    {
        volatile float f = 0.1f;
        double d = f;
        volatile double d2 = 0.1;
        float back = (float)d2;
        CHECK(d == 0.100000001490116119384765625);
        CHECK(back == f);
        printf("  (double)0.1f = %.17g\n", d);
        printf("  (float)0.1 = %.9g (0x%08x)\n", back, (unsigned)bits(back));
        volatile double third = 1.0 / 3.0;
        printf("  (float)(1/3.0) = %.9g (0x%08x)\n", (float)third, (unsigned)bits((float)third));
    }

    printf("float <-> int64:\n");
    {
        volatile int64_t big = 1099511627776LL + 1; /* 2^40 + 1 */
        volatile float f = 1099511627776.0f;
        float fb = (float)big;
        int64_t back = (int64_t)f;
        CHECK(fb == 1099511627776.0f);
        CHECK(back == 1099511627776LL);
        printf("  (float)(2^40+1) = %.9g, (int64)2^40f = ", fb);
        out_i64(back);
        out_nl();
    }
    return check_done("float_convert");
}
