/* int_arith: 32-bit and narrow integer arithmetic -- add/sub/mul with
 * unsigned wrap-around, signed/unsigned comparisons, shifts (logical and
 * arithmetic), narrowing and sign/zero extension, min/max/abs. */
#define CHECK_USE_STDIO
#include <limits.h>
#include "check.h"

/* volatile so the compiler cannot fold everything at compile time */
static volatile uint32_t vu[] = {0u, 1u, 2u, 0x7fffffffu, 0x80000000u, 0xffffffffu, 12345u, 0xdeadbeefu};
static volatile int32_t vs[] = {0, 1, -1, 2147483647, -2147483647 - 1, 1000, -1000, 123456789};

int main(void)
{
    const int nu = (int)(sizeof vu / sizeof vu[0]);
    const int ns = (int)(sizeof vs / sizeof vs[0]);
    uint32_t acc = 0;
    int i, j;

    /* unsigned wrap */
    CHECK_EQ_U32(vu[5] + vu[1], 0u);
    CHECK_EQ_U32(vu[0] - vu[1], 0xffffffffu);
    CHECK_EQ_U32(vu[3] + vu[1], 0x80000000u);
    CHECK_EQ_U32(vu[7] * vu[7], 0xdeadbeefu * 0xdeadbeefu);
    CHECK_EQ_U32(vu[7] * 3u, 0x9c093ccdu);
    CHECK_EQ_U32(vu[5] * vu[5], 1u);
    printf("0xffffffff + 1 = %u\n", (unsigned)(vu[5] + vu[1]));
    printf("0 - 1 = %u\n", (unsigned)(vu[0] - vu[1]));
    printf("0x7fffffff + 1 = 0x%08x\n", (unsigned)(vu[3] + vu[1]));
    printf("0xdeadbeef * 0xdeadbeef = 0x%08x\n", (unsigned)(vu[7] * vu[7]));

    /* signed wrap through unsigned arithmetic (defined behaviour) */
    {
        int32_t max = vs[3];
        int32_t wrapped = (int32_t)((uint32_t)max + 1u);
        CHECK(wrapped == INT32_MIN);
        printf("INT32_MAX + 1 (wrapped) = %d\n", (int)wrapped);
        int32_t neg = (int32_t)(0u - (uint32_t)vs[4]);
        CHECK(neg == INT32_MIN);
        printf("-INT32_MIN (wrapped) = %d\n", (int)neg);
    }

    /* all pairs: add, sub, mul, and, or, xor; folded into a checksum */
    for (i = 0; i < nu; i++)
        for (j = 0; j < nu; j++) {
            uint32_t a = vu[i], b = vu[j];
            acc = acc * 31u + (a + b);
            acc = acc * 31u + (a - b);
            acc = acc * 31u + (a * b);
            acc = acc * 31u + (a & b) + (a | b) + (a ^ b);
            acc = acc * 31u + (uint32_t)(a < b) + 2u * (uint32_t)(a <= b);
        }
    printf("unsigned pair checksum = 0x%08x\n", (unsigned)acc);

    acc = 0;
    for (i = 0; i < ns; i++)
        for (j = 0; j < ns; j++) {
            int32_t a = vs[i], b = vs[j];
            acc = acc * 31u + (uint32_t)a + (uint32_t)b;
            acc = acc * 31u + (uint32_t)((int64_t)a * b);
            acc = acc * 31u + (uint32_t)(a < b) + 2u * (uint32_t)(a > b) + 4u * (uint32_t)(a == b);
            acc = acc * 31u + (uint32_t)(a > b ? a : b);
        }
    printf("signed pair checksum = 0x%08x\n", (unsigned)acc);

    /* shifts */
    for (i = 0; i < 32; i += 5) {
        uint32_t u = vu[7];
        int32_t s = (int32_t)vu[7];
        printf("shift %2d: lsl 0x%08x lsr 0x%08x asr 0x%08x\n", i,
               (unsigned)(u << i), (unsigned)(u >> i), (unsigned)(s >> i));
    }
    CHECK_EQ_U32((uint32_t)(vs[2] >> 31), 0xffffffffu);
    CHECK_EQ_U32((uint32_t)(vs[4] >> 4), 0xf8000000u);
    CHECK_EQ_U32(vu[4] >> 31, 1u);

    /* narrowing and extension */
    {
        uint8_t b = (uint8_t)vu[7];           /* 0xef */
        int8_t sb = (int8_t)vu[7];            /* -17 */
        uint16_t h = (uint16_t)vu[7];         /* 0xbeef */
        int16_t sh = (int16_t)vu[7];          /* -16657 */
        uint8_t wrap = (uint8_t)(b + 0x20);   /* 0x0f */
        CHECK(b == 0xef && sb == -17 && h == 0xbeef && sh == -16657 && wrap == 0x0f);
        printf("narrow: u8 %u s8 %d u16 %u s16 %d u8wrap %u\n", b, sb, h, sh, wrap);
        printf("extend: s8->u32 0x%08x s16->u32 0x%08x\n", (unsigned)(uint32_t)(int32_t)sb,
               (unsigned)(uint32_t)(int32_t)sh);
        {
            signed char c = (signed char)-5;
            unsigned char uc = (unsigned char)c;
            CHECK(uc == 251);
            printf("signed char -5 as unsigned char = %u\n", uc);
        }
    }

    /* abs, min, max, negative modulo-free arithmetic */
    {
        int32_t v = vs[6];
        CHECK((v < 0 ? -v : v) == 1000);
        printf("abs(-1000) = %d, max = %d, min = %d\n", (int)(v < 0 ? -v : v),
               (int)(vs[5] > vs[6] ? vs[5] : vs[6]), (int)(vs[5] < vs[6] ? vs[5] : vs[6]));
    }

    /* multiply-accumulate loop (Horner) */
    {
        uint32_t h = 0;
        for (i = 0; i < 100; i++)
            h = h * 1000003u + (uint32_t)i;
        printf("horner = 0x%08x\n", (unsigned)h);
    }
    return check_done("int_arith");
}
