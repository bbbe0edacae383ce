/* check.h -- tiny self-check helpers shared by the test programs.
 *
 * The same source builds for the Epiphany (epiphany-elf-gcc, newlib) and for
 * the host (gcc, glibc) and must print the same bytes on stdout.
 *
 * By default output goes through write(1, ...) only, so programs linked with
 * internal.ld stay small (no stdio).  A program that uses stdio defines
 * CHECK_USE_STDIO before including this file; then all output goes through
 * stdout, so it stays in order with the program's own printf()s.
 *
 *   CHECK(cond)            count and report a failed condition (by line)
 *   CHECK_EQ_U32(a, b)     ... with both values in hex
 *   CHECK_EQ_U64(a, b)
 *   out_str(s)             print a string
 *   out_u32 / out_i32 / out_hex32 / out_u64 / out_i64 / out_hex64
 *   out_nl()
 *   check_done(name)       print "name: PASS" or "name: FAIL (n)"; returns
 *                          the exit status to use (0 or 1)
 *
 * 64-bit values are formatted here because this toolchain's newlib printf has
 * no %lld (it was configured without --enable-newlib-io-long-long).
 */
#ifndef EPSIM_CHECK_H
#define EPSIM_CHECK_H

#include <stdint.h>
#include <string.h>

#define CHECK_FN static inline __attribute__((unused))

#ifdef CHECK_USE_STDIO
#include <stdio.h>
CHECK_FN void out_raw(const char *s, unsigned n) { fwrite(s, 1, n, stdout); }
#else
#include <unistd.h>
CHECK_FN void out_raw(const char *s, unsigned n)
{
    while (n > 0) {
        long w = (long)write(1, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (unsigned)w;
    }
}
#endif

static int check_failures __attribute__((unused));

CHECK_FN void out_str(const char *s) { out_raw(s, (unsigned)strlen(s)); }
CHECK_FN void out_nl(void) { out_raw("\n", 1); }

CHECK_FN void out_u64(uint64_t v)
{
    char buf[24];
    int i = (int)sizeof buf;
    do {
        buf[--i] = (char)('0' + (int)(v % 10u));
        v /= 10u;
    } while (v != 0);
    out_raw(buf + i, (unsigned)(sizeof buf - (unsigned)i));
}

CHECK_FN void out_i64(int64_t v)
{
    if (v < 0) {
        out_raw("-", 1);
        out_u64((uint64_t)0 - (uint64_t)v);
    } else {
        out_u64((uint64_t)v);
    }
}

CHECK_FN void out_hexdigits(uint32_t v, char *buf)
{
    static const char hex[] = "0123456789abcdef";
    int i;
    for (i = 0; i < 8; i++)
        buf[i] = hex[(v >> (28 - 4 * i)) & 15u];
}

CHECK_FN void out_hex32(uint32_t v)
{
    char buf[10] = "0x";
    out_hexdigits(v, buf + 2);
    out_raw(buf, 10);
}

CHECK_FN void out_hex64(uint64_t v)
{
    char buf[18] = "0x";
    out_hexdigits((uint32_t)(v >> 32), buf + 2);
    out_hexdigits((uint32_t)v, buf + 10);
    out_raw(buf, 18);
}

CHECK_FN void out_u32(uint32_t v)
{
    char buf[12];
    int i = (int)sizeof buf;
    do {
        buf[--i] = (char)('0' + (int)(v % 10u));
        v /= 10u;
    } while (v != 0);
    out_raw(buf + i, (unsigned)(sizeof buf - (unsigned)i));
}
CHECK_FN void out_i32(int32_t v)
{
    if (v < 0) {
        out_raw("-", 1);
        out_u32((uint32_t)0 - (uint32_t)v);
    } else {
        out_u32((uint32_t)v);
    }
}

CHECK_FN void check_fail_line(int line, const char *what)
{
    check_failures++;
    out_str("FAIL line ");
    out_i32(line);
    out_str(": ");
    out_str(what);
    out_nl();
}

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond))                                                         \
            check_fail_line(__LINE__, #cond);                                \
    } while (0)

#define CHECK_EQ_U32(a, b)                                                   \
    do {                                                                     \
        uint32_t check_a_ = (uint32_t)(a), check_b_ = (uint32_t)(b);         \
        if (check_a_ != check_b_) {                                          \
            check_fail_line(__LINE__, #a " == " #b);                         \
            out_str("  got ");                                               \
            out_hex32(check_a_);                                             \
            out_str(" want ");                                               \
            out_hex32(check_b_);                                             \
            out_nl();                                                        \
        }                                                                    \
    } while (0)

#define CHECK_EQ_U64(a, b)                                                   \
    do {                                                                     \
        uint64_t check_a_ = (uint64_t)(a), check_b_ = (uint64_t)(b);         \
        if (check_a_ != check_b_) {                                          \
            check_fail_line(__LINE__, #a " == " #b);                         \
            out_str("  got ");                                               \
            out_hex64(check_a_);                                             \
            out_str(" want ");                                               \
            out_hex64(check_b_);                                             \
            out_nl();                                                        \
        }                                                                    \
    } while (0)

CHECK_FN int check_done(const char *name)
{
    out_str(name);
    if (check_failures == 0) {
        out_str(": PASS\n");
    } else {
        out_str(": FAIL (");
        out_i32(check_failures);
        out_str(")\n");
    }
#ifdef CHECK_USE_STDIO
    fflush(stdout);
#endif
    return check_failures == 0 ? 0 : 1;
}

/* A small deterministic generator (the C libraries' rand() differ). */
static uint32_t lcg_state __attribute__((unused)) = 12345u;
CHECK_FN uint32_t lcg(void)
{
    lcg_state = lcg_state * 1103515245u + 12345u;
    return lcg_state >> 1;
}

#endif
