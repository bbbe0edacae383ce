/* matmul512: the host puts A and B (N x N floats, N = 512 unless the first
 * argument says otherwise, pseudo-random small integers so that every
 * product and sum is exact in single precision: the result must equal the
 * host's exactly) in external memory through e_alloc's pointer, starts
 * the 16 cores (matmul512_dev.c: each computes its N/4 x N/4 block of C
 * with DMA double buffering), waits for their done words, then checks
 * every element of C against its own product. It waits as Adapteva's
 * apps/matmul-16 does, polling the done words in external memory with
 * e_read in a loop, or, with --wait, in one epsim_run_until_cores_idle
 * call, or with --run=CYCLES, polling between epsim_run(CYCLES) calls. Prints the simulated cycles from e_start to the last done word,
 * GFLOPS at 600 MHz and the real (wall) time of the run. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <e-hal.h>
#include <e-loader.h>
#include <epsim.h>

#include "matmul512.h"

static float a[N_MAX][N_MAX], b[N_MAX][N_MAX];

/* Offset (in floats) of element (r, c) of a matrix stored by tile rows
 * (A, C) or tile columns (B). */
static size_t at_rows(unsigned n, unsigned r, unsigned c)
{
    return ((size_t)(r / T) * (n / T) + c / T) * TILE_FLOATS + (r % T) * T + c % T;
}

static size_t at_cols(unsigned n, unsigned r, unsigned c)
{
    return ((size_t)(c / T) * (n / T) + r / T) * TILE_FLOATS + (r % T) * T + c % T;
}

/* Real time: libe-hal's clock_gettime is the simulated host's clock. */
static double wall(void)
{
    struct timespec ts;
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU time of the process (user + system), which the VM's load disturbs
 * less than wall time. */
static double cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

int main(int argc, char **argv)
{
    unsigned n = N_MAX;
    int wait = 0;
    unsigned long long chunk = 0;
    const char *elf = "matmul512_dev.elf";
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--wait"))
            wait = 1;
        else if (!strncmp(argv[k], "--run=", 6))
            chunk = strtoull(argv[k] + 6, NULL, 0);
        else if (strstr(argv[k], ".elf"))
            elf = argv[k];
        else
            n = (unsigned)atoi(argv[k]);
    }
    if (n == 0 || n % (G * T) || n > N_MAX) {
        fprintf(stderr, "matmul512: N must be a multiple of %u up to %u, not %s\n", G * T, N_MAX,
                argc > 1 ? argv[1] : "?");
        return 2;
    }
    e_epiphany_t dev;
    e_mem_t mem;
    double w0 = wall();
    e_set_host_verbosity(H_D1);
    if (e_init(NULL) != E_OK || e_reset_system() != E_OK || e_alloc(&mem, MM_OFFSET, MM_BYTES) != E_OK)
        return 1;
    float *A = (float *)((char *)mem.base + A_OFF), *B = (float *)((char *)mem.base + B_OFF);
    float *C = (float *)((char *)mem.base + C_OFF);
    unsigned seed = 12345;
    for (unsigned r = 0; r < n; r++)
        for (unsigned c = 0; c < n; c++) {
            seed = seed * 1103515245u + 12345u;
            a[r][c] = (float)((int)(seed >> 16 & 15) - 8);
            seed = seed * 1103515245u + 12345u;
            b[r][c] = (float)((int)(seed >> 16 & 15) - 8);
            A[at_rows(n, r, c)] = a[r][c];
            B[at_cols(n, r, c)] = b[r][c];
        }
    memset(C, 0, (size_t)n * n * 4);
    unsigned hdr[DONE_OFF / 4 + G * G] = {n};
    memcpy(mem.base, hdr, sizeof hdr);
    if (e_open(&dev, 0, 0, G, G) != E_OK || e_load_group(elf, &dev, 0, 0, G, G, E_FALSE) != E_OK)
        return 1;
    double w1 = wall(), c1 = cpu();
    unsigned long long t0 = epsim_now();
    if (e_start_group(&dev) != E_OK)
        return 1;
    unsigned done = 0;
    unsigned long long polls = 0;
    if (wait) {
        unsigned rows[G * G], cols[G * G];
        for (unsigned k = 0; k < G * G; k++)
            rows[k] = k / G, cols[k] = k % G;
        if (epsim_run_until_cores_idle(rows, cols, G * G, 0, 1ull << 40) != E_OK)
            fprintf(stderr, "matmul512: the cores did not all finish\n");
    }
    /* Poll every done word (an e_read of external memory, as matmul-16's
     * host reads its done flag), at most 2^40 simulated cycles. */
    while (done < G * G && epsim_now() - t0 < 1ull << 40) {
        unsigned flags[G * G];
        if (e_read(&mem, 0, 0, DONE_OFF, flags, sizeof flags) != (ssize_t)sizeof flags)
            return 1;
        polls++;
        done = 0;
        for (unsigned k = 0; k < G * G; k++)
            done += flags[k] == 1;
        if (chunk && done < G * G)
            epsim_run(chunk);
    }
    unsigned long long cycles = epsim_now() - t0;
    double w2 = wall(), c2 = cpu();
    unsigned long long wrong = 0;
    double checksum = 0;
    for (unsigned r = 0; r < n; r++)
        for (unsigned c = 0; c < n; c++) {
            float want = 0;
            for (unsigned k = 0; k < n; k++)
                want += a[r][k] * b[k][c];
            float got = C[at_rows(n, r, c)];
            wrong += got != want;
            checksum += got;
        }
    printf("matmul512 %ux%u on %u cores: %u done, %llu of %u elements wrong, checksum %.0f\n", n, n,
           G * G, done, wrong, n * n, checksum);
    printf("matmul512: %llu cycles from start to the last done word, %.2f GFLOPS at 600 MHz, "
           "%s (%llu polls)\n",
           cycles, 2.0 * n * n * n / (cycles / 600e6) * 1e-9, wait ? "one wait" : chunk ? "polling between runs" : "polling", polls);
    /* Real time depends on the machine: stderr, so that stdout is the same run to run. */
    fprintf(stderr,
            "matmul512: wall %.2f s from start to the last done word (CPU %.2f s; setup before it "
            "%.2f s), %.2f M chip cycles/s of wall time\n",
            w2 - w1, c2 - c1, w1 - w0, cycles / (w2 - w1) * 1e-6);
    e_close(&dev);
    e_free(&mem);
    e_finalize();
    return wrong != 0 || done != G * G;
}
