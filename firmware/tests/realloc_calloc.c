/* realloc_calloc: calloc zeroes (also memory that was dirty before), realloc
 * grows and shrinks keeping the contents, realloc(NULL, n) and a growing
 * dynamic array. */
#define CHECK_USE_STDIO
#include <stdlib.h>
#include "check.h"

int main(void)
{
    uint32_t i;
    /* dirty some memory, free it, then calloc: must come back zeroed */
    {
        unsigned char *d = malloc(4096);
        CHECK(d != NULL);
        memset(d, 0xee, 4096);
        free(d);
        uint32_t *z = calloc(1024, sizeof(uint32_t));
        CHECK(z != NULL);
        int zero = 1;
        for (i = 0; i < 1024; i++)
            if (z[i] != 0)
                zero = 0;
        CHECK(zero);
        printf("calloc zeroed: %s\n", zero ? "yes" : "no");
        free(z);
    }
    /* growing array with realloc */
    {
        uint32_t *a = NULL;
        uint32_t cap = 0, n = 0, sum = 0, reallocs = 0;
        for (i = 0; i < 5000; i++) {
            if (n == cap) {
                cap = cap ? cap * 2 : 4;
                a = realloc(a, cap * sizeof *a);
                CHECK(a != NULL);
                if (!a)
                    return check_done("realloc_calloc");
                reallocs++;
            }
            a[n++] = i * i;
        }
        for (i = 0; i < n; i++)
            if (a[i] != i * i)
                CHECK(a[i] == i * i);
        for (i = 0; i < n; i++)
            sum += a[i];
        printf("grew to %u elements (capacity %u, %u reallocs), sum 0x%08x\n", (unsigned)n, (unsigned)cap,
               (unsigned)reallocs, (unsigned)sum);
        /* shrink keeps the prefix */
        a = realloc(a, 100 * sizeof *a);
        CHECK(a != NULL);
        for (i = 0; i < 100; i++)
            CHECK(a[i] == i * i);
        free(a);
    }
    /* realloc of a string, interleaved with other allocations */
    {
        char *s = realloc(NULL, 8);
        char *other[10];
        strcpy(s, "abc");
        for (i = 0; i < 10; i++) {
            other[i] = malloc(16 + i * 8);
            memset(other[i], 'A' + (int)i, 16 + i * 8);
            s = realloc(s, strlen(s) + 4);
            strcat(s, "xyz");
        }
        printf("string after 10 reallocs: %s\n", s);
        CHECK(strlen(s) == 33);
        for (i = 0; i < 10; i++) {
            CHECK(other[i][15 + i * 8] == 'A' + (int)i);
            free(other[i]);
        }
        free(s);
    }
    return check_done("realloc_calloc");
}
