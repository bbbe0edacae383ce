/* spin_dma_park: a core polling while its DMA engine moves
 * (sim/tests/spin.rs). Timed mode leaves a core parked in a polling loop
 * through engine moves and read responses that change nothing the loop
 * reads (another channel's registers, a bank it does not read), and must
 * wake it exactly where strict order has the loop see a change.
 *
 * Core (0,0) writes a region of external DRAM, reads its last word back,
 * starts CTIMER0 and then:
 *  1. starts DMA0 on the whole region into bank 2 and DMA1 (MSGMODE) on
 *     its first half into bank 2 too, waits for DMA1 by polling DMA1's
 *     status while DMA0 moves (and completes), then for DMA0;
 *  2. waits for a chain of two descriptors on DMA0 (the chained
 *     descriptor's fetch changes the status it polls);
 *  3. polls a flag in .data that DMA0's completion interrupt handler sets
 *     (IRQEN), the engine writing bank 2 meanwhile;
 *  4. starts DMA0 on the region again, sets DMA1 up in slave mode and
 *     polls its status, until core (0,1), after a delay, writes DMA1's
 *     AUTO0 register (the engine then writes the word into SRAM and goes
 *     idle); then waits for DMA0.
 * After each step core (0,0) checks the data and prints
 *   park: step <s> ok, at <cycles since the timer started>
 * (or FAIL and exits 1); the cycles are what the core observed, compared
 * between strict order and running ahead. Then
 *  5. STEPS times, k NOPs before it starts DMA0 on 16 doublewords without
 *     MSGMODE (the channel goes idle at its last move, not when the data
 *     lands) and polls its status: the cycles from before the NOPs to the
 *     end of the wait, printed as "k <k>: <cycles>".
 * Cores 2 to 7 store to and load from DRAM meanwhile; the other cores
 * return. */
#include "multi.h"

#define WORDS 512
#define BYTES (WORDS * 4)
#define DRAM_BASE 0x8f200000u
/* Bank 2, above the program and below the stack. */
#define BUF ((volatile unsigned *)0x4000)
#define BUF2 ((volatile unsigned *)0x4800)
#define DMA0_BIT (1u << 6)
#define AUTO0 0x14
#define STEPS 16

#define DATA __attribute__((section(".data")))

static dma_desc desc[3];
volatile unsigned flag DATA;
volatile unsigned slot DATA;
volatile unsigned go DATA; /* on (0,1): core (0,0) says when to wait */
static unsigned took[STEPS];

static inline unsigned value_at(unsigned k)
{
    return (0x5au << 24) ^ (k * 0x9e3779b1u >> 5) ^ (k + 1);
}

void __attribute__((interrupt)) dma0_handler(void)
{
    flag = timer_now();
}

static int check(unsigned step, const volatile unsigned *p, unsigned from, unsigned n)
{
    for (unsigned k = 0; k < n; k++) {
        if (p[k] != value_at(from + k)) {
            say_num("park: FAIL at step ", step);
            return 1;
        }
    }
    return 0;
}

static void report(unsigned step, unsigned at)
{
    say_num(step == 1   ? "park: step 1 ok, at "
            : step == 2 ? "park: step 2 ok, at "
            : step == 3 ? "park: step 3 ok, at "
                        : "park: step 4 ok, at ",
            at);
}

static void clear(void)
{
    for (unsigned k = 0; k < WORDS; k++)
        BUF[k] = 0;
}

int main(void)
{
    unsigned me = my_rank();
    if (me == 1) {
        while (!go)
            ;
        for (unsigned i = 0; i < 300; i++)
            __asm__ volatile("nop");
        *(volatile unsigned *)on_rank(0, dma_reg(1, AUTO0)) = 0xc0ffee;
        return 0;
    }
    if (me >= 2 && me < 8) {
        /* Store to and load from DRAM while core (0,0) works: responses
         * from DRAM on their way bound its horizon before its own
         * engine's next move, and it parks in its loops meanwhile. */
        volatile unsigned long long *mine = (volatile unsigned long long *)(uintptr_t)(DRAM_BASE + me * 0x10000);
        unsigned long long sum = 0;
        for (unsigned i = 0; i < 6000; i++) {
            if (i & 1)
                sum += mine[i & 1023];
            else
                mine[i & 1023] = i;
        }
        return (int)(sum & 0);
    }
    if (me != 0)
        return 0;
    volatile unsigned long long *region = (volatile unsigned long long *)(uintptr_t)DRAM_BASE;
    for (unsigned k = 0; k < WORDS; k += 2)
        region[k / 2] = (unsigned long long)value_at(k + 1) << 32 | value_at(k);
    (void)region[WORDS / 2 - 1];
    timer_start();

    /* 1: poll DMA1 while DMA0 moves and completes */
    clear();
    dma_1d(&desc[0], DMA_DOUBLE, region, BUF, BYTES / 8);
    dma_1d(&desc[1], DMA_DOUBLE, region, BUF2, BYTES / 16);
    desc[1].config |= DMA_MSGMODE;
    dma_start(0, &desc[0]);
    dma_start(1, &desc[1]);
    dma_wait(1);
    unsigned at = timer_now();
    dma_wait(0);
    while (BUF[WORDS - 1] != value_at(WORDS - 1))
        ;
    if (check(1, BUF, 0, WORDS) || check(1, BUF2, 0, WORDS / 2))
        return 1;
    report(1, at);

    /* 2: a chain of two descriptors */
    clear();
    dma_1d(&desc[0], DMA_DOUBLE, region, BUF, BYTES / 16);
    dma_1d(&desc[2], DMA_DOUBLE, (const volatile char *)region + BYTES / 2, BUF + WORDS / 2, BYTES / 16);
    desc[0].config |= DMA_CHAIN | (unsigned)(uintptr_t)&desc[2] << 16;
    desc[2].config |= DMA_MSGMODE;
    dma_start(0, &desc[0]);
    dma_wait(0);
    if (check(2, BUF, 0, WORDS))
        return 1;
    report(2, timer_now());

    /* 3: a flag the completion interrupt's handler sets */
    clear();
    irq_attach(0x18, dma0_handler);
    irq_unmask(DMA0_BIT);
    flag = 0;
    dma_1d(&desc[0], DMA_DOUBLE, region, BUF, BYTES / 8);
    desc[0].config |= DMA_IRQEN | DMA_MSGMODE;
    dma_start(0, &desc[0]);
    while (!flag)
        ;
    if (check(3, BUF, 0, WORDS))
        return 1;
    report(3, flag);

    /* 4: another core writes the DMA registers polled (slave mode) */
    clear();
    dma_1d(&desc[0], DMA_DOUBLE, region, BUF, BYTES / 8);
    desc[0].config |= DMA_MSGMODE;
    dma_start(0, &desc[0]);
    slot = 0;
    *dma_reg(1, 0x4) = 4u << 16 | 4u;    /* STRIDE */
    *dma_reg(1, 0x8) = 1u << 16 | 1u;    /* COUNT */
    *dma_reg(1, 0x10) = (unsigned)(uintptr_t)&slot; /* DSTADDR */
    *dma_reg(1, 0x0) = DMA_ENABLE | DMA_WORD; /* CONFIG: slave */
    *(volatile unsigned *)on_rank(1, &go) = 1;
    dma_wait(1);
    at = timer_now();
    dma_wait(0);
    if (slot != 0xc0ffee || check(4, BUF, 0, WORDS))
        return 1;
    report(4, at);

    /* 5: the engine's last move ends the transfer (no MSGMODE): its
     * status changes at that move, at every offset of the polling loop */
    for (unsigned k = 0; k < STEPS; k++) {
        dma_1d(&desc[0], DMA_DOUBLE, region, BUF, 16);
        unsigned t0 = timer_now();
        nops(k);
        dma_start(0, &desc[0]);
        dma_wait(0);
        took[k] = timer_now() - t0;
    }
    for (unsigned k = 0; k < STEPS; k++) {
        char name[16] = "k ";
        two_digits(name + 2, k);
        say_num(name, took[k]);
    }
    return 0;
}
