/* send_over: every core's DMA engine copies a 4 KB block of its SRAM,
 * doubleword by doubleword, into the next core's bank 3 (0x6000) while
 * the core itself overwrites the block from its far end: the engine sends
 * the words it reaches before the core's stores as they were, the rest as
 * the core rewrote them. A core running ahead past its engine's moves
 * (`Machine::send_bound`) must have them read the bytes as of each move's
 * cycle (`Machine::send_in_past`: here the core wrote them since its
 * checkpoint, so it goes back); sim/tests/multicore.rs runs it fast and
 * in strict order. After its last copy a core raises a flag in the next
 * one, which checksums the block it received; core (0,0) prints the sum
 * of every core's checksums. */
#include "multi.h"

#define ROUNDS 2
#define WORDS 1024

static unsigned src[WORDS] __attribute__((aligned(8)));
volatile unsigned arrived;
volatile unsigned sums[GROUP_SIZE];
volatile unsigned flags[GROUP_SIZE];

int main(void)
{
    unsigned me = my_rank();
    unsigned next = (me + 1) % GROUP_SIZE;
    volatile unsigned *block = (volatile unsigned *)0x6000;
    volatile unsigned *s = src;
    unsigned check = 0;
    dma_desc d;
    for (unsigned r = 0; r < ROUNDS; r++) {
        for (unsigned i = 0; i < WORDS; i++)
            s[i] = i * 2654435761u + me * 40503u + r;
        dma_1d(&d, DMA_DOUBLE, src, on_rank(next, block), WORDS / 2);
        dma_start(0, &d);
        /* From the far end, a little slower per word for some cores. */
        for (int i = WORDS - 1; i >= 0; i--) {
            s[i] = ~s[i];
            for (unsigned k = 0; k < (me & 3); k++)
                __asm__ volatile("nop");
        }
        dma_wait(0);
    }
    /* The block the previous core copied in last, once it says so. */
    *(volatile unsigned *)on_rank(next, &arrived) = 1;
    while (!arrived)
        ;
    for (unsigned i = 0; i < WORDS; i++)
        check = check * 33 + block[i];
    *(volatile unsigned *)on_rank(0, &sums[me]) = check;
    *(volatile unsigned *)on_rank(0, &flags[me]) = 1;
    if (me != 0)
        return 0;
    unsigned total = 0;
    for (unsigned r = 0; r < GROUP_SIZE; r++) {
        while (!flags[r])
            ;
        total += sums[r];
    }
    say_num("checksum: ", (long)total);
    return 0;
}
