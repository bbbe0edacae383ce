/* dma_copy: one core drives its DMA engine through every kind of transfer
 * and checks the results: 1-D copies of each element size, a 2-D
 * sub-block, chained descriptors, copies to and from another core's SRAM
 * and to and from DRAM, the completion interrupt, and channel 1. Runs on
 * one core; core (0,1) of the chip is the remote end (it need not run). */
#include "multi.h"

#define DRAM ((volatile unsigned *)0x8f000000)

static volatile unsigned src[64], dst[64];
static volatile unsigned matrix[8][8], block[4][3];
static volatile unsigned char bsrc[16], bdst[16];
static volatile unsigned far_buffer[64];
static dma_desc d0, d1;
static int failures;

static void check(const char *what, int ok)
{
    if (!ok) {
        say(what);
        say(": FAIL\n");
        failures++;
    } else {
        say(what);
        say(": ok\n");
    }
}

static void clear(volatile unsigned *p, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = 0;
}

static int same(const volatile unsigned *a, const volatile unsigned *b, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

int main(void)
{
    for (unsigned i = 0; i < 64; i++)
        src[i] = 0x1000 + i * 7;

    /* words */
    dma_1d(&d0, DMA_WORD, src, dst, 64);
    dma_start(0, &d0);
    dma_wait(0);
    check("1-D words", same(src, dst, 64));

    /* doublewords */
    clear(dst, 64);
    dma_1d(&d0, DMA_DOUBLE, src, dst, 32);
    dma_start(0, &d0);
    dma_wait(0);
    check("1-D doublewords", same(src, dst, 64));

    /* bytes: 13 of them, the rest untouched */
    for (unsigned i = 0; i < 16; i++) {
        bsrc[i] = 0xa0 + i;
        bdst[i] = 0;
    }
    dma_1d(&d0, DMA_BYTE, bsrc, bdst, 13);
    dma_start(0, &d0);
    dma_wait(0);
    int ok = 1;
    for (unsigned i = 0; i < 16; i++)
        ok &= bdst[i] == (i < 13 ? 0xa0 + i : 0);
    check("1-D bytes", ok);

    /* 2-D: the 4x3 block at (2,1) of an 8x8 word matrix, packed */
    for (unsigned r = 0; r < 8; r++)
        for (unsigned c = 0; c < 8; c++)
            matrix[r][c] = r * 100 + c;
    d0.config = DMA_ENABLE | DMA_MASTER | DMA_WORD;
    d0.inner_stride = 4u << 16 | 4u;
    d0.count = 4u << 16 | 3u;
    d0.outer_stride = 4u << 16 | (8 * 4 - 2 * 4);
    d0.src = &matrix[2][1];
    d0.dst = &block[0][0];
    dma_start(0, &d0);
    dma_wait(0);
    ok = 1;
    for (unsigned r = 0; r < 4; r++)
        for (unsigned c = 0; c < 3; c++)
            ok &= block[r][c] == (r + 2) * 100 + (c + 1);
    check("2-D block", ok);

    /* chained: the first half by d0, then d1 from NEXT_PTR */
    clear(dst, 64);
    dma_1d(&d0, DMA_WORD, src, dst, 32);
    dma_1d(&d1, DMA_WORD, src + 32, dst + 32, 32);
    d0.config |= DMA_CHAIN | ((unsigned)(uintptr_t)&d1 << 16);
    dma_start(0, &d0);
    dma_wait(0);
    check("chained descriptors", same(src, dst, 64));

    /* to another core's SRAM and back */
    volatile unsigned *far = on_core(0, 1, far_buffer);
    dma_1d(&d0, DMA_DOUBLE, src, far, 32);
    dma_start(0, &d0);
    dma_wait(0);
    check("local to remote core", same(src, far, 64));
    clear(dst, 64);
    dma_1d(&d0, DMA_DOUBLE, far, dst, 32);
    d0.config |= DMA_MSGMODE;
    dma_start(1, &d0);
    dma_wait(1);
    check("remote core to local (channel 1)", same(src, dst, 64));

    /* to DRAM and back */
    dma_1d(&d0, DMA_DOUBLE, src, DRAM, 32);
    dma_start(0, &d0);
    dma_wait(0);
    check("local to DRAM", same(src, DRAM, 64));
    clear(dst, 64);
    dma_1d(&d0, DMA_WORD, DRAM, dst, 64);
    /* reads: finish when the data is here (as e_dma_copy does) */
    d0.config |= DMA_MSGMODE;
    dma_start(0, &d0);
    dma_wait(0);
    check("DRAM to local", same(src, dst, 64));

    /* both channels at once */
    clear(dst, 64);
    dma_1d(&d0, DMA_DOUBLE, src, dst, 16);
    dma_1d(&d1, DMA_DOUBLE, src + 32, dst + 32, 16);
    dma_start(0, &d0);
    dma_start(1, &d1);
    dma_wait(0);
    dma_wait(1);
    check("both channels at once", same(src, dst, 32) && same(src + 32, dst + 32, 32));

    /* completion interrupt: latched in ILAT (masked by crt0) */
    ilat_clear(1u << 6);
    dma_1d(&d0, DMA_WORD, src, dst, 8);
    d0.config |= DMA_IRQEN;
    dma_start(0, &d0);
    dma_wait(0);
    check("completion interrupt latched", (ilat() >> 6) & 1);
    ilat_clear(1u << 6);

    say_num("failures: ", failures);
    return failures;
}
