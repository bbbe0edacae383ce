/* tick_dev: a core that counts, for host/tests/c/hosttime.c. It starts
 * CTIMER0 counting clock cycles down from 0xffffffff, then for ever
 * stores, in its SRAM at 0x6000 (TICK_OUT):
 *   [0] the loop's iteration count,
 *   [1] the cycles since the timer started,
 *   [2] a message number, [1] / 16384 capped at 16: a new message every
 *       16384 cycles, as a core that reports progress to a polling host. */
#include "edev.h"

#define OUT ((volatile unsigned *)0x6000)

int main(void)
{
    unsigned config, n = 0;
    __asm__ volatile("movts ctimer0, %0" : : "r"(0xffffffffu));
    __asm__ volatile("movfs %0, config" : "=r"(config));
    config = (config & ~0xf0u) | 0x10u; /* CTIMER0: clock cycles */
    __asm__ volatile("movts config, %0" : : "r"(config));
    for (;;) {
        unsigned t;
        __asm__ volatile("movfs %0, ctimer0" : "=r"(t));
        t = ~t;
        OUT[0] = ++n;
        OUT[1] = t;
        OUT[2] = t >> 14 < 16 ? t >> 14 : 16;
    }
}
