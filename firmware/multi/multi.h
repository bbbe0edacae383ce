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

/* Defines `unsigned get0(void)`: CTIMER0's value read by a called
 * function of its own, as e-lib's e_ctimer_get reads it (a MOVFS and an
 * RTS; a loop waiting on it then calls it every iteration). */
#define DEFINE_GET0()                                                      \
    unsigned get0(void);                                                   \
    __asm__(".section .text\n"                                             \
            ".balign 4\n"                                                  \
            ".global _get0\n"                                              \
            "_get0:\n"                                                     \
            "  movfs r0, ctimer0\n"                                        \
            "  rts\n");

/* ---- A TESTSET spin lock, as e-lib's e_mutex_lock ---- */

/* Takes the lock word `l` (another core's, by its global address),
 * leaving `v` (non-zero) in it. */
static inline void lock_acquire(volatile unsigned *l, unsigned v)
{
    unsigned old;
    do {
        old = v;
        __asm__ volatile("testset %0, [%1, %2]" : "+r"(old) : "r"(l), "r"(0) : "memory");
    } while (old != 0);
}

static inline void lock_release(volatile unsigned *l) { *l = 0; }

/* Some local work: `n` multiply-adds from `seed`. */
static inline unsigned lcg_work(unsigned n, unsigned seed)
{
    unsigned x = seed;
    for (unsigned i = 0; i < n; i++)
        x = x * 1103515245u + 12345u;
    return x;
}

/* ---- DMA (isa.md §8; the calls e-lib's e_dma_* make) ---- */

typedef struct {
    unsigned config;
    unsigned inner_stride; /* [15:0] source, [31:16] destination */
    unsigned count;        /* [15:0] inner, [31:16] outer */
    unsigned outer_stride; /* [15:0] source, [31:16] destination */
    const volatile void *src;
    volatile void *dst;
} __attribute__((aligned(8))) dma_desc;

#define DMA_ENABLE 0x1u
#define DMA_MASTER 0x2u
#define DMA_CHAIN 0x4u
#define DMA_STARTUP 0x8u
#define DMA_IRQEN 0x10u
#define DMA_BYTE (0u << 5)
#define DMA_HALF (1u << 5)
#define DMA_WORD (2u << 5)
#define DMA_DOUBLE (3u << 5)
#define DMA_MSGMODE (1u << 10)

/* A 1-D descriptor of n elements of `size` bytes (DMA_BYTE ... DMA_DOUBLE). */
static inline void dma_1d(dma_desc *d, unsigned size, const volatile void *src,
                          volatile void *dst, unsigned n)
{
    unsigned bytes = 1u << (size >> 5);
    d->config = DMA_ENABLE | DMA_MASTER | size;
    d->inner_stride = bytes << 16 | bytes;
    d->count = 1u << 16 | n;
    d->outer_stride = bytes << 16 | bytes;
    d->src = src;
    d->dst = dst;
}

static inline volatile unsigned *dma_reg(unsigned ch, unsigned off)
{
    return (volatile unsigned *)(0xf0500 + ch * 0x20 + off);
}

/* Starts channel ch on descriptor d, as e_dma_start does. */
static inline void dma_start(unsigned ch, dma_desc *d)
{
    /* the descriptor's stores must be done before the engine reads it */
    __asm__ volatile("" ::: "memory");
    *dma_reg(ch, 0) = ((unsigned)(uintptr_t)d << 16) | DMA_STARTUP;
}

static inline unsigned dma_busy(unsigned ch) { return *dma_reg(ch, 0x1c) & 0xf; }

static inline void dma_wait(unsigned ch)
{
    while (dma_busy(ch))
        ;
}

/* Points IVT slot `slot` (0x24: the user interrupt) at `handler`: a 32-bit
 * `b` with a halfword displacement, as e-lib's e_irq_attach writes it. */
static inline void irq_attach(unsigned slot, void (*handler)(void))
{
    int disp = ((int)(uintptr_t)handler - (int)slot) >> 1;
    volatile unsigned *ivt;
    /* (hidden from GCC, which knows nothing lives at these addresses) */
    __asm__("" : "=r"(ivt) : "0"(slot));
    *ivt = 0xe8u | ((unsigned)disp << 8);
}

/* Unmasks the interrupts of `bits` (IMASK) and enables interrupts (GIE). */
static inline void irq_unmask(unsigned bits)
{
    unsigned mask;
    __asm__ volatile("movfs %0, imask" : "=r"(mask));
    mask &= ~bits;
    __asm__ volatile("movts imask, %0" : : "r"(mask));
    __asm__ volatile("gie");
}

/* Adapteva's hardware-barrier idiom: `gid; wand; gie; idle` with GIE and
 * IDLE in one 8-byte line (so no interrupt comes between them), the core
 * sleeping until the WAND interrupt; then clears STATUS.WAND. The caller
 * attaches a WAND handler (slot 0x20) and unmasks it. */
static __attribute__((unused)) void wand_barrier(void)
{
    __asm__ volatile("gid\n\t"
                     "wand\n\t"
                     ".balignw 8,0x01a2\n\t"
                     "gie\n\t"
                     "idle" ::: "memory");
    unsigned st;
    __asm__ volatile("movfs %0, status" : "=r"(st));
    st &= ~8u;
    __asm__ volatile("movts status, %0" : : "r"(st));
}

/* k single-cycle NOPs (k <= 32): a jump into a sled of 32. */
static __attribute__((noinline, unused)) void nops(unsigned k)
{
    extern char multi_sled_end[];
    char *to = multi_sled_end - 2 * k;
    __asm__ volatile("jr %0\n\t"
                     ".rept 32\n\tnop\n\t.endr\n"
                     "_multi_sled_end:"
                     :
                     : "r"(to)
                     : "memory");
}

/* Writes k (< 100) as two digits, then ": ", at `name`. */
static inline void two_digits(char *name, unsigned k)
{
    name[0] = '0' + k / 10;
    name[1] = '0' + k % 10;
    name[2] = ':';
    name[3] = ' ';
    name[4] = 0;
}

#endif
