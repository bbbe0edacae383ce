/* consumer: takes ITEMS values from the host through its mailbox in
 * external memory, answers each, then writes a block of its own there. */
#include "edev.h"
#include "mbox.h"

int main(void)
{
    unsigned rank = my_rank();
    shared_t *sh = (shared_t *)(EMEM_CONFIG->base + MBOX_OFFSET);
    mbox_t *box = &sh->box[rank];
    unsigned sum = 0;
    for (unsigned i = 1; i <= ITEMS; i++) {
        while (box->seq != i)
            ;
        unsigned v = box->value;
        sum += v;
        box->reply = REPLY(v, rank);
        box->ack = i;
    }
    for (unsigned k = 0; k < BLOCK; k++)
        sh->block[rank][k] = rank * 1000 + k;
    box->ack = ITEMS + 1;
    eprintf("consumer %u: %u items, sum %u\n", rank, ITEMS, sum);
    return 0;
}
