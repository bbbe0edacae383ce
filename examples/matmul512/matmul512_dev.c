/* matmul512_dev: core (i,j) of the 4x4 group computes block (i,j) of
 * C = A x B (N/4 x N/4 floats, N read from the header in external memory),
 * one T x T tile of C at a time: for each tile it streams the tile row of A
 * and the tile column of B from external memory, a pair of 4 KB tiles per
 * step, by DMA (A on channel 0, B on channel 1), double buffered: the next
 * step's pair is fetched while this step's is multiplied. A finished tile
 * of C goes back by DMA on channel 0; then the core raises its done word. */
#include "edev.h"
#include "matmul512.h"

static float a[2][T][T] __attribute__((aligned(8)));
static float b[2][T][T] __attribute__((aligned(8)));
static float c[T][T] __attribute__((aligned(8)));
static dma_desc_t da[2], db[2], dc;

/* c += x * y, T x T tiles, eight columns of c kept in registers. */
static void tile_madd(const float (*x)[T], const float (*y)[T])
{
    for (unsigned r = 0; r < T; r++)
        for (unsigned col = 0; col < T; col += 8) {
            float s0 = c[r][col], s1 = c[r][col + 1], s2 = c[r][col + 2], s3 = c[r][col + 3];
            float s4 = c[r][col + 4], s5 = c[r][col + 5], s6 = c[r][col + 6], s7 = c[r][col + 7];
            for (unsigned k = 0; k < T; k++) {
                float v = x[r][k];
                const float *w = &y[k][col];
                s0 += v * w[0];
                s1 += v * w[1];
                s2 += v * w[2];
                s3 += v * w[3];
                s4 += v * w[4];
                s5 += v * w[5];
                s6 += v * w[6];
                s7 += v * w[7];
            }
            c[r][col] = s0;
            c[r][col + 1] = s1;
            c[r][col + 2] = s2;
            c[r][col + 3] = s3;
            c[r][col + 4] = s4;
            c[r][col + 5] = s5;
            c[r][col + 6] = s6;
            c[r][col + 7] = s7;
        }
}

int main(void)
{
    unsigned i = GROUP_CONFIG->core_row, j = GROUP_CONFIG->core_col;
    char *base = (char *)(EMEM_CONFIG->base + MM_OFFSET);
    unsigned n = *(volatile unsigned *)(base + HDR_OFF);
    unsigned nt = n / T, ct = nt / G; /* tiles a side: the matrix's, this core's block's */
    const char *A = base + A_OFF, *B = base + B_OFF;
    char *C = base + C_OFF;
    volatile unsigned *done = (volatile unsigned *)(base + DONE_OFF);
    unsigned steps = ct * ct * nt; /* (tile of C, k) pairs */

    /* Step s: tile (ti, tj) of C, k = tk. */
#define TI(s) (i * ct + (s) / nt / ct)
#define TJ(s) (j * ct + (s) / nt % ct)
#define TK(s) ((s) % nt)
    for (unsigned s = 0; s < steps; s++) {
        unsigned p = s & 1;
        if (s == 0) {
            dma_copy_desc(&da[0], A + (TI(0) * nt + TK(0)) * TILE_BYTES, a[0], TILE_BYTES / 8);
            dma_copy_desc(&db[0], B + (TJ(0) * nt + TK(0)) * TILE_BYTES, b[0], TILE_BYTES / 8);
            dma_start(0, &da[0]);
            dma_start(1, &db[0]);
        }
        dma_wait(0); /* this step's A (and the last tile of C sent) */
        dma_wait(1); /* this step's B */
        if (s + 1 < steps) {
            unsigned q = p ^ 1, t = s + 1;
            dma_copy_desc(&da[q], A + (TI(t) * nt + TK(t)) * TILE_BYTES, a[q], TILE_BYTES / 8);
            dma_copy_desc(&db[q], B + (TJ(t) * nt + TK(t)) * TILE_BYTES, b[q], TILE_BYTES / 8);
            dma_start(0, &da[q]);
            dma_start(1, &db[q]);
        }
        if (TK(s) == 0)
            for (unsigned r = 0; r < T; r++)
                for (unsigned col = 0; col < T; col++)
                    c[r][col] = 0;
        tile_madd(a[p], b[p]);
        if (TK(s) == nt - 1) {
            dma_wait(0);
            dma_copy_desc(&dc, c, C + (TI(s) * nt + TJ(s)) * TILE_BYTES, TILE_BYTES / 8);
            dma_start(0, &dc);
        }
    }
    dma_wait(0);
    done[i * G + j] = 1;
    return 0;
}
