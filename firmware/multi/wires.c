/* wires: the WAND barrier and SYNC with cores arriving within a few cycles
 * of each other (sim/tests/spin.rs: fast, fast in slices and strict
 * agree; SYNC's latency grows with the hops).
 *
 * WAND: ROUNDS barriers (`gid; wand; gie; idle`, GIE and IDLE in one
 * 8-byte line); before round k every core waits (rank * k) % 29 NOPs, so
 * the cores arrive within 28 cycles of each other, in another order each
 * round. The WAND handler notes CTIMER0 (counting since the start).
 *
 * SYNC: after the last barrier, core SENDER waits DELAY cycles and
 * executes SYNC. Cores of even rank (but the sender) sleep in IDLE;
 * those of odd rank compute, looking at a flag between steps. Every SYNC
 * handler (IVT slot 0, where the start-up branch was) notes CTIMER0 and
 * sets the flag. Each core prints
 *   wand: <sum of its WAND handler times>
 *   sync: <its SYNC handler time>
 *   work: <its computation's result> (odd ranks) */
#include "multi.h"

#ifndef ROUNDS
#define ROUNDS 12
#endif
#ifndef SENDER
#define SENDER 5
#endif
#ifndef DELAY
#define DELAY 200
#endif

#define DATA __attribute__((section(".data")))
#define SYNC_BIT (1u << 0)
#define WAND_BIT (1u << 8)

volatile unsigned wand_sum DATA;
volatile unsigned sync_at DATA;
volatile unsigned synced DATA;

void __attribute__((interrupt)) wand_handler(void) { wand_sum += timer_now(); }

void __attribute__((interrupt)) sync_handler(void)
{
    sync_at = timer_now();
    synced = 1;
}

int main(void)
{
    unsigned me = my_rank();
    timer_start();
    irq_attach(0x20, wand_handler);
    irq_attach(0x00, sync_handler);
    irq_unmask(WAND_BIT | SYNC_BIT);
    for (unsigned k = 1; k <= ROUNDS; k++) {
        nops((me * k) % 29);
        wand_barrier();
    }
    unsigned work = me;
    if (me == SENDER) {
        unsigned t0 = timer_now();
        while (timer_now() - t0 < DELAY)
            ;
        __asm__ volatile("sync" ::: "memory");
        while (!synced)
            ;
    } else if (me % 2 == 0) {
        while (!synced)
            __asm__ volatile("idle" ::: "memory");
    } else {
        while (!synced)
            work = work * 33 + (work >> 7) + 1;
    }
    say_num("wand: ", wand_sum);
    say_num("sync: ", sync_at);
    if (me % 2 == 1)
        say_num("work: ", work);
    return 0;
}
