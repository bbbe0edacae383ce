/* int64_divshift: 64-bit division and remainder (libgcc __divdi3,
 * __udivdi3, __moddi3, __umoddi3) and shifts by every count 0..63 (inline
 * or __ashldi3/__lshrdi3/__ashrdi3). */
#define CHECK_USE_STDIO
#include "check.h"

static volatile uint64_t vu[] = {0ULL, 1ULL, 7ULL, 1000000007ULL, 0xffffffffULL, 0x100000000ULL,
                                 0x123456789abcdefULL, 0x8000000000000000ULL, 0xffffffffffffffffULL,
                                 10000000000000000000ULL};
static volatile int64_t vs[] = {0, 1, -1, 7, -7, 1000000007LL, -1000000007LL, 9223372036854775807LL,
                                -9223372036854775807LL, -4611686018427387904LL};

int main(void)
{
    unsigned i, j, s;
    uint64_t h = 0;

    for (i = 0; i < sizeof vu / sizeof vu[0]; i++)
        for (j = 0; j < sizeof vu / sizeof vu[0]; j++) {
            uint64_t a = vu[i], b = vu[j];
            if (b == 0)
                continue;
            CHECK(a / b * b + a % b == a && a % b < b);
            h = h * 1099511628211ULL + a / b;
            h = h * 1099511628211ULL + a % b;
        }
    out_str("unsigned div hash ");
    out_hex64(h);
    out_nl();

    h = 0;
    for (i = 0; i < sizeof vs / sizeof vs[0]; i++)
        for (j = 0; j < sizeof vs / sizeof vs[0]; j++) {
            int64_t a = vs[i], b = vs[j], q, r;
            if (b == 0)
                continue;
            q = a / b;
            r = a % b;
            CHECK(q * b + r == a);
            CHECK(r == 0 || (r < 0) == (a < 0));
            h = h * 1099511628211ULL + (uint64_t)q;
            h = h * 1099511628211ULL + (uint64_t)r;
        }
    out_str("signed div hash ");
    out_hex64(h);
    out_nl();

    CHECK(vs[8] / 1000000007LL == -9223371972LL);
    out_str("(-(2^63-1)) / 1000000007 = ");
    out_i64(vs[8] / vs[5]);
    out_str(" rem ");
    out_i64(vs[8] % vs[5]);
    out_nl();
    out_str("10^19 / 7 = ");
    out_u64(vu[9] / vu[2]);
    out_str(" rem ");
    out_u64(vu[9] % vu[2]);
    out_nl();

    h = 0;
    for (s = 0; s < 64; s++) {
        volatile unsigned sv = s;
        uint64_t x = vu[6];
        int64_t y = vs[9];
        uint64_t l = x << sv, r = x >> sv;
        int64_t a = y >> sv;
        h = h * 31u + l + 3u * r + 5u * (uint64_t)a;
        if (s == 0 || s == 1 || s == 31 || s == 32 || s == 33 || s == 63) {
            out_str("shift ");
            out_u32(s);
            out_str(": shl ");
            out_hex64(l);
            out_str(" shr ");
            out_hex64(r);
            out_str(" sar ");
            out_hex64((uint64_t)a);
            out_nl();
        }
    }
    CHECK((vu[8] >> 63) == 1 && (vs[2] >> 63) == -1 && (vu[1] << 63) == vu[7]);
    out_str("shift hash ");
    out_hex64(h);
    out_nl();
    return check_done("int64_divshift");
}
