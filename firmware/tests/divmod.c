/* divmod: signed and unsigned division and remainder by run-time values
 * (libgcc __divsi3/__udivsi3/__modsi3/__umodsi3, which on the Epiphany use
 * the FPU), C99 truncation toward zero for negative operands, and the
 * identity a == (a/b)*b + a%b.  INT_MIN / -1 is avoided (undefined). */
#define CHECK_USE_STDIO
#include "check.h"

static volatile int32_t sv[] = {0, 1, -1, 2, -2, 3, -3, 7, -7, 10, -10, 100, 12345, -12345, 2147483647,
                                -2147483647 - 1, 65536, -65537, 1000000007};
static volatile uint32_t uv[] = {0u, 1u, 2u, 3u, 7u, 10u, 255u, 256u, 65535u, 65536u, 0x7fffffffu,
                                 0x80000000u, 0xfffffffeu, 0xffffffffu, 123456789u, 4000000000u};

int main(void)
{
    const unsigned ns = sizeof sv / sizeof sv[0], nu = sizeof uv / sizeof uv[0];
    unsigned i, j;
    uint32_t hs = 0, hu = 0;

    printf("signed examples: 7/2=%d 7%%2=%d -7/2=%d -7%%2=%d 7/-2=%d 7%%-2=%d -7/-2=%d -7%%-2=%d\n",
           (int)(sv[7] / sv[3]), (int)(sv[7] % sv[3]), (int)(sv[8] / sv[3]), (int)(sv[8] % sv[3]),
           (int)(sv[7] / sv[4]), (int)(sv[7] % sv[4]), (int)(sv[8] / sv[4]), (int)(sv[8] % sv[4]));
    CHECK(sv[8] / sv[3] == -3 && sv[8] % sv[3] == -1 && sv[7] % sv[4] == 1);

    for (i = 0; i < ns; i++)
        for (j = 0; j < ns; j++) {
            int32_t a = sv[i], b = sv[j], q, r;
            if (b == 0 || (a == -2147483647 - 1 && b == -1))
                continue;
            q = a / b;
            r = a % b;
            CHECK((int32_t)((uint32_t)q * (uint32_t)b + (uint32_t)r) == a);
            CHECK(r == 0 || (r < 0) == (a < 0));
            CHECK((r < 0 ? -(int64_t)r : r) < (b < 0 ? -(int64_t)b : b));
            hs = hs * 31u + (uint32_t)q;
            hs = hs * 31u + (uint32_t)r;
        }
    printf("signed all-pairs hash 0x%08x\n", (unsigned)hs);

    for (i = 0; i < nu; i++)
        for (j = 0; j < nu; j++) {
            uint32_t a = uv[i], b = uv[j], q, r;
            if (b == 0)
                continue;
            q = a / b;
            r = a % b;
            CHECK(q * b + r == a && r < b);
            hu = hu * 31u + q;
            hu = hu * 31u + r;
        }
    printf("unsigned all-pairs hash 0x%08x\n", (unsigned)hu);
    printf("0xffffffff/7=%u %%7=%u, 4000000000/3=%u %%3=%u, INT_MIN/2=%d, INT_MIN%%3=%d\n", (unsigned)(uv[13] / uv[4]),
           (unsigned)(uv[13] % uv[4]), (unsigned)(uv[15] / uv[3]), (unsigned)(uv[15] % uv[3]),
           (int)(sv[15] / sv[3]), (int)(sv[15] % sv[5]));
    CHECK(uv[13] / uv[4] == 613566756u && uv[13] % uv[4] == 3u);

    /* random operands */
    {
        uint32_t k, h = 0;
        for (k = 0; k < 3000; k++) {
            uint32_t a = lcg() ^ (lcg() << 16), b = (lcg() >> (lcg() % 31)) | 1u;
            int32_t sa = (int32_t)a, sb = (int32_t)(b * ((k & 1) ? 1u : 0xffffffffu));
            if (sb == 0 || (sa == -2147483647 - 1 && sb == -1))
                continue;
            h = h * 31u + a / b + a % b;
            h = h * 31u + (uint32_t)(sa / sb) + (uint32_t)(sa % sb);
            CHECK(a / b * b + a % b == a);
        }
        printf("random division hash 0x%08x\n", (unsigned)h);
    }
    return check_done("divmod");
}
