/* pingpong: core (0,0) and the group's core PARTNER (a rank) bounce a
 * counter ROUNDS times: each waits for the other's value in its own SRAM,
 * then writes the next one into the other's. Core (0,0) prints the average
 * round trip in cycles, measured with CTIMER0. Remote loads are timed too:
 * core (0,0) reads a word from the partner READS times. */
#include "multi.h"

#ifndef PARTNER
#define PARTNER 1
#endif
#define ROUNDS 16
#define READS 16

volatile unsigned ball;
volatile unsigned word = 42;

int main(void)
{
    unsigned me = my_rank();
    if (me == 0) {
        volatile unsigned *there = on_rank(PARTNER, &ball);
        timer_start();
        unsigned t0 = timer_now();
        for (unsigned i = 1; i <= ROUNDS; i++) {
            *there = 2 * i - 1;
            while (ball != 2 * i)
                ;
        }
        unsigned t1 = timer_now();
        say_num("round trip cycles x16: ", (long)((t1 - t0) * 16 / ROUNDS));
        volatile unsigned *w = on_rank(PARTNER, &word);
        unsigned sum = 0;
        t0 = timer_now();
        for (unsigned i = 0; i < READS; i++)
            sum += *w;
        t1 = timer_now();
        say_num("remote load cycles x16: ", (long)((t1 - t0) * 16 / READS));
        return sum == 42 * READS ? 0 : 1;
    }
    if (me == PARTNER) {
        volatile unsigned *there = on_rank(0, &ball);
        for (unsigned i = 1; i <= ROUNDS; i++) {
            while (ball != 2 * i - 1)
                ;
            *there = 2 * i;
        }
    }
    return 0;
}
