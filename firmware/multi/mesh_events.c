/* mesh_events: core timer 0 counting mesh traffic. CONFIG.CTIMER0CFG =
 * 1110 counts mesh monitor 0, the event MESHCONFIG[11:8] selects; with
 * 1110 there ("core access") that is every transaction entering or
 * leaving the mesh at the core's node.
 *
 * Core (0,1) starts counting, tells (0,0) it is ready (one write out),
 * receives WRITES words and then a flag from (0,0) (WRITES + 1 in), and
 * prints the count; then counts again over LOADS remote loads of its own
 * from (0,0) (a request out and a response in each) and prints that. */
#include "multi.h"

#define WRITES 20
#define LOADS 10

volatile unsigned inbox[WRITES];
volatile unsigned flag;
volatile unsigned ready;
volatile unsigned source[LOADS] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

static inline unsigned ctimer0(void)
{
    unsigned t;
    __asm__ volatile("movfs %0, ctimer0" : "=r"(t) : : "memory");
    return t;
}

static int counter(void)
{
    volatile unsigned *meshconfig = (volatile unsigned *)0xf0700;
    *meshconfig = (*meshconfig & ~0xf00u) | 0xe00u; /* monitor 0: core access */
    unsigned cfg, max = 0xffffffff;
    __asm__ volatile("movts ctimer0, %0" : : "r"(max));
    __asm__ volatile("movfs %0, config" : "=r"(cfg));
    cfg = (cfg & ~0xf0u) | 0xe0u; /* CTIMER0: mesh monitor 0 */
    __asm__ volatile("movts config, %0" : : "r"(cfg) : "memory");

    unsigned t0 = ctimer0();
    *(volatile unsigned *)on_core(0, 0, &ready) = 1;
    while (!flag)
        ;
    unsigned t1 = ctimer0();
    say_num("ready, writes, flag: ", t0 - t1);

    unsigned sum = 0;
    t0 = ctimer0();
    for (int i = 0; i < LOADS; i++)
        sum += ((volatile unsigned *)on_core(0, 0, source))[i];
    t1 = ctimer0();
    say_num("remote loads: ", t0 - t1);
    return sum == 55 ? 0 : 1;
}

int main(void)
{
    switch (my_rank()) {
    case 0: {
        while (!ready)
            ;
        volatile unsigned *dst = on_core(0, 1, inbox);
        for (int i = 0; i < WRITES; i++)
            dst[i] = i;
        *(volatile unsigned *)on_core(0, 1, &flag) = 1;
        return 0;
    }
    case 1:
        return counter();
    default:
        return 0;
    }
}
