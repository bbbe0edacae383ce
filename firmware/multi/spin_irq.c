/* spin_irq: interrupts taken in the middle of a polling loop
 * (sim/tests/spin.rs).
 *
 * Core (0,0) polls a counter in its own SRAM that only its user-interrupt
 * handler changes. Core (0,1), for k = 0 .. STEPS-1, waits BASE loop
 * iterations and k NOPs, then raises that interrupt by writing core
 * (0,0)'s ILATST; the handler counts, the loop sees the count and core
 * (0,0) answers by raising core (0,1)'s user interrupt, whose handler
 * reads CTIMER0. Core (0,1) prints the cycles from the start of its delay
 * to that handler
 *   irq k <k>: <cycles>
 * Core (0,2) polls a flag that its CTIMER0 interrupt handler sets, the
 * timer counting clock cycles down from TIMER_CYCLES with CTIMER1
 * counting them from its maximum beside it; the handler reads CTIMER1:
 *   timer: <cycles from the start to the handler>
 * The other cores return at once. */
#include "multi.h"

#ifndef STEPS
#define STEPS 16
#endif
#ifndef BASE
#define BASE 300
#endif
#ifndef TIMER_CYCLES
#define TIMER_CYCLES 5000
#endif

#define DATA __attribute__((section(".data")))
#define TIMER0_BIT (1u << 3)
#define USER_BIT (1u << 9)

volatile unsigned hits DATA; /* on (0,0): the handler's count */
volatile unsigned go DATA;   /* on (0,1): start round k + 1 */
volatile unsigned seen DATA; /* on (0,1): CTIMER0 at the last answer */
volatile unsigned fired DATA; /* on (0,2): CTIMER1 when the handler ran */

/* On (0,0): counts; on (0,1): counts and notes the time. */
void __attribute__((interrupt)) user_handler(void)
{
    unsigned t;
    __asm__ volatile("movfs %0, ctimer0" : "=r"(t));
    seen = 0xffffffffu - t;
    hits = hits + 1;
}

void __attribute__((interrupt)) timer_handler(void)
{
    unsigned t;
    __asm__ volatile("movfs %0, ctimer1" : "=r"(t));
    fired = 0xffffffffu - t;
}

int main(void)
{
    unsigned me = my_rank();
    if (me == 0) {
        irq_attach(0x24, user_handler);
        irq_unmask(USER_BIT);
        volatile unsigned *their_go = on_rank(1, &go);
        volatile unsigned *their_ilatst = on_rank(1, (void *)0xf042c);
        for (unsigned k = 0; k < STEPS; k++) {
            *their_go = k + 1;
            while (hits != k + 1)
                ;
            *their_ilatst = USER_BIT;
        }
        return 0;
    }
    if (me == 1) {
        volatile unsigned *their_ilatst = on_rank(0, (void *)0xf042c);
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
            *their_ilatst = USER_BIT;
            while (hits != k + 1)
                __asm__ volatile("idle");
            took[k] = seen - t0;
        }
        for (unsigned k = 0; k < STEPS; k++) {
            char name[16] = "irq k ";
            two_digits(name + 6, k);
            say_num(name, took[k]);
        }
        return 0;
    }
    if (me == 2) {
        irq_attach(0x0c, timer_handler);
        irq_unmask(TIMER0_BIT);
        unsigned t0 = TIMER_CYCLES, t1 = 0xffffffffu, cfg;
        __asm__ volatile("movts ctimer0, %0" : : "r"(t0));
        __asm__ volatile("movts ctimer1, %0" : : "r"(t1));
        __asm__ volatile("movfs %0, config" : "=r"(cfg));
        cfg = (cfg & ~0xff0u) | 0x110u;
        __asm__ volatile("movts config, %0" : : "r"(cfg));
        while (!fired)
            ;
        say_num("timer: ", fired);
    }
    return 0;
}
