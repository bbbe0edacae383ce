/* dram_fetch: every core of the group runs a loop whose code is in
 * external DRAM (section .dram_text, linked at 0x8e100000; every core
 * runs the same copy). The loop is one 8-byte line (sub, bne): each
 * iteration's taken branch refetches that line from DRAM, so a core alone
 * pays a DRAM read per iteration, and cores running it together share
 * external memory's read port. Each core prints the cycles one iteration
 * takes x100, from the difference between two runs (300 and 100
 * iterations: the call, the return and the loop's end cancel out). */
#include "multi.h"

__attribute__((section(".dram_text"), noinline)) void spin(unsigned n)
{
    __asm__ volatile(".balign 8\n"
                     "1: sub %0, %0, 1\n"
                     "   bne 1b\n"
                     : "+r"(n));
}

static unsigned timed_spin(unsigned n)
{
    unsigned t0 = timer_now();
    spin(n);
    return timer_now() - t0;
}

int main(void)
{
    timer_start();
    unsigned few = timed_spin(100);
    unsigned many = timed_spin(300);
    say_num("cycles per iteration x100: ", (long)((many - few) * 100u / 200u));
    return 0;
}
