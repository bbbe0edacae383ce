/* vla: a loop allocating variable-length arrays on the stack and freeing
 * them, a benchmark of timed mode on code in DRAM.
 *
 * Built at -O2 with dram.ld (code and data in DRAM, stack in SRAM; see
 * ../Makefile and manifest.txt):
 *   vla-dram.elf   VLA_ITERS=60000
 *   vla-short.elf  VLA_ITERS=400  (a quick run)
 * Each iteration picks a length from a linear congruential generator,
 * declares an array of that length inside the loop's body (freed at the end
 * of every iteration: the stack pointer must come back each time, or the
 * SRAM stack overflows long before the end), fills it, and folds it into a
 * checksum, once directly and once through a helper with its own VLA. It
 * prints the checksum and the largest stack depth seen, and exits 0. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#ifndef VLA_ITERS
#define VLA_ITERS 60000
#endif

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

static char *put_str(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

/* A second VLA, in a callee: its frame is popped on return. */
__attribute__((noinline)) static uint32_t fold(const uint32_t *a, uint32_t n, uint32_t seed)
{
    uint32_t b[n + 1];
    uint32_t s = seed;
    b[0] = seed;
    for (uint32_t i = 0; i < n; i++)
        b[i + 1] = (b[i] ^ a[i]) * 2654435761u + i;
    for (uint32_t i = n + 1; i > 0; i--)
        s = (s << 5) + s + b[i - 1];
    return s;
}

int main(void)
{
    static volatile uint32_t iters = VLA_ITERS;
    uint32_t x = 12345u, sum = 0, deepest = 0;
    uintptr_t top = (uintptr_t)&x;
    for (uint32_t it = 0; it < iters; it++) {
        x = x * 1103515245u + 12345u;
        uint32_t n = 1u + ((x >> 16) & 31u);
        uint32_t a[n];
        for (uint32_t i = 0; i < n; i++)
            a[i] = x + i * i;
        uint32_t depth = (uint32_t)(top - (uintptr_t)a);
        if (depth > deepest)
            deepest = depth;
        sum += fold(a, n, sum);
    }
    char line[96], *p = line;
    p = put_str(p, "vla: ");
    p = put_u32(p, iters);
    p = put_str(p, " iterations, checksum ");
    p = put_u32(p, sum);
    p = put_str(p, (deepest < 1024u) ? ", stack freed\n" : ", stack NOT freed\n");
    write(1, line, (size_t)(p - line));
    return 0;
}
