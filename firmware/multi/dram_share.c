/* dram_share: cores talk through external DRAM (the e-hal shared region at
 * 0x8f000000). Every core but (0,0) writes WORDS words and then a flag
 * there; core (0,0) polls the flags in DRAM (each poll a ~540-cycle load)
 * and checks every word. */
#include "multi.h"

#define WORDS 16
#define SHARED ((volatile unsigned *)0x8f000000)

int main(void)
{
    unsigned me = my_rank();
    volatile unsigned *mine = SHARED + 64 * me;
    volatile unsigned *flag = SHARED + 64 * GROUP_SIZE + me;
    if (me != 0) {
        for (unsigned i = 0; i < WORDS; i++)
            mine[i] = me * 1000 + i;
        *flag = 1;
        return 0;
    }
    for (unsigned r = 1; r < GROUP_SIZE; r++)
        while (SHARED[64 * GROUP_SIZE + r] != 1)
            ;
    for (unsigned r = 1; r < GROUP_SIZE; r++)
        for (unsigned i = 0; i < WORDS; i++)
            if (SHARED[64 * r + i] != r * 1000 + i) {
                say_num("bad word from rank ", r);
                return 1;
            }
    say_num("dram words checked: ", (GROUP_SIZE - 1) * WORDS);
    return 0;
}
