/* spin_offset: a flag written by another core arrives at every cycle
 * offset of a polling loop (sim/tests/spin.rs).
 *
 * Core (0,0) polls a flag in its own SRAM with a loop that does nothing
 * else (timed mode does such a loop in closed form once it is at its fixed
 * point). Core (0,1) writes the flag after a delay of BASE loop iterations
 * and then k single-cycle NOPs, for k = 0 .. STEPS-1, so that the arrival
 * moves one cycle at a time across more than one period of the loop.
 * Core (0,0) answers each flag at once by raising core (0,1)'s user
 * interrupt (a write of its ILATST), whose handler reads CTIMER0: core
 * (0,1) prints the cycles from the start of its delay to the handler
 *   k <k>: <cycles>
 * (an interrupt, not a second polling loop, so that the time core (0,1)
 * sees does not depend on the phase of its own loop).
 * The other cores return at once. */
#include "multi.h"

#ifndef STEPS
#define STEPS 24
#endif
#ifndef BASE
#define BASE 300
#endif

#define DATA __attribute__((section(".data")))

/* Written by the other core (in .data: crt0 clears .bss, which could wipe
 * a store that arrived before it ran). */
volatile unsigned flag DATA;  /* on (0,0): round k + 1 */
volatile unsigned go DATA;    /* on (0,1): start round k + 1 */
volatile unsigned acked DATA; /* on (0,1): answers counted */
volatile unsigned seen DATA;  /* on (0,1): CTIMER0 at the last answer */

#define USER_BIT (1u << 9)

void __attribute__((interrupt)) user_handler(void)
{
    unsigned t;
    __asm__ volatile("movfs %0, ctimer0" : "=r"(t));
    seen = 0xffffffffu - t;
    acked = acked + 1;
}

int main(void)
{
    unsigned me = my_rank();
    if (me == 0) {
        volatile unsigned *their_go = on_rank(1, &go);
        volatile unsigned *their_ilatst = on_rank(1, (void *)0xf042c);
        for (unsigned k = 0; k < STEPS; k++) {
            *their_go = k + 1;
            while (flag != k + 1)
                ;
            *their_ilatst = USER_BIT;
        }
        return 0;
    }
    if (me != 1)
        return 0;
    volatile unsigned *their_flag = on_rank(0, &flag);
    unsigned took[STEPS];
    irq_attach(0x24, user_handler);
    irq_unmask(USER_BIT);
    timer_start();
    for (unsigned k = 0; k < STEPS; k++) {
        while (go != k + 1)
            ;
        unsigned t0 = timer_now();
        for (unsigned i = 0; i < BASE; i++)
            __asm__ volatile("nop");
        nops(k);
        *their_flag = k + 1;
        while (acked != k + 1)
            __asm__ volatile("idle");
        took[k] = seen - t0;
    }
    for (unsigned k = 0; k < STEPS; k++) {
        char name[16] = "k ";
        two_digits(name + 2, k);
        say_num(name, took[k]);
    }
    return 0;
}
