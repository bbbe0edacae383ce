/* dramwatch: a host that waits for a core by reading a flag in shared DRAM
 * through its e_alloc pointer, with no e-hal call, sleep or clock read
 * while it waits (as ePython's host does); host/tests/dramwatch.rs runs it
 * in both run modes (README "The e-hal drop-in", "Run modes").
 *
 *   dramwatch ELF poll N [R] runs flag_dev.elf (ELF) with N iterations:
 *                            spins on the flag, checks the result, acks
 *                            through the pointer, spins again; prints the
 *                            results, the polls made and the host's clock;
 *                            R times (default 1), each from e_init to
 *                            e_finalize
 *   dramwatch ELF memcpy     copies 8 KB into and out of DRAM through the
 *                            pointer (and within it, across pages), checks
 *                            the bytes, prints the cycles each copy took
 *   dramwatch ELF segv       faults outside DRAM after e_alloc: the
 *                            process must die of SIGSEGV as before
 *   dramwatch ELF trap       raises SIGTRAP with its own handler: the
 *                            handler must run
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <e-hal.h>
#include <e-loader.h>
#include <epsim.h>

#include "dramwatch.h"

static volatile sig_atomic_t trapped;

static void on_trap(int sig)
{
    (void)sig;
    trapped = 1;
}

static void die(const char *what)
{
    fprintf(stderr, "dramwatch: %s failed\n", what);
    exit(2);
}

/* One session, e_init to e_finalize. */
static void session(int argc, char **argv)
{
    const char *what = argv[2];
    if (e_init(NULL) != E_OK)
        die("e_init");
    if (e_reset_system() != E_OK)
        die("e_reset_system");
    e_mem_t mem;
    if (e_alloc(&mem, BOX_OFFSET, 0x8000) != E_OK)
        die("e_alloc");
    volatile struct box *b = (volatile struct box *)mem.base;

    if (!strcmp(what, "poll")) {
        unsigned n = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 0) : 1000;
        b->n = n;
        b->ack = 0;
        b->result = 0;
        b->flag = 0;
        e_epiphany_t dev;
        if (e_open(&dev, 0, 0, 1, 1) != E_OK)
            die("e_open");
        if (e_load_group(argv[1], &dev, 0, 0, 1, 1, E_TRUE) != E_OK)
            die("e_load_group");
        unsigned long polls1 = 0, polls2 = 0;
        while (b->flag != 1)
            polls1++;
        unsigned r = b->result;
        b->ack = 1;
        while (b->flag != 2)
            polls2++;
        unsigned r2 = b->result;
        unsigned want = box_compute(n);
        printf("result %u %s\n", r, r == want ? "ok" : "WRONG");
        printf("final %u %s\n", r2, r2 == want + 1 ? "ok" : "WRONG");
        printf("polls %lu %lu\n", polls1, polls2);
        printf("cycles %llu\n", epsim_now());
        e_close(&dev);
    } else if (!strcmp(what, "memcpy")) {
        static unsigned char src[8192], back[8192];
        for (unsigned i = 0; i < sizeof src; i++)
            src[i] = (unsigned char)(i * 7 + 3);
        unsigned char *d = (unsigned char *)mem.base;
        unsigned long long t0 = epsim_now();
        memcpy(d, src, sizeof src);
        unsigned long long t1 = epsim_now();
        memcpy(back, d, sizeof back);
        unsigned long long t2 = epsim_now();
        /* Within DRAM, to an odd address: both operands watched, pages
         * crossed mid-access. */
        memmove(d + 8192 + 4093, d, 4096);
        unsigned long long t3 = epsim_now();
        /* One unaligned 8-byte read across a page boundary (4 KB pages)
         * in what was just copied. */
        size_t j = (4092 + 4096 - (uintptr_t)(d + 8192 + 4093) % 4096) % 4096;
        volatile unsigned long long *across = (volatile unsigned long long *)(d + 8192 + 4093 + j);
        unsigned long long x = *across, want;
        memcpy(&want, src + j, sizeof want);
        int ok = !memcmp(back, src, sizeof src) && !memcmp(d + 8192 + 4093, src, 4096) && x == want;
        /* What the cores see: the same bytes, read with e_read. */
        unsigned char seen[64];
        if (e_read(&mem, 0, 0, 8192 + 4093, seen, sizeof seen) != sizeof seen)
            die("e_read");
        ok = ok && !memcmp(seen, src, sizeof seen);
        printf("copy %s\n", ok ? "ok" : "WRONG");
        printf("cycles in %llu out %llu within %llu\n", t1 - t0, t2 - t1, t3 - t2);
    } else if (!strcmp(what, "segv")) {
        b->flag = 0;
        fflush(stdout);
        volatile int *nowhere = (volatile int *)16;
        *nowhere = 1;
        printf("still alive\n");
    } else if (!strcmp(what, "trap")) {
        b->flag = 0;
        raise(SIGTRAP);
        printf("trap %s\n", trapped ? "handled" : "LOST");
    }
    e_free(&mem);
    e_finalize();
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: dramwatch ELF poll N [R] | memcpy | segv | trap\n");
        return 2;
    }
    if (!strcmp(argv[2], "trap"))
        signal(SIGTRAP, on_trap);
    int rounds = !strcmp(argv[2], "poll") && argc > 4 ? atoi(argv[4]) : 1;
    for (int round = 0; round < rounds; round++)
        session(argc, argv);
    return 0;
}
