/* mutex_work: the pattern of Epiphany BSP's ebsp_ext_malloc. Every core
 * takes one TESTSET lock on core (0,0) ROUNDS times, as e-lib's
 * e_mutex_lock does (a TESTSET of the core's id through the mesh, retried
 * while the word is not zero); holding it, the core walks a list kept in
 * external DRAM (loads through the eLink) and bumps a counter there, then
 * releases the lock with a remote store and works alone for a while. So
 * the cores that wait poll core (0,0)'s word through the mesh while the
 * holder's loads and stores share the network with their TESTSETs.
 * Core (0,0) checks the total and every core's count at the end. */
#include "multi.h"

#ifndef ROUNDS
#define ROUNDS 12
#endif
#define NODES 8
#define DRAM_BASE 0x8f000000u

struct node {
    unsigned next;
    unsigned count;
};

volatile unsigned lock;
volatile unsigned finished;

#define LIST ((volatile struct node *)DRAM_BASE)
#define TOTAL ((volatile unsigned *)(DRAM_BASE + 0x100))
#define MINE ((volatile unsigned *)(DRAM_BASE + 0x200))

int main(void)
{
    unsigned me = my_rank();
    unsigned id = coreid();
    volatile unsigned *l = on_core(0, 0, &lock);
    volatile unsigned *f = on_core(0, 0, &finished);
    if (me == 0) {
        /* The list: node i points to node i + 1, the last to none. */
        for (unsigned i = 0; i < NODES; i++) {
            LIST[i].next = i + 1 < NODES ? i + 1 : 0xffffffffu;
            LIST[i].count = 0;
        }
        *TOTAL = 0;
        for (unsigned r = 0; r < GROUP_SIZE; r++)
            MINE[r] = 0;
        lock = 0;
        finished = 0xffffffffu; /* the list is ready */
    } else {
        while (*(volatile unsigned *)on_core(0, 0, &finished) != 0xffffffffu)
            ;
    }
    unsigned sink = 0;
    for (unsigned round = 0; round < ROUNDS; round++) {
        lock_acquire(l, id);
        /* Walk to the node of this round and count there. */
        unsigned n = 0;
        for (unsigned k = 0; k < round % NODES; k++)
            n = LIST[n].next;
        LIST[n].count = LIST[n].count + 1;
        *TOTAL = *TOTAL + 1;
        MINE[me] = MINE[me] + 1;
        lock_release(l);
        sink += lcg_work(50 + 37 * me, round);
    }
    lock_acquire(l, id);
    *f = *f + 1; /* from 0xffffffff: 0 after the first, 15 after all 16 */
    lock_release(l);
    if (me != 0)
        return sink == 1 ? 2 : 0; /* (keeps `work`) */
    while (finished != GROUP_SIZE - 1)
        ;
    unsigned bad = 0, nodes = 0;
    for (unsigned r = 0; r < GROUP_SIZE; r++)
        bad += MINE[r] != ROUNDS;
    for (unsigned i = 0; i < NODES; i++)
        nodes += LIST[i].count;
    say_num("total: ", *TOTAL);
    say_num("nodes: ", nodes);
    return *TOTAL == ROUNDS * GROUP_SIZE && nodes == ROUNDS * GROUP_SIZE && bad == 0 ? 0 : 1;
}
