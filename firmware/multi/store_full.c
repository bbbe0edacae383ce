/* store_full: what a core does right after its stores to DRAM have filled
 * its node's queue (sim/src/sched.rs, `Machine::refused_until_freed`: a
 * store that would meet the full queue waits for a place at once).
 *
 * Every core of the group, in ROUNDS rounds, stores a burst of BURST
 * doublewords to its own region of DRAM (the eLink, shared by all, takes
 * one every 26 cycles, so the burst fills the xMesh queue of the core's
 * node), and then at once, by the round: (1) writes a register of its own
 * DMA engine (answered by the core itself, not through the network), (2)
 * stores into the next core's SRAM (the cMesh: another queue), (3)
 * stores into its own SRAM through its global address (the cMesh too),
 * (4) loads the last doubleword it stored back from DRAM (a read request:
 * the rMesh), (5) stores once more to DRAM (the full xMesh queue); and
 * in round (0) stores HOT words into core (0,0)'s SRAM instead, which all
 * sixteen do at once (the cMesh queues fill behind (0,0)'s node),
 * writing its DMA register as in (1) after every eighth. Each
 * core sums what it loaded and what its neighbour stored into it and
 * reports the sums to core (0,0), which prints them. */
#include "multi.h"

#define ROUNDS 20
#define BURST 12
#define HOT 32
#define REGION 0x2000u
#define DRAM_BASE 0x8f000000u

#define DATA __attribute__((section(".data")))

volatile unsigned inbox[ROUNDS] DATA;
volatile unsigned own[ROUNDS] DATA;
volatile unsigned reported[GROUP_SIZE] DATA;
volatile unsigned sums[GROUP_SIZE] DATA;
volatile unsigned hot[GROUP_SIZE][HOT] DATA;

int main(void)
{
    unsigned me = my_rank();
    volatile unsigned long long *region =
        (volatile unsigned long long *)(uintptr_t)(DRAM_BASE + me * REGION);
    volatile unsigned *next_inbox = on_rank((me + 1) % GROUP_SIZE, inbox);
    volatile unsigned *own_global = on_rank(me, own);
    volatile unsigned *hot0 = on_rank(0, hot[me]);
    unsigned sum = 0, at = 0;
    for (unsigned r = 0; r < ROUNDS; r++) {
        if (r % 6 == 0) {
            for (unsigned k = 0; k < HOT; k++) {
                hot0[k] = r << 8 | k;
                if (k % 8 == 7)
                    *dma_reg(1, 0x0c) = k;
            }
            continue;
        }
        for (unsigned k = 0; k < BURST; k++)
            region[at++ % (REGION / 8)] = (unsigned long long)(r + 1) << 32 | (me << 16 | k);
        switch (r % 6) {
        case 1:
            *dma_reg(1, 0x0c) = r;
            break;
        case 2:
            next_inbox[r] = me << 8 | r;
            break;
        case 3:
            own_global[r] = r * 3;
            break;
        case 4:
            sum += (unsigned)region[(at - 1) % (REGION / 8)];
            break;
        default:
            region[at++ % (REGION / 8)] = r;
            break;
        }
    }
    for (unsigned r = 0; r < ROUNDS; r++)
        sum += own[r];
    /* (The last word stored to DRAM read back: every store has landed.) */
    sum += (unsigned)region[(at - 1) % (REGION / 8)];
    volatile unsigned *rs = on_rank(0, sums), *rr = on_rank(0, reported);
    rs[me] = sum;
    rr[me] = 1;
    if (me != 0)
        return 0;
    for (unsigned c = 0; c < GROUP_SIZE; c++)
        while (!reported[c])
            ;
    unsigned in = 0;
    for (unsigned r = 0; r < ROUNDS; r++)
        in += inbox[r];
    for (unsigned c = 0; c < GROUP_SIZE; c++)
        for (unsigned k = 0; k < HOT; k++)
            in += hot[c][k];
    for (unsigned c = 0; c < GROUP_SIZE; c++)
        say_num("store_full: ", sums[c]);
    say_num("store_full: inbox ", in);
    return 0;
}
