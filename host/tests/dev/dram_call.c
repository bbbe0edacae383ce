/* dram_call: runs code the host puts in external memory. For rounds 1, 2,
 * 3 it waits until the flag word reads the round number, calls the
 * function at CODE_OFF and prints what it returns, then acknowledges the
 * round in the next word. (host/tests/host_api.rs) */
#include "edev.h"

#define FLAG_OFF 0x00900000u
#define CODE_OFF 0x00900100u

int main(void)
{
    volatile unsigned *flag = (volatile unsigned *)(EMEM_CONFIG->base + FLAG_OFF);
    unsigned (*f)(void) = (unsigned (*)(void))(EMEM_CONFIG->base + CODE_OFF);
    for (unsigned round = 1; round <= 3; round++) {
        while (flag[0] != round)
            ;
        eprintf("round %u: f() = %u\n", round, f());
        flag[1] = round;
    }
    return 0;
}
