/* varargs: <stdarg.h> -- int/double/64-bit/pointer/struct arguments,
 * va_copy, passing a va_list on (vsnprintf), and many arguments (most go on
 * the stack: the Epiphany passes only r0-r3 in registers). */
#define CHECK_USE_STDIO
#include <stdarg.h>
#include "check.h"

struct pair {
    int32_t a;
    int32_t b;
};

static int32_t sum_ints(int n, ...)
{
    va_list ap;
    int32_t s = 0;
    va_start(ap, n);
    while (n-- > 0)
        s += va_arg(ap, int);
    va_end(ap);
    return s;
}

static double sum_mixed(const char *fmt, ...)
{
    va_list ap;
    double s = 0.0;
    va_start(ap, fmt);
    for (; *fmt; fmt++) {
        switch (*fmt) {
        case 'i': s += va_arg(ap, int); break;
        case 'd': s += va_arg(ap, double); break;
        case 'l': s += (double)va_arg(ap, long long); break;
        case 'p': {
            struct pair pr = va_arg(ap, struct pair);
            s += pr.a * 1000.0 + pr.b;
            break;
        }
        case 's': s += (double)strlen(va_arg(ap, const char *)); break;
        }
    }
    va_end(ap);
    return s;
}

/* walks the list twice through va_copy */
static int32_t max_and_count(int *count, ...)
{
    va_list ap, ap2;
    int32_t v, m = -2147483647 - 1;
    int n = 0;
    va_start(ap, count);
    va_copy(ap2, ap);
    while ((v = va_arg(ap, int)) != 0)
        n++;
    while ((v = va_arg(ap2, int)) != 0)
        if (v > m)
            m = v;
    va_end(ap2);
    va_end(ap);
    *count = n;
    return m;
}

static int my_format(char *buf, unsigned size, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}

static uint32_t many(int a0, int a1, int a2, int a3, int a4, int a5, int a6, int a7, int a8, int a9, ...)
{
    va_list ap;
    uint32_t h = (uint32_t)(a0 + a1 * 2 + a2 * 3 + a3 * 4 + a4 * 5 + a5 * 6 + a6 * 7 + a7 * 8 + a8 * 9 + a9 * 10);
    int i;
    va_start(ap, a9);
    for (i = 0; i < 6; i++)
        h = h * 31u + (uint32_t)va_arg(ap, int);
    va_end(ap);
    return h;
}

int main(void)
{
    char buf[100];
    int count, n;
    struct pair p1 = {3, 4}, p2 = {-5, 6};

    CHECK(sum_ints(0) == 0);
    CHECK(sum_ints(5, 1, 2, 3, 4, 5) == 15);
    CHECK(sum_ints(10, 1, -2, 3, -4, 5, -6, 7, -8, 9, -10) == -5);
    printf("sum_ints: %d %d\n", (int)sum_ints(5, 1, 2, 3, 4, 5), (int)sum_ints(10, 1, -2, 3, -4, 5, -6, 7, -8, 9, -10));

    {
        double s = sum_mixed("idlppsid", 1, 2.5, 10000000000LL, p1, p2, "hello", -4, 0.25);
        CHECK(s == 1 + 2.5 + 1e10 + 3004 - 4994 + 5 - 4 + 0.25);
        printf("sum_mixed = %.17g\n", s);
    }
    {
        int32_t m = max_and_count(&count, 5, 17, -3, 99, 42, 8, 0);
        CHECK(m == 99 && count == 6);
        printf("max_and_count: max %d count %d\n", (int)m, count);
    }
    n = my_format(buf, sizeof buf, "%s=%d, %s=%.2f, %c%c", "x", -17, "pi", 3.14159, 'o', 'k');
    CHECK(n == 18 && strcmp(buf, "x=-17, pi=3.14, ok") == 0);
    printf("vsnprintf: [%s] %d\n", buf, n);
    n = my_format(buf, 8, "%d-%d-%d", 1111, 2222, 3333);
    CHECK(n == 14 && strcmp(buf, "1111-22") == 0);
    printf("vsnprintf truncated: [%s] %d\n", buf, n);
    {
        uint32_t h = many(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
        printf("many args hash 0x%08x\n", (unsigned)h);
    }
    return check_done("varargs");
}
