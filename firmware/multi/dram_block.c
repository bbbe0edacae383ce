/* dram_block: loads from DRAM answered inside a block of a core's run
 * lent the network (sim/src/core/solo.rs, `InBlock`), against strict
 * cycle order (sim/tests/solo.rs).
 *
 * Core (0,0), with its compare loop in DRAM (.dram_text: each line it
 * runs is fetched over external memory's read port, which its loads use
 * too), compares a table in DRAM with itself at offsets 1 (the second
 * load of an iteration continues the eLink burst of the first) and 9 (it
 * breaks it), alternately, from the same code and the same pipeline
 * state: a block's second load then takes longer or shorter than when
 * its schedule was recorded. It sums six loads of one block (more than a
 * block answers in it), copies loaded bytes into its SRAM (a store right
 * after a load in its block), and times a compare with CTIMER0 counting
 * clock cycles. Rank 1, if there is one, stores into the table's line
 * that (0,0) compares, for a while, and DMA-less rank 2 stores elsewhere
 * in DRAM; the others return at once. (0,0) prints what it found (its
 * sums depend on when rank 1's stores landed: the same in both timed
 * schedulers). */
#include "multi.h"

#define DRAM_BASE 0x8f000000u
#define TABLE ((volatile unsigned char *)(uintptr_t)(DRAM_BASE + 0x2000))
#define OTHERS ((volatile unsigned *)(uintptr_t)(DRAM_BASE + 0x9000))
#define N 192

/* Like strncmp: the position of the first difference (or n), the code in
 * DRAM. */
__attribute__((section(".dram_text"), noinline)) unsigned
compare(const volatile unsigned char *a, const volatile unsigned char *b, unsigned n)
{
    unsigned i = 0;
    for (; i < n; i++) {
        unsigned ca = a[i], cb = b[i];
        if (ca != cb || ca == 0)
            break;
    }
    return i;
}

static unsigned char copy[64];

int main(void)
{
    unsigned me = my_rank();
    if (me == 1) {
        for (unsigned k = 0; k < 400; k++) {
            *(volatile unsigned char *)&TABLE[40 + (k & 7)] = (unsigned char)('a' + (k & 3));
            for (volatile unsigned d = 0; d < 5; d++)
                ;
        }
        return 0;
    }
    if (me == 2) {
        for (unsigned k = 0; k < 300; k++)
            OTHERS[k & 31] = k;
        return 0;
    }
    if (me != 0)
        return 0;
    /* Runs of equal bytes, so that compares at offsets 1 and 9 go far. */
    for (unsigned k = 0; k < N; k++)
        TABLE[k] = (unsigned char)('a' + (k / 24 & 1));
    TABLE[N - 1] = 0;
    unsigned far = 0;
    for (unsigned r = 0; r < 40; r++) {
        unsigned at = (r * 7) % 96;
        far += compare(TABLE + at, TABLE + at + 1 + (r & 1) * 8, 60 + (r & 3));
    }
    unsigned six = 0;
    for (unsigned k = 0; k < N - 8; k += 5)
        six += TABLE[k] + TABLE[k + 1] * 3 + TABLE[k + 2] * 5 + TABLE[k + 3] * 7 + TABLE[k + 4] * 11
               + TABLE[k + 5] * 13;
    unsigned copied = 0;
    for (unsigned k = 0; k < 64; k++) {
        copy[k] = TABLE[k * 2];
        copied += copy[k ^ 1];
    }
    unsigned max = 0xffffffffu, cfg, c0;
    __asm__ volatile("movts ctimer0, %0" : : "r"(max));
    __asm__ volatile("movfs %0, config" : "=r"(cfg));
    __asm__ volatile("movts config, %0" : : "r"((cfg & ~0xf0u) | 0x10u));
    unsigned timed = compare(TABLE + 3, TABLE + 4, 30);
    __asm__ volatile("movfs %0, ctimer0" : "=r"(c0));
    __asm__ volatile("movts config, %0" : : "r"(cfg & ~0xf0u));
    say_num("dram_block: far ", far);
    say_num("dram_block: six ", six);
    say_num("dram_block: copied ", copied);
    say_num("dram_block: timed ", timed);
    say_num("dram_block: clock ", 0xffffffffu - c0);
    return 0;
}
