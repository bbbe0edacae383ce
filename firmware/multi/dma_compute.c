/* dma_compute: every core multiplies integer matrices in its SRAM (as
 * compute.c does) while its DMA engine copies a 4 KB block, doubleword by
 * doubleword, into the next core's bank 3 (0x6000; the stack is at its
 * top), once per round. Issue 16's workload of cores computing while data
 * they do not read lands in their SRAM (Adapteva's matmul-16 moves its
 * operand blocks between neighbours so); sim/tests/multicore.rs runs it
 * fast and in strict order. After its last copy a core raises a flag in
 * the next one, which then checksums the block it received; core (0,0)
 * prints the sum of every core's checksums. */
#include "multi.h"

#define N 24
#ifndef ROUNDS
#define ROUNDS 2
#endif
#define WORDS 1024

static int a[N][N], b[N][N], c[N][N];
static unsigned src[WORDS] __attribute__((aligned(8)));
volatile unsigned arrived;
volatile unsigned sums[GROUP_SIZE];
volatile unsigned flags[GROUP_SIZE];

int main(void)
{
    unsigned me = my_rank();
    unsigned next = (me + 1) % GROUP_SIZE;
    volatile unsigned *block = (volatile unsigned *)0x6000;
    unsigned check = 0;
    dma_desc d;
    for (unsigned r = 0; r < ROUNDS; r++) {
        for (unsigned i = 0; i < WORDS; i++)
            src[i] = i * 2654435761u + me * 40503u + r;
        dma_1d(&d, DMA_DOUBLE, src, on_rank(next, block), WORDS / 2);
        dma_start(0, &d);
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                a[i][j] = (int)(i * 7 + j * 3 + me + r) % 17 - 8;
                b[i][j] = (int)(i * 5 + j * 11 + me * 3 + r) % 13 - 6;
            }
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                int s = 0;
                for (int k = 0; k < N; k++)
                    s += a[i][k] * b[k][j];
                c[i][j] = s;
            }
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                check = check * 31 + (unsigned)c[i][j];
        dma_wait(0);
    }
    /* The block the previous core copied in last, once it says so. */
    *(volatile unsigned *)on_rank(next, &arrived) = 1;
    while (!arrived)
        ;
    for (unsigned i = 0; i < WORDS; i++)
        check = check * 33 + block[i];
    *(volatile unsigned *)on_rank(0, &sums[me]) = check;
    *(volatile unsigned *)on_rank(0, &flags[me]) = 1;
    if (me != 0)
        return 0;
    unsigned total = 0;
    for (unsigned r = 0; r < GROUP_SIZE; r++) {
        while (!flags[r])
            ;
        total += sums[r];
    }
    say_num("checksum: ", (long)total);
    return 0;
}
