/* ahead_dev: a core that computes for long stretches while a host polls
 * the chip, for host/tests/run_past.rs. In its SRAM: COUNT (0x6000) the
 * iterations done, stored every iteration; TABLE (0x6100, 64 words)
 * filled once at the start and never written again. In external memory
 * (DRAM offset 0x00200000 + 16 * rank, device address 0x8e200000 +
 * 16 * rank): word 0 the
 * iteration count, stored every 128 iterations; word 1 written by the
 * host, loaded every 512 iterations and folded into the state; word 2
 * the state at the end. It stops after ITERS iterations. */
#include "edev.h"

#define COUNT (*(volatile unsigned *)0x6000)
#define TABLE ((volatile unsigned *)0x6100)
#define ITERS 10000

int main(void)
{
    unsigned rank = my_rank();
    volatile unsigned *ext = (volatile unsigned *)(0x8e200000u + 16 * rank);
    unsigned x = 12345 + rank;
    for (unsigned k = 0; k < 64; k++)
        TABLE[k] = k * 2654435761u;
    for (unsigned n = 1; n <= ITERS; n++) {
        /* Work of varying length, all in registers. */
        unsigned m = 4 + (x >> 27);
        for (unsigned k = 0; k < m; k++)
            x = x * 1103515245u + 12345u + k;
        COUNT = n;
        if (n % 128 == 0)
            ext[0] = n;
        if (n % 512 == 0)
            x ^= ext[1];
    }
    ext[2] = x;
    return 0;
}
