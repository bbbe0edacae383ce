/* land_fetch: core (0,1) stores counts into a word of core (0,0)'s SRAM
 * bank 0 (placed among the code), the bank (0,0)'s code is fetched from,
 * every few cycles, while (0,0) computes in a loop without touching the
 * word and reads it once at the end. A write from the mesh takes its bank
 * in the cycle it lands, delaying a fetch from that bank then; timed mode
 * takes such a write into a core that ran ahead past it without going
 * back only if the core fetched no line from the bank since its
 * checkpoint (`Machine::write_in_past`, `untouched_since_checkpoint`).
 * Here every write must take (0,0) back: taken in the past, its fetches
 * would miss the delays strict order gives them (sim/tests/multicore.rs:
 * fast = strict). The other cores have nothing to do. */
#include "multi.h"

/* In .data, which starts in bank 0 after the code (checked below). */
volatile unsigned word __attribute__((section(".data")));
#define WORD (&word)
#define STORES 3000
#define LOOPS 1500

/* Four pairs, one per accumulator; 64 pairs in all. */
#define PAIRS4                                                                 \
    "add r16, r16, #1\n\t" "fadd r20, r20, r32\n\t"                         \
    "add r17, r17, #1\n\t" "fadd r22, r22, r32\n\t"                         \
    "add r18, r18, #1\n\t" "fadd r24, r24, r32\n\t"                         \
    "add r19, r19, #1\n\t" "fadd r26, r26, r32\n\t"
#define PAIRS16 PAIRS4 PAIRS4 PAIRS4 PAIRS4
#define PAIRS64 PAIRS16 PAIRS16 PAIRS16 PAIRS16

int main(void)
{
    unsigned me = my_rank();
    if (me == 1) {
        volatile unsigned *there = on_rank(0, WORD);
        for (unsigned k = 1; k <= STORES; k++) {
            nops(k % 7);
            *there = 100000 + k;
        }
        return 0;
    }
    if (me != 0)
        return 0;
    if ((unsigned)WORD >= 0x2000)
        say_num("the word is not in bank 0 but at ", (long)WORD);
    unsigned s, n = LOOPS;
    /* 64 pairs of 32-bit instructions, an integer add and a float add
     * issued together: 8 bytes a cycle, as fast as lines are fetched, so
     * a fetch delayed by a write landing in the bank stalls the core. */
    __asm__ volatile(
        "mov r16, #0\n\tmov r17, #0\n\tmov r18, #0\n\tmov r19, #0\n\t"
        "mov r20, #0\n\tmov r22, #0\n\tmov r24, #0\n\tmov r26, #0\n\t"
        "mov r32, #0\n"
        "1:\n\t"
        PAIRS64
        "sub %[n], %[n], #1\n\t"
        "bne 1b\n\t"
        "add %[s], r16, r17\n\t"
        "add %[s], %[s], r18\n\t"
        "add %[s], %[s], r19"
        : [n] "+r"(n), [s] "=r"(s)
        :
        : "r16", "r17", "r18", "r19", "r20", "r22", "r24", "r26", "r32", "cc");
    say_num("sum: ", (long)s);
    say_num("last: ", (long)*WORD);
    return 0;
}
