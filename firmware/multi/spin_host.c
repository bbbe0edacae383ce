/* spin_host: core (0,0) polls a word of its own SRAM (GO, at a fixed
 * address) that nothing on the chip writes: the test writes it from
 * outside while the machine is stopped between two runs, as a host or a
 * debugger would (sim/tests/spin.rs). The core then says so and ends
 * (its cycle count tells when it saw the word; no timer runs, so the
 * loop is polled in closed form from its first iterations). Core (0,1)
 * meanwhile computes for a while (so that the scheduler parks the
 * polling core between the other's actions), then returns. Load it on
 * the two cores of a 1 x 2 group. */
#include "multi.h"

#define GO ((volatile unsigned *)0x6000)

int main(void)
{
    if (my_rank() != 0) {
        volatile unsigned sum = 0;
        for (unsigned i = 0; i < 2000; i++)
            sum += i;
        return 0;
    }
    while (*GO == 0)
        ;
    say_num("seen: ", (long)*GO);
    return 0;
}
