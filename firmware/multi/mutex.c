/* mutex: every core adds to one counter on core (0,0) ROUNDS times, each
 * time under a TESTSET spin lock on that core; core (0,0) waits for all
 * of them and checks the total. */
#include "multi.h"

#define ROUNDS 20

volatile unsigned lock;
volatile unsigned counter;
volatile unsigned finished;

int main(void)
{
    volatile unsigned *l = on_core(0, 0, &lock);
    volatile unsigned *c = on_core(0, 0, &counter);
    volatile unsigned *f = on_core(0, 0, &finished);
    for (int i = 0; i < ROUNDS; i++) {
        lock_acquire(l, 1);
        unsigned v = *c;   /* read-modify-write: only safe under the lock */
        *c = v + 1;
        lock_release(l);
    }
    lock_acquire(l, 1);
    *f = *f + 1;
    lock_release(l);
    if (my_rank() == 0) {
        while (finished != GROUP_SIZE)
            ;
        say_num("counter: ", counter);
        return counter == ROUNDS * GROUP_SIZE ? 0 : 1;
    }
    return 0;
}
