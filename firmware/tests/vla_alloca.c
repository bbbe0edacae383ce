/* vla_alloca: variable-length arrays and alloca -- stack frames whose size
 * is only known at run time, nested, in a loop, with the frame pointer. */
#define CHECK_USE_STDIO
#include <alloca.h>
#include "check.h"

static uint32_t vla_sum(int n)
{
    int32_t v[n];
    int i;
    uint32_t s = 0;
    for (i = 0; i < n; i++)
        v[i] = i * i - n;
    for (i = n - 1; i >= 0; i--)
        s = s * 31u + (uint32_t)v[i];
    return s;
}

static int32_t matrix_trace(int n)
{
    int32_t m[n][n];
    int i, j;
    int32_t t = 0;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            m[i][j] = (i + 1) * (j + 2);
    for (i = 0; i < n; i++)
        t += m[i][i] - m[n - 1 - i][i];
    return t + m[n - 1][n - 1];
}

static uint32_t alloca_chain(int depth, uint32_t acc)
{
    int n = 8 + depth * 4;
    uint8_t *p = alloca((size_t)n);
    int i;
    for (i = 0; i < n; i++)
        p[i] = (uint8_t)(acc + (uint32_t)i);
    if (depth > 0)
        acc = alloca_chain(depth - 1, acc * 7u + 1u);
    for (i = 0; i < n; i++)
        acc = acc * 31u + p[i]; /* still intact after the deeper call */
    return acc;
}

int main(void)
{
    int n;
    uint32_t h = 0;
    for (n = 1; n <= 200; n += 13)
        h = h * 7u + vla_sum(n);
    printf("vla sums hash 0x%08x\n", (unsigned)h);
    printf("vla traces:");
    for (n = 1; n <= 20; n += 4)
        printf(" %d", (int)matrix_trace(n));
    printf("\n");
    CHECK(matrix_trace(1) == 2);
    printf("alloca chain 0x%08x\n", (unsigned)alloca_chain(20, 1));
    {
        /* a big VLA: ~6 KB of stack */
        int big = 1500;
        uint32_t s = vla_sum(big);
        printf("vla_sum(1500) = 0x%08x\n", (unsigned)s);
    }
    return check_done("vla_alloca");
}
