/* int64_arith: 64-bit integers -- add/sub with carry across the halves,
 * multiply (libgcc __muldi3), comparisons signed and unsigned, negation,
 * conversions to and from 32-bit, and a 64-bit LCG and FNV-1a hash. */
#define CHECK_USE_STDIO
#include "check.h"

static volatile uint64_t vu[] = {0ULL, 1ULL, 0xffffffffULL, 0x100000000ULL, 0x7fffffffffffffffULL,
                                 0x8000000000000000ULL, 0xffffffffffffffffULL, 0x0123456789abcdefULL,
                                 0xfedcba9876543210ULL};

int main(void)
{
    const unsigned n = sizeof vu / sizeof vu[0];
    unsigned i, j;
    uint64_t h = 0;

    CHECK_EQ_U64(vu[2] + vu[1], 0x100000000ULL);
    CHECK_EQ_U64(vu[3] - vu[1], 0xffffffffULL);
    CHECK_EQ_U64(vu[6] + vu[1], 0);
    CHECK_EQ_U64(vu[2] * vu[2], 0xfffffffe00000001ULL);
    CHECK_EQ_U64(vu[7] * vu[8], 0x2236d88fe5618cf0ULL);
    CHECK((int64_t)vu[5] < 0 && vu[5] > vu[4] && (int64_t)vu[5] < (int64_t)vu[4]);
    out_str("0xffffffff^2 = ");
    out_hex64(vu[2] * vu[2]);
    out_str("\n0x0123456789abcdef * 0xfedcba9876543210 = ");
    out_hex64(vu[7] * vu[8]);
    out_nl();

    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            uint64_t a = vu[i], b = vu[j];
            int64_t sa = (int64_t)a, sb = (int64_t)b;
            h = h * 1099511628211ULL + (a + b);
            h = h * 1099511628211ULL + (a - b);
            h = h * 1099511628211ULL + (a * b);
            h = h * 1099511628211ULL + (a ^ (b >> 3));
            h = h * 1099511628211ULL + (uint64_t)((a < b) + 2 * (sa < sb) + 4 * (a == b));
        }
    out_str("all-pairs hash ");
    out_hex64(h);
    out_nl();

    {
        int64_t x = -5000000000LL;
        int32_t lo = (int32_t)x;
        uint32_t hi = (uint32_t)((uint64_t)x >> 32);
        int64_t back = ((int64_t)(int32_t)hi << 32) | (uint32_t)lo;
        CHECK(back == x);
        CHECK((int64_t)(int32_t)-7 == -7LL && (uint64_t)(uint32_t)-7 == 4294967289ULL);
        out_str("-5000000000: hi ");
        out_hex32(hi);
        out_str(" lo ");
        out_i32(lo);
        out_str(" negated ");
        out_i64(-x);
        out_nl();
    }
    {
        uint64_t state = 88172645463325252ULL, fnv = 14695981039346656037ULL;
        for (i = 0; i < 1000; i++) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            fnv = (fnv ^ (state >> 56)) * 1099511628211ULL;
        }
        out_str("lcg64 ");
        out_hex64(state);
        out_str(" fnv ");
        out_hex64(fnv);
        out_nl();
    }
    {
        int64_t fact = 1;
        for (i = 1; i <= 20; i++)
            fact *= (int64_t)i;
        CHECK(fact == 2432902008176640000LL);
        out_str("20! = ");
        out_i64(fact);
        out_nl();
        int64_t mn = (int64_t)vu[5];
        out_str("INT64_MIN = ");
        out_i64(mn);
        out_str(", UINT64_MAX = ");
        out_u64(vu[6]);
        out_nl();
    }
    return check_done("int64_arith");
}
