/* readers: the other cores read a computing core's memory over the mesh
 * while it works, each a different kind of word:
 *   rank 1 a word in the last SRAM bank that nothing writes,
 *   rank 2 a counter in that bank the worker advances as it goes,
 *   ranks 3-15 a word in the bank the worker's code is fetched from
 *          (each read takes the bank from the worker's fetches in its
 *          cycle).
 * Rank 0, the worker, runs a long loop, advancing the counter every 4
 * turns, then raises a done flag. Each reader folds every value it reads
 * into a checksum until it sees the flag; the worker reports the cycles
 * its loop took (CTIMER0), so a read that changed the worker's timing, or
 * a value read at the wrong time, changes what is printed. */
#include "multi.h"

#ifndef TURNS
#define TURNS 1500
#endif

#define BANK3 ((volatile unsigned *)0x6000)
#define CONSTANT (BANK3 + 64) /* its own 64-byte page (0x6100) */
#define COUNTER (BANK3 + 0)
#define DONE (BANK3 + 32) /* a page of its own too (0x6080) */

static unsigned poll(volatile unsigned *word)
{
    volatile unsigned *remote = on_rank(0, word);
    volatile unsigned *done = on_rank(0, DONE);
    unsigned sum = 0, reads = 0;
    while (*done == 0) {
        sum = sum * 31 + *remote;
        reads++;
    }
    return sum ^ reads << 20;
}

int main(void)
{
    unsigned me = my_rank();
    if (me == 0) {
        *CONSTANT = 0x12345678;
        *COUNTER = 0;
        timer_start();
        unsigned t0 = timer_now();
        unsigned v = 1;
        for (unsigned i = 1; i <= TURNS; i++) {
            v = v * 1103515245u + 12345u;
            /* A long run of straight code issuing every cycle: a line
             * fetched every few cycles. */
            unsigned a = v, b = i;
            __asm__ volatile(".rept 48\n\tadd %0,%0,%1\n\teor %1,%1,%0\n\t.endr"
                             : "+r"(a), "+r"(b));
            v ^= a;
            if ((i & 3) == 0)
                *COUNTER = v;
        }
        unsigned t = timer_now() - t0;
        *DONE = 1;
        say_num("readers: worker cycles ", (long)t);
        say_num("readers: worker value ", (long)v);
    } else {
        /* (The worker set its words up: wait a little before looking.) */
        for (volatile int i = 0; i < 200; i++)
            ;
        /* (ranks 3-15: the first word of main's code.) */
        volatile unsigned *word = me == 1   ? CONSTANT
                                  : me == 2 ? COUNTER
                                            : (volatile unsigned *)(uintptr_t)main;
        unsigned s = poll(word);
        say_num(me == 1 ? "readers: constant " : me == 2 ? "readers: counter " : "readers: code bank ", (long)s);
    }
    return 0;
}
