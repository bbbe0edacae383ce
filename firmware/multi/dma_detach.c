/* dma_detach: a core working while its own DMA engine reads external
 * DRAM, touching what the engine's moves touch (sim/tests/multicore.rs
 * compares the scheduler's fast order with strict cycle order on it).
 *
 * Core (0,1) (rank 1) writes a region of DRAM, reads its last word back,
 * and then, for each phase, starts a DMA from the region into SRAM
 * (doublewords) and computes while it runs:
 * (polling the channel only once its loop of 400 iterations is done).
 * Each iteration folds a word of the buffer the engine fills into a sum.
 *  A. DMA0 with IRQEN: every 30 iterations the core folds DMA0's COUNT
 *     and STATUS into its sum (reads in the middle of the transfer, which
 *     ends near iteration 130), it writes words of
 *     the buffer (some before the engine gets there, some after), and the
 *     DMA0 interrupt's handler records the iteration it came in.
 *  B. DMA1: CTIMER0 counts the mesh traffic of the core's node while
 *     MESHCONFIG selects it, which the core turns on and off every 8
 *     iterations, reading CTIMER0 in each; it also sends doubleword
 *     stores to DRAM (its node's queue shared with the engine's reads).
 *  C. DMA0 (MSGMODE), the only agent but the core (which has not polled
 *     the engine for a while): the core reads the buffer's first 16
 *     words, which the first reads' data fill.
 *  D. DMA0 (MSGMODE) while core (0,0) writes words into the buffer it
 *     fills and stores to DRAM through core (0,1)'s node.
 * It prints one line per phase:
 *   detach: <phase> sum S, buffer B, irq I, count C
 * and exits 0. The other cores return at once. */
#include "multi.h"

#define WORDS 512
#define BYTES (WORDS * 4)
#define DRAM_BASE 0x8f200000u

static unsigned buf[WORDS] __attribute__((aligned(8)));
static dma_desc desc[2];
static volatile unsigned iter;
static volatile unsigned irq_iter;

/* Core (0,0) polls this, written by core (0,1) at phase D, before writing
 * into `buf` (in .data: crt0 clears .bss, which could wipe the write). */
volatile unsigned go __attribute__((section(".data")));

static inline unsigned value_at(unsigned k)
{
    return (k * 0x9e3779b1u >> 3) ^ (k + 7);
}

static inline unsigned mix(unsigned s, unsigned x)
{
    s ^= x;
    s = (s << 5) + (s >> 27) + x;
    return s ^ (x >> 7);
}

static inline unsigned ctimer0(void)
{
    unsigned t;
    __asm__ volatile("movfs %0, ctimer0" : "=r"(t) : : "memory");
    return t;
}

static void __attribute__((interrupt)) dma0_handler(void)
{
    irq_iter = iter;
}

static void start(unsigned ch, unsigned config)
{
    dma_1d(&desc[ch], DMA_DOUBLE, (const void *)(uintptr_t)DRAM_BASE, buf, BYTES / 8);
    desc[ch].config |= config;
    dma_start(ch, &desc[ch]);
}

static unsigned buffer_sum(void)
{
    unsigned s = 0;
    for (unsigned k = 0; k < WORDS; k++)
        s = mix(s, buf[k]);
    return s;
}

static void report(const char *what, unsigned sum, unsigned count)
{
    say_num(what, (long)sum);
    say_num("  buffer ", (long)buffer_sum());
    say_num("  irq ", (long)irq_iter);
    say_num("  count ", (long)count);
}

int main(void)
{
    unsigned me = my_rank();
    volatile unsigned *other = on_rank(1, buf);
    volatile unsigned long long *ext = (volatile unsigned long long *)(uintptr_t)(DRAM_BASE + 0x10000 + me * 0x1000);
    if (me == 0) {
        /* Phase D's partner: into core (0,1)'s buffer, and to DRAM. */
        while (!go)
            ;
        for (unsigned k = 0; k < 64; k++) {
            other[(k * 37) % WORDS] = 0x5a5a0000u | k;
            ext[k] = k;
        }
        return 0;
    }
    if (me != 1)
        return 0;
    volatile unsigned long long *region = (volatile unsigned long long *)(uintptr_t)DRAM_BASE;
    for (unsigned k = 0; k < WORDS; k += 2)
        region[k / 2] = (unsigned long long)value_at(k + 1) << 32 | value_at(k);
    (void)region[WORDS / 2 - 1];
    irq_attach(0x18, dma0_handler); /* DMA0: ILAT bit 6 */
    irq_unmask(1u << 6);

    /* A */
    unsigned sum = 0;
    iter = 0;
    start(0, DMA_IRQEN);
    for (unsigned k = 0; k < 400; k++) {
        iter = k;
        sum = mix(sum, buf[(k * 13) % WORDS]);
        if (k % 30 == 0 && k < 130)
            sum = mix(sum, *dma_reg(0, 0x8) ^ *dma_reg(0, 0x1c));
        if (k < 64)
            buf[(k * 29 + 3) % WORDS] = 0xa5000000u | k;
    }
    dma_wait(0);
    report("detach: A sum ", sum, 0);

    /* B */
    sum = 0;
    irq_iter = 0;
    start(1, 0);
    unsigned cfg, max = 0xffffffff;
    __asm__ volatile("movts ctimer0, %0" : : "r"(max));
    __asm__ volatile("movfs %0, config" : "=r"(cfg));
    cfg = (cfg & ~0xf0u) | 0xe0u;
    __asm__ volatile("movts config, %0" : : "r"(cfg) : "memory");
    volatile unsigned *meshconfig = (volatile unsigned *)0xf0700;
    for (unsigned k = 0; k < 400; k++) {
        iter = k;
        sum = mix(sum, buf[(k * 11) % WORDS]);
        if (k % 8 == 4)
            *meshconfig ^= 0xe00u; /* counting core access, or not */
        if (k >= 150 && k < 180)
            ext[k] = k;
        sum = mix(sum, ctimer0());
    }
    dma_wait(1);
    *meshconfig &= ~0xf00u;
    report("detach: B sum ", sum, ctimer0());

    /* C (the buffer cleared first: a while without polling the engine) */
    sum = 0;
    for (unsigned k = 0; k < WORDS; k++)
        buf[k] = k;
    start(0, DMA_MSGMODE);
    for (unsigned k = 0; k < 400; k++) {
        iter = k;
        sum = mix(sum, buf[k % 16]);
    }
    dma_wait(0);
    report("detach: C sum ", sum, ctimer0());

    /* D */
    sum = 0;
    start(0, DMA_MSGMODE);
    *(volatile unsigned *)on_rank(0, &go) = 1;
    for (unsigned k = 0; k < 400; k++) {
        iter = k;
        sum = mix(sum, buf[(k * 7) % WORDS]);
    }
    dma_wait(0);
    report("detach: D sum ", sum, ctimer0());
    return 0;
}
