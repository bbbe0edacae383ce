/* loopback: the chip's north and south eLinks in loopback mode, set the
 * way Adapteva's test/e-loopback-test sets them (LINKDEBUG, 0xF0328 of the
 * nodes (32,10) and (35,10), bit 14, CONFIG's CTRLMODE "north" around each
 * write; mesh/MESH.md, "Loopback"). Every core of the group then writes
 * WORDS words through each link, alternating the test's two patterns: to
 * the node 16 rows north of its own (out through the north link) and 4
 * rows south (the south link). The chip's receiver brings each back to the
 * node at the same place of the chip, the writing core itself, at the
 * same offset: each word is waited for there (polled) and checked. Rank 0
 * prints the cycles its first write through each link took to land and
 * its whole run's; every core says FAIL if a word did not land. With 16
 * cores all share each link, which takes their writes one at a time. */
#include "multi.h"

#define WORDS 16
#define NORTH_LINKDEBUG 0x80af0328u
#define SOUTH_LINKDEBUG 0x8caf0328u
#define PAT0 0x55555555u
#define PAT1 0xaaaaaaaau
#define WORD(a) (*(volatile unsigned *)(a))

static volatile unsigned landing[WORDS];

static void set_ctrlmode(unsigned mode)
{
    unsigned cfg;
    __asm__ volatile("movfs %0, config" : "=r"(cfg));
    cfg = (cfg & ~0xf000u) | mode << 12;
    __asm__ volatile("movts config, %0" : : "r"(cfg));
}

/* Writes v through the link to word k and waits for it to land; the
 * cycles it took, or 0 if it never did. */
static unsigned through(unsigned row_out, unsigned k, unsigned v)
{
    unsigned addr = (row_out << 26) | ((coreid() & 63) << 20) | (unsigned)&landing[k];
    unsigned t0 = timer_now();
    WORD(addr) = v;
    for (int i = 0; i < 100000; i++)
        if (landing[k] == v)
            return timer_now() - t0;
    return 0;
}

int main(void)
{
    unsigned row = coreid() >> 6;
    unsigned first[2] = {0, 0};
    int bad = 0;

    set_ctrlmode(1);
    WORD(NORTH_LINKDEBUG) = 0x4000;
    set_ctrlmode(0);
    set_ctrlmode(1);
    WORD(SOUTH_LINKDEBUG) = 0x4000;
    set_ctrlmode(0);
    /* (Read back: both writes have arrived.) */
    bad |= WORD(NORTH_LINKDEBUG) != 0x4000 || WORD(SOUTH_LINKDEBUG) != 0x4000;

    timer_start();
    /* North: row - 16; south: row + 4 (past the chip's last row). */
    unsigned out[2] = {row - 16, row + 4};
    for (int link = 0; link < 2; link++) {
        for (unsigned k = 0; k < WORDS; k++) {
            unsigned c0 = through(out[link], k, PAT0);
            unsigned c1 = through(out[link], k, PAT1);
            bad |= c0 == 0 || c1 == 0;
            if (k == 0)
                first[link] = c0;
        }
    }
    unsigned total = timer_now();
    if (my_rank() == 0) {
        say_num("north, first word landed after: ", first[0]);
        say_num("south, first word landed after: ", first[1]);
        say_num("all words, cycles: ", total);
    }
    if (bad)
        say_num("loopback: FAIL at rank ", my_rank());
    else if (my_rank() == 0)
        say("loopback: ok\n");
    return bad;
}
