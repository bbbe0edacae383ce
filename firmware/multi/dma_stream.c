/* dma_stream: every core of the group streams blocks from external DRAM
 * into its SRAM with DMA while it computes on the block before (double
 * buffering, as e-lib programs prefetch their input).
 *
 * Core r first writes its own BLOCKS x BLOCK_BYTES region of DRAM (at
 * 0x8f000000 + r * REGION, as a host would have) with doubleword stores
 * and reads the last word back (a core's load sees its own stores, so the
 * region has landed). Then, for each block b, it waits for the channel
 * that brings block b (DMA0 or DMA1 in turn, MSGMODE: idle once the last
 * word has arrived), starts the other channel on block b+1 into the other
 * buffer, and checksums block b (a few ALU operations per word). It
 * checks the checksum against the formula and reports it to core (0,0),
 * which waits for every core and prints
 *   dma_stream: ok, checksum N
 * A core whose checksum is wrong makes core (0,0) print FAIL and exit 1.
 * dma_stream_long.elf is the same with 64 blocks (64 KB per core): long
 * enough that its run in functional mode is well above a process's
 * start-up cost, to compare the two modes' speeds. */
#include "multi.h"

#define BLOCK_BYTES 1024
#ifndef BLOCKS
#define BLOCKS 4 /* dma_stream_long: 64 (the Makefile) */
#endif
#define REGION (BLOCKS * BLOCK_BYTES)
#define WORDS (BLOCK_BYTES / 4)
#define DRAM_BASE 0x8f000000u

#define DATA __attribute__((section(".data")))

static unsigned buf[2][WORDS] __attribute__((aligned(8)));
static dma_desc desc[2];

/* Core (0,0)'s table, written by every core (in .data: crt0 clears .bss,
 * which could wipe a report that arrived before it ran). */
volatile unsigned reported[GROUP_SIZE] DATA;
volatile unsigned sums[GROUP_SIZE] DATA;

static inline unsigned value_at(unsigned rank, unsigned k)
{
    return (rank << 24) ^ (k * 0x9e3779b1u >> 3) ^ k;
}

static inline unsigned mix(unsigned s, unsigned x)
{
    s ^= x;
    s = (s << 5) + (s >> 27) + x;
    return s ^ (x >> 7);
}

static void fetch(unsigned b)
{
    unsigned ch = b & 1;
    const volatile void *src = (const void *)(uintptr_t)(DRAM_BASE + my_rank() * REGION + b * BLOCK_BYTES);
    dma_1d(&desc[ch], DMA_DOUBLE, src, buf[ch], BLOCK_BYTES / 8);
    desc[ch].config |= DMA_MSGMODE;
    dma_start(ch, &desc[ch]);
}

int main(void)
{
    unsigned me = my_rank();
    volatile unsigned long long *region = (volatile unsigned long long *)(uintptr_t)(DRAM_BASE + me * REGION);
    for (unsigned k = 0; k < REGION / 4; k += 2)
        region[k / 2] = (unsigned long long)value_at(me, k + 1) << 32 | value_at(me, k);
    (void)region[REGION / 8 - 1];

    fetch(0);
    unsigned sum = 0;
    for (unsigned b = 0; b < BLOCKS; b++) {
        dma_wait(b & 1);
        if (b + 1 < BLOCKS)
            fetch(b + 1);
        const unsigned *p = buf[b & 1];
        for (unsigned k = 0; k < WORDS; k++)
            sum = mix(sum, p[k]);
    }

    unsigned want = 0;
    for (unsigned k = 0; k < REGION / 4; k++)
        want = mix(want, value_at(me, k));

    *(volatile unsigned *)on_rank(0, &sums[me]) = sum;
    *(volatile unsigned *)on_rank(0, &reported[me]) = 1 + (sum != want);
    if (me != 0)
        return 0;
    unsigned total = 0, bad = 0;
    for (unsigned r = 0; r < GROUP_SIZE; r++) {
        while (!reported[r])
            ;
        bad += reported[r] != 1;
        total += sums[r];
    }
    say_num(bad ? "dma_stream: FAIL, checksum " : "dma_stream: ok, checksum ", (long)total);
    return bad != 0;
}
