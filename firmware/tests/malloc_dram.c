/* malloc_dram: large heap use (dram.ld: the heap is the rest of the 16 MB
 * EXTERNAL_DRAM_0 window) -- megabyte blocks, a big realloc, many frees, and
 * the contents checked everywhere. */
#define CHECK_USE_STDIO
#include <stdlib.h>
#include "check.h"

int main(void)
{
    uint32_t *big[4];
    uint32_t i, k, sum;
    for (k = 0; k < 4; k++) {
        big[k] = malloc(256 * 1024);
        CHECK(big[k] != NULL);
        if (!big[k])
            return check_done("malloc_dram");
        for (i = 0; i < 64 * 1024; i += 97)
            big[k][i] = i * (k + 1);
    }
    sum = 0;
    for (k = 0; k < 4; k++)
        for (i = 0; i < 64 * 1024; i += 97)
            sum += big[k][i];
    printf("4 x 256 KB blocks, sampled sum %u\n", (unsigned)sum);
    free(big[1]);
    free(big[2]);
    big[0] = realloc(big[0], 1024 * 1024);
    CHECK(big[0] != NULL);
    for (i = 0; i < 64 * 1024; i += 97)
        CHECK(big[0][i] == i);
    for (i = 64 * 1024; i < 256 * 1024; i += 1001)
        big[0][i] = i;
    sum = 0;
    for (i = 0; i < 256 * 1024; i += 1001)
        sum += big[0][i];
    printf("after realloc to 1 MB: sampled sum %u\n", (unsigned)sum);
    free(big[0]);
    free(big[3]);
    {
        /* 2000 small blocks, freed in a scattered order */
        static void *small[2000];
        int ok = 1;
        for (i = 0; i < 2000; i++) {
            small[i] = malloc(16 + (i % 50) * 8);
            if (!small[i])
                ok = 0;
            else
                memset(small[i], (int)(i & 0xff), 16);
        }
        for (i = 0; i < 2000; i++) {
            uint32_t j = (i * 769u) % 2000u;
            if (small[j] && ((unsigned char *)small[j])[15] != (unsigned char)(j & 0xff))
                ok = 0;
            free(small[j]);
        }
        CHECK(ok);
        printf("2000 small blocks: %s\n", ok ? "ok" : "corrupt");
    }
    return check_done("malloc_dram");
}
