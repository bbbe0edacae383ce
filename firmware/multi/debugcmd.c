/* debugcmd: core (0,0) halts core (0,1) through its DEBUGCMD register,
 * checks DEBUGSTATUS.HALT and that (0,1)'s counter stands still, resumes
 * it and sees the counter move again, then tells it to stop. Runs on a
 * 1x2 group. */
#include "multi.h"

volatile unsigned counter;
volatile unsigned stop;

#define DEBUGSTATUS 0xf040c
#define DEBUGCMD 0xf0448

int main(void)
{
    if (my_rank() == 1) {
        while (!stop)
            counter++;
        return 0;
    }
    volatile unsigned *their_counter = on_core(0, 1, &counter);
    volatile unsigned *cmd = on_core(0, 1, (void *)DEBUGCMD);
    volatile unsigned *status = on_core(0, 1, (void *)DEBUGSTATUS);
    while (*their_counter < 10)
        ;
    *cmd = 1; /* halt */
    while (!(*status & 1))
        ;
    unsigned a = *their_counter;
    for (volatile int i = 0; i < 100; i++)
        ;
    unsigned b = *their_counter;
    *cmd = 0; /* resume */
    while (*their_counter == b)
        ;
    *(volatile unsigned *)on_core(0, 1, &stop) = 1;
    say_num("halted: ", a == b);
    say_num("resumed: ", *their_counter > b);
    return a == b ? 0 : 1;
}
