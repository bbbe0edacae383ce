/* dma_from_dram: a reproducer for a simulator bug seen by the host
 * interface's matmul example, runnable alone: `epsim run
 * host/tests/dev/dma_from_dram.elf`. The core stores 1024 words into
 * external memory, reads the last back (its stores have landed), copies
 * the 4 KB into SRAM with DMA0 (doublewords) and checks them. Functional
 * mode: all right. Timed mode (at the time of writing): some words arrive
 * as 0. Exit status 1 if any word is wrong. */
#include "edev.h"

#define WORDS 1024

static unsigned buf[WORDS] __attribute__((aligned(8)));
static dma_desc_t d;

int main(void)
{
    volatile unsigned *src = (volatile unsigned *)0x8e800000;
    for (unsigned k = 0; k < WORDS; k++)
        src[k] = k * 2654435761u;
    (void)src[WORDS - 1];
    dma_copy_desc(&d, (const void *)src, buf, WORDS / 2);
    dma_start(0, &d);
    dma_wait(0);
    unsigned bad = 0;
    for (unsigned k = 0; k < WORDS; k++)
        if (buf[k] != k * 2654435761u && bad++ < 4)
            eprintf("buf[%u] = %x, want %x\n", k, buf[k], k * 2654435761u);
    eprintf("dma from dram: %u of %u words wrong\n", bad, WORDS);
    return bad != 0;
}
