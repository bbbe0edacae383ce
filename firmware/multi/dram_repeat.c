/* dram_repeat: a block of loads from DRAM that jumps back to itself, its
 * next passes taken in place of the core's run loop (sim/src/core/blocks.rs,
 * `solo_repeat`, asked at the block's replay by `steady`), entered in the
 * states that decide whether it may: against strict cycle order
 * (sim/tests/solo.rs).
 *
 * Core (0,0), with its loops in DRAM (.dram_text), compares a table in
 * DRAM with itself (a strncmp-like byte loop), each compare entered after
 * loads from its SRAM (the polling watch's head not yet in the state
 * every pass leaves it); runs the same kind of loop inside an active
 * hardware loop (LC non-zero, the loop's end after it); and compares with
 * the user interrupt pending but not taken (STATUS.GID set, ILAT[9] set
 * and unmasked), cleared before GIE. Rank 1, if there is one, raises
 * (0,0)'s user interrupt now and then while (0,0) compares: its handler,
 * in SRAM, counts them and the compare resumes mid-loop. The others
 * return at once. (0,0) prints what it found (the interrupts' count
 * depends on when they landed). With rank 1 it showed two ways the fast
 * order took such an interrupt later than strict order (session 32:
 * sim/tests/solo.rs runs it on 1x1 and 1x2). dram_repeat_mc.elf
 * (MULTICAST) has rank 1 raise it by multicast writes: (0,0) joins group
 * 0x123 by its MULTICAST register and tells rank 1, which writes ILATST
 * in that group with CONFIG.CTRLMODE = multicast. */
#include "multi.h"

#define DRAM_BASE 0x8f000000u
#define TABLE ((volatile unsigned char *)(uintptr_t)(DRAM_BASE + 0x3000))
#define N 192
#define USER_BIT (1u << 9)

volatile unsigned irqs;

#ifdef MULTICAST
#define GROUP 0x123u
volatile unsigned joined;

static inline void set_ctrlmode(unsigned mode)
{
    unsigned cfg;
    __asm__ volatile("movfs %0, config" : "=r"(cfg));
    cfg = (cfg & ~0xf000u) | (mode << 12);
    __asm__ volatile("movts config, %0" : : "r"(cfg) : "memory");
}
#endif

void __attribute__((interrupt)) user_handler(void) { irqs++; }

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

/* `reps` passes of a hardware loop whose body sums `n` bytes from `a` in
 * a byte loop that jumps back to itself, the code in DRAM. */
__attribute__((section(".dram_text"), noinline)) unsigned
hw_sum(const volatile unsigned char *a, unsigned reps, unsigned n)
{
    unsigned sum = 0;
    __asm__ volatile("mov r16, %%low(1f)\n\t"
                     "movt r16, %%high(1f)\n\t"
                     "movts ls, r16\n\t"
                     "mov r16, %%low(3f)\n\t"
                     "movt r16, %%high(3f)\n\t"
                     "movts le, r16\n\t"
                     "movts lc, %[reps]\n\t"
                     ".balign 8\n"
                     "1:\tmov r17, %[a]\n\t"
                     "mov r18, %[n]\n"
                     "2:\tldrb r19, [r17], #1\n\t"
                     "add %[sum], %[sum], r19\n\t"
                     "sub r18, r18, #1\n\t"
                     "bne 2b\n"
                     "3:\tadd %[sum], %[sum], #1\n\t"
                     : [sum] "+r"(sum)
                     : [a] "r"(a), [reps] "r"(reps), [n] "r"(n)
                     : "r16", "r17", "r18", "r19", "memory", "cc");
    return sum;
}

static volatile unsigned offsets[8] = {1, 9, 1, 1, 9, 1, 9, 9};

int main(void)
{
    unsigned me = my_rank();
    if (me == 1) {
#ifdef MULTICAST
        while (!joined)
            ;
        volatile unsigned *ilatst = (volatile unsigned *)(GROUP << 20 | 0xf042c);
        set_ctrlmode(3);
#else
        volatile unsigned *ilatst = on_rank(0, (void *)0xf042c);
#endif
        for (unsigned k = 0; k < 12; k++) {
            for (volatile unsigned d = 0; d < 150 + 37 * (k & 3); d++)
                ;
            *ilatst = USER_BIT;
        }
#ifdef MULTICAST
        set_ctrlmode(0);
#endif
        return 0;
    }
    if (me != 0)
        return 0;
#ifdef MULTICAST
    *(volatile unsigned *)0xf0708 = GROUP; /* MULTICAST */
    if (GROUP_SIZE > 1)
        *(volatile unsigned *)on_rank(1, (void *)&joined) = 1;
#endif
    for (unsigned k = 0; k < N; k++)
        TABLE[k] = (unsigned char)('a' + (k / 24 & 1));
    TABLE[N - 1] = 0;
    irq_attach(0x24, user_handler);
    irq_unmask(USER_BIT);
    unsigned far = 0;
    for (unsigned r = 0; r < 60; r++) {
        unsigned at = (r * 7) % 96;
        far += compare(TABLE + at, TABLE + at + offsets[r & 7], 40 + (r & 3));
    }
    unsigned hw = 0;
    for (unsigned r = 1; r < 6; r++)
        hw += hw_sum(TABLE + r, r, 8 + r);
    volatile unsigned *ilatst = (volatile unsigned *)0xf042c;
    volatile unsigned *ilatcl = (volatile unsigned *)0xf0430;
    __asm__ volatile("gid" ::: "memory");
    *ilatst = USER_BIT;
    unsigned held = compare(TABLE + 2, TABLE + 3, 30);
    *ilatcl = USER_BIT;
    __asm__ volatile("gie" ::: "memory");
    say_num("dram_repeat: far ", far);
    say_num("dram_repeat: hw ", hw);
    say_num("dram_repeat: held ", held);
    say_num("dram_repeat: irqs ", irqs);
    return 0;
}
