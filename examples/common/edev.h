/* edev.h -- what the example device programs share: the configuration
 * words e-loader (and epsim's libe-hal) writes into every core it loads
 * (e-lib's e_group_config_t at 0x28, e_emem_config_t at 0x50), and a small
 * printf that fits in 32 KB of SRAM (newlib's does not). Output goes
 * through write(), which epsim forwards to the host's stdout with a
 * "[row,col] " prefix. */
#ifndef EDEV_H
#define EDEV_H

#include <stdarg.h>
#include <stdint.h>
#include <unistd.h>

typedef struct {
    unsigned objtype, chiptype, group_id, group_row, group_col;
    unsigned group_rows, group_cols, core_row, core_col, padding;
} group_config_t;

typedef struct {
    unsigned objtype, base;
} emem_config_t;

#define GROUP_CONFIG ((const volatile group_config_t *)0x28)
#define EMEM_CONFIG ((const volatile emem_config_t *)0x50)

static inline unsigned coreid(void)
{
    unsigned id;
    __asm__ volatile("movfs %0, coreid" : "=r"(id));
    return id;
}

/* This core's index in its group, row-major. */
static inline unsigned my_rank(void)
{
    return GROUP_CONFIG->core_row * GROUP_CONFIG->group_cols + GROUP_CONFIG->core_col;
}

/* printf with %u %d %x %s and %%, one write() per call. */
__attribute__((unused)) static void eprintf(const char *f, ...)
{
    char out[128];
    unsigned n = 0;
    va_list ap;
    va_start(ap, f);
    for (; *f && n < sizeof out - 12; f++) {
        if (*f != '%') {
            out[n++] = *f;
            continue;
        }
        char c = *++f;
        if (c == 's') {
            for (const char *s = va_arg(ap, const char *); *s && n < sizeof out - 12; s++)
                out[n++] = *s;
        } else if (c == 'u' || c == 'd' || c == 'x') {
            unsigned v = va_arg(ap, unsigned), base = c == 'x' ? 16 : 10;
            char digits[12];
            int k = 0;
            if (c == 'd' && (int)v < 0) {
                out[n++] = '-';
                v = -v;
            }
            do {
                digits[k++] = "0123456789abcdef"[v % base];
                v /= base;
            } while (v);
            while (k)
                out[n++] = digits[--k];
        } else {
            out[n++] = c;
        }
    }
    va_end(ap);
    write(1, out, n);
}

/* ---- DMA: descriptors and the channel registers, as e-lib's e_dma_*
 * use them (isa.md §8) ---- */

typedef struct {
    unsigned config;
    unsigned inner_stride; /* [15:0] source, [31:16] destination */
    unsigned count;        /* [15:0] inner, [31:16] outer */
    unsigned outer_stride; /* [15:0] source, [31:16] destination */
    const volatile void *src;
    volatile void *dst;
} __attribute__((aligned(8))) dma_desc_t;

#define DMA_ENABLE 0x1u
#define DMA_MASTER 0x2u
#define DMA_DOUBLE (3u << 5)
#define DMA_MSGMODE (1u << 10)

/* n doublewords from src to dst, one after the other. Into local memory
 * the channel runs in MSGMODE, as e-lib's e_dma_copy does: reading from
 * another core or from DRAM, it finishes only when the last read has
 * returned (without it the channel is done when the last read *leaves*,
 * and a program that polls the status may see data not there yet). */
static inline void dma_copy_desc(dma_desc_t *d, const volatile void *src, volatile void *dst,
                                 unsigned n)
{
    unsigned local = ((unsigned)(uintptr_t)dst >> 20) == 0;
    d->config = DMA_ENABLE | DMA_MASTER | DMA_DOUBLE | (local ? DMA_MSGMODE : 0);
    d->inner_stride = 8u << 16 | 8u;
    d->count = 1u << 16 | n;
    d->outer_stride = 8u << 16 | 8u;
    d->src = src;
    d->dst = dst;
}

static inline volatile unsigned *dma_reg(unsigned ch, unsigned off)
{
    return (volatile unsigned *)(0xf0500 + ch * 0x20 + off);
}

/* Kick-starts channel ch on descriptor d (DMAxCONFIG = d << 16 | STARTUP). */
static inline void dma_start(unsigned ch, dma_desc_t *d)
{
    __asm__ volatile("" ::: "memory");
    *dma_reg(ch, 0) = ((unsigned)(uintptr_t)d << 16) | 0x8u;
}

static inline void dma_wait(unsigned ch)
{
    while (*dma_reg(ch, 0x1c) & 0xf)
        ;
    __asm__ volatile("" ::: "memory");
}

#endif
