/* segv_return: what one SIGSEGV round trip costs a process, as the DRAM
 * pointer's watch pays it per access (host/src/dramwatch.rs, README "The
 * DRAM pointer in deterministic mode").
 *
 *   cc -O2 -m32 -msse2 -mfpmath=sse scripts/bench/segv_return.c -o /tmp/segv_return32
 *   /tmp/segv_return32 200000 kernel   # the handler returns, rt_sigreturn
 *   /tmp/segv_return32 200000 user     # it restores the frame itself (XRSTOR)
 *   cc -O2 scripts/bench/segv_return.c -o /tmp/segv_return64
 *   /tmp/segv_return64 200000 kernel
 *   /tmp/segv_return64 200000 user     # below the 128-byte red zone
 *
 * Each of N loads from a PROT_NONE page faults; the handler writes 0 into
 * the destination register and moves the instruction pointer past the
 * 2-byte load, as the watch does for a plain move. A double kept in an
 * SSE register across the faults must come out as computed without them.
 * Prints microseconds per round trip (wall clock). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>

static long faults;
static int user_return;

#if defined(__i386__)
static void resume(ucontext_t *uc)
{
    greg_t *g = uc->uc_mcontext.gregs;
    char *fp = (char *)uc->uc_mcontext.fpregs;
    char *image = fp + 112; /* after the FSAVE header */
    unsigned *sw = (unsigned *)(image + 464);
    unsigned lo = sw[2], hi = sw[3]; /* the frame's xfeatures */
    unsigned *sp = (unsigned *)g[REG_ESP] - 10;
    /* popad's order, then EFLAGS and EIP; written after XRSTOR below, in
     * the same asm, as the frame's FPU image may lie under them. */
    __asm__ volatile(
        "xrstor (%%edi)\n\t"
        "mov 4*4(%%ecx), %%eax\n\tmov %%eax, 0(%%esi)\n\t"
        "mov 4*5(%%ecx), %%eax\n\tmov %%eax, 4(%%esi)\n\t"
        "mov 4*6(%%ecx), %%eax\n\tmov %%eax, 8(%%esi)\n\t"
        "mov 4*8(%%ecx), %%eax\n\tmov %%eax, 16(%%esi)\n\t"
        "mov 4*9(%%ecx), %%eax\n\tmov %%eax, 20(%%esi)\n\t"
        "mov 4*10(%%ecx), %%eax\n\tmov %%eax, 24(%%esi)\n\t"
        "mov 4*11(%%ecx), %%eax\n\tmov %%eax, 28(%%esi)\n\t"
        "mov 4*16(%%ecx), %%eax\n\tmov %%eax, 32(%%esi)\n\t"
        "mov 4*14(%%ecx), %%eax\n\tmov %%eax, 36(%%esi)\n\t"
        "mov %%esi, %%esp\n\tpopal\n\tpopfl\n\tret"
        :
        : "D"(image), "a"(lo), "d"(hi), "c"(g), "S"(sp)
        : "memory");
    __builtin_unreachable();
}
#elif defined(__x86_64__)
static void resume(ucontext_t *uc)
{
    greg_t *g = uc->uc_mcontext.gregs;
    char *image = (char *)uc->uc_mcontext.fpregs;
    unsigned *sw = (unsigned *)(image + 464);
    unsigned lo = sw[2], hi = sw[3]; /* the frame's xfeatures */
    /* Below the red zone: r8-r15 rdi rsi rbp rbx rdx rax rcx (gregs 0-14,
     * in pop order), RFLAGS, RIP; `ret $128` then skips the red zone. */
    unsigned long *sp = (unsigned long *)g[REG_RSP] - 16 - 17;
    __asm__ volatile(
        "xrstor (%%rdi)\n\t"
        "mov $0, %%eax\n\t"
        "1: mov (%%rcx,%%rax,8), %%rdx\n\t"
        "mov %%rdx, (%%rsi,%%rax,8)\n\t"
        "inc %%eax\n\t"
        "cmp $15, %%eax\n\t"
        "jne 1b\n\t"
        "mov 8*17(%%rcx), %%rdx\n\tmov %%rdx, 8*15(%%rsi)\n\t"
        "mov 8*16(%%rcx), %%rdx\n\tmov %%rdx, 8*16(%%rsi)\n\t"
        "mov %%rsi, %%rsp\n\t"
        "pop %%r8\n\tpop %%r9\n\tpop %%r10\n\tpop %%r11\n\t"
        "pop %%r12\n\tpop %%r13\n\tpop %%r14\n\tpop %%r15\n\t"
        "pop %%rdi\n\tpop %%rsi\n\tpop %%rbp\n\tpop %%rbx\n\t"
        "pop %%rdx\n\tpop %%rax\n\tpop %%rcx\n\tpopfq\n\tret $128"
        :
        : "D"(image), "a"(lo), "d"(hi), "c"(g), "S"(sp)
        : "memory");
    __builtin_unreachable();
}
#endif

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    (void)si;
    ucontext_t *uc = ctx;
    faults++;
#if defined(__i386__)
    uc->uc_mcontext.gregs[REG_EAX] = 0;
    uc->uc_mcontext.gregs[REG_EIP] += 2;
    if (user_return)
        resume(uc);
#else
    uc->uc_mcontext.gregs[REG_RAX] = 0;
    uc->uc_mcontext.gregs[REG_RIP] += 2;
    if (user_return)
        resume(uc);
#endif
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[2], "kernel") && strcmp(argv[2], "user"))) {
        fprintf(stderr, "usage: segv_return N kernel|user\n");
        return 2;
    }
    long n = atol(argv[1]);
    user_return = !strcmp(argv[2], "user");
    int *page = mmap(0, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | (user_return ? SA_NODEFER : 0);
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, 0);
    double acc = 1.0, want = 1.0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < n; i++) {
        int v;
        /* mov (%ecx/%rcx), %eax: 2 bytes; acc in an SSE register across it */
        __asm__ volatile("movl (%2), %0" : "=a"(v), "+x"(acc) : "c"(page));
        acc = acc * 1.0000001 + v + 0.25;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    for (long i = 0; i < n; i++)
        want = *(volatile double *)&want * 1.0000001 + 0.25;
    double us = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 / n;
    printf("%ld faults, %.2f us each (%s return); FPU state %s\n", faults, us, argv[2],
           acc == want ? "intact" : "WRONG");
    return acc != want;
}
