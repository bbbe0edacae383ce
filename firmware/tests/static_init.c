/* static_init: initialised and zero-initialised globals and statics (.data,
 * .rodata, .bss, COMMON), static locals keeping their value across calls,
 * pointers in initialisers, and constructors/destructors (crt0 runs .init,
 * crtbegin/crtend walk .ctors; exit() runs .dtors through fini). */
#define CHECK_USE_STDIO
#include "check.h"

int32_t g_init = 12345;
int32_t g_zero;
static int32_t s_table[8] = {1, 1, 2, 3, 5, 8, 13, 21};
static const char *const s_names[] = {"alpha", "beta", "gamma"};
static const char s_text[] = "static text";
static int32_t *const s_ptr = &s_table[5];
static double s_dbl[3] = {0.5, -1.25, 1e100};
static struct {
    int16_t a;
    char b[5];
    int32_t c;
} s_struct = {-7, "abcd", 0x7fffffff};
static uint8_t s_bss_big[3000];
static int32_t ctor_value;
static int32_t ctor_order[4];
static int ctor_count;

__attribute__((constructor)) static void ctor_a(void)
{
    ctor_value += 100;
    ctor_order[ctor_count++] = 1;
}
__attribute__((constructor)) static void ctor_b(void)
{
    ctor_value += 20;
    ctor_order[ctor_count++] = 2;
}
__attribute__((destructor)) static void dtor(void)
{
    printf("destructor ran, ctor_value %d\n", (int)ctor_value);
}

static int32_t counter(void)
{
    static int32_t calls = 1000;
    return ++calls;
}

int main(void)
{
    int i, zero = 1;
    CHECK(g_init == 12345 && g_zero == 0);
    CHECK(s_table[7] == 21 && *s_ptr == 8);
    CHECK(strcmp(s_names[2], "gamma") == 0 && strcmp(s_text, "static text") == 0);
    CHECK(s_dbl[2] == 1e100 && s_struct.a == -7 && strcmp(s_struct.b, "abcd") == 0 && s_struct.c == 0x7fffffff);
    for (i = 0; i < 3000; i++)
        if (s_bss_big[i])
            zero = 0;
    CHECK(zero);
    printf("g_init %d g_zero %d table[7] %d *ptr %d names[1] %s text \"%s\"\n", (int)g_init, (int)g_zero,
           (int)s_table[7], (int)*s_ptr, s_names[1], s_text);
    printf("dbl %g %g %g struct %d %s %d bss zero %d\n", s_dbl[0], s_dbl[1], s_dbl[2], s_struct.a, s_struct.b,
           (int)s_struct.c, zero);
    CHECK(ctor_value == 120 && ctor_count == 2);
    printf("constructors: value %d, count %d\n", (int)ctor_value, ctor_count);
    CHECK(counter() == 1001 && counter() == 1002 && counter() == 1003);
    printf("static local counter now %d\n", (int)counter());
    g_init++;
    s_table[0] = 99;
    CHECK(g_init == 12346 && s_table[0] == 99);
    ctor_value = 7;
    return check_done("static_init");
}
