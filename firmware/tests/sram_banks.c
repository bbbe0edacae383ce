/* sram_banks: a sieve in a 12 KB .bss bit/byte array that spans several SRAM
 * banks, plus loads and stores of every width at every bank boundary
 * (internal.ld: .bss is zeroed by crt0, so this also checks that). */
#include "check.h"

#define N 12000
static uint8_t sieve[N];           /* .bss, crosses bank boundaries */
static uint32_t words[512];        /* .bss */
static uint16_t halves[3] = {1, 2, 3}; /* .data */

int main(void)
{
    uint32_t i, j, primes = 0, sum = 0, zero = 1;

    for (i = 0; i < N; i++)
        if (sieve[i] != 0)
            zero = 0;
    for (i = 0; i < 512; i++)
        if (words[i] != 0)
            zero = 0;
    CHECK(zero);
    out_str(".bss zeroed: ");
    out_str(zero ? "yes\n" : "no\n");

    for (i = 2; i < N; i++) {
        if (sieve[i])
            continue;
        primes++;
        sum += i;
        for (j = i * i; j < N; j += i)
            sieve[j] = 1;
    }
    CHECK_EQ_U32(primes, 1438);
    CHECK_EQ_U32(sum, 8034435);
    out_str("primes below 12000: ");
    out_u32(primes);
    out_str(", sum ");
    out_u32(sum);
    out_nl();

    for (i = 0; i < 512; i++)
        words[i] = i * 0x01010101u;
    for (i = 0; i < 512; i++)
        CHECK_EQ_U32(words[i], i * 0x01010101u);
    /* byte and half-word views of the same words */
    {
        const uint8_t *b = (const uint8_t *)words;
        const uint16_t *h = (const uint16_t *)words;
        uint32_t bs = 0, hs = 0, bs2 = 0, hs2 = 0;
        for (i = 0; i < sizeof words; i++)
            bs += b[i];
        for (i = 0; i < sizeof words / 2; i++)
            hs += h[i];
        for (i = 0; i < 512; i++) {
            uint32_t w = words[i];
            bs2 += (w & 255) + ((w >> 8) & 255) + ((w >> 16) & 255) + (w >> 24);
            hs2 += (w & 0xffff) + (w >> 16);
        }
        CHECK_EQ_U32(bs, bs2);
        CHECK_EQ_U32(hs, hs2);
        out_str("byte sum ");
        out_u32(bs);
        out_str(", half sum ");
        out_u32(hs);
        out_nl();
    }
    CHECK(halves[0] + halves[1] + halves[2] == 6);
    return check_done("sram_banks");
}
