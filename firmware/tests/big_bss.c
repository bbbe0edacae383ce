/* big_bss: 192 KB of zero-initialised arrays and 16 KB of initialised data
 * in external DRAM (dram.ld; crt0 clears the .bss in DRAM), used for a
 * sieve of Eratosthenes and a byte histogram. */
#define CHECK_USE_STDIO
#include "check.h"

#define SIEVE 131072
static uint8_t composite[SIEVE];
static uint32_t histogram[16384];
static uint32_t table[4096] = {1, 2, 3};

int main(void)
{
    uint32_t i, j, primes = 0, zero = 1, sum = 0;
    for (i = 0; i < SIEVE; i += 61)
        if (composite[i])
            zero = 0;
    for (i = 0; i < 16384; i += 7)
        if (histogram[i])
            zero = 0;
    CHECK(zero && table[2] == 3 && table[3] == 0);
    printf("bss clear: %s\n", zero ? "yes" : "no");
    for (i = 2; i < SIEVE; i++) {
        if (composite[i])
            continue;
        primes++;
        sum += i;
        for (j = i * i; j < SIEVE && i < 65536; j += i)
            composite[j] = 1;
    }
    CHECK(primes == 12251);
    printf("primes below %u: %u (sum %u)\n", (unsigned)SIEVE, (unsigned)primes, (unsigned)sum);
    for (i = 0; i < 4096; i++)
        table[i] = lcg();
    for (i = 0; i < 4096; i++)
        histogram[table[i] % 16384u]++;
    {
        uint32_t maxbin = 0, nonzero = 0;
        for (i = 0; i < 16384; i++) {
            if (histogram[i] > maxbin)
                maxbin = histogram[i];
            nonzero += histogram[i] != 0;
        }
        printf("histogram: %u bins used, fullest %u\n", (unsigned)nonzero, (unsigned)maxbin);
    }
    return check_done("big_bss");
}
