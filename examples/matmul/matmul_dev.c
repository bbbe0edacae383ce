/* matmul_dev: core (i,j) of the 4x4 group computes block C(i,j) of
 * C = A x B. DMA0 and DMA1 fetch its block row of A and block column of B
 * (4 KB each) from external memory at once; it multiplies, sends C(i,j)
 * back by DMA and then raises its done word. */
#include "edev.h"
#include "matmul.h"

static float a[G][BS][BS] __attribute__((aligned(8)));
static float b[G][BS][BS] __attribute__((aligned(8)));
static float c[BS][BS] __attribute__((aligned(8)));
static dma_desc_t da, db, dc;

int main(void)
{
    unsigned i = GROUP_CONFIG->core_row, j = GROUP_CONFIG->core_col;
    char *base = (char *)(EMEM_CONFIG->base + MM_OFFSET);
    float *A = (float *)(base + A_OFF) + i * G * BLOCK_FLOATS;
    float *B = (float *)(base + B_OFF) + j * G * BLOCK_FLOATS;
    float *C = (float *)(base + C_OFF) + (i * G + j) * BLOCK_FLOATS;
    volatile unsigned *done = (volatile unsigned *)(base + DONE_OFF);

    dma_copy_desc(&da, A, a, sizeof a / 8);
    dma_copy_desc(&db, B, b, sizeof b / 8);
    dma_start(0, &da);
    dma_start(1, &db);
    dma_wait(0);
    dma_wait(1);
    for (unsigned r = 0; r < BS; r++)
        for (unsigned col = 0; col < BS; col++) {
            float sum = 0;
            for (unsigned k = 0; k < G; k++)
                for (unsigned t = 0; t < BS; t++)
                    sum += a[k][r][t] * b[k][t][col];
            c[r][col] = sum;
        }
    dma_copy_desc(&dc, c, C, sizeof c / 8);
    dma_start(0, &dc);
    dma_wait(0);
    done[i * G + j] = 1;
    return 0;
}
