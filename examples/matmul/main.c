/* matmul: the host puts A and B (64 x 64 floats, small integers so every
 * result is exact) in external memory through e_alloc's pointer, the 16
 * cores compute C = A x B a block each with DMA (matmul_dev.c), and the
 * host checks every element of C. Polls with e_read: works in both run
 * modes. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <e-hal.h>
#include <e-loader.h>
#include <epsim.h>

#include "matmul.h"

static float a[N][N], b[N][N];

/* Element (r, c) of a matrix stored by block rows (A) or block columns (B). */
static float *at_a(float *m, unsigned r, unsigned c)
{
    return m + ((r / BS) * G + c / BS) * BLOCK_FLOATS + (r % BS) * BS + c % BS;
}

static float *at_b(float *m, unsigned r, unsigned c)
{
    return m + ((c / BS) * G + r / BS) * BLOCK_FLOATS + (r % BS) * BS + c % BS;
}

int main(int argc, char **argv)
{
    const char *elf = argc > 1 ? argv[1] : "matmul_dev.elf";
    e_epiphany_t dev;
    e_mem_t mem;

    e_set_host_verbosity(H_D1);
    if (e_init(NULL) != E_OK || e_reset_system() != E_OK ||
        e_alloc(&mem, MM_OFFSET, DONE_OFF + G * G * 4) != E_OK)
        return 1;
    char *base = mem.base;
    for (unsigned r = 0; r < N; r++)
        for (unsigned c = 0; c < N; c++) {
            a[r][c] = (float)((r * 3 + c) % 7) - 3;
            b[r][c] = (float)((r + 2 * c) % 5) - 2;
            *at_a((float *)(base + A_OFF), r, c) = a[r][c];
            *at_b((float *)(base + B_OFF), r, c) = b[r][c];
        }
    memset(base + C_OFF, 0, N * N * 4 + G * G * 4);
    if (e_open(&dev, 0, 0, G, G) != E_OK)
        return 1;
    unsigned long long t0 = epsim_now();
    if (e_load_group(elf, &dev, 0, 0, G, G, E_TRUE) != E_OK)
        return 1;
    unsigned done = 0;
    for (int poll = 0; poll < 100000 && done < G * G; poll++) {
        unsigned flags[G * G];
        e_read(&mem, 0, 0, DONE_OFF, flags, sizeof flags);
        done = 0;
        for (unsigned k = 0; k < G * G; k++)
            done += flags[k] == 1;
        if (done < G * G)
            usleep(200);
    }
    unsigned long long t1 = epsim_now();
    int wrong = 0;
    double checksum = 0;
    for (unsigned r = 0; r < N; r++)
        for (unsigned c = 0; c < N; c++) {
            float want = 0;
            for (unsigned k = 0; k < N; k++)
                want += a[r][k] * b[k][c];
            float got = *(float *)(base + C_OFF + 4 * (((r / BS) * G + c / BS) * BLOCK_FLOATS +
                                                       (r % BS) * BS + c % BS));
            wrong += got != want;
            checksum += got;
        }
    printf("matmul %dx%d on %u cores: %u done, %d of %d elements wrong, checksum %.0f\n", N, N,
           G * G, done, wrong, N * N, checksum);
    if (epsim_get_mode() == EPSIM_DETERMINISTIC)
        printf("matmul: load to last done %llu cycles\n", t1 - t0);
    e_close(&dev);
    e_free(&mem);
    e_finalize();
    return wrong != 0 || done != G * G;
}
