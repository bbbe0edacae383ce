/* fib: recursive Fibonacci, a compute benchmark for the simulator.
 *
 * Built at -O2 three ways (see ../Makefile and manifest.txt):
 *   fib.elf           FIB_N=33, fast.ld     (code in SRAM, libc in DRAM)
 *   fib-internal.elf  FIB_N=33, internal.ld (everything in SRAM)
 *   fib-short.elf     FIB_N=20, internal.ld (a quick run)
 * and twice with all its code in DRAM, for timed mode on DRAM code:
 *   fib-dram.elf       FIB_N=30, dram.ld (code and data in DRAM, stack in SRAM)
 *   fib-dram-short.elf FIB_N=16, dram.ld
 * It uses write() and its own number formatting, so the whole program fits in
 * SRAM; it prints one line and exits with status 0.
 *
 * Size: GCC 12 -O2 keeps fib(n - 1) as a call and turns the fib(n - 2) chain
 * into a loop, so fib(n) calls fib(n-1), fib(n-3), fib(n-5), ...  Counted
 * from the disassembly, fib(33) retires about 108.8 million instructions in
 * 4.87 million calls, fib(20) about 0.21 million (plus ~1-2 thousand for
 * start-up, printing and exit). */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#ifndef FIB_N
#define FIB_N 33
#endif

__attribute__((noinline)) static uint32_t fib(uint32_t n)
{
    if (n < 2)
        return n;
    return fib(n - 1) + fib(n - 2);
}

static char *put_u32(char *p, uint32_t v)
{
    char tmp[12];
    int i = 0;
    do {
        tmp[i++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    while (i > 0)
        *p++ = tmp[--i];
    return p;
}

int main(void)
{
    static volatile uint32_t n = FIB_N;
    char line[64], *p = line;
    uint32_t r = fib(n);
    memcpy(p, "fib(", 4);
    p = put_u32(p + 4, n);
    memcpy(p, ") = ", 4);
    p = put_u32(p + 4, r);
    *p++ = '\n';
    write(1, line, (size_t)(p - line));
    return 0;
}
