/* poll16: the 16 cores pass messages as ePython's runtime does: a sender
 * writes a value and then a flag into the receiver's SRAM, and the
 * receiver spins on the flag in its own SRAM. Each round a token goes
 * once around the ring of all 16 cores (rank r to r + 1), then every core
 * exchanges a value with its partner along one dimension of the 4-cube
 * (rank ^ 1, ^ 2, ^ 4, ^ 8 in turn). Every core folds what it receives
 * into a checksum; core (0,0) collects them and prints their sum.
 *
 * No mailbox is written again before its owner has read it: a core
 * forwards the token only after its exchange of the round before, and its
 * partner along a dimension needs the token three more times before it
 * writes to the same mailbox again. */
#include "multi.h"

#ifndef ROUNDS
#define ROUNDS 5000
#endif

struct mailbox {
    volatile unsigned value;
    volatile unsigned flag;
};

struct mailbox ring;
struct mailbox pair[4];
struct mailbox result[GROUP_SIZE];

/* Writes v into `box` on core `rank`, then its flag (posted writes to one
 * core arrive in order). */
static void send(unsigned rank, struct mailbox *box, unsigned v, unsigned seq)
{
    struct mailbox *there = on_rank(rank, box);
    there->value = v;
    there->flag = seq;
}

/* Spins on this core's flag until it holds seq; returns the value. */
static unsigned recv(struct mailbox *box, unsigned seq)
{
    while (box->flag != seq)
        ;
    return box->value;
}

int main(void)
{
    unsigned me = my_rank();
    unsigned next = (me + 1) % GROUP_SIZE;
    unsigned sum = me;
    for (unsigned round = 1; round <= ROUNDS; round++) {
        unsigned token;
        if (me == 0) {
            send(next, &ring, round * 7, round);
            token = recv(&ring, round);
        } else {
            token = recv(&ring, round);
            send(next, &ring, token * 3 + me, round);
        }
        sum = sum * 33 + token;
        unsigned d = (round - 1) % 4;
        unsigned partner = me ^ (1u << d);
        send(partner, &pair[d], sum ^ round, round);
        sum = sum * 31 + recv(&pair[d], round);
    }
    if (me != 0) {
        send(0, &result[me], sum, 1);
        return 0;
    }
    unsigned total = sum;
    for (unsigned r = 1; r < GROUP_SIZE; r++)
        total += recv(&result[r], 1);
    say_num("rounds: ", ROUNDS);
    say_num("checksum: ", (long)total);
    return 0;
}
