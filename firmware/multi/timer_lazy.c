/* timer_lazy: code replayed and loops polled in closed form while the core
 * timers count clock cycles, as Epiphany BSP programs run (their CTIMER0
 * counts the clock from bsp_begin on) (sim/tests/spin.rs).
 *
 * Core (0,0), CTIMER0 counting the clock from its maximum throughout:
 *  - a compute loop (an LCG over a table in SRAM), then CTIMER0 read by
 *    MOVFS and at once by a load of its memory-mapped address:
 *      work <n>: movfs <count> load <count>
 *  - CTIMER1 set through its memory-mapped address to fire after D clock
 *    cycles, for D = D0 .. D0+STEPS-1, while the compute loop runs until
 *    the timer's handler stops it; the handler reads CTIMER0:
 *      fire <D>: <cycles from the set-up to the handler> after <iterations>
 *  - the same while a loop polls the flag the handler sets (a loop done
 *    in closed form until the timer fires):
 *      wait <D>: <cycles from the set-up to the handler>
 *  - asks core (0,1) for a flag and polls for it; core (0,1) waits BASE
 *    loop iterations first, timing them with its own CTIMER0:
 *      poll: <cycles polled> writer <core (0,1)'s wait>
 *    (core (0,1) computes until then, so that core (0,0)'s polling loops
 *    stop for the scheduler, which wakes them at the timer's cycle)
 *  - CTIMER0 written with MOVTS in the middle of a loop and CONFIG
 *    switched to count IALU instructions for one loop, then back:
 *      ialu <count> clock <count>
 * The other cores return at once. */
#include "multi.h"

#ifndef STEPS
#define STEPS 12
#endif
#ifndef D0
#define D0 1500
#endif
#ifndef BASE
#define BASE 2000
#endif
#ifndef BUSY
#define BUSY 1200
#endif

#define DATA __attribute__((section(".data")))
#define TIMER1_BIT (1u << 4)
#define CTIMER0_MMR ((volatile unsigned *)0xf0438)
#define CTIMER1_MMR ((volatile unsigned *)0xf043c)

volatile unsigned stop DATA;  /* on (0,0): the timer handler ran */
volatile unsigned at DATA;    /* on (0,0): CTIMER0 in the handler */
volatile unsigned flag DATA;  /* on (0,0): core (0,1)'s answer */
volatile unsigned waited DATA; /* on (0,0): core (0,1)'s wait */
volatile unsigned go DATA;    /* on (0,1): start */
volatile unsigned sink DATA;  /* on (0,2): core (0,1)'s busy writes */
volatile unsigned ready DATA; /* on (0,0): core (0,1) is done with them */
unsigned table[64] DATA;

void __attribute__((interrupt)) timer1_handler(void)
{
    unsigned t;
    __asm__ volatile("movfs %0, ctimer0" : "=r"(t));
    at = t;
    stop = 1;
}

/* n rounds of an LCG over the table. */
static __attribute__((noinline)) unsigned work(unsigned n)
{
    unsigned x = 12345;
    for (unsigned i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        table[i & 63] += x >> 16;
    }
    return x;
}

/* The LCG until the timer's handler sets `stop`: the rounds done. */
static __attribute__((noinline)) unsigned work_until_stopped(void)
{
    unsigned x = 1, i = 0;
    while (!stop) {
        x = x * 1103515245u + 12345u;
        table[i & 63] ^= x;
        i++;
    }
    return i;
}

static unsigned clock_now(void)
{
    unsigned t;
    __asm__ volatile("movfs %0, ctimer0" : "=r"(t));
    return t;
}

/* Clears `stop`, then starts CTIMER1 counting clock cycles down from d
 * (its interrupt sets `stop`); CONFIG as it was in *cfg. The clock's
 * reading just before. */
static inline unsigned timer1_fire_in(unsigned d, unsigned *cfg)
{
    stop = 0;
    __asm__ volatile("movfs %0, config" : "=r"(*cfg));
    unsigned t0 = clock_now();
    *CTIMER1_MMR = d;
    __asm__ volatile("movts config, %0" : : "r"((*cfg & ~0xf00u) | 0x100u));
    return t0;
}

/* Stops CTIMER1 (CONFIG as `cfg`, its timer-1 field off). */
static inline void timer1_off(unsigned cfg)
{
    __asm__ volatile("movts config, %0" : : "r"(cfg & ~0xf00u));
}

int main(void)
{
    unsigned me = my_rank();
    if (me == 1) {
        volatile unsigned *their_flag = on_rank(0, &flag);
        volatile unsigned *their_waited = on_rank(0, &waited);
        /* Busy meanwhile, writing to core (0,2) as it goes: core (0,0)'s
         * polling loops stop for the scheduler (`Wait::Spin`), which
         * wakes them at their timer's cycle, instead of running on. */
        volatile unsigned *their_sink = on_rank(2, &sink);
        for (unsigned i = 0; i < BUSY; i++) {
            *their_sink = work(8);
        }
        *(volatile unsigned *)on_rank(0, &ready) = 1;
        timer_start();
        while (!go)
            ;
        unsigned t0 = timer_now();
        for (unsigned i = 0; i < BASE; i++)
            __asm__ volatile("nop");
        *their_waited = timer_now() - t0;
        *their_flag = 1;
        return 0;
    }
    if (me != 0)
        return 0;
    timer_start();

    for (unsigned n = 100; n <= 1000; n *= 10) {
        work(n);
        unsigned a = clock_now();
        unsigned b = *CTIMER0_MMR;
        say_num("work ", n);
        say_num("movfs ", 0xffffffffu - a);
        say_num("load ", 0xffffffffu - b);
    }

    irq_attach(0x10, timer1_handler);
    irq_unmask(TIMER1_BIT);
    for (unsigned d = D0; d < D0 + STEPS; d++) {
        unsigned cfg;
        unsigned t0 = timer1_fire_in(d, &cfg);
        unsigned rounds = work_until_stopped();
        timer1_off(cfg);
        say_num("fire ", d);
        say_num("cycles ", t0 - at);
        say_num("after ", rounds);
    }

    for (unsigned d = D0; d < D0 + STEPS; d++) {
        unsigned cfg;
        unsigned t0 = timer1_fire_in(d, &cfg);
        while (!stop)
            ;
        timer1_off(cfg);
        say_num("wait ", d);
        say_num("cycles ", t0 - at);
    }

    volatile unsigned *their_go = on_rank(1, &go);
    while (!ready)
        ;
    unsigned t0 = clock_now();
    *their_go = 1;
    while (!flag)
        ;
    say_num("poll ", t0 - clock_now());
    say_num("writer ", waited);

    /* CTIMER0 rewritten in the middle of the work, then counting IALU
     * instructions for one loop. */
    unsigned cfg, max = 0xffffffffu;
    work(300);
    __asm__ volatile("movts ctimer0, %0" : : "r"(max));
    work(300);
    unsigned c = clock_now();
    __asm__ volatile("movfs %0, config" : "=r"(cfg));
    __asm__ volatile("movts ctimer0, %0" : : "r"(max));
    __asm__ volatile("movts config, %0" : : "r"((cfg & ~0xf0u) | 0x40u));
    work(300);
    unsigned i = clock_now();
    __asm__ volatile("movts config, %0" : : "r"(cfg));
    say_num("ialu ", 0xffffffffu - i);
    say_num("clock ", 0xffffffffu - c);
    return 0;
}
