/* late_data: a block that waits for a load from DRAM while another core's
 * store lands in the meantime.
 *
 * Rank 0 loads a word from DRAM (a round trip of some 500 cycles), then
 * at once, in the same straight run of code, reads a flag in its own
 * SRAM at an address that depends on the loaded word, so that read
 * issues only once the DRAM data is back. Rank 1 stores to that flag a
 * number of cycles after rank 0 asked for it (told by a "go" word rank 0
 * writes into rank 1's SRAM just before its load), a few more cycles each
 * turn, so that over the sweep the store lands before, during and after
 * the wait. What rank 0 read each turn, and how long each turn took,
 * are folded into checksums: a read or a timing that does not follow
 * cycle order changes what is printed. */
#include "multi.h"

#ifndef TURNS
#define TURNS 256
#endif

#define DRAM_WORD ((volatile unsigned *)0x8f000000)

static volatile unsigned flag[2];
static volatile unsigned go;

int main(void)
{
    unsigned me = my_rank();
    if (me == 0) {
        volatile unsigned *peer_go = on_rank(1, &go);
        unsigned seen = 0, times = 0;
        timer_start();
        for (unsigned d = 1; d <= TURNS; d++) {
            unsigned t0 = timer_now();
            *peer_go = d;
            unsigned v = *DRAM_WORD;
            unsigned x = flag[v & 1];
            seen = seen * 31 + (x == d);
            times = times * 33 + (timer_now() - t0);
            while (flag[0] != d)
                ;
        }
        say_num("late_data: seen ", (long)seen);
        say_num("late_data: times ", (long)times);
        *peer_go = TURNS + 1;
    } else if (me == 1) {
        volatile unsigned *peer_flag = on_rank(0, &flag[0]);
        for (unsigned d = 1; d <= TURNS; d++) {
            while (go != d)
                ;
            for (volatile unsigned i = 0; i < d; i++)
                ;
            *peer_flag = d;
        }
        while (go != TURNS + 1)
            ;
    }
    return 0;
}
