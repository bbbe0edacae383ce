/* mutex_scan: the pattern that makes Epiphany BSP's bsp_dma and
 * bsp_memory tests slow. ebsp_ext_malloc and ebsp_free take one TESTSET
 * lock on core (0,0) (e-lib's e_mutex_lock: a TESTSET of the core's id
 * through the mesh, retried while the word is not zero), and the holder
 * runs an allocator whose code lives in external DRAM over a bitmap in
 * external DRAM, testing it bit by bit. So for most of the run one core
 * fetches its code line by line through the eLink while the fifteen
 * others poll core (0,0)'s word through the mesh.
 *
 * Here every core claims ROUNDS runs of 1 + rank % 3 bits from a bitmap of
 * WORDS words in DRAM (first fit, bit by bit, code in .dram_text), then
 * gives them back, each under the lock, with some local work between. Words start
 * half full (0x0f0f0f0f), so a scan tests their bits one by one.
 * Core (0,0) checks at the end that every claim was disjoint from the
 * others (each core stamps its bits in a DRAM array of owners) and that
 * the bitmap is back to its start.
 *
 * Variants (the Makefile's mutex_scan_*.elf): LOCK_AT puts the lock at
 * that offset of core (0,0)'s SRAM (another bank than `lock`'s); NEAR
 * (with LOCK_AT) has the holder write the word after the lock (a count of
 * claims, checked at the end) while the others poll it; GROUP_ROWS and
 * GROUP_COLS (multi.h) change the number of cores, so of waiters. */
#include "multi.h"

#ifndef ROUNDS
#define ROUNDS 1
#endif
#define WORDS 4
#define DRAM_BASE 0x8f000000u

#ifdef LOCK_AT
/* (The word after it is NEAR's count.) */
#define LOCK_WORD ((volatile unsigned *)LOCK_AT)
#else
#ifdef NEAR
#error NEAR needs LOCK_AT
#endif
volatile unsigned lock;
#define LOCK_WORD (&lock)
#endif
volatile unsigned finished;

#define MAP ((volatile unsigned *)DRAM_BASE)
/* The owner of each bit, and the bad claims seen (by core 0). */
#define OWNER ((volatile unsigned char *)(DRAM_BASE + 0x100))
#define BAD ((volatile unsigned *)(DRAM_BASE + 0x80))

/* First fit: the first bit of a run of `n` clear bits, found bit by bit
 * (a word of all ones skipped whole), set; WORDS * 32 if there is none
 * (then the claim is lost: counted, not an error). */
__attribute__((section(".dram_text"), noinline)) unsigned claim(unsigned n, unsigned owner)
{
    unsigned start = 0, run = 0;
    for (unsigned w = 0; w < WORDS && run < n; w++) {
        unsigned mask = MAP[w];
        if (mask == 0xffffffffu) {
            start = (w + 1) * 32;
            run = 0;
            continue;
        }
        for (unsigned b = 0; b < 32 && run < n; b++, mask >>= 1) {
            if (mask & 1) {
                start = w * 32 + b + 1;
                run = 0;
            } else {
                run++;
            }
        }
    }
    if (run < n)
        return WORDS * 32;
    for (unsigned k = start; k < start + n; k++) {
        MAP[k / 32] = MAP[k / 32] | 1u << (k % 32);
        if (OWNER[k] != 0xff)
            *BAD = *BAD + 1;
        OWNER[k] = owner;
    }
    return start;
}

__attribute__((section(".dram_text"), noinline)) void give_back(unsigned start, unsigned n)
{
    for (unsigned k = start; k < start + n; k++) {
        MAP[k / 32] = MAP[k / 32] & ~(1u << (k % 32));
        OWNER[k] = 0xff;
    }
}

int main(void)
{
    unsigned me = my_rank();
    unsigned id = coreid();
    volatile unsigned *l = on_core(0, 0, (void *)LOCK_WORD);
    volatile unsigned *f = on_core(0, 0, &finished);
    if (me == 0) {
        for (unsigned w = 0; w < WORDS; w++)
            MAP[w] = 0x0f0f0f0fu;
        for (unsigned k = 0; k < WORDS * 32; k++)
            OWNER[k] = k % 8 < 4 ? 0xfe : 0xff;
        *BAD = 0;
        LOCK_WORD[0] = 0;
#ifdef NEAR
        LOCK_WORD[1] = 0;
#endif
        finished = 0xffffffffu; /* the bitmap is ready */
    } else {
        while (*(volatile unsigned *)on_core(0, 0, &finished) != 0xffffffffu)
            ;
    }
    unsigned sink = 0, got[ROUNDS], lost = 0;
    unsigned n = 1 + me % 3;
    for (unsigned round = 0; round < ROUNDS; round++) {
        lock_acquire(l, id);
        got[round] = claim(n, me);
#ifdef NEAR
        l[1] = l[1] + 1; /* beside the word the others poll */
#endif
        lock_release(l);
        lost += got[round] == WORDS * 32;
        sink += lcg_work(40 + 23 * me, round);
    }
    for (unsigned round = 0; round < ROUNDS; round++) {
        lock_acquire(l, id);
        if (got[round] != WORDS * 32)
            give_back(got[round], n);
        lock_release(l);
    }
    lock_acquire(l, id);
    *f = *f + 1 + lost * 0x10000; /* from 0xffffffff: 0 after the first */
    lock_release(l);
    if (me != 0)
        return sink == 1 ? 2 : 0; /* (keeps `work`) */
    while ((finished & 0xffff) != GROUP_SIZE - 1)
        ;
    unsigned same = 0;
    for (unsigned w = 0; w < WORDS; w++)
        same += MAP[w] == 0x0f0f0f0fu;
    say_num("bad claims: ", *BAD);
    say_num("lost claims: ", finished >> 16);
    say_num("words as before: ", same);
#ifdef NEAR
    say_num("claims counted beside the lock: ", LOCK_WORD[1]);
    if (LOCK_WORD[1] != GROUP_SIZE * ROUNDS)
        return 1;
#endif
    return *BAD == 0 && same == WORDS ? 0 : 1;
}
