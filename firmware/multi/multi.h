/* multi.h -- what the multi-core test programs share: who am I, the
 * global address of a variable on another core, the core timer, the
 * interrupt registers, and output without stdio (printf does not fit in
 * 32 KB of SRAM; each core has its own copy of everything, internal.ld).
 *
 * The programs assume the E16G301 layout of a Parallella (first core at
 * row 32, column 8) and run on a group whose first core is the chip's
 * first; GROUP_ROWS x GROUP_COLS default to the whole 4x4 chip. */
#ifndef MULTI_H
#define MULTI_H

#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define FIRST_ROW 32
#define FIRST_COL 8
#ifndef GROUP_ROWS
#define GROUP_ROWS 4
#endif
#ifndef GROUP_COLS
#define GROUP_COLS 4
#endif
#define GROUP_SIZE (GROUP_ROWS * GROUP_COLS)

static inline unsigned coreid(void)
{
    unsigned id;
    __asm__ volatile("movfs %0, coreid" : "=r"(id));
    return id;
}

/* This core's row and column inside the group. */
static inline unsigned my_row(void) { return (coreid() >> 6) - FIRST_ROW; }
static inline unsigned my_col(void) { return (coreid() & 63) - FIRST_COL; }
static inline unsigned my_rank(void) { return my_row() * GROUP_COLS + my_col(); }

/* The global address of local object `p` on the group's core (row, col). */
static inline void *on_core(unsigned row, unsigned col, const volatile void *p)
{
    unsigned id = ((FIRST_ROW + row) << 6) | (FIRST_COL + col);
    return (void *)((id << 20) | ((uintptr_t)p & 0xfffff));
}

static inline void *on_rank(unsigned rank, const volatile void *p)
{
    return on_core(rank / GROUP_COLS, rank % GROUP_COLS, p);
}

/* CTIMER0 counting clock cycles down from its maximum. */
static inline void timer_start(void)
{
    unsigned cfg, max = 0xffffffff;
    __asm__ volatile("movts ctimer0, %0" : : "r"(max));
    __asm__ volatile("movfs %0, config" : "=r"(cfg));
    cfg = (cfg & ~0xf0u) | 0x10u;
    __asm__ volatile("movts config, %0" : : "r"(cfg));
}

/* Cycles since timer_start(). */
static inline unsigned timer_now(void)
{
    unsigned t;
    __asm__ volatile("movfs %0, ctimer0" : "=r"(t));
    return 0xffffffffu - t;
}

static inline unsigned ilat(void)
{
    unsigned v;
    __asm__ volatile("movfs %0, ilat" : "=r"(v));
    return v;
}

static inline void ilat_clear(unsigned bits)
{
    __asm__ volatile("movts ilatcl, %0" : : "r"(bits));
}

/* Writes s. */
static inline void say(const char *s) { write(1, s, strlen(s)); }

/* Writes s, then n in decimal, then a newline. */
static inline void say_num(const char *s, long n)
{
    char buf[64];
    char digits[24];
    int len = 0, k = 0;
    unsigned long u = n < 0 ? -(unsigned long)n : (unsigned long)n;
    while (*s && len < 32)
        buf[len++] = *s++;
    if (n < 0)
        buf[len++] = '-';
    do {
        digits[k++] = '0' + u % 10;
        u /= 10;
    } while (u);
    while (k)
        buf[len++] = digits[--k];
    buf[len++] = '\n';
    write(1, buf, len);
}

#endif
