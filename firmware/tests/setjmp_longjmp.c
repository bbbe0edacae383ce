/* setjmp_longjmp: non-local exits from nested calls, values of volatile
 * locals after longjmp, longjmp(env, 0) returning 1, re-arming a jmp_buf,
 * and an error-handling pattern that unwinds several levels. */
#define CHECK_USE_STDIO
#include <setjmp.h>
#include "check.h"

static jmp_buf env;
static int depth_reached;

static void dive(int depth, int limit)
{
    depth_reached = depth;
    if (depth == limit)
        longjmp(env, depth * 10);
    if (depth < 1000)
        dive(depth + 1, limit);
    printf("not reached\n");
}

static jmp_buf err_env;
static int parse_digit(char c)
{
    if (c < '0' || c > '9')
        longjmp(err_env, c);
    return c - '0';
}
static int parse_number(const char *s)
{
    int v = 0;
    while (*s)
        v = v * 10 + parse_digit(*s++);
    return v;
}
static int try_parse(const char *s, int *out)
{
    int c = setjmp(err_env);
    if (c != 0)
        return c;
    *out = parse_number(s);
    return 0;
}

int main(void)
{
    volatile int counter = 0;
    int r;

    r = setjmp(env);
    if (r == 0) {
        counter = 1;
        dive(0, 25);
    }
    CHECK(r == 250 && depth_reached == 25 && counter == 1);
    printf("longjmp from depth %d returned %d, counter %d\n", depth_reached, r, counter);

    counter = 0;
    r = setjmp(env);
    counter++;
    if (counter < 5)
        longjmp(env, 0); /* 0 becomes 1 */
    CHECK(r == 1 && counter == 5);
    printf("looped with longjmp: counter %d, last value %d\n", counter, r);

    {
        int v = -1, bad;
        bad = try_parse("12345", &v);
        CHECK(bad == 0 && v == 12345);
        printf("parse 12345: error %d value %d\n", bad, v);
        bad = try_parse("12x45", &v);
        CHECK(bad == 'x');
        printf("parse 12x45: error '%c'\n", bad);
        bad = try_parse("987", &v);
        CHECK(bad == 0 && v == 987);
        printf("parse 987: error %d value %d\n", bad, v);
    }

    /* callee-saved registers survive: keep values live across setjmp */
    {
        volatile uint32_t a = 0x11111111u, b = 0x22222222u, c = 0x33333333u, d = 0x44444444u;
        volatile double x = 1.25;
        if (setjmp(env) == 0) {
            a += 1;
            b += 2;
            c += 3;
            d += 4;
            x *= 2.0;
            longjmp(env, 7);
        }
        CHECK(a == 0x11111112u && b == 0x22222224u && c == 0x33333336u && d == 0x44444448u && x == 2.5);
        printf("after longjmp: %08x %08x %08x %08x %g\n", (unsigned)a, (unsigned)b, (unsigned)c,
               (unsigned)d, x);
    }
    return check_done("setjmp_longjmp");
}
