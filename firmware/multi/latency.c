/* latency: core (0,0) measures, with CTIMER0 as Adapteva's
 * emesh_read_latency test does, the cycles of one load from every core of
 * the chip (its own through its global address included) and prints them
 * by Manhattan distance, after subtracting the cost of reading the timer
 * twice. The expected rule on hardware: 18 + 3 per hop. */
#include "multi.h"

volatile unsigned word = 7;

static unsigned read_cycles(volatile unsigned *p)
{
    unsigned t0, t1, v;
    __asm__ volatile("movfs %0, ctimer0" : "=r"(t0));
    v = *p;
    __asm__ volatile("movfs %0, ctimer0" : "=r"(t1) : "r"(v));
    return t0 - t1;
}

static unsigned timer_cost(void)
{
    unsigned t0, t1;
    __asm__ volatile("movfs %0, ctimer0" : "=r"(t0));
    __asm__ volatile("movfs %0, ctimer0" : "=r"(t1));
    return t0 - t1;
}

int main(void)
{
    if (my_rank() != 0)
        return 0;
    timer_start();
    unsigned base = timer_cost();
    say_num("local load: ", read_cycles(&word) - base);
    for (unsigned r = 0; r < GROUP_ROWS; r++)
        for (unsigned c = 0; c < GROUP_COLS; c++) {
            char line[] = "remote load, hops  : ";
            line[17] = '0' + r + c;
            say_num(line, read_cycles(on_core(r, c, &word)) - base);
        }
    return 0;
}
