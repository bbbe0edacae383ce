/* message: core (0,0) raises the user interrupt (ILAT[9]) of every other
 * core of the group by writing its ILATST; each sleeps in IDLE until its
 * handler runs, then answers by writing its rank into core (0,0)'s table.
 * Core (0,0) waits for every answer. */
#include "multi.h"

#define USER_BIT (1u << 9)

volatile unsigned got_message;
volatile unsigned answers[GROUP_SIZE];

void __attribute__((interrupt)) user_handler(void) { got_message = 1; }

int main(void)
{
    unsigned me = my_rank();
    if (me == 0) {
        for (unsigned r = 1; r < GROUP_SIZE; r++) {
            volatile unsigned *ilatst = on_rank(r, (void *)0xf042c);
            *ilatst = USER_BIT;
        }
        for (unsigned r = 1; r < GROUP_SIZE; r++)
            while (answers[r] != r + 100)
                ;
        say_num("answers: ", GROUP_SIZE - 1);
        return 0;
    }
    irq_attach(0x24, user_handler);
    irq_unmask(USER_BIT);
    while (!got_message)
        __asm__ volatile("idle");
    volatile unsigned *a = on_rank(0, &answers[me]);
    *a = me + 100;
    return 0;
}
