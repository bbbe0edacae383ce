/* dram_solo: loads from external DRAM timed alone or among other traffic
 * (sim/TIMING.md "How it stays exact": a load whose round trip meets
 * nothing is timed in closed form in the core's run).
 *
 * Core (0,0) reads a table in DRAM: byte loads of consecutive bytes (each
 * eLink transaction continues the previous one's addresses), byte loads
 * 8 bytes apart (each breaks the burst), a word load right after its own
 * store to DRAM (the read waits for the write), and a loop summing the
 * table and a mailbox in its SRAM. Meanwhile rank 1 stores to DRAM, rank 2
 * moves a block to DRAM by DMA and rank 3 writes into (0,0)'s mailbox,
 * each for a while, so (0,0)'s loads meet their traffic at first and run
 * alone afterwards. (0,0) checks what it read after its stores and prints
 * the sums of the others (the same in both timed schedulers and in
 * functional mode but the last, which depends on when the mailbox
 * changed). */
#include "multi.h"

#define DRAM_BASE 0x8f000000u
#define TABLE ((volatile unsigned char *)(uintptr_t)(DRAM_BASE + 0x1000))
#define OTHERS ((volatile unsigned *)(uintptr_t)(DRAM_BASE + 0x8000))
#define N 256

#define DATA __attribute__((section(".data")))

volatile unsigned mailbox DATA;
static unsigned block[64] __attribute__((aligned(8)));
static dma_desc desc;

static void table_init(void)
{
    for (unsigned k = 0; k < N; k += 4)
        *(volatile unsigned *)&TABLE[k] = (k * 0x01010101u) ^ 0x5a3c9671u;
}

int main(void)
{
    unsigned me = my_rank();
    if (me == 1) {
        for (unsigned k = 0; k < 200; k++)
            OTHERS[k & 63] = k;
        return 0;
    }
    if (me == 2) {
        for (unsigned r = 0; r < 3; r++) {
            for (unsigned k = 0; k < 64; k++)
                block[k] = r * 1000 + k;
            dma_1d(&desc, DMA_WORD, block, OTHERS + 128, 64);
            dma_start(0, &desc);
            dma_wait(0);
        }
        return 0;
    }
    if (me == 3) {
        volatile unsigned *box = on_rank(0, &mailbox);
        for (unsigned k = 1; k <= 40; k++) {
            *box = k;
            for (volatile unsigned d = 0; d < k * 7; d++)
                ;
        }
        return 0;
    }
    if (me != 0)
        return 0;
    table_init();
    unsigned bytes = 0, strided = 0, after = 0, sum = 0;
    for (unsigned k = 0; k < 64; k++)
        bytes += TABLE[k] * (k + 1);
    for (unsigned k = 0; k < N; k += 8)
        strided += TABLE[k + (k >> 3 & 7)];
    for (unsigned k = 0; k < 16; k++) {
        volatile unsigned *w = (volatile unsigned *)&TABLE[4 * k];
        *w = k * 3;
        after += *w;
    }
    for (unsigned r = 0; r < 6; r++)
        for (unsigned k = 0; k < N; k++)
            sum += TABLE[k] ^ mailbox;
    if (after != 360) {
        say_num("dram_solo: FAIL after store ", after);
        return 1;
    }
    say_num("dram_solo: bytes ", bytes);
    say_num("dram_solo: strided ", strided);
    say_num("dram_solo: sum ", sum);
    return 0;
}
