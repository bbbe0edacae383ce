/* matmul: C = A x B for 64 x 64 single-precision matrices on the 4x4
 * group, by Cannon's algorithm with DMA double buffering.
 *
 * Core (i,j) owns the 16 x 16 block C(i,j). It starts with A(i,(i+j)%4)
 * and B((i+j)%4,j) -- the blocks Cannon's initial skew would bring it,
 * generated in place from the formulas below -- and then, for STEPS = 4
 * steps, multiplies its current A and B blocks into C while DMA0 pushes
 * those same blocks on, by two chained descriptors (the engine moves one
 * element a cycle for both channels together, so one channel loses
 * nothing): A to the left neighbour (i,j-1), B to the one above (i-1,j),
 * both around the torus, into the neighbour's other buffer. The ring
 * edges (column 3 -> 0, row 3 -> 0) are 3 hops of the mesh; the rest 1.
 *
 * Synchronisation, by counters in SRAM that only go up (no WAND):
 *   ready_a / ready_b   written by the core that sends me A / B (my right /
 *                       lower neighbour) once its DMA into my buffer has
 *                       finished: "the blocks of step s are in buf[s%2]".
 *                       Its flag write follows its DMA writes on the same
 *                       path, and writes to one core arrive in order.
 *   done_a / done_b     written by the core I send A / B to (left / upper
 *                       neighbour) when it has finished computing a step:
 *                       "buf[(s+1)%2] of mine is free, send step s+1".
 * At step s a core waits for done_x >= s before pushing into the
 * neighbour's buf[(s+1)%2] (the buffer of step s-1), computes, waits for
 * its DMA, raises the neighbour's ready_x to s+1, tells its own senders it
 * is done with step s, and waits for ready_a, ready_b >= s+1.
 *
 * Everything another core writes into lives in .data, not .bss, so crt0's
 * clearing of .bss cannot wipe a write from a core that started earlier;
 * the block buffers are only written after a start barrier (every core
 * tells core (0,0) it has arrived; core (0,0) answers each with `go`).
 * Core (0,0) times the multiply with CTIMER0 from the barrier to the last
 * core's "finished", then every core checks its C block against a direct
 * evaluation of the formulas and reports to core (0,0), which prints
 *   matmul 64x64 on 16 cores: ok, checksum N
 *   cycles: N
 * A core whose block is wrong returns 1.
 *
 * SRAM per core (of 32 KB): code 9.3 KB (main 2.3 KB, the rest crt0 and
 * the C library), .data 2.5 KB (0.4 KB of it the flags and tables above),
 * .bss 5.1 KB (A and B double buffers 2 x 2 x 1 KB, C 1 KB, descriptors),
 * then the default 4 KB stack reserve below 0x7ff0: about 21 KB in all,
 * 11 KB free (internal.ld asserts that it fits). */
#include "multi.h"

#define N 64
#define G 4          /* the group is G x G */
#define BS (N / G)   /* block size, 16 */
#define STEPS G

#if GROUP_ROWS != G || GROUP_COLS != G
#error "matmul runs on a 4x4 group"
#endif

#define DATA __attribute__((section(".data")))
#define barrier() __asm__ volatile("" : : : "memory")

typedef float block[BS][BS];

/* The matrices: small integers, so every product and sum is exact. */
static inline int a_at(unsigned r, unsigned k) { return (int)((r * 7 + k * 3) % 11) - 5; }
static inline int b_at(unsigned k, unsigned c) { return (int)((k * 5 + c * 2) % 9) - 4; }

static block abuf[2] __attribute__((aligned(8)));
static block bbuf[2] __attribute__((aligned(8)));
static block cblk __attribute__((aligned(8)));
static dma_desc da, db;

/* Written by neighbours (see above). */
volatile unsigned ready_a DATA, ready_b DATA, done_a DATA, done_b DATA;
volatile unsigned go DATA;

/* Core (0,0)'s tables, written by every core. */
volatile unsigned arrived[GROUP_SIZE] DATA;
volatile unsigned finished[GROUP_SIZE] DATA;
volatile unsigned sums[GROUP_SIZE] DATA;
volatile unsigned errors[GROUP_SIZE] DATA;
volatile unsigned reported[GROUP_SIZE] DATA;

static void wait_at_least(volatile unsigned *flag, unsigned v)
{
    while (*flag < v)
        ;
    barrier();
}

/* c += a x b for 16 x 16 blocks: one row of c in registers at a time,
 * two rows of b per iteration (GCC then interleaves the loads of one with
 * the FMADDs of the other: about 1.25 cycles per FMADD in timed mode). */
static void multiply_add(float (*restrict c)[BS], const float (*restrict a)[BS],
                         const float (*restrict b)[BS])
{
    for (unsigned i = 0; i < BS; i++) {
        float acc[BS];
        for (unsigned j = 0; j < BS; j++)
            acc[j] = c[i][j];
        for (unsigned k = 0; k < BS; k += 2) {
            float x0 = a[i][k], x1 = a[i][k + 1];
#pragma GCC unroll 16
            for (unsigned j = 0; j < BS; j++)
                acc[j] += x0 * b[k][j];
#pragma GCC unroll 16
            for (unsigned j = 0; j < BS; j++)
                acc[j] += x1 * b[k + 1][j];
        }
        for (unsigned j = 0; j < BS; j++)
            c[i][j] = acc[j];
    }
}

int main(void)
{
    unsigned me = my_rank();
    unsigned row = my_row(), col = my_col();
    unsigned left = (col + G - 1) % G, right = (col + 1) % G;
    unsigned up = (row + G - 1) % G, down = (row + 1) % G;

    /* Step 0's blocks: A(row, row+col) and B(row+col, col). */
    unsigned kb = (row + col) % G;
    for (unsigned i = 0; i < BS; i++)
        for (unsigned j = 0; j < BS; j++) {
            abuf[0][i][j] = (float)a_at(row * BS + i, kb * BS + j);
            bbuf[0][i][j] = (float)b_at(kb * BS + i, col * BS + j);
            cblk[i][j] = 0.0f;
        }

    /* Start barrier. */
    barrier();
    *(volatile unsigned *)on_rank(0, &arrived[me]) = 1;
    if (me == 0) {
        for (unsigned r = 0; r < GROUP_SIZE; r++)
            wait_at_least(&arrived[r], 1);
        timer_start();
        for (unsigned r = 1; r < GROUP_SIZE; r++)
            *(volatile unsigned *)on_rank(r, &go) = 1;
    } else {
        wait_at_least(&go, 1);
    }

    volatile unsigned *their_ready_a = on_core(row, left, &ready_a);
    volatile unsigned *their_ready_b = on_core(up, col, &ready_b);
    volatile unsigned *their_done_a = on_core(row, right, &done_a);
    volatile unsigned *their_done_b = on_core(down, col, &done_b);
    for (unsigned s = 0; s < STEPS; s++) {
        unsigned cur = s % 2, next = 1 - cur;
        int send = s + 1 < STEPS;
        if (send) {
            /* One channel, two chained descriptors: A, then B. */
            wait_at_least(&done_a, s);
            wait_at_least(&done_b, s);
            dma_1d(&da, DMA_DOUBLE, abuf[cur], on_core(row, left, abuf[next]),
                   sizeof(block) / 8);
            da.config |= DMA_CHAIN | (unsigned)(uintptr_t)&db << 16;
            dma_1d(&db, DMA_DOUBLE, bbuf[cur], on_core(up, col, bbuf[next]),
                   sizeof(block) / 8);
            barrier(); /* the descriptors are written before the start */
            dma_start(0, &da);
        }
        multiply_add(cblk, (const float (*)[BS])abuf[cur], (const float (*)[BS])bbuf[cur]);
        if (send) {
            dma_wait(0);
            *their_ready_a = s + 1;
            *their_ready_b = s + 1;
            /* My buffers of this step are free for step s+2's blocks
             * (nobody sends those when s+2 == STEPS). */
            if (s + 2 < STEPS) {
                *their_done_a = s + 1;
                *their_done_b = s + 1;
            }
            wait_at_least(&ready_a, s + 1);
            wait_at_least(&ready_b, s + 1);
        }
    }
    *(volatile unsigned *)on_rank(0, &finished[me]) = 1;
    unsigned cycles = 0;
    if (me == 0) {
        for (unsigned r = 0; r < GROUP_SIZE; r++)
            wait_at_least(&finished[r], 1);
        cycles = timer_now();
    }

    /* Check C(row,col) against the formulas; checksum the squares of its
     * elements, each weighted by 1 + (its index in the matrix mod 13). */
    unsigned bad = 0;
    int sum = 0;
    for (unsigned i = 0; i < BS; i++)
        for (unsigned j = 0; j < BS; j++) {
            unsigned r = row * BS + i, c = col * BS + j;
            /* sum over k of a_at(r, k) * b_at(k, c), without a division
             * per term: the residues step by 3 mod 11 and by 5 mod 9. All
             * partial sums are small integers, exact in a float. */
            unsigned ra = r * 7 % 11, rb = c * 2 % 9;
            float want = 0.0f;
            for (unsigned k = 0; k < N; k++) {
                want += (float)((int)ra - 5) * (float)((int)rb - 4);
                ra += 3;
                if (ra >= 11)
                    ra -= 11;
                rb += 5;
                if (rb >= 9)
                    rb -= 9;
            }
            if (cblk[i][j] != want)
                bad++;
            int got = (int)cblk[i][j];
            sum += got * got * (int)((r * N + c) % 13 + 1);
        }
    *(volatile unsigned *)on_rank(0, &sums[me]) = sum;
    *(volatile unsigned *)on_rank(0, &errors[me]) = bad;
    *(volatile unsigned *)on_rank(0, &reported[me]) = 1;

    if (me == 0) {
        unsigned wrong = 0;
        int total = 0;
        for (unsigned r = 0; r < GROUP_SIZE; r++) {
            wait_at_least(&reported[r], 1);
            total += (int)sums[r];
            wrong += errors[r];
        }
        if (wrong) {
            say("matmul 64x64 on 16 cores: FAILED, wrong elements: ");
            say_num("", wrong);
        } else {
            say("matmul 64x64 on 16 cores: ok, checksum ");
            say_num("", total);
        }
        say_num("cycles: ", cycles);
    }
    return bad ? 1 : 0;
}
