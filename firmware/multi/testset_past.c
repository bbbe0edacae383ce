/* testset_past: ranks 1-3 take a TESTSET lock whose word lies in core
 * (0,0)'s SRAM (0x4000, bank 2), bump a counter in rank 1's SRAM while
 * they hold it, and let it go, ROUNDS times each, while (0,0) computes
 * and every 32nd iteration folds the lock word into a checksum (who held
 * it then). A TESTSET reaching (0,0) after it ran ahead past the arrival
 * is answered where (0,0) stands only if it finds the word taken (not
 * zero: it writes nothing, a read) and the word was not written since
 * the checkpoint (`Machine::read_in_past`); one that finds it free takes
 * (0,0) back, or (0,0)'s reads of the word since then would have seen it
 * free (sim/tests/remote_reads.rs: fast = strict, golden). Then (0,0)
 * waits for the three to say they are done and prints the counter, which
 * is 3 * ROUNDS only if no two held the lock at once. */
#include "multi.h"

#define LOCK ((volatile unsigned *)0x4000)
#define DONE ((volatile unsigned *)0x4100)
#define COUNT ((volatile unsigned *)0x4000)
#define ROUNDS 300
#define LOOPS 24000

int main(void)
{
    unsigned me = my_rank();
    if (me >= 1 && me <= 3) {
        volatile unsigned *lock = on_rank(0, LOCK);
        volatile unsigned *count = on_rank(1, COUNT);
        for (unsigned k = 1; k <= ROUNDS; k++) {
            lock_acquire(lock, me);
            *count = *count + 1;
            nops(k % 7);
            lock_release(lock);
            nops((k * me) % 29);
        }
        ((volatile unsigned *)on_rank(0, DONE))[me] = 1;
        return 0;
    }
    if (me != 0)
        return 0;
    unsigned s = 0, x = 1;
    for (unsigned i = 0; i < LOOPS; i++) {
        x = x * 1103515245u + 12345u;
        if ((i & 31) == 31)
            s = s * 31 + *LOCK + (x >> 24);
    }
    while (!DONE[1] || !DONE[2] || !DONE[3])
        ;
    say_num("sum: ", (long)s);
    say_num("count: ", (long)*(volatile unsigned *)on_rank(1, COUNT));
    return 0;
}
