/* wand_wait: Adapteva's hardware-barrier lab as its cores run it. Each
 * round every core waits e_wait-style (CTIMER0 set to a count that grows
 * with its rank, counting the clock, a loop calling a function that is
 * `movfs r0, ctimer0; rts` until it reads zero), then arrives at the WAND
 * barrier with the `gid; wand; gie; idle` idiom and sleeps until the
 * interrupt. So for most of a round one core waits for its timer while
 * the others sleep in the barrier, and the waits end one after another.
 * Core (0,0) prints after the rounds how many wake-ups each core had and
 * the sum of the CTIMER0 values every core read right after its waits
 * (each is 0: the loop ends when it reads zero, and the timer stopped). */
#include "multi.h"

#ifndef ROUNDS
#define ROUNDS 6
#endif
#ifndef STEP
#define STEP 0x2000
#endif
#define WAND_BIT (1u << 8)

volatile unsigned wakeups;
volatile unsigned left;
volatile unsigned done[GROUP_SIZE];

void __attribute__((interrupt)) wand_handler(void) { wakeups++; }

/* CTIMER0's value: e-lib's e_ctimer_get shape. */
DEFINE_GET0()

/* e_wait: CTIMER0 stopped, set to `n`, counting the clock, read until it
 * is zero. */
static __attribute__((noinline)) void wait_for(unsigned n)
{
    unsigned cfg;
    __asm__ volatile("movfs %0, config" : "=r"(cfg));
    __asm__ volatile("movts config, %0" : : "r"(cfg & ~0xf0u));
    __asm__ volatile("movts ctimer0, %0" : : "r"(n));
    __asm__ volatile("movts config, %0" : : "r"((cfg & ~0xf0u) | 0x10u));
    while (get0())
        ;
}

int main(void)
{
    unsigned me = my_rank();
    irq_attach(0x20, wand_handler);
    irq_unmask(WAND_BIT);
    for (unsigned r = 0; r < ROUNDS; r++) {
        wait_for(STEP * me + 0x27 + 13 * r);
        left += get0();
        wand_barrier();
    }
    unsigned *d = on_rank(0, (void *)&done[me]);
    *(volatile unsigned *)d = wakeups * 256 + left + 1;
    if (me == 0) {
        for (unsigned k = 0; k < GROUP_SIZE; k++) {
            while (done[k] == 0)
                ;
            say_num("core ", k);
            say_num("wake-ups*256+left ", done[k] - 1);
        }
    }
    return 0;
}
