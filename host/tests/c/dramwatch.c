/* dramwatch: a host that waits for a core by reading a flag in shared DRAM
 * through its e_alloc pointer, with no e-hal call, sleep or clock read
 * while it waits (as ePython's host does); host/tests/dramwatch.rs runs it
 * in both run modes (README "The e-hal drop-in", "Run modes").
 *
 *   dramwatch ELF poll N [R] writes N and 16 KB of data through the
 *                            pointer before any core runs (prints the
 *                            cycles that took), runs flag_dev.elf (ELF)
 *                            with N iterations: spins on the flag, checks
 *                            the result, acks through the pointer, spins
 *                            again; prints the results, the polls made,
 *                            the host's clock, whether a floating-point
 *                            value live in registers across the first
 *                            wait's faults came through, and whether e_read
 *                            sees the 16 KB; R times (default 1), each from
 *                            e_init to e_finalize
 *   dramwatch ELF memcpy [busy] copies 8 KB into and out of DRAM through
 *                            the pointer (and within it, across pages),
 *                            checks the bytes, prints the cycles each copy
 *                            took; with busy, while a core runs (spinning
 *                            on the ack in DRAM), else on a quiescent chip
 *   dramwatch ELF reopen [thread] on a quiescent chip: an access through
 *                            the pointer, 1000 more, e_read of one word
 *                            (from another thread with thread), one more
 *                            access; prints the cycles that took
 *   dramwatch ELF forms      while a core runs, the same x86-64 moves
 *                            (loads and stores of every width, movzx,
 *                            movsx, high byte and r8-r15 registers,
 *                            SIB and 32-bit displacements, immediates)
 *                            and one compare with memory through the
 *                            pointer and on a buffer of its own: prints
 *                            whether registers and bytes agree
 *   dramwatch ELF segv       faults outside DRAM after e_alloc: the
 *                            process must die of SIGSEGV as before
 *   dramwatch ELF trap       raises SIGTRAP with its own handler: the
 *                            handler must run
 */
#include <pthread.h>
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

/* The 16 KB the host writes through the pointer before the core runs, at
 * DRAM offset BOX_OFFSET + DATA_AT. */
#define DATA_AT 4096u
#define DATA_WORDS 4096u

static unsigned data_word(unsigned i)
{
    return i * 2654435761u + 17u;
}

static void *read_a_word(void *arg)
{
    unsigned v;
    if (e_read((e_mem_t *)arg, 0, 0, 0, &v, sizeof v) != sizeof v)
        die("e_read");
    return NULL;
}

#if defined(__x86_64__)
/* The x86-64 moves the watch does in its handler (host/src/x86move.rs),
 * and one instruction it steps (a compare with memory), on the 512 bytes
 * at m; registers into o. The same code on the watched pointer and on a
 * plain buffer must give the same registers and bytes. */
#define LOAD(insn)                                                              \
    do {                                                                        \
        unsigned long long v = 0x5a5a5a5a5a5a5a5aull;                           \
        __asm__ volatile(insn : "+Q"(v) : "r"(m), "r"(idx) : "memory");         \
        o[k++] = v;                                                             \
    } while (0)
#define LOAD_IN(reg, insn)                                                      \
    do {                                                                        \
        register unsigned long long v __asm__(reg) = 0xa5a5a5a5a5a5a5a5ull;     \
        __asm__ volatile(insn : "+r"(v) : "r"(m), "r"(idx) : "memory");         \
        o[k++] = v;                                                             \
    } while (0)
#define STORE(insn)                                                             \
    __asm__ volatile(insn : : "r"(m), "r"(idx), "Q"(0x0123456789abcdefull) : "memory")

static int forms(unsigned char *m, unsigned long long *o)
{
    unsigned long long idx = 3;
    int k = 0;
    LOAD("movb 1(%1), %b0");
    LOAD("movb 2(%1), %h0");
    LOAD("movw 3(%1), %w0");
    LOAD("movl 4(%1,%2,8), %k0");
    LOAD("movq 0x100(%1), %0");
    LOAD("movzbl 0x81(%1), %k0");
    LOAD("movzwq 0x82(%1,%2,2), %0");
    LOAD("movsbl 0x85(%1), %k0");
    LOAD("movswq 0x86(%1), %0");
    LOAD("movslq 0x88(%1), %0");
    LOAD_IN("r9", "movl -4(%1,%2,8), %k0");
    LOAD_IN("r13", "movq 0x1f8(%1), %0");
    LOAD_IN("r10", "movb 0x190(%1,%2,1), %b0");
    LOAD_IN("r11", "movw 0x44(%1,%2,4), %w0");
    LOAD_IN("r8", "movsbw 0x90(%1), %w0");
    STORE("movb %b2, 0x10(%0)");
    STORE("movb %h2, 0x11(%0,%1,1)");
    STORE("movw %w2, 0x13(%0)");
    STORE("movl %k2, 0x17(%0)");
    STORE("movq %2, 0x120(%0,%1,8)");
    STORE("movb $0x5c, 0x30(%0)");
    STORE("movw $0x1234, 0x31(%0)");
    STORE("movl $0x89abcdef, 0x34(%0)");
    STORE("movq $-2, 0x38(%0)");
    {
        register unsigned long long v __asm__("r14") = 0xfeedfacecafebeefull;
        __asm__ volatile("movq %2, 0x1c0(%0,%1,4)" : : "r"(m), "r"(idx), "r"(v) : "memory");
        __asm__ volatile("movb %b2, 0x1e0(%0)" : : "r"(m), "r"(idx), "r"(v) : "memory");
    }
    {
        unsigned char eq;
        __asm__ volatile("cmpl $0x0b0a0908, 8(%1)\n\tsete %0" : "=q"(eq) : "r"(m) : "memory", "cc");
        o[k++] = eq;
    }
    return k;
}
#endif

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
        /* Set-up before any core runs: the chip is quiescent. */
        unsigned long long s0 = epsim_now();
        b->n = n;
        b->ack = 0;
        b->result = 0;
        b->flag = 0;
        volatile unsigned *data = (volatile unsigned *)((char *)mem.base + DATA_AT);
        for (unsigned i = 0; i < DATA_WORDS; i++)
            data[i] = data_word(i);
        unsigned long long s1 = epsim_now();
        printf("setup %llu cycles\n", s1 - s0);
        e_epiphany_t dev;
        if (e_open(&dev, 0, 0, 1, 1) != E_OK)
            die("e_open");
        if (e_load_group(argv[1], &dev, 0, 0, 1, 1, E_TRUE) != E_OK)
            die("e_load_group");
        unsigned long polls1 = 0, polls2 = 0;
        /* The first wait reads the flag with a plain move (done in the
         * watch's handler) while a floating-point value stays live in the
         * FPU/SSE registers across every fault: the handler's return must
         * give them back as they were (on 32-bit x86 it returns without the
         * kernel). */
        double acc = 1.0;
        for (;;) {
            unsigned f;
            /* acc in an SSE register at the faulting move ("+x"). */
            __asm__ volatile("movl %2, %0" : "=r"(f), "+x"(acc) : "m"(b->flag));
            if (f == 1)
                break;
            polls1++;
            acc = acc * 1.0000001 + 0.25;
        }
        double want_acc = 1.0;
        for (unsigned long i = 0; i < polls1; i++)
            want_acc = *(volatile double *)&want_acc * 1.0000001 + 0.25;
        unsigned r = b->result;
        b->ack = 1;
        while (b->flag != 2)
            polls2++;
        unsigned r2 = b->result;
        unsigned want = box_compute(n);
        printf("result %u %s\n", r, r == want ? "ok" : "WRONG");
        printf("final %u %s\n", r2, r2 == want + 1 ? "ok" : "WRONG");
        printf("polls %lu %lu\n", polls1, polls2);
        printf("fpu %s\n", acc == want_acc ? "ok" : "WRONG");
        printf("cycles %llu\n", epsim_now());
        /* What the cores see of the set-up's data. */
        static unsigned seen[DATA_WORDS];
        if (e_read(&mem, 0, 0, DATA_AT, seen, sizeof seen) != sizeof seen)
            die("e_read");
        int same = 1;
        for (unsigned i = 0; i < DATA_WORDS; i++)
            same = same && seen[i] == data_word(i);
        printf("data seen %s\n", same ? "right" : "WRONG");
        e_close(&dev);
    } else if (!strcmp(what, "memcpy")) {
        int busy = argc > 3 && !strcmp(argv[3], "busy");
        e_epiphany_t dev;
        if (busy) {
            /* The core computes a little, sets the flag and spins on the
             * ack, in DRAM, until the copies are done. */
            b->n = 10;
            b->ack = 0;
            b->flag = 0;
            if (e_open(&dev, 0, 0, 1, 1) != E_OK)
                die("e_open");
            if (e_load_group(argv[1], &dev, 0, 0, 1, 1, E_TRUE) != E_OK)
                die("e_load_group");
        }
        static unsigned char src[8192], back[8192];
        for (unsigned i = 0; i < sizeof src; i++)
            src[i] = (unsigned char)(i * 7 + 3);
        /* After the mailbox's page. */
        unsigned char *d = (unsigned char *)mem.base + DATA_AT;
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
        if (e_read(&mem, 0, 0, DATA_AT + 8192 + 4093, seen, sizeof seen) != sizeof seen)
            die("e_read");
        ok = ok && !memcmp(seen, src, sizeof seen);
        printf("copy %s\n", ok ? "ok" : "WRONG");
        printf("cycles in %llu out %llu within %llu\n", t1 - t0, t2 - t1, t3 - t2);
        if (busy) {
            while (b->flag != 1)
                ;
            b->ack = 1;
            while (b->flag != 2)
                ;
            e_close(&dev);
        }
    } else if (!strcmp(what, "reopen")) {
        int thread = argc > 3 && !strcmp(argv[3], "thread");
        volatile unsigned *w = (volatile unsigned *)((char *)mem.base + DATA_AT);
        unsigned long long t0 = epsim_now();
        w[0] = 1;
        for (unsigned i = 1; i <= 1000; i++)
            w[i] = w[i - 1] + i;
        unsigned long long t1 = epsim_now();
        w[0] = 2;
        unsigned long long t2 = epsim_now();
        w[1] = 3;
        if (thread) {
            pthread_t t;
            if (pthread_create(&t, NULL, read_a_word, &mem) != 0 || pthread_join(t, NULL) != 0)
                die("pthread");
        } else {
            read_a_word(&mem);
        }
        w[2] = 4;
        unsigned long long t3 = epsim_now();
        printf("reopen %llu %llu %llu sum %u\n", t1 - t0, t2 - t1, t3 - t2, w[1000]);
    } else if (!strcmp(what, "forms")) {
#if defined(__x86_64__)
        static unsigned char mine[512];
        unsigned char *d = (unsigned char *)mem.base + DATA_AT;
        for (unsigned i = 0; i < sizeof mine; i++)
            mine[i] = d[i] = (unsigned char)(i * 13 + 0x80);
        /* A core runs meanwhile: each access is charged and done. */
        b->n = 10;
        b->ack = 0;
        b->flag = 0;
        e_epiphany_t dev;
        if (e_open(&dev, 0, 0, 1, 1) != E_OK)
            die("e_open");
        if (e_load_group(argv[1], &dev, 0, 0, 1, 1, E_TRUE) != E_OK)
            die("e_load_group");
        unsigned long long got[32], want[32];
        int n = forms(d, got);
        forms(mine, want);
        int regs = !memcmp(got, want, n * sizeof got[0]);
        int bytes = !memcmp(d, mine, sizeof mine);
        printf("forms %d registers %s bytes %s\n", n, regs ? "same" : "DIFFER", bytes ? "same" : "DIFFER");
        while (b->flag != 1)
            ;
        b->ack = 1;
        while (b->flag != 2)
            ;
        e_close(&dev);
#else
        printf("forms: x86-64 only\n");
#endif
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
        fprintf(stderr, "usage: dramwatch ELF poll N [R] | memcpy [busy] | reopen [thread] | forms | segv | trap\n");
        return 2;
    }
    if (!strcmp(argv[2], "trap"))
        signal(SIGTRAP, on_trap);
    int rounds = !strcmp(argv[2], "poll") && argc > 4 ? atoi(argv[4]) : 1;
    for (int round = 0; round < rounds; round++)
        session(argc, argv);
    return 0;
}
