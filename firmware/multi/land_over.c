/* land_over: core (0,1) stores counts into a word of core (0,0)'s SRAM
 * (0x4000, bank 2) every few cycles while (0,0), in a loop, stores its own
 * count into the same word each iteration and every 64th iteration folds
 * the word into a checksum: who wrote it last. Timed mode takes a write
 * from the mesh into a core that ran ahead past it without going back
 * only if the core neither read nor wrote the write's page since its
 * checkpoint (`Machine::write_in_past`); here (0,0) writes the page, so
 * each count takes it back, or the count would have overwritten stores
 * (0,0) made after it landed (sim/tests/multicore.rs: fast = strict,
 * golden). The other cores have nothing to do. */
#include "multi.h"

#define WORD ((volatile unsigned *)0x4000)
#define STORES 3000
#define LOOPS 12000

int main(void)
{
    unsigned me = my_rank();
    if (me == 1) {
        volatile unsigned *there = on_rank(0, WORD);
        for (unsigned k = 1; k <= STORES; k++) {
            nops(k % 23);
            *there = 100000 + k;
        }
        return 0;
    }
    if (me != 0)
        return 0;
    unsigned s = 0, x = 1;
    for (unsigned i = 0; i < LOOPS; i++) {
        *WORD = i;
        x = x * 1103515245u + 12345u;
        if ((i & 63) == 63)
            s = s * 31 + *WORD + (x >> 20);
    }
    say_num("sum: ", (long)s);
    return 0;
}
