/* spin_dma: a core polling what its own DMA engine changes
 * (sim/tests/spin.rs).
 *
 * Cores (0,0) and (0,1) each write a region of external DRAM with
 * doubleword stores and read its last word back, then:
 *  1. start DMA0 copying the region into SRAM (doublewords) and poll the
 *     last word of the destination until the engine has written it;
 *  2. start DMA1 on the region again into another buffer (MSGMODE: idle
 *     once the last word has landed) and wait for it by polling the
 *     channel's status register (dma_wait, as e_dma_wait);
 *  3. start DMA0 copying a block inside SRAM (words) whose last word lands
 *     on a flag the core polls.
 * Each step checks every word it received; each core prints
 *   dma: step <s> ok, checksum <sum>
 * or FAIL with the step and exits 1. The other cores return at once. */
#include "multi.h"

#define WORDS 512
#define BYTES (WORDS * 4)
#define LOCAL_WORDS 128
#define DRAM_BASE 0x8f100000u

static unsigned buf[WORDS] __attribute__((aligned(8)));
static unsigned buf2[WORDS] __attribute__((aligned(8)));
static unsigned src_local[LOCAL_WORDS] __attribute__((aligned(8)));
static unsigned dst_local[LOCAL_WORDS] __attribute__((aligned(8)));
static dma_desc desc[2];

static inline unsigned value_at(unsigned rank, unsigned k)
{
    return ((rank + 1) << 24) ^ (k * 0x9e3779b1u >> 5) ^ (k + 1);
}

static int check(unsigned step, const volatile unsigned *p, unsigned n,
                 unsigned salt)
{
    unsigned me = my_rank(), sum = 0;
    for (unsigned k = 0; k < n; k++) {
        if (p[k] != (value_at(me, k) ^ salt)) {
            say_num("dma: FAIL at step ", step);
            return 1;
        }
        sum = sum * 31 + p[k];
    }
    say_num(step == 1   ? "dma: step 1 ok, checksum "
            : step == 2 ? "dma: step 2 ok, checksum "
                        : "dma: step 3 ok, checksum ",
            sum);
    return 0;
}

int main(void)
{
    unsigned me = my_rank();
    if (me > 1)
        return 0;
    volatile unsigned long long *region = (volatile unsigned long long *)(uintptr_t)(DRAM_BASE + me * BYTES);
    for (unsigned k = 0; k < WORDS; k += 2)
        region[k / 2] = (unsigned long long)value_at(me, k + 1) << 32 | value_at(me, k);
    (void)region[WORDS / 2 - 1];

    /* 1: poll the destination's last word */
    volatile unsigned *last = &buf[WORDS - 1];
    *last = 0;
    dma_1d(&desc[0], DMA_DOUBLE, region, buf, BYTES / 8);
    dma_start(0, &desc[0]);
    while (*last == 0)
        ;
    if (check(1, buf, WORDS, 0))
        return 1;

    /* 2: poll the channel's status */
    dma_1d(&desc[1], DMA_DOUBLE, region, buf2, BYTES / 8);
    desc[1].config |= DMA_MSGMODE; /* idle once the last word has landed */
    dma_start(1, &desc[1]);
    dma_wait(1);
    if (check(2, buf2, WORDS, 0))
        return 1;

    /* 3: a copy inside SRAM onto the polled flag */
    for (unsigned k = 0; k < LOCAL_WORDS; k++)
        src_local[k] = value_at(me, k) ^ 0x5a5a5a5au;
    volatile unsigned *flag = &dst_local[LOCAL_WORDS - 1];
    *flag = 0;
    dma_wait(0);
    dma_1d(&desc[0], DMA_WORD, src_local, dst_local, LOCAL_WORDS);
    dma_start(0, &desc[0]);
    while (*flag == 0)
        ;
    return check(3, dst_local, LOCAL_WORDS, 0x5a5a5a5au);
}
