/* wand_idle: ROUNDS WAND barriers with the interrupt idiom of Adapteva's
 * hardware-barrier example: `gid; wand; gie; idle` with GIE and IDLE in
 * one 8-byte line, so no interrupt can come between them. Each core
 * works a time that depends on its rank and round, writes the round into
 * every core's table, and sleeps in the barrier until the WAND interrupt
 * wakes it; after it, every entry of its table must be this round. The
 * last core to arrive latches the interrupt while GID holds it and must
 * take it in its IDLE: taken between GIE and IDLE, it would return into
 * the IDLE and sleep forever. */
#include "multi.h"

#define ROUNDS 8
#define WAND_BIT (1u << 8)

volatile unsigned table[GROUP_SIZE];
volatile unsigned wakeups;

/* The WAND interrupt (ILAT[8], cleared on entry). (STATUS.WAND is
 * cleared after the barrier: the handler's epilogue restores STATUS.) */
void __attribute__((interrupt)) wand_handler(void) { wakeups++; }

int main(void)
{
    unsigned me = my_rank();
    irq_attach(0x20, wand_handler);
    irq_unmask(WAND_BIT);
    for (unsigned round = 1; round <= ROUNDS; round++) {
        /* a different core arrives last in each round */
        unsigned spin = ((me + round * 5) % GROUP_SIZE) * 40;
        for (volatile unsigned k = 0; k < spin; k++)
            ;
        for (unsigned r = 0; r < GROUP_SIZE; r++) {
            volatile unsigned *t = on_rank(r, &table[me]);
            *t = round;
        }
        wand_barrier();
        for (unsigned r = 0; r < GROUP_SIZE; r++) {
            if (table[r] != round) {
                say_num("stale entry from rank ", r);
                return 1;
            }
        }
        wand_barrier();
    }
    if (wakeups != 2 * ROUNDS) {
        say_num("wake-ups: ", wakeups);
        return 1;
    }
    if (me == 0)
        say_num("idle barriers passed: ", ROUNDS);
    return 0;
}
