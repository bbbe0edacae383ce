/* elink_remap: external addresses outside the DRAM window reach DRAM the
 * way the Parallella's FPGA eLink receiver folds them (its static remap as
 * the kernel driver sets it up: address bits [31:25] replaced by the
 * window's, bits [24:0] kept; mesh/MESH.md, "The eLink receiver's remap").
 * A load at 0x7e0f0000 reads the DRAM word at 0x8e0f0000, stores through
 * other aliases land in the window, and the DMA engine reads and writes
 * through aliases too. Each check prints the value it saw (in decimal).
 *
 * Built with -DSOUTH (elink_south.elf) it loads from 0x90800000 instead,
 * an address that leaves the chip through its south edge, where nothing
 * is attached: the run stops with a fault. */
#include "multi.h"

#define WORD(a) (*(volatile unsigned *)(a))

#ifndef SOUTH
static volatile unsigned buf[4] __attribute__((aligned(8)));
static dma_desc desc;

static int check(const char *what, unsigned got, unsigned want)
{
    say_num(what, got);
    if (got != want) {
        say_num("  expected ", want);
        return 1;
    }
    return 0;
}
#endif

int main(void)
{
#ifdef SOUTH
    say_num("south of the chip: ", WORD(0x90800000));
    return 1;
#else
    int bad = 0;
    const unsigned pattern = 0x13579bdf;

    /* A word written in the window, then read through an alias. */
    unsigned old = WORD(0x8e0f0000);
    WORD(0x8e0f0000) = pattern;
    while (WORD(0x8e0f0000) != pattern)
        ;
    bad += check("load 0x7e0f0000: ", WORD(0x7e0f0000), pattern);
    WORD(0x8e0f0000) = old;
    bad += check("restored 0x7e0f0000: ", WORD(0x7e0f0000), old);

    /* Stores through aliases: row 3 column 63, row 19 column 32. */
    WORD(0x0ff00010) = 1111;
    bad += check("0x0ff00010 -> 0x8ff00010: ", WORD(0x8ff00010), 1111);
    WORD(0x4e0f0008) = 2222;
    bad += check("0x4e0f0008 -> 0xce0f0008: ", WORD(0xce0f0008), 2222);

    /* DMA from an alias into SRAM, and from SRAM to an alias. */
    WORD(0x8e0f0018) = 3333;
    WORD(0x8e0f001c) = 4444;
    dma_1d(&desc, DMA_WORD, (void *)0x7e0f0018, buf, 2);
    /* (MSGMODE: the channel stays busy until the data has arrived, as
     * e_dma_copy sets it for a local destination.) */
    desc.config |= DMA_MSGMODE;
    dma_start(0, &desc);
    dma_wait(0);
    bad += check("dma from 0x7e0f0018: ", buf[0], 3333);
    bad += check("dma from 0x7e0f001c: ", buf[1], 4444);
    buf[2] = 5555;
    buf[3] = 6666;
    dma_1d(&desc, DMA_WORD, &buf[2], (void *)0x5e0f0020, 2);
    dma_start(1, &desc);
    dma_wait(1);
    bad += check("dma 0x5e0f0020 -> 0x8e0f0020: ", WORD(0x8e0f0020), 5555);
    bad += check("dma 0x5e0f0024 -> 0x8e0f0024: ", WORD(0x8e0f0024), 6666);

    say(bad ? "elink remap: FAIL\n" : "elink remap: ok\n");
    return bad;
#endif
}
