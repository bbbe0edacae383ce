/* dma_bw: DMA throughput as the published benchmarks measure it, timed
 * with CTIMER0 from the start of the transfer until the channel is idle:
 * 8 KB of doublewords from core (0,0) to the far corner (3,3) (FABIG's
 * core0 -> core15 path), 8 KB read from the neighbour (0,1), 8 KB to DRAM
 * and 8 KB from DRAM. Runs on one core. */
#include "multi.h"

#define BYTES 8192
#define DRAM ((volatile unsigned long long *)0x8f000000)

static volatile unsigned long long src[BYTES / 8], dst[BYTES / 8];
static dma_desc d;

static void measure(const char *what, const volatile void *from, volatile void *to)
{
    dma_1d(&d, DMA_DOUBLE, from, to, BYTES / 8);
    /* As e_dma_copy does for a local destination: the channel finishes
     * when the last read's data has arrived, not when it was asked for. */
    if (((unsigned)(uintptr_t)to >> 20) == 0)
        d.config |= DMA_MSGMODE;
    unsigned t0 = timer_now();
    dma_start(0, &d);
    dma_wait(0);
    unsigned t1 = timer_now();
    char line[64];
    unsigned n = 0;
    while (*what && n < 40)
        line[n++] = *what++;
    line[n] = 0;
    say(line);
    say_num(" cycles for 8 KB: ", (long)(t1 - t0));
}

int main(void)
{
    for (unsigned i = 0; i < BYTES / 8; i++)
        src[i] = 0x0101010101010101ull * (i & 0xff);
    timer_start();
    measure("to core (3,3)", src, on_core(3, 3, dst));
    measure("from core (0,1)", on_core(0, 1, src), dst);
    measure("to DRAM", src, DRAM);
    measure("from DRAM", DRAM, dst);
    for (unsigned i = 0; i < BYTES / 8; i++)
        if (dst[i] != src[i]) {
            say("data: FAIL\n");
            return 1;
        }
    say("data: ok\n");
    return 0;
}
