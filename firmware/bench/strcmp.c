/* strcmp: string copy and compare loops with code and data in DRAM, a
 * benchmark of timed mode on code that fetches and loads over the eLink.
 *
 * Built at -O2 with dram.ld (code, data and .bss in DRAM, stack in SRAM;
 * see ../Makefile and manifest.txt):
 *   strcmp-dram.elf   STR_ROUNDS=2000
 *   strcmp-short.elf  STR_ROUNDS=3  (a quick run)
 * A table of 32 strings in .bss (DRAM) is filled from a generator; each round
 * copies every string into a buffer (in DRAM too), changes one character of
 * the copy, and compares it with every string with a bounded compare for
 * several bounds, as strncmp does, folding the signs and the positions of
 * the first difference into a checksum. It prints the checksum, exits 0. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#ifndef STR_ROUNDS
#define STR_ROUNDS 2000
#endif

#define NSTR 32
#define LEN 40

static char table[NSTR][LEN + 1];
static char buf[LEN + 1];

static char *put_u32(char *p, uint32_t v)
{
    char tmp[12];
    int i = 0;
    do {
        tmp[i++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    while (i > 0)
        *p++ = tmp[--i];
    return p;
}

__attribute__((noinline)) static char *copy(char *d, const char *s)
{
    char *r = d;
    while ((*d++ = *s++) != 0)
        ;
    return r;
}

/* Like strncmp, but also says where the first difference is. */
__attribute__((noinline)) static int ncompare(const char *a, const char *b, uint32_t n, uint32_t *at)
{
    uint32_t i = 0;
    for (; i < n; i++) {
        unsigned char ca = (unsigned char)a[i], cb = (unsigned char)b[i];
        if (ca != cb) {
            *at = i;
            return ca < cb ? -1 : 1;
        }
        if (ca == 0)
            break;
    }
    *at = i;
    return 0;
}

int main(void)
{
    static volatile uint32_t rounds = STR_ROUNDS;
    uint32_t x = 2463534242u;
    for (int s = 0; s < NSTR; s++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        int len = 8 + (int)(x % (LEN - 8 + 1));
        /* Strings share long prefixes so the compares run far. */
        for (int i = 0; i < len; i++)
            table[s][i] = (char)('a' + ((i < 24) ? (i % 7) : (int)((x >> (i % 24)) % 26u)));
        table[s][len] = 0;
    }
    uint32_t sum = 0;
    for (uint32_t r = 0; r < rounds; r++) {
        uint32_t s = r % NSTR;
        copy(buf, table[s]);
        uint32_t pos = (r * 7u) % 32u;
        if (buf[pos] != 0)
            buf[pos] = (char)(buf[pos] + 1 - (int)(r & 2u));
        for (uint32_t t = 0; t < NSTR; t++) {
            static const uint32_t bounds[4] = {8, 20, 30, LEN + 1};
            for (int k = 0; k < 4; k++) {
                uint32_t at;
                int c = ncompare(buf, table[t], bounds[k], &at);
                sum = sum * 31u + (uint32_t)(c + 1) * 64u + at;
            }
        }
    }
    char line[64], *p = line;
    memcpy(p, "strcmp: ", 8);
    p = put_u32(p + 8, rounds);
    memcpy(p, " rounds, checksum ", 18);
    p = put_u32(p + 18, sum);
    *p++ = '\n';
    write(1, line, (size_t)(p - line));
    return 0;
}
