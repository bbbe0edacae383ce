/* dram_post: stores to DRAM posted in a core's run (sim/src/core/solo.rs,
 * `SoloLoads::post`) and landing there, among other cores' traffic.
 *
 * Core (0,0) loops over a table in DRAM: a byte store, a wait of a
 * varying number of cycles (0 to about 120: the store's trip to external
 * memory ends before the next load, or not), then a byte load of the
 * stored byte or its neighbour (the read waits for the write, the eLink's
 * transaction continues or breaks), and now and then two stores in a row.
 * Meanwhile ranks 1 and 2 each write into a mailbox of (0,0) (and rank 2
 * stores to DRAM too) at varying intervals, so that what nothing else acts
 * before (the scheduler's `solo_until`) falls at any point of (0,0)'s
 * waits: a store's write may land before the next load only after another
 * core acted. (0,0) checks what it read and prints a sum. */
#include "multi.h"

#define DRAM_BASE 0x8f000000u
#define TABLE ((volatile unsigned char *)(uintptr_t)(DRAM_BASE + 0x2000))
#define OTHERS ((volatile unsigned *)(uintptr_t)(DRAM_BASE + 0x9000))
#define N 200

#define DATA __attribute__((section(".data")))

volatile unsigned mailbox[2] DATA;

static void spin(unsigned n)
{
    for (volatile unsigned d = 0; d < n; d++)
        ;
}

int main(void)
{
    unsigned me = my_rank();
    if (me == 1 || me == 2) {
        volatile unsigned *box = on_rank(0, &mailbox[me - 1]);
        unsigned x = 12345u * me;
        for (unsigned k = 1; k <= 300; k++) {
            *box = k;
            if (me == 2)
                OTHERS[k & 31] = k;
            x = x * 1103515245u + 12345u;
            spin((x >> 16) % 23);
        }
        return 0;
    }
    if (me != 0)
        return 0;
    unsigned sum = 0, bad = 0, x = 77;
    for (unsigned r = 0; r < 4; r++) {
        for (unsigned k = 0; k < N; k++) {
            unsigned char v = (unsigned char)(k * 7 + r);
            TABLE[k] = v;
            if (k % 5 == 3)
                TABLE[k + 1] = (unsigned char)(v + 1);
            x = x * 1103515245u + 12345u;
            spin((x >> 16) % 13);
            unsigned char got = TABLE[k];
            if (got != v)
                bad++;
            sum += got + TABLE[k + 2] + mailbox[0] * 3 + mailbox[1];
        }
    }
    if (bad)
        say_num("dram_post: FAIL bad ", bad);
    say_num("dram_post: sum ", sum);
    return 0;
}
