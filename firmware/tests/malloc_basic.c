/* malloc_basic: malloc/free patterns on the newlib heap (libgloss sbrk
 * between __heap_start and __heap_end): many small blocks, interleaved frees,
 * reuse after free, alignment, and data integrity of every block. */
#define CHECK_USE_STDIO
#include <stdlib.h>
#include "check.h"

#define NBLK 200

int main(void)
{
    static unsigned char *blk[NBLK];
    static uint32_t len[NBLK];
    uint32_t i, j, bytes = 0, round;

    for (round = 0; round < 4; round++) {
        for (i = 0; i < NBLK; i++) {
            if (blk[i] == NULL) {
                len[i] = 1 + lcg() % 300;
                blk[i] = malloc(len[i]);
                CHECK(blk[i] != NULL);
                if (!blk[i])
                    return check_done("malloc_basic");
                CHECK(((uintptr_t)blk[i] & 7u) == 0);
                for (j = 0; j < len[i]; j++)
                    blk[i][j] = (unsigned char)(i + j);
                bytes += len[i];
            }
        }
        /* verify everything, then free every 2nd/3rd block depending on round */
        for (i = 0; i < NBLK; i++)
            for (j = 0; j < len[i]; j++)
                if (blk[i][j] != (unsigned char)(i + j)) {
                    CHECK(blk[i][j] == (unsigned char)(i + j));
                    return check_done("malloc_basic");
                }
        for (i = round % 3; i < NBLK; i += 2 + round % 2) {
            free(blk[i]);
            blk[i] = NULL;
        }
    }
    printf("allocated %u bytes in total\n", (unsigned)bytes);
    for (i = 0; i < NBLK; i++)
        free(blk[i]);

    /* larger blocks */
    {
        uint32_t sum = 0;
        unsigned char *big = malloc(20000);
        CHECK(big != NULL);
        for (i = 0; i < 20000; i++)
            big[i] = (unsigned char)(i * 13);
        for (i = 0; i < 20000; i++)
            sum += big[i];
        printf("20000-byte block sum = %u\n", (unsigned)sum);
        free(big);
    }
    free(NULL);
    return check_done("malloc_basic");
}
