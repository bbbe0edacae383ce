/* stages: a four-stage pipeline passing items as ePython's runtime does
 * (its examples/pipeline.py), the other twelve cores ending at once.
 *
 * Every core keeps a postbox in its SRAM: six bytes per possible sender
 * (a type byte, four data bytes, a sequence byte), copied a byte at a
 * time. Where its postbox is lives in a table in external DRAM (at
 * 0x8f000000, as the host's shared structure does), read again on each
 * use: a receiver polls its own postbox, each turn reading the table's
 * word from DRAM first; a sender finds the receiver's postbox from the
 * table, writes its six bytes into it, and waits, reading them back
 * remotely, until the receiver has bumped the sequence byte to say it
 * took them.
 *
 * Rank 0 makes ITEMS items, working a while on each; ranks 1 and 2 each
 * work on what they get (rank 2 sorts an array of it, the longest
 * stage) and pass it on; rank 3 folds what it gets into a checksum and
 * prints it.
 * stages_long.elf is the same with 40 items (where timed mode once ended
 * 539 cycles after strict cycle order: a block after a load from DRAM
 * was taken whole past its run's budget, fixed in session 17). */
#include "multi.h"

#ifndef ITEMS
#define ITEMS 32
#endif
#ifndef SORTED
#define SORTED 200
#endif
#define STAGES 4
#define TABLE ((volatile unsigned *)0x8f000000)

/* In the last SRAM bank, as ePython's are (its interpreter's data from
 * 0x6000 on), away from the code, the stack and the other data. */
#define POSTBOX ((volatile unsigned char *)0x6000)
static unsigned char sent_seq[GROUP_SIZE], got_seq[GROUP_SIZE];

static void cpy(volatile unsigned char *to, volatile unsigned char *from, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        to[i] = from[i];
}

static volatile unsigned char *box_of(unsigned rank)
{
    unsigned a;
    while ((a = TABLE[rank]) == 0)
        ;
    return on_rank(rank, (void *)a);
}

static void send(unsigned to, unsigned v)
{
    unsigned char msg[6];
    msg[0] = 1;
    for (int i = 0; i < 4; i++)
        msg[1 + i] = v >> (8 * i);
    sent_seq[to]++;
    msg[5] = sent_seq[to];
    volatile unsigned char *remote = box_of(to) + 6 * my_rank();
    cpy(remote, msg, 6);
    sent_seq[to]++;
    while (msg[5] != sent_seq[to])
        cpy(msg, remote, 6);
}

static unsigned recv(unsigned from)
{
    unsigned char msg[6];
    got_seq[from]++;
    while (((volatile unsigned char *)TABLE[my_rank()])[6 * from + 5] != got_seq[from])
        ;
    cpy(msg, (volatile unsigned char *)TABLE[my_rank()] + 6 * from, 6);
    got_seq[from]++;
    msg[5] = got_seq[from];
    cpy((volatile unsigned char *)TABLE[my_rank()] + 6 * from, msg, 6);
    return msg[1] | msg[2] << 8 | msg[3] << 16 | (unsigned)msg[4] << 24;
}

static unsigned sorted_sum(unsigned v)
{
    unsigned a[SORTED];
    for (int i = 0; i < SORTED; i++) {
        v = v * 1103515245u + 12345u;
        a[i] = v >> 16;
    }
    for (int i = 0; i < SORTED; i++)
        for (int j = (i & 1); j + 1 < SORTED; j += 2)
            if (a[j] > a[j + 1]) {
                unsigned t = a[j];
                a[j] = a[j + 1];
                a[j + 1] = t;
            }
    unsigned s = 0;
    for (int i = 0; i < SORTED; i++)
        s = s * 31 + a[i];
    return s;
}

int main(void)
{
    unsigned me = my_rank();
    if (me >= STAGES)
        return 0;
    TABLE[me] = (unsigned)(uintptr_t)POSTBOX;
    unsigned sum = 0;
    for (unsigned item = 1; item <= ITEMS; item++) {
        unsigned v;
        if (me == 0)
            v = lcg_work(3000, item);
        else
            v = recv(me - 1);
        if (me == 1)
            v = lcg_work(500, v);
        else if (me == 2)
            v = sorted_sum(v);
        if (me + 1 < STAGES)
            send(me + 1, v);
        else
            sum = sum * 7 + v;
    }
    if (me == STAGES - 1)
        say_num("stages: checksum ", (long)sum);
    return 0;
}
