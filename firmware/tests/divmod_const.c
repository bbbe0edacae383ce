/* divmod_const: division and remainder by compile-time constants.  At -O2
 * GCC replaces them with multiply-high sequences, shifts and fix-ups
 * (the Epiphany has no multiply-high, so with 64-bit multiplies or libgcc),
 * at -Og with library calls: both must give the same answers.  Also
 * power-of-two divisors of negative numbers (round toward zero). */
#define CHECK_USE_STDIO
#include "check.h"

#define DIVS(d) (a / (d)), (a % (d))
#define DIVU(d) (u / (d)), (u % (d))

int main(void)
{
    static volatile int32_t sv[] = {0, 1, -1, 5, -5, 17, -17, 99, -99, 1000, -1000, 123456789, -123456789,
                                    2147483647, -2147483647 - 1};
    static volatile uint32_t uv[] = {0u, 1u, 5u, 17u, 99u, 1000u, 123456789u, 2147483648u, 4294967295u,
                                     3000000000u};
    unsigned i;
    uint32_t h = 0;

    for (i = 0; i < sizeof sv / sizeof sv[0]; i++) {
        int32_t a = sv[i];
        int32_t r[] = {DIVS(2), DIVS(3), DIVS(4), DIVS(5), DIVS(7), DIVS(10), DIVS(16), DIVS(60), DIVS(100),
                       DIVS(1000), DIVS(-3), DIVS(-8), DIVS(641), DIVS(65536), DIVS(1000000007)};
        unsigned k;
        printf("%11d:", (int)a);
        for (k = 0; k < sizeof r / sizeof r[0]; k += 2) {
            printf(" %d,%d", (int)r[k], (int)r[k + 1]);
            h = h * 31u + (uint32_t)r[k] * 7u + (uint32_t)r[k + 1];
        }
        printf("\n");
    }
    for (i = 0; i < sizeof uv / sizeof uv[0]; i++) {
        uint32_t u = uv[i];
        uint32_t r[] = {DIVU(2u), DIVU(3u), DIVU(7u), DIVU(10u), DIVU(16u), DIVU(60u), DIVU(1000u),
                        DIVU(641u), DIVU(65537u), DIVU(0x80000001u)};
        unsigned k;
        printf("%10u:", (unsigned)u);
        for (k = 0; k < sizeof r / sizeof r[0]; k += 2) {
            printf(" %u,%u", (unsigned)r[k], (unsigned)r[k + 1]);
            h = h * 31u + r[k] * 7u + r[k + 1];
        }
        printf("\n");
    }
    printf("hash 0x%08x\n", (unsigned)h);
    {
        volatile int32_t m7 = -7;
        CHECK(m7 / 2 == -3 && m7 % 2 == -1 && m7 / 4 == -1 && m7 % 4 == -3 && (m7 >> 1) == -4);
        CHECK(4294967295u / 10u == 429496729u);
        /* 64-bit by constant */
        volatile uint64_t big = 18446744073709551615ULL;
        volatile int64_t sbig = -9223372036854775807LL;
        CHECK(big / 10u == 1844674407370955161ULL && big % 10u == 5u);
        CHECK(sbig / 1000 == -9223372036854775LL && sbig % 1000 == -807);
        out_str("2^64-1 / 10 = ");
        out_u64(big / 10u);
        out_str(", -(2^63-1) / 1000 = ");
        out_i64(sbig / 1000);
        out_nl();
    }
    return check_done("divmod_const");
}
