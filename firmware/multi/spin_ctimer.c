/* spin_ctimer: the core timers counting while a core polls its own SRAM
 * (sim/tests/spin.rs).
 *
 * For each of CTIMER1's events in turn (RA stalls, IALU instructions),
 * core (0,0) starts CTIMER0 counting clock cycles and CTIMER1 that event,
 * asks core (0,1) for a flag and polls for it; core (0,1) waits BASE loop
 * iterations before it writes the flag, timing its wait with its own
 * CTIMER0. Core (0,0) then prints
 *   event <code>: clock <CTIMER0's count> count <CTIMER1's> writer <core (0,1)'s wait>
 * The other cores return at once. */
#include "multi.h"

#ifndef BASE
#define BASE 700
#endif

#define DATA __attribute__((section(".data")))

volatile unsigned flag DATA;   /* on (0,0): round r + 1 */
volatile unsigned waited DATA; /* on (0,0): core (0,1)'s wait in round r */
volatile unsigned go DATA;     /* on (0,1): start round r + 1 */

static const unsigned events[2] = {0x8, 0x4}; /* RA stalls, IALU insts */

int main(void)
{
    unsigned me = my_rank();
    if (me == 0) {
        volatile unsigned *their_go = on_rank(1, &go);
        for (unsigned r = 0; r < 2; r++) {
            unsigned max = 0xffffffffu, cfg, c0, c1;
            __asm__ volatile("movts ctimer0, %0" : : "r"(max));
            __asm__ volatile("movts ctimer1, %0" : : "r"(max));
            __asm__ volatile("movfs %0, config" : "=r"(cfg));
            cfg = (cfg & ~0xff0u) | events[r] << 8 | 0x10u;
            __asm__ volatile("movts config, %0" : : "r"(cfg));
            *their_go = r + 1;
            while (flag != r + 1)
                ;
            __asm__ volatile("movfs %0, ctimer0" : "=r"(c0));
            __asm__ volatile("movfs %0, ctimer1" : "=r"(c1));
            __asm__ volatile("movts config, %0" : : "r"(cfg & ~0xff0u));
            say_num("event ", events[r]);
            say_num("clock ", 0xffffffffu - c0);
            say_num("count ", 0xffffffffu - c1);
            say_num("writer ", waited);
        }
        return 0;
    }
    if (me != 1)
        return 0;
    volatile unsigned *their_flag = on_rank(0, &flag);
    volatile unsigned *their_waited = on_rank(0, &waited);
    timer_start();
    for (unsigned r = 0; r < 2; r++) {
        while (go != r + 1)
            ;
        unsigned t0 = timer_now();
        for (unsigned i = 0; i < BASE; i++)
            __asm__ volatile("nop");
        *their_waited = timer_now() - t0;
        *their_flag = r + 1;
    }
    return 0;
}
