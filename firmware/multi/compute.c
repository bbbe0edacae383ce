/* compute: the whole group works, then reduces. Each core multiplies two
 * N x N integer matrices in its SRAM ROUNDS times (seeded by its rank),
 * writes a checksum into core (0,0)'s table, and raises a flag there;
 * core (0,0) waits for every flag and prints the sum. A workload for the
 * multi-core throughput benchmark: mostly local work, a little traffic. */
#include "multi.h"

#define N 24
#ifndef ROUNDS
#define ROUNDS 8
#endif

static int a[N][N], b[N][N], c[N][N];
volatile unsigned sums[GROUP_SIZE];
volatile unsigned flags[GROUP_SIZE];

int main(void)
{
    unsigned me = my_rank();
    unsigned check = 0;
    for (unsigned r = 0; r < ROUNDS; r++) {
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
    }
    volatile unsigned *sum = on_rank(0, &sums[me]);
    *sum = check;
    volatile unsigned *flag = on_rank(0, &flags[me]);
    *flag = 1;
    if (me == 0) {
        unsigned total = 0;
        for (unsigned r = 0; r < GROUP_SIZE; r++) {
            while (!flags[r])
                ;
            total += sums[r];
        }
        say_num("total: ", total);
    }
    return 0;
}
