/* dma_beside: cores polling SRAM words while their DMA engines write
 * beside them (sim/tests/spin.rs). Timed mode leaves a core parked in a
 * polling loop through engine writes of bytes its loop does not load, in
 * the bank it loads from too (`Core::spin_untouched`), and must wake it
 * exactly where strict order has the loop see the word change.
 *
 * Every core of the group writes its region of external DRAM, reads its
 * last word back, starts CTIMER0 and then, with BUF (bank 2) cleared,
 * each transfer in MSGMODE (a channel is idle once its data has landed):
 *  1. starts DMA0 on the region into BUF (doublewords) and polls BUF's
 *     last word, which the engine's last move writes: every move before
 *     it lands beside the polled word, in its bank;
 *  2. the same with the polled word in the middle of BUF: moves land
 *     before and after it, and the loop sees it at the move that writes
 *     it;
 *  3. starts DMA0 on the first half of the region into BUF and DMA1
 *     (words, MSGMODE) on its second half into BUF's second half, and
 *     polls two words at once: BUF's first word and a word of the second
 *     half (the loop ends when both hold their values);
 *  4. starts DMA0 into BUF, waits 2000 NOPs, writes 1 into the word
 *     just past the end of BUF of the next core of the group (zero since
 *     the load; no engine writes it) and polls its own: its engine writes
 *     beside it meanwhile, and the word comes from the mesh, before or
 *     after the engine is done.
 * After each step the core checks the data and notes the cycles since
 * the timer started; core (0,0) prints its own and the sum of every
 * core's, as
 *   beside: step <s> at <cycles>, sum <cycles of all cores>
 * (or FAIL and exits 1). */
#include "multi.h"

#define WORDS 512
#define BYTES (WORDS * 4)
#define DRAM_BASE 0x8f300000u
/* Bank 2, above the program and below the stack. */
#define BUF ((volatile unsigned *)0x4000)
#define STEPS 4

#define DATA __attribute__((section(".data")))

static dma_desc desc[2];
/* Core (0,0)'s table, written by every core. */
volatile unsigned took[GROUP_SIZE][STEPS] DATA;
volatile unsigned reported[GROUP_SIZE] DATA;
/* Written by the core before this one in step 4. */
volatile unsigned poke DATA;

static inline unsigned value_at(unsigned rank, unsigned k)
{
    return (rank << 24) ^ (k * 0x9e3779b1u >> 5) ^ (k + 1);
}

static int check(unsigned me, const volatile unsigned *p, unsigned from, unsigned n)
{
    for (unsigned k = 0; k < n; k++)
        if (p[from + k] != value_at(me, from + k))
            return 1;
    return 0;
}

static void clear(void)
{
    for (unsigned k = 0; k < WORDS; k++)
        BUF[k] = 0;
}

int main(void)
{
    unsigned me = my_rank();
    volatile unsigned long long *region = (volatile unsigned long long *)(uintptr_t)(DRAM_BASE + me * 0x1000);
    for (unsigned k = 0; k < WORDS; k += 2)
        region[k / 2] = (unsigned long long)value_at(me, k + 1) << 32 | value_at(me, k);
    (void)region[WORDS / 2 - 1];
    unsigned bad = 0, at[STEPS];
    timer_start();

    /* 1: the last word */
    clear();
    dma_1d(&desc[0], DMA_DOUBLE, region, BUF, BYTES / 8);
    desc[0].config |= DMA_MSGMODE;
    dma_start(0, &desc[0]);
    while (BUF[WORDS - 1] != value_at(me, WORDS - 1))
        ;
    at[0] = timer_now();
    dma_wait(0);
    bad |= check(me, BUF, 0, WORDS);

    /* 2: a word in the middle */
    clear();
    dma_1d(&desc[0], DMA_DOUBLE, region, BUF, BYTES / 8);
    desc[0].config |= DMA_MSGMODE;
    dma_start(0, &desc[0]);
    while (BUF[WORDS / 2 + 1] != value_at(me, WORDS / 2 + 1))
        ;
    at[1] = timer_now();
    dma_wait(0);
    bad |= check(me, BUF, 0, WORDS);

    /* 3: two words, two engines */
    clear();
    dma_1d(&desc[0], DMA_DOUBLE, region, BUF, BYTES / 16);
    desc[0].config |= DMA_MSGMODE;
    dma_1d(&desc[1], DMA_WORD, (const volatile unsigned *)region + WORDS / 2, BUF + WORDS / 2, WORDS / 2);
    desc[1].config |= DMA_MSGMODE;
    dma_start(0, &desc[0]);
    dma_start(1, &desc[1]);
    while (BUF[0] != value_at(me, 0) || BUF[WORDS - 3] != value_at(me, WORDS - 3))
        ;
    at[2] = timer_now();
    dma_wait(0);
    dma_wait(1);
    bad |= check(me, BUF, 0, WORDS);

    /* 4: a word past the buffer, written by another core */
    clear();
    dma_1d(&desc[0], DMA_DOUBLE, region, BUF, BYTES / 8);
    desc[0].config |= DMA_MSGMODE;
    dma_start(0, &desc[0]);
    for (unsigned i = 0; i < 2000; i++)
        __asm__ volatile("nop");
    *(volatile unsigned *)on_rank((me + 1) % GROUP_SIZE, BUF + WORDS) = 1;
    while (BUF[WORDS] != 1)
        ;
    at[3] = timer_now();
    dma_wait(0);
    bad |= check(me, BUF, 0, WORDS);

    for (unsigned s = 0; s < STEPS; s++)
        *(volatile unsigned *)on_rank(0, &took[me][s]) = at[s];
    *(volatile unsigned *)on_rank(0, &reported[me]) = 1 + bad;
    if (me != 0)
        return 0;
    unsigned sum[STEPS] = {0};
    for (unsigned r = 0; r < GROUP_SIZE; r++) {
        while (!reported[r])
            ;
        bad |= reported[r] != 1;
        for (unsigned s = 0; s < STEPS; s++)
            sum[s] += took[r][s];
    }
    if (bad) {
        say("beside: FAIL\n");
        return 1;
    }
    for (unsigned s = 0; s < STEPS; s++) {
        say_num(s == 0   ? "beside: step 1 at "
                : s == 1 ? "beside: step 2 at "
                : s == 2 ? "beside: step 3 at "
                         : "beside: step 4 at ",
                at[s]);
        say_num("beside: sum ", sum[s]);
    }
    return 0;
}
