/* crc_hash: table-driven CRC-32 (IEEE) and CRC-16/CCITT, Adler-32, FNV-1a
 * and a bitwise CRC-32 for cross-checking, over generated data. */
#define CHECK_USE_STDIO
#include "check.h"

static uint32_t crc_table[256];

static void crc32_init(void)
{
    uint32_t i, j, c;
    for (i = 0; i < 256; i++) {
        c = i;
        for (j = 0; j < 8; j++)
            c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

static uint32_t crc32_table(const uint8_t *p, uint32_t n)
{
    uint32_t c = 0xffffffffu;
    while (n--)
        c = crc_table[(c ^ *p++) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

static uint32_t crc32_bitwise(const uint8_t *p, uint32_t n)
{
    uint32_t c = 0xffffffffu;
    int k;
    while (n--) {
        c ^= *p++;
        for (k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
    }
    return ~c;
}

static uint16_t crc16_ccitt(const uint8_t *p, uint32_t n)
{
    uint16_t c = 0xffff;
    int k;
    while (n--) {
        c ^= (uint16_t)(*p++ << 8);
        for (k = 0; k < 8; k++)
            c = (uint16_t)((c & 0x8000) ? (c << 1) ^ 0x1021 : c << 1);
    }
    return c;
}

static uint32_t adler32(const uint8_t *p, uint32_t n)
{
    uint32_t a = 1, b = 0;
    while (n--) {
        a = (a + *p++) % 65521u;
        b = (b + a) % 65521u;
    }
    return (b << 16) | a;
}

static uint32_t fnv1a(const uint8_t *p, uint32_t n)
{
    uint32_t h = 2166136261u;
    while (n--)
        h = (h ^ *p++) * 16777619u;
    return h;
}

int main(void)
{
    static uint8_t data[4096];
    const uint8_t *check = (const uint8_t *)"123456789";
    uint32_t i;

    crc32_init();
    CHECK_EQ_U32(crc32_table(check, 9), 0xcbf43926u);
    CHECK_EQ_U32(crc32_bitwise(check, 9), 0xcbf43926u);
    CHECK_EQ_U32(crc16_ccitt(check, 9), 0x29b1u);
    CHECK_EQ_U32(adler32((const uint8_t *)"Wikipedia", 9), 0x11e60398u);
    CHECK_EQ_U32(fnv1a((const uint8_t *)"a", 1), 0xe40c292cu);
    printf("check values: crc32 %08x crc16 %04x adler32 %08x fnv1a(\"a\") %08x\n", (unsigned)crc32_table(check, 9),
           (unsigned)crc16_ccitt(check, 9), (unsigned)adler32((const uint8_t *)"Wikipedia", 9),
           (unsigned)fnv1a((const uint8_t *)"a", 1));

    for (i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(lcg() >> 7);
    CHECK_EQ_U32(crc32_table(data, sizeof data), crc32_bitwise(data, sizeof data));
    printf("4096 random bytes: crc32 %08x crc16 %04x adler32 %08x fnv1a %08x\n",
           (unsigned)crc32_table(data, sizeof data), (unsigned)crc16_ccitt(data, sizeof data),
           (unsigned)adler32(data, sizeof data), (unsigned)fnv1a(data, sizeof data));
    for (i = 1; i <= 4096; i *= 4)
        printf("  prefix %4u: crc32 %08x\n", (unsigned)i, (unsigned)crc32_table(data, i));
    return check_done("crc_hash");
}
