/* barrier: PHASES rounds of "write my phase into every core's table, WAND
 * barrier, check that every core's entry in my table is this phase". The
 * WAND interrupt stays masked (crt0 masks it); each core polls ILAT for it,
 * then clears ILAT[8] and STATUS.WAND. */
#include "multi.h"

#define PHASES 5
#define WAND_BIT (1u << 8)

volatile unsigned table[GROUP_SIZE];

static void barrier(void)
{
    unsigned st;
    __asm__ volatile("wand");
    while (!(ilat() & WAND_BIT))
        ;
    ilat_clear(WAND_BIT);
    __asm__ volatile("movfs %0, status" : "=r"(st));
    st &= ~8u;
    __asm__ volatile("movts status, %0" : : "r"(st));
}

int main(void)
{
    unsigned me = my_rank();
    for (unsigned phase = 1; phase <= PHASES; phase++) {
        for (unsigned r = 0; r < GROUP_SIZE; r++) {
            volatile unsigned *t = on_rank(r, &table[me]);
            *t = phase;
        }
        barrier();
        for (unsigned r = 0; r < GROUP_SIZE; r++) {
            if (table[r] != phase) {
                say_num("stale entry from rank ", r);
                return 1;
            }
        }
        barrier();
    }
    if (me == 0)
        say_num("phases passed: ", PHASES);
    return 0;
}
