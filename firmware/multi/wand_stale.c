/* wand_stale: a WAND barrier completed by flags left set from the one
 * before. All cores pass a barrier (`gid; wand; gie; idle`); rank 0 then
 * clears its STATUS.WAND at once and executes WAND again without sleeping,
 * while every other core works a while (a loop whose length grows with its
 * rank) before it clears its own flag. If every other flag is still set
 * when rank 0's second WAND comes, the wired AND is high and the barrier
 * completes again: every core takes a second WAND interrupt. Rank 0 waits
 * a bounded while for it and then tells the others through their SRAM.
 * Then the same with flags raised by MOVTS: every other core sets its
 * STATUS.WAND with a MOVTS, works a while, and clears it; rank 0 executes
 * WAND meanwhile, which completes the barrier. Each core reports its
 * interrupt count after each part. */
#include "multi.h"

#ifndef WORK
#define WORK 40
#endif
#define WAND_BIT (1u << 8)

volatile unsigned wakeups;
volatile unsigned go;
volatile unsigned report[GROUP_SIZE];
volatile unsigned report2[GROUP_SIZE];

void __attribute__((interrupt)) wand_handler(void) { wakeups++; }

static inline void clear_wand(void)
{
    unsigned st;
    __asm__ volatile("movfs %0, status" : "=r"(st));
    st &= ~8u;
    __asm__ volatile("movts status, %0" : : "r"(st));
}

static inline void set_wand(void)
{
    unsigned st;
    __asm__ volatile("movfs %0, status" : "=r"(st));
    st |= 8u;
    __asm__ volatile("movts status, %0" : : "r"(st));
}

static void tell_others(unsigned v)
{
    for (unsigned r = 1; r < GROUP_SIZE; r++)
        *(volatile unsigned *)on_rank(r, (void *)&go) = v;
}

/* Rank 0: WAND, then up to 3000 turns waiting for the interrupt that
 * makes `wakeups` reach `n`. */
static void wand_and_wait(unsigned n)
{
    __asm__ volatile("gid\n\twand\n\tgie" ::: "memory");
    for (unsigned k = 0; wakeups < n && k < 3000; k++)
        ;
    clear_wand();
}

int main(void)
{
    unsigned me = my_rank();
    irq_attach(0x20, wand_handler);
    irq_unmask(WAND_BIT);
    /* every core here, flags clear */
    wand_barrier();
    __asm__ volatile("gid\n\t"
                     "wand\n\t"
                     ".balignw 8,0x01a2\n\t"
                     "gie\n\t"
                     "idle" ::: "memory");
    if (me == 0) {
        clear_wand();
        wand_and_wait(2);
        tell_others(1);
    } else {
        for (volatile unsigned k = 0; k < WORK * me; k++)
            ;
        clear_wand();
        while (go != 1)
            ;
    }
    *(volatile unsigned *)on_rank(0, (void *)&report[me]) = 1 + wakeups;
    if (me == 0) {
        for (unsigned r = 0; r < GROUP_SIZE; r++)
            while (report[r] == 0)
                ;
        tell_others(2);
        for (volatile unsigned k = 0; k < WORK; k++)
            ;
        wand_and_wait(wakeups + 1);
        tell_others(3);
    } else {
        while (go != 2)
            ;
        set_wand();
        for (volatile unsigned k = 0; k < WORK * 4 + 2 * me; k++)
            ;
        clear_wand();
        while (go != 3)
            ;
    }
    *(volatile unsigned *)on_rank(0, (void *)&report2[me]) = 1 + wakeups;
    if (me == 0) {
        for (unsigned r = 0; r < GROUP_SIZE; r++) {
            while (report2[r] == 0)
                ;
            say_num("core ", r);
            say_num("wake-ups ", report[r] - 1);
            say_num("then ", report2[r] - 1);
        }
    }
    return 0;
}
