/* fault_spin: a fault ends the run while the other cores wait. The core
 * of rank FAULTER works for a while, then loads from an address nothing
 * answers (an access fault: the run stops there with the default fault
 * policy); every other core polls a word of its own SRAM that nothing
 * writes, half of them with CTIMER0 counting the clock (as Epiphany
 * BSP's cores do). Strict cycle order and the fast scheduler must leave
 * every core at the same cycle when the run stops, however long the
 * pollers have been parked. */
#include "multi.h"

#ifndef FAULTER
#define FAULTER 0
#endif

static volatile unsigned flag;

int main(void)
{
    unsigned rank = my_rank();
    if (rank == FAULTER) {
        unsigned x = lcg_work(3000, 7);
        /* Nothing answers at 0x40000000 (row 16, column 0: off the
         * chip, past no eLink that leads anywhere). */
        volatile unsigned *nowhere = (volatile unsigned *)0x40000000;
        x += *nowhere;
        say_num("not reached: ", (long)x);
        return 1;
    }
    if (rank & 1)
        timer_start();
    while (flag == 0)
        ;
    say("not reached\n");
    return 1;
}
