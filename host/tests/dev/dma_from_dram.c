/* dma_from_dram: the core stores 1024 words into external memory, reads
 * the last back (its stores have landed), copies the 4 KB into SRAM with
 * DMA0 (doublewords, in MSGMODE, see dma_copy_desc) and checks them after
 * the channel reports idle. Exit status 1 if any word is wrong. Without
 * MSGMODE the channel is idle once the last read request has left, and
 * the check can overtake the data still on its way (as on hardware): the
 * host interface's matmul example once did that. */
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
