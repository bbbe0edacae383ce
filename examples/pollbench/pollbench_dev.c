/* pollbench_dev.c -- one core of examples/pollbench: for each round the
 * host starts (its word GO_OFF reaching the round's number), compute a
 * hundred cycles or so (more on higher ranks), then store the round's
 * number in DONE_OFF. Between rounds the core spins on GO_OFF in its own
 * SRAM. Round 0 tells it to stop. */
#include "edev.h"
#include "pollbench.h"

#define GO (*(volatile unsigned *)GO_OFF)
#define DONE (*(volatile unsigned *)DONE_OFF)
#define SUM (*(volatile unsigned *)SUM_OFF)

int main(void)
{
    unsigned rank = my_rank();
    unsigned sum = rank, round = 0;
    for (;;) {
        unsigned go;
        while ((go = GO) == round)
            ;
        if (go == 0)
            break;
        round = go;
        /* Work that depends on the round and the rank. */
        unsigned n = 50 + 60 * rank + 4 * (round & 7);
        for (unsigned k = 0; k < n; k++)
            sum = (sum << 3 ^ sum >> 5) + k;
        SUM = sum;
        DONE = round;
    }
    return 0;
}
