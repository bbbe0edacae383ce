/* latency: core (0,0) measures with CTIMER0, from every core of the chip
 * (its own through its global address included), by Manhattan distance:
 * - the latency of one bare remote load: the cycles from reading the
 *   timer, through the load and an instruction using its value, to
 *   reading the timer again, less the same without the load (about
 *   14 + 3 per hop);
 * - the cycles of one iteration of the loop Adapteva's
 *   emesh_read_latency times, as its build.sh compiles it (-O0): a MOV of
 *   the mailbox address, a local load of the pointer, the remote load and
 *   a store of its value to the mailbox; ten iterations (printed as x10),
 *   less two back-to-back timer reads. Adapteva's rule for that quantity
 *   on the board: 18 + 3 per hop.
 * Each measurement is one block of assembly, so the compiler's choices
 * do not move it. */
#include "multi.h"

volatile unsigned word = 7;
/* The mailbox the loop stores into (named for the assembly below). */
volatile unsigned box __asm__("latency_box");

/* Cycles from reading the timer, through a load from `p` and an
 * instruction that uses its value, to reading the timer again. */
static unsigned read_cycles(volatile unsigned *p)
{
    unsigned t0, t1;
    __asm__ volatile("movfs %0, ctimer0\n\t"
                     "ldr r17, [%2]\n\t"
                     "mov r18, r17\n\t"
                     "movfs %1, ctimer0"
                     : "=&r"(t0), "=r"(t1)
                     : "r"(p)
                     : "r17", "r18", "memory");
    return t0 - t1;
}

/* The same without the load. */
static unsigned timer_cost(void)
{
    unsigned t0, t1;
    __asm__ volatile("movfs %0, ctimer0\n\t"
                     "mov r18, r17\n\t"
                     "movfs %1, ctimer0"
                     : "=&r"(t0), "=r"(t1)
                     :
                     : "r17", "r18", "memory");
    return t0 - t1;
}

/* Ten iterations of emesh_read_latency's -O0 loop body, between two
 * timer reads. */
static unsigned loop_cycles(volatile unsigned *p)
{
    volatile unsigned *volatile slot = p;
    unsigned t0, t1;
    __asm__ volatile("movfs %0, ctimer0\n\t"
                     ".rept 10\n\t"
                     "mov r16, %%low(latency_box)\n\t"
                     "ldr r17, [%2]\n\t"
                     "ldr r17, [r17]\n\t"
                     "str r17, [r16]\n\t"
                     ".endr\n\t"
                     "movfs %1, ctimer0"
                     : "=&r"(t0), "=r"(t1)
                     : "r"(&slot)
                     : "r16", "r17", "memory");
    return t0 - t1;
}

/* Two timer reads back to back. */
static unsigned timer_pair(void)
{
    unsigned t0, t1;
    __asm__ volatile("movfs %0, ctimer0\n\t"
                     "movfs %1, ctimer0"
                     : "=&r"(t0), "=r"(t1)
                     :
                     : "memory");
    return t0 - t1;
}

int main(void)
{
    if (my_rank() != 0)
        return 0;
    timer_start();
    unsigned base = timer_cost();
    unsigned pair = timer_pair();
    say_num("local load: ", read_cycles(&word) - base);
    for (unsigned r = 0; r < GROUP_ROWS; r++)
        for (unsigned c = 0; c < GROUP_COLS; c++) {
            char line[] = "remote load, hops  : ";
            line[17] = '0' + r + c;
            say_num(line, read_cycles(on_core(r, c, &word)) - base);
        }
    for (unsigned r = 0; r < GROUP_ROWS; r++)
        for (unsigned c = 0; c < GROUP_COLS; c++) {
            char line[] = "-O0 loop x10, hops  : ";
            line[18] = '0' + r + c;
            say_num(line, loop_cycles(on_core(r, c, &word)) - pair);
        }
    return 0;
}
