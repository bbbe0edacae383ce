/* bits: bit tricks -- popcount (builtin and by hand), clz/ctz/ffs, parity,
 * rotates (GCC turns these into shifts+or), bit reversal, byte swap,
 * power-of-two tests, lowest set bit, sign extension of bit fields. */
#define CHECK_USE_STDIO
#include "check.h"

static uint32_t popcount_manual(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0fu;
    return (x * 0x01010101u) >> 24;
}

static uint32_t rotl(uint32_t x, unsigned r) { return (x << (r & 31)) | (x >> ((32 - r) & 31)); }
static uint32_t rotr(uint32_t x, unsigned r) { return (x >> (r & 31)) | (x << ((32 - r) & 31)); }

static uint32_t reverse_bits(uint32_t x)
{
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
    return (x >> 16) | (x << 16);
}

static uint32_t reverse_bits_loop(uint32_t x)
{
    uint32_t r = 0;
    int i;
    for (i = 0; i < 32; i++) {
        r = (r << 1) | (x & 1);
        x >>= 1;
    }
    return r;
}

static int32_t sext(uint32_t v, unsigned bits) { return (int32_t)(v << (32 - bits)) >> (32 - bits); }

int main(void)
{
    static volatile uint32_t v[] = {0u, 1u, 0x80000000u, 0xffffffffu, 0xdeadbeefu, 0x00f0f000u, 0x12345678u, 0x40u};
    unsigned i, r;
    uint32_t h = 0;

    for (i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint32_t x = v[i];
        uint32_t pc = (uint32_t)__builtin_popcount(x);
        CHECK_EQ_U32(pc, popcount_manual(x));
        CHECK_EQ_U32(reverse_bits(x), reverse_bits_loop(x));
        printf("%08x: pop %2u clz %2d ctz %2d ffs %2d parity %d rev %08x bswap %08x low %08x pow2 %d\n",
               (unsigned)x, (unsigned)pc, x ? __builtin_clz(x) : 32, x ? __builtin_ctz(x) : 32,
               __builtin_ffs((int)x), __builtin_parity(x), (unsigned)reverse_bits(x),
               (unsigned)__builtin_bswap32(x), (unsigned)(x & (0u - x)), x != 0 && (x & (x - 1)) == 0);
    }
    for (r = 0; r < 40; r += 3) {
        uint32_t a = rotl(v[4], r), b = rotr(v[4], r);
        CHECK_EQ_U32(rotr(a, r), v[4]);
        h = h * 31u + a + 7u * b;
    }
    printf("rotate hash 0x%08x, rotl(0xdeadbeef, 8) = %08x, rotr(.., 4) = %08x\n", (unsigned)h,
           (unsigned)rotl(v[4], 8), (unsigned)rotr(v[4], 4));
    CHECK_EQ_U32(rotl(0xdeadbeefu, 8), 0xadbeefdeu);

    /* 64-bit builtins */
    {
        volatile uint64_t w = 0x00f0000000000100ULL;
        printf("64: pop %d clzll %d ctzll %d bswap64 %08x%08x\n", __builtin_popcountll(w), __builtin_clzll(w),
               __builtin_ctzll(w), (unsigned)(__builtin_bswap64(w) >> 32), (unsigned)__builtin_bswap64(w));
        CHECK(__builtin_popcountll(w) == 5 && __builtin_clzll(w) == 8 && __builtin_ctzll(w) == 8);
    }
    /* sign extension and field extraction */
    CHECK(sext(0x7f, 7) == -1 && sext(0x3f, 7) == 63 && sext(0x800, 12) == -2048);
    printf("sext: %d %d %d %d\n", (int)sext(0x7f, 7), (int)sext(0x3f, 7), (int)sext(0x800, 12),
           (int)sext(0xabcd, 16));
    {
        uint32_t x = 0xdeadbeefu;
        uint32_t field = (x >> 12) & 0xfffu;
        uint32_t y = (x & ~(0xfffu << 12)) | (0x123u << 12);
        CHECK(field == 0xadbu && y == 0xde123eefu);
        printf("field %03x insert %08x\n", (unsigned)field, (unsigned)y);
    }
    /* gray code round trip */
    {
        uint32_t n, ok = 1;
        for (n = 0; n < 4096; n++) {
            uint32_t g = n ^ (n >> 1), b = g, s;
            for (s = 1; s < 32; s <<= 1)
                b ^= b >> s;
            if (b != n)
                ok = 0;
        }
        CHECK(ok);
        printf("gray code round trip: %s\n", ok ? "ok" : "broken");
    }
    return check_done("bits");
}
