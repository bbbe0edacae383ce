/* served_asleep: the other cores read core (0,0)'s SRAM over the mesh,
 * several at once so that their requests queue at its memory, while
 * (0,0) does not run: first parked in a polling loop on a local flag,
 * then asleep in IDLE. For the strict-vs-fast comparison of requests
 * reaching a memory whose core is parked or asleep (sim/src/sched.rs,
 * `Machine::deliver_direct` leaves those to the scheduler's steps).
 *
 * Ranks 2-15 wait for (0,0) to say it is parked (`phase` 1), fold READS
 * words of (0,0)'s table into a checksum, and tell rank 1; rank 1, once
 * all have, raises (0,0)'s `go`. (0,0) says it sleeps (`phase` 2) and
 * sleeps; the readers read again, tell rank 1, and rank 1 wakes (0,0)
 * with its user interrupt. Each reader prints its checksum and the
 * cycles each phase of reading took; (0,0) how long it was parked and
 * asleep. */
#include "multi.h"

#define DATA __attribute__((section(".data")))
#define USER_BIT (1u << 9)
#define READS 48

volatile unsigned phase DATA;      /* on (0,0): 1 parked, 2 asleep */
volatile unsigned go DATA;         /* on (0,0): raised by rank 1 */
volatile unsigned woken DATA;      /* on (0,0): its handler ran */
volatile unsigned table[32] DATA;  /* on (0,0): read by the others */
volatile unsigned done[2][GROUP_SIZE] DATA; /* on rank 1 */

void __attribute__((interrupt)) user_handler(void) { woken = 1; }

static unsigned fold(unsigned me)
{
    unsigned sum = 0;
    for (unsigned k = 0; k < READS; k++)
        sum = sum * 31 + *(volatile unsigned *)on_rank(0, &table[(me * 5 + k * 3) % 32]);
    return sum;
}

int main(void)
{
    unsigned me = my_rank();
    timer_start();
    if (me == 0) {
        for (unsigned i = 0; i < 32; i++)
            table[i] = (i + 1) * 2654435761u;
        irq_attach(0x24, user_handler);
        irq_unmask(USER_BIT);
        phase = 1;
        unsigned t0 = timer_now();
        while (!go)
            ;
        unsigned t1 = timer_now();
        phase = 2;
        while (!woken)
            __asm__ volatile("idle");
        unsigned t2 = timer_now();
        say_num("parked: ", (long)(t1 - t0));
        say_num("asleep: ", (long)(t2 - t1));
        return 0;
    }
    if (me == 1) {
        for (unsigned p = 0; p < 2; p++) {
            for (unsigned r = 2; r < GROUP_SIZE; r++)
                while (!done[p][r])
                    ;
            if (p == 0)
                *(volatile unsigned *)on_rank(0, &go) = 1;
            else
                *(volatile unsigned *)on_rank(0, (void *)0xf042c) = USER_BIT;
        }
        return 0;
    }
    volatile unsigned *ph = on_rank(0, &phase);
    unsigned sum = 0, took[2];
    for (unsigned p = 0; p < 2; p++) {
        while (*ph != p + 1)
            ;
        unsigned t = timer_now();
        sum = sum * 7 + fold(me);
        took[p] = timer_now() - t;
        *(volatile unsigned *)on_rank(1, &done[p][me]) = 1;
    }
    say_num("sum: ", (long)sum);
    say_num("parked reads: ", (long)took[0]);
    say_num("asleep reads: ", (long)took[1]);
    return 0;
}
