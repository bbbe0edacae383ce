/* hotspot: every core but (0,0) writes WORDS words into its own slice of
 * a buffer on core (0,0), then raises a flag there; core (0,0) waits for
 * every flag and checks every word. */
#include "multi.h"

#define WORDS 64

volatile unsigned buffer[GROUP_SIZE][WORDS];
volatile unsigned flags[GROUP_SIZE];

int main(void)
{
    unsigned me = my_rank();
    if (me != 0) {
        volatile unsigned *dst = on_core(0, 0, &buffer[me][0]);
        for (unsigned i = 0; i < WORDS; i++)
            dst[i] = me << 16 | i;
        volatile unsigned *f = on_core(0, 0, &flags[me]);
        *f = 1;
        return 0;
    }
    for (unsigned r = 1; r < GROUP_SIZE; r++)
        while (!flags[r])
            ;
    for (unsigned r = 1; r < GROUP_SIZE; r++)
        for (unsigned i = 0; i < WORDS; i++)
            if (buffer[r][i] != (r << 16 | i)) {
                say_num("bad word from rank ", r);
                return 1;
            }
    say_num("words checked: ", (GROUP_SIZE - 1) * WORDS);
    return 0;
}
