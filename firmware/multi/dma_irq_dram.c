/* dma_irq_dram: core (0,0)'s own DMA engine raises its completion
 * interrupt while the core runs code from DRAM that loads from DRAM
 * (waiting for code lines and for loads on their way): the interrupt
 * must be taken when strict cycle order takes it (sim/tests/solo.rs).
 *
 * Core (0,0) copies a block within its SRAM with DMA channel 0, its
 * completion interrupt enabled, 24 times, each started while it sums a
 * table in DRAM with a byte loop in DRAM; the handler (in SRAM) counts
 * the interrupts and notes how far the sum had got. It prints the count,
 * the sum and the positions. The other cores return at once.
 *
 * Built with -DLONG (dma_irq_dram_long.elf) the copies are long enough to
 * end while the core waits for DRAM (hundreds of words within SRAM on
 * even rounds, a block read from DRAM on odd ones, in message mode every other time: the
 * channel then ends when the last read has returned), so the interrupt is
 * raised by the engine's last move or by the last read's return while
 * the core waits for a line of its code or for a load: the handler must
 * not run before the copy ended. Rank 1 stores to DRAM until rank 0 is
 * done, so that (0,0)'s traffic shares the way out with another's. */
#include "multi.h"

#define DRAM_BASE 0x8f000000u
#define TABLE ((volatile unsigned char *)(uintptr_t)(DRAM_BASE + 0x5000))
#define N 160
#define DMA0_BIT (1u << 6)

#ifdef LONG
#define WORDS 512
#else
#define WORDS 64
#endif
static unsigned src[WORDS] __attribute__((aligned(8)));
static unsigned dst[WORDS] __attribute__((aligned(8)));
static dma_desc desc;
volatile unsigned irqs, where;
volatile unsigned progress;

void __attribute__((interrupt)) dma0_handler(void)
{
    irqs++;
    where = where * 31 + progress;
}

/* Sums n bytes from a, the code in DRAM, noting its progress. */
__attribute__((section(".dram_text"), noinline)) unsigned
sum_bytes(const volatile unsigned char *a, unsigned n)
{
    unsigned s = 0;
    for (unsigned i = 0; i < n; i++) {
        s += a[i];
        progress = i;
    }
    return s;
}

#ifdef LONG
volatile unsigned done, churn;
#endif

int main(void)
{
#ifdef LONG
    if (my_rank() == 1) {
        unsigned x = 1;
        volatile unsigned *out = (volatile unsigned *)(uintptr_t)(DRAM_BASE + 0x6000);
        while (!done) {
            x = x * 1103515245u + 12345u;
            *out = x;
        }
        churn = x;
        return 0;
    }
#endif
    if (my_rank() != 0)
        return 0;
    for (unsigned k = 0; k < N; k++)
        TABLE[k] = (unsigned char)(k * 7 + 3);
    for (unsigned k = 0; k < WORDS; k++)
        src[k] = k * 0x01010101u;
    irq_attach(0x18, dma0_handler);
    irq_unmask(DMA0_BIT);
    unsigned total = 0;
    for (unsigned r = 0; r < 24; r++) {
#ifdef LONG
        if (r & 1) {
            dma_1d(&desc, DMA_WORD, TABLE, dst, 24 + 2 * (r % 5));
            if (r & 2)
                desc.config |= DMA_MSGMODE;
        } else
            dma_1d(&desc, DMA_WORD, src, dst, 300 + 20 * (r % 7));
#else
        dma_1d(&desc, DMA_WORD, src, dst, 8 + 2 * (r % 7));
#endif
        desc.config |= DMA_IRQEN;
        dma_start(0, &desc);
        total += sum_bytes(TABLE + r, 40 + r % 5);
        dma_wait(0);
    }
    say_num("dma_irq_dram: irqs ", irqs);
    say_num("dma_irq_dram: sum ", total);
    say_num("dma_irq_dram: where ", where);
#ifdef LONG
    unsigned check = 0;
    for (unsigned k = 0; k < WORDS; k++)
        check = check * 33 + dst[k];
    say_num("dma_irq_dram: dst ", check);
    if (GROUP_SIZE > 1)
        *(volatile unsigned *)on_rank(1, &done) = 1;
#endif
    return 0;
}
