/* dma_bad: a descriptor whose source is not aligned to its word elements.
 * The channel stops in its error state; epsim reports it. */
#include "multi.h"

static volatile unsigned char buf[64];
static dma_desc d;

int main(void)
{
    dma_1d(&d, DMA_WORD, buf + 2, buf + 32, 4);
    dma_start(0, &d);
    while (dma_busy(0) == 5)
        ;
    say_num("DMA0 status: ", dma_busy(0));
    return 0;
}
