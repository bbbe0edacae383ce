/* resetcore: core (0,0) resets core (0,1) through its RESETCORE register
 * (1 then 0, as e-hal's e_reset_group does) while (0,1) spins, then starts
 * it again with a SYNC interrupt (ILATST bit 0, as e_start does): (0,1)
 * runs its program from the start a second time (its SRAM kept: `runs`,
 * in .data, counts the starts from 100). Runs on a 1x2 group. */
#include "multi.h"

/* not zero: zero-initialised data is .bss, which crt0 clears at each start */
volatile unsigned runs = 100;
volatile unsigned stop;

#define RESETCORE 0xf070c
#define ILATST 0xf042c

int main(void)
{
    if (my_rank() == 1) {
        runs++;
        while (!stop)
            ;
        return 0;
    }
    volatile unsigned *their_runs = on_core(0, 1, &runs);
    while (*their_runs < 101)
        ;
    volatile unsigned *reset = on_core(0, 1, (void *)RESETCORE);
    *reset = 1;
    *reset = 0;
    *(volatile unsigned *)on_core(0, 1, (void *)ILATST) = 1;
    while (*their_runs < 102)
        ;
    *(volatile unsigned *)on_core(0, 1, &stop) = 1;
    say_num("starts of core (0,1): ", *their_runs - 100);
    return 0;
}
