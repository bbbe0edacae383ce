/* poll_remote: cores polling core (0,0)'s memory through the mesh, the
 * same answer coming back again and again, while things change around
 * them; for the strict-vs-fast comparison of a poll's runs done at once
 * (sim/src/core/poll.rs; sim/tests/remote_reads.rs).
 *
 * Every other core r counts clock cycles on CTIMER0 and, for odd r,
 * takes CTIMER1's interrupt some thousands of cycles in (it counts down
 * while the core polls; the handler counts in SRAM).
 * Phase 1: core r loads core (0,0)'s `flag` until it is at least r. Core
 * (0,0) raises it by one at a time, after work of varying length, writing
 * the word beside it and writing `flag` again with its old value first
 * (an answer that does not change), and reading the waiters' code (its
 * reads take their SRAM bank from their fetches).
 * Phase 2: core r takes core (0,0)'s TESTSET lock, which core (0,0) holds
 * while it raises each waiter's user interrupt (ILATST) and writes a word
 * into its SRAM, one after another with work between; then it lets go
 * with the waiters' requests on their way, and each waiter holds the lock
 * a while in turn.
 * Every waiter prints the cycles at which it saw its flag and took the
 * lock, and its handlers' count; core (0,0) the sum of its stamps. */
#include "multi.h"

#define DATA __attribute__((section(".data")))
#define TIMER1_BIT (1u << 4)
#define USER_BIT (1u << 9)

volatile unsigned flag DATA;        /* on (0,0): polled by loads */
volatile unsigned beside DATA;      /* on (0,0): the word after it */
volatile unsigned lock DATA = 1;    /* on (0,0): held by it at the start */
volatile unsigned stamps DATA;      /* on (0,0): the waiters' sum */
volatile unsigned finished DATA;    /* on (0,0): waiters done */
volatile unsigned ticks DATA;       /* on each waiter: its handlers' count */
volatile unsigned mail DATA;        /* on each waiter: written by (0,0) */

void __attribute__((interrupt)) user_handler(void) { ticks = ticks + 1; }

void __attribute__((interrupt)) timer1_handler(void) { ticks = ticks + 0x100; }

static unsigned work(unsigned n, unsigned seed) { return lcg_work(n, seed); }

int main(void)
{
    unsigned me = my_rank();
    unsigned sink = 0;
    if (me == 0) {
        for (unsigned k = 1; k < GROUP_SIZE; k++) {
            sink += work(100 + 37 * k, k);
            /* reads of the code of the waiters' polling loops */
            for (unsigned j = 0; j < 24; j++)
                sink += *(volatile unsigned *)on_rank(1 + (k + j) % (GROUP_SIZE - 1),
                                                      (void *)((uintptr_t)main & ~7u));
            beside = k;
            sink += work(40, k);
            flag = k - 1;
            sink += work(20 + 3 * k, k);
            flag = k;
        }
        for (unsigned r = 1; r < GROUP_SIZE; r++) {
            sink += work(60 + 13 * r, r);
            *(volatile unsigned *)on_rank(r, (void *)0xf042c) = USER_BIT;
            sink += work(30 + 7 * r, r);
            *(volatile unsigned *)on_rank(r, &mail) = r;
        }
        sink += work(300, 1);
        lock = 0;
        while (finished != GROUP_SIZE - 1)
            ;
        say_num("stamps: ", stamps);
        say_num("sink: ", sink & 0xff);
        return 0;
    }
    irq_attach(0x24, user_handler);
    irq_attach(0x10, timer1_handler);
    timer_start();
    if (me & 1) {
        unsigned t1 = 3000 + 400 * me, cfg;
        __asm__ volatile("movts ctimer1, %0" : : "r"(t1));
        __asm__ volatile("movfs %0, config" : "=r"(cfg));
        cfg = (cfg & ~0xf00u) | 0x100u;
        __asm__ volatile("movts config, %0" : : "r"(cfg));
    }
    irq_unmask(USER_BIT | TIMER1_BIT);
    volatile unsigned *f = on_rank(0, &flag);
    while (*f < me)
        ;
    unsigned seen = timer_now();
    volatile unsigned *l = on_rank(0, &lock);
    lock_acquire(l, coreid());
    unsigned took = timer_now();
    volatile unsigned *s = on_rank(0, &stamps);
    *s = *s + (took & 0xffff);
    sink += work(30 + 5 * me, me);
    lock_release(l);
    char name[16] = "flag r";
    two_digits(name + 6, me);
    say_num(name, seen);
    memcpy(name, "lock", 4);
    say_num(name, took);
    memcpy(name, "tick", 4);
    say_num(name, ticks + mail * 0x10000);
    volatile unsigned *fin = on_rank(0, &finished);
    lock_acquire(l, coreid());
    *fin = *fin + 1;
    lock_release(l);
    return (int)(sink & 0);
}
