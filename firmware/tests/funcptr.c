/* funcptr: function pointers -- tables of operations, callbacks, functions
 * returning function pointers, pointers to static and extern functions,
 * comparison of function pointers, and a table-driven state machine. */
#define CHECK_USE_STDIO
#include "check.h"

typedef int32_t (*binop)(int32_t, int32_t);
static int32_t op_add(int32_t a, int32_t b) { return a + b; }
static int32_t op_sub(int32_t a, int32_t b) { return a - b; }
static int32_t op_mul(int32_t a, int32_t b) { return a * b; }
static int32_t op_max(int32_t a, int32_t b) { return a > b ? a : b; }
static int32_t op_pow(int32_t a, int32_t b)
{
    int32_t r = 1;
    while (b-- > 0)
        r *= a;
    return r;
}

static const struct {
    char sym;
    binop fn;
} ops[] = {{'+', op_add}, {'-', op_sub}, {'*', op_mul}, {'M', op_max}, {'^', op_pow}};

static binop lookup(char sym)
{
    unsigned i;
    for (i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (ops[i].sym == sym)
            return ops[i].fn;
    return 0;
}

static int32_t fold(const int32_t *v, int n, binop f, int32_t init)
{
    int i;
    for (i = 0; i < n; i++)
        init = f(init, v[i]);
    return init;
}

static void apply_all(int32_t *v, int n, int32_t (*f)(int32_t))
{
    int i;
    for (i = 0; i < n; i++)
        v[i] = f(v[i]);
}
static int32_t twice(int32_t x) { return 2 * x; }
static int32_t square(int32_t x) { return x * x; }

/* state machine: recognise signed decimal numbers with optional fraction */
enum { S_START, S_SIGN, S_INT, S_DOT, S_FRAC, S_ERR, NSTATES };
typedef int (*state_fn)(char c);
static int st_start(char c) { return c == '+' || c == '-' ? S_SIGN : (c >= '0' && c <= '9') ? S_INT : S_ERR; }
static int st_sign(char c) { return (c >= '0' && c <= '9') ? S_INT : S_ERR; }
static int st_int(char c) { return (c >= '0' && c <= '9') ? S_INT : c == '.' ? S_DOT : S_ERR; }
static int st_dot(char c) { return (c >= '0' && c <= '9') ? S_FRAC : S_ERR; }
static int st_frac(char c) { return (c >= '0' && c <= '9') ? S_FRAC : S_ERR; }
static int st_err(char c) { (void)c; return S_ERR; }
static const state_fn machine[NSTATES] = {st_start, st_sign, st_int, st_dot, st_frac, st_err};
static int is_number(const char *s)
{
    int st = S_START;
    while (*s)
        st = machine[st](*s++);
    return st == S_INT || st == S_FRAC;
}

int main(void)
{
    static const int32_t v[] = {3, -1, 4, 1, -5, 9, 2, 6};
    int32_t w[8];
    const char *syms = "+-*M";
    int i;

    for (i = 0; syms[i]; i++) {
        binop f = lookup(syms[i]);
        CHECK(f != 0);
        printf("fold %c = %d\n", syms[i], (int)fold(v, 8, f, syms[i] == '*' ? 1 : 0));
    }
    CHECK(lookup('^')(3, 4) == 81 && lookup('?') == 0);
    CHECK(lookup('+') == op_add && lookup('+') != op_sub);
    printf("3^4 = %d\n", (int)lookup('^')(3, 4));

    memcpy(w, v, sizeof w);
    apply_all(w, 8, twice);
    apply_all(w, 8, square);
    printf("twice then square:");
    for (i = 0; i < 8; i++)
        printf(" %d", (int)w[i]);
    printf("\n");
    CHECK(w[7] == 144);

    {
        static const char *const in[] = {"123", "-4.5", "+.5", "7.", "12a", "", "-0.001", "--1", "3.14"};
        printf("numbers:");
        for (i = 0; i < 9; i++)
            printf(" \"%s\"=%d", in[i], is_number(in[i]));
        printf("\n");
    }
    {
        /* pointer to function through a volatile, called indirectly many times */
        binop volatile vf = op_mul;
        int32_t acc = 1;
        for (i = 1; i <= 12; i++)
            acc = vf(acc, i);
        CHECK(acc == 479001600);
        printf("12! via volatile function pointer = %d\n", (int)acc);
    }
    return check_done("funcptr");
}
