/* flag_dev: for host/tests/c/dramwatch.c (host/tests/dramwatch.rs). The
 * core computes box_compute(n) for the n the host left in the mailbox in
 * DRAM, stores the result and then flag = 1; waits for the host's ack in
 * DRAM; then stores result + 1 and flag = 2. The host waits by reading
 * the flag through its e_alloc pointer, with no e-hal call. */
#include "../c/dramwatch.h"

int main(void)
{
    volatile struct box *b = (volatile struct box *)BOX_DEVICE_ADDR;
    unsigned r = box_compute(b->n);
    b->result = r;
    b->flag = 1;
    while (b->ack != 1)
        ;
    b->result = r + 1;
    b->flag = 2;
    return 0;
}
