/* store_reply: core (0,0) writes a number into core (0,1)'s SRAM and
 * counts, in a loop that changes a register each pass (not a loop at a
 * fixed point, which the scheduler parks), until (0,1)'s answer lands in
 * its own SRAM; (0,1), parked on its word, answers after a few cycles of
 * work. The count says in which cycle the answer landed. For the strict-
 * vs-fast comparison of a store sent into the network as soon as the
 * core issues it, the core running on (sim/src/sched.rs,
 * `Machine::store_early`): its turn must end before the answer can come
 * back. Core (0,0) prints the sum of its counts and the cycles the rounds
 * took. */
#include "multi.h"

#define DATA __attribute__((section(".data")))
#define ROUNDS 200

volatile unsigned ping DATA; /* on (0,1) */
volatile unsigned pong DATA; /* on (0,0) */

int main(void)
{
    unsigned me = my_rank();
    timer_start();
    if (me == 0) {
        volatile unsigned *there = on_rank(1, &ping);
        unsigned sum = 0;
        unsigned t0 = timer_now();
        for (unsigned k = 1; k <= ROUNDS; k++) {
            unsigned n = 0;
            *there = k;
            while (pong != k)
                n++;
            sum = sum * 3 + n;
            nops(k % 5);
        }
        say_num("sum: ", (long)sum);
        say_num("cycles: ", (long)(timer_now() - t0));
        return 0;
    }
    if (me != 1)
        return 0;
    volatile unsigned *back = on_rank(0, &pong);
    for (unsigned k = 1; k <= ROUNDS; k++) {
        while (ping != k)
            ;
        nops(k % 3);
        *back = k;
    }
    return 0;
}
