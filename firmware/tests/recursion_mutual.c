/* recursion_mutual: mutual recursion (even/odd, Hofstadter F/M), Ackermann,
 * Towers of Hanoi, and a recursive-descent expression evaluator. */
#define CHECK_USE_STDIO
#include "check.h"

static int is_odd(uint32_t n);
static int is_even(uint32_t n) { return n == 0 ? 1 : is_odd(n - 1); }
static int is_odd(uint32_t n) { return n == 0 ? 0 : is_even(n - 1); }

static int hof_m(int n);
static int hof_f(int n) { return n == 0 ? 1 : n - hof_m(hof_f(n - 1)); }
static int hof_m(int n) { return n == 0 ? 0 : n - hof_f(hof_m(n - 1)); }

static uint32_t ackermann(uint32_t m, uint32_t n)
{
    if (m == 0)
        return n + 1;
    if (n == 0)
        return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}

static uint32_t hanoi_moves;
static uint32_t hanoi_trace;
static void hanoi(int n, int from, int to, int via)
{
    if (n == 0)
        return;
    hanoi(n - 1, from, via, to);
    hanoi_moves++;
    hanoi_trace = hanoi_trace * 7u + (uint32_t)(from * 3 + to);
    hanoi(n - 1, via, to, from);
}

/* expr := term (('+'|'-') term)* ; term := factor (('*'|'/') factor)* ;
   factor := number | '(' expr ')' | '-' factor */
static const char *pos;
static int32_t expr(void);
static int32_t factor(void)
{
    int32_t v = 0;
    if (*pos == '(') {
        pos++;
        v = expr();
        pos++; /* ')' */
        return v;
    }
    if (*pos == '-') {
        pos++;
        return -factor();
    }
    while (*pos >= '0' && *pos <= '9')
        v = v * 10 + (*pos++ - '0');
    return v;
}
static int32_t term(void)
{
    int32_t v = factor();
    while (*pos == '*' || *pos == '/') {
        char op = *pos++;
        int32_t r = factor();
        v = op == '*' ? v * r : v / r;
    }
    return v;
}
static int32_t expr(void)
{
    int32_t v = term();
    while (*pos == '+' || *pos == '-') {
        char op = *pos++;
        int32_t r = term();
        v = op == '+' ? v + r : v - r;
    }
    return v;
}
static int32_t eval(const char *s)
{
    pos = s;
    return expr();
}

int main(void)
{
    int i;
    CHECK(is_even(1000) && !is_odd(1000) && is_odd(777));
    printf("is_even(1000)=%d is_odd(777)=%d\n", is_even(1000), is_odd(777));

    printf("Hofstadter F:");
    for (i = 0; i < 20; i++)
        printf(" %d", hof_f(i));
    printf("\nHofstadter M:");
    for (i = 0; i < 20; i++)
        printf(" %d", hof_m(i));
    printf("\n");
    CHECK(hof_f(19) == 12 && hof_m(19) == 12);

    CHECK(ackermann(2, 3) == 9);
    CHECK(ackermann(3, 3) == 61);
    printf("ackermann(2,3)=%u ackermann(3,3)=%u\n", (unsigned)ackermann(2, 3), (unsigned)ackermann(3, 3));

    hanoi(12, 1, 3, 2);
    CHECK(hanoi_moves == 4095);
    printf("hanoi(12): %u moves, trace 0x%08x\n", (unsigned)hanoi_moves, (unsigned)hanoi_trace);

    {
        static const char *const e[] = {"1+2*3", "(1+2)*3", "100/7-3*(2-5)", "-(4*-(3+2))/3",
                                        "2*(3*(4*(5*(6+1))))", "1000000/10/10/10-999"};
        static const int32_t want[] = {7, 9, 23, 6, 840, 1};
        for (i = 0; i < 6; i++) {
            int32_t v = eval(e[i]);
            CHECK(v == want[i]);
            printf("%s = %d\n", e[i], (int)v);
        }
    }
    return check_done("recursion_mutual");
}
