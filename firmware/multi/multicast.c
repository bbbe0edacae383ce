/* multicast: writes with CONFIG.CTRLMODE = multicast (0011) reach every
 * core whose MULTICAST register holds the address's core-id field.
 *
 * Every core joins group 0x123 (even ranks) or 0x456 (odd ranks) through
 * its MULTICAST register and tells (0,0), which is in group 0x123 too. Then (0,0), in
 * multicast mode, writes to `other` in group 0x789 (nobody's), to `mail`
 * in group 0x123 and to `mail` in group 0x456, and leaves multicast mode.
 * Each core waits for its mail (the write to 0x789 was sent to it before,
 * on the same path), reports what it got in `mail` and `other` to (0,0),
 * which checks and prints the counts: the sender does not write to
 * itself. */
#include "multi.h"

#define GROUP_EVEN 0x123u
#define GROUP_ODD 0x456u
#define GROUP_NONE 0x789u

volatile unsigned mail;
volatile unsigned other;
volatile unsigned joined[GROUP_SIZE];
volatile unsigned got_mail[GROUP_SIZE];
volatile unsigned got_other[GROUP_SIZE];

static inline void set_ctrlmode(unsigned mode)
{
    unsigned cfg;
    __asm__ volatile("movfs %0, config" : "=r"(cfg));
    cfg = (cfg & ~0xf000u) | (mode << 12);
    __asm__ volatile("movts config, %0" : : "r"(cfg) : "memory");
}

/* The address of `p`'s offset in multicast group `id`. */
static inline volatile unsigned *in_group(unsigned id, volatile unsigned *p)
{
    return (volatile unsigned *)((id << 20) | ((uintptr_t)p & 0xfffff));
}

int main(void)
{
    unsigned rank = my_rank();
    if (rank != 0) {
        unsigned id = rank % 2 ? GROUP_ODD : GROUP_EVEN;
        *(volatile unsigned *)0xf0708 = id; /* MULTICAST */
        *(volatile unsigned *)on_rank(0, &joined[rank]) = 1;
        while (mail == 0)
            ;
        *(volatile unsigned *)on_rank(0, &got_other[rank]) = other + 1;
        *(volatile unsigned *)on_rank(0, &got_mail[rank]) = mail;
        return 0;
    }
    *(volatile unsigned *)0xf0708 = GROUP_EVEN;
    for (unsigned r = 1; r < GROUP_SIZE; r++)
        while (!joined[r])
            ;
    set_ctrlmode(3);
    *in_group(GROUP_NONE, &other) = 0xdead;
    *in_group(GROUP_EVEN, &mail) = 0xe0e0;
    *in_group(GROUP_ODD, &mail) = 0x0d0d;
    set_ctrlmode(0);
    unsigned right = 0, untouched = 0;
    for (unsigned r = 1; r < GROUP_SIZE; r++) {
        while (!got_mail[r])
            ;
        right += got_mail[r] == (r % 2 ? 0x0d0du : 0xe0e0u);
        untouched += got_other[r] == 1;
    }
    say_num("right mail: ", right);
    say_num("untouched by group 0x789: ", untouched);
    say_num("sender's own mail: ", mail);
    return right == GROUP_SIZE - 1 && untouched == GROUP_SIZE - 1 && mail == 0 ? 0 : 1;
}
