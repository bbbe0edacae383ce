/* timer_wait: cores that wait for their own CTIMER0 counting the clock
 * with an e_wait-style loop (a call of a function that is
 * `movfs r0, ctimer0; rts`, a compare, a branch), between pieces of work
 * they time with reads of the timer before and after (sim/tests/spin.rs).
 *
 * Every core, for round r = 0 .. ROUNDS-1: an LCG over a table for a
 * number of rounds that depends on the core and r, timed; then a wait of
 * D = WAIT + 977 * rank + 131 * r cycles with the loop; then the timer
 * read again. It prints per round
 *   work <cycles the work took> / left <timer after the wait> / x <x>
 * where x is the LCG seeded with the timer values read; then a second loop
 * waits until the timer, counting from its maximum, reads D below it or
 * less (`> t`, a compare with a register):
 *   waited <cycles from before the wait to after it> / below <how far
 *   below the threshold the last value read was>
 * Then, with CTIMER0's interrupt enabled and CTIMER1 counting the clock
 * from its maximum too, three more waits of D - 1000 * r cycles with the
 * e_wait loop, the handler reading CTIMER1:
 *   irq <cycles from the start to the handler> / irqs <handler runs> */
#include "multi.h"

#ifndef ROUNDS
#define ROUNDS 4
#endif
#ifndef WAIT
#define WAIT 40000
#endif

#define DATA __attribute__((section(".data")))

unsigned table[64] DATA;
volatile unsigned at DATA;   /* CTIMER1 in CTIMER0's handler */
volatile unsigned irqs DATA; /* CTIMER0's handler runs */

void __attribute__((interrupt)) timer0_handler(void)
{
    unsigned t;
    __asm__ volatile("movfs %0, ctimer1" : "=r"(t));
    at = t;
    irqs++;
}

/* CTIMER0's value: e-lib's e_ctimer_get shape. */
DEFINE_GET0()

static __attribute__((noinline)) void set0(unsigned v)
{
    __asm__ volatile("movts ctimer0, %0" : : "r"(v));
}

/* CTIMER0 counting the clock from `v`. */
static __attribute__((noinline)) void start0(unsigned v)
{
    unsigned cfg;
    __asm__ volatile("movfs %0, config" : "=r"(cfg));
    __asm__ volatile("movts config, %0" : : "r"(cfg & ~0xf0u));
    set0(v);
    __asm__ volatile("movts config, %0" : : "r"((cfg & ~0xf0u) | 0x10u));
}

/* Waits until CTIMER0 reads zero (e_wait's loop). */
static __attribute__((noinline)) void wait_zero(void)
{
    while (get0())
        ;
}

/* Waits until CTIMER0 reads `t` or less: the last value read. */
static __attribute__((noinline)) unsigned wait_below(unsigned t)
{
    unsigned v;
    while ((v = get0()) > t)
        ;
    return v;
}

static __attribute__((noinline)) unsigned work(unsigned n, unsigned x)
{
    for (unsigned i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        table[i & 63] += x >> 16;
    }
    return x;
}

int main(void)
{
    unsigned me = my_rank();
    unsigned x = 1 + me;
    for (unsigned r = 0; r < ROUNDS; r++) {
        start0(0xffffffffu);
        unsigned t0 = get0();
        x = work(50 + 37 * me + 91 * r, x);
        unsigned t1 = get0();
        unsigned d = WAIT + 977 * me + 131 * r;
        start0(d);
        wait_zero();
        unsigned left = get0();
        x = work(3, x ^ t0 ^ t1 ^ left);
        say_num("work ", t0 - t1);
        say_num("left ", left);
        say_num("x ", x);
        start0(0xffffffffu);
        unsigned a = get0();
        unsigned v = wait_below(0xffffffffu - d);
        unsigned b = get0();
        say_num("waited ", a - b);
        say_num("below ", 0xffffffffu - d - v);
    }
    irq_attach(0x0c, timer0_handler);
    irq_unmask(1u << 3);
    for (unsigned r = 0; r < 3; r++) {
        unsigned cfg, d = WAIT + 977 * me - 1000 * r;
        __asm__ volatile("movfs %0, config" : "=r"(cfg));
        __asm__ volatile("movts config, %0" : : "r"(cfg & ~0xff0u));
        __asm__ volatile("movts ctimer1, %0" : : "r"(0xffffffffu));
        set0(d);
        __asm__ volatile("movts config, %0" : : "r"((cfg & ~0xff0u) | 0x110u));
        wait_zero();
        say_num("irq ", 0xffffffffu - at);
        say_num("irqs ", irqs);
    }
    return 0;
}
