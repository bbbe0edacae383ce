/* land_ahead: core (0,1) stores a count into a word of core (0,0)'s SRAM
 * (0x4000, bank 2) every few cycles while (0,0) computes in a loop that
 * folds a word of that bank into a checksum each iteration: first the
 * word 1 KB beside it (another 512-byte page), then the word itself.
 * Timed mode takes a write from the mesh into a core that ran ahead past
 * it without going back only if the core read nothing of the write's page
 * since its checkpoint (`Machine::write_in_past`): in the first part the
 * counts land there, in the second each must take (0,0) back, or it would
 * have read old counts (sim/tests/multicore.rs: fast = strict, golden).
 * The other cores have nothing to do. */
#include "multi.h"

#define WORD ((volatile unsigned *)0x4000)
#define BESIDE ((volatile unsigned *)0x4400)
#define STORES 3000
#define LOOPS 6000

int main(void)
{
    unsigned me = my_rank();
    if (me == 1) {
        volatile unsigned *there = on_rank(0, WORD);
        for (unsigned k = 1; k <= STORES; k++) {
            nops(k % 23);
            *there = k;
        }
        return 0;
    }
    if (me != 0)
        return 0;
    *BESIDE = 7;
    unsigned a = 0, b = 0;
    for (unsigned i = 0; i < LOOPS; i++)
        a = a * 31 + *BESIDE + (i ^ (a >> 7));
    for (unsigned i = 0; i < LOOPS; i++)
        b = b * 31 + *WORD + (i ^ (b >> 7));
    say_num("beside: ", (long)a);
    say_num("word: ", (long)b);
    say_num("last: ", (long)*WORD);
    return 0;
}
