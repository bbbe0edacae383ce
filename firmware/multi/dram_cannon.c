/* dram_cannon: the pattern of Epiphany BSP's cannon example (a Cannon
 * matrix multiply whose blocks are streamed from external DRAM) on the 4x4
 * group, smaller: OUTER outer blocks of 64 x 64 single-precision matrices.
 *
 * C = sum over o < OUTER of A_o x B_o. Core (i,j) owns the 16 x 16 block
 * C(i,j). First every core writes its own chunks into DRAM (as the host
 * writes the stream): for each outer block o, the blocks Cannon's initial
 * skew brings it, A_o(i,(i+j)%4) and B_o((i+j)%4,j), each 1 KB. Then, for
 * each outer block, it reads the two chunks into its SRAM by DMA (the
 * engine's moves queue behind every other core's at the eLink, one read
 * of DRAM per 51 cycles for the chip) and waits for each by polling the
 * descriptor's ENABLE bit in its SRAM, which the DMA interrupt's handler
 * clears, meets the others at a barrier of counters on core (0,0), and
 * then does Cannon's four steps: each step it pushes its A and
 * B blocks on to its left and upper neighbours' other buffers by DMA
 * (queued descriptors, the handler starting the next), multiplies the
 * current blocks into C with a plain triple loop (C reloaded and stored
 * each multiply-add), waits for its pushes and meets the others at the
 * barrier. At the end it writes C to DRAM by
 * DMA, waits for that, checks C against the formulas and reports a
 * checksum to core (0,0), which prints
 *   dram_cannon: ok, checksum N
 * (or FAIL; a core whose block is wrong returns 1).
 *
 * Epiphany BSP's ebsp_dma_push, ebsp_dma_wait and its DMA interrupt work
 * so (one channel, DMA1); this is our own small version of the idea. As
 * Epiphany BSP does, every core keeps CTIMER0 counting the clock. */
#include "multi.h"

#define G 4
#define BS 16
#define OUTER 2
#define CHUNK (BS * BS * 4)
#define REGION (OUTER * 2 * CHUNK)
#define DRAM_BASE 0x8f000000u
#define C_BASE 0x8f100000u
#define DMA1_SLOT 0x1c
#define DMA1_BIT (1u << 7)
#define QLEN 4

#if GROUP_ROWS != G || GROUP_COLS != G
#error "dram_cannon runs on a 4x4 group"
#endif

#define DATA __attribute__((section(".data")))
#define barrier() __asm__ volatile("" : : : "memory")

/* Small integers: every product and sum is exact in a float. */
static inline int a_at(unsigned o, unsigned r, unsigned k) { return (int)((r * 7 + k * 3 + o * 5) % 11) - 5; }
static inline int b_at(unsigned o, unsigned k, unsigned c) { return (int)((k * 5 + c * 2 + o) % 9) - 4; }

static float abuf[2][BS * BS] __attribute__((aligned(8)));
static float bbuf[2][BS * BS] __attribute__((aligned(8)));
static float cblk[BS * BS] __attribute__((aligned(8)));
static dma_desc get_a, get_b, put_a, put_b, put_c;

/* DMA1's work: descriptors started one after the other by the interrupt
 * handler; a finished one has its ENABLE bit cleared. */
static dma_desc *volatile queue[QLEN];
static volatile unsigned q_first, q_end;

/* The barrier's counters: core (0,0)'s `arrived`, each core's `go`. */
volatile unsigned arrived[GROUP_SIZE] DATA;
volatile unsigned go DATA;
volatile unsigned sums[GROUP_SIZE] DATA;
volatile unsigned reported[GROUP_SIZE] DATA;

static inline void kick(dma_desc *d)
{
    *dma_reg(1, 0) = ((unsigned)(uintptr_t)d << 16) | DMA_STARTUP;
}

void __attribute__((interrupt)) dma1_handler(void)
{
    unsigned first = q_first;
    queue[first % QLEN]->config &= ~DMA_ENABLE;
    q_first = ++first;
    if (first != q_end)
        kick(queue[first % QLEN]);
}

/* Queues a transfer of `bytes` (a multiple of 8) on DMA1. */
static void push(dma_desc *d, volatile void *dst, const volatile void *src, unsigned bytes)
{
    dma_1d(d, DMA_DOUBLE, src, dst, bytes / 8);
    d->config |= DMA_IRQEN;
    if (((uintptr_t)dst & 0xfff00000u) == 0)
        d->config |= DMA_MSGMODE;
    barrier();
    __asm__ volatile("gid" ::: "memory");
    unsigned end = q_end;
    queue[end % QLEN] = d;
    q_end = end + 1;
    if (end == q_first)
        kick(d);
    __asm__ volatile("gie" ::: "memory");
}

static void wait_done(dma_desc *d)
{
    volatile unsigned *config = &d->config;
    while (*config & DMA_ENABLE)
        ;
    barrier();
}

static void wait_at_least(volatile unsigned *flag, unsigned v)
{
    while (*flag < v)
        ;
    barrier();
}

static void meet(unsigned me, unsigned epoch)
{
    barrier();
    *(volatile unsigned *)on_rank(0, &arrived[me]) = epoch;
    if (me == 0) {
        for (unsigned r = 0; r < GROUP_SIZE; r++)
            wait_at_least(&arrived[r], epoch);
        for (unsigned r = 1; r < GROUP_SIZE; r++)
            *(volatile unsigned *)on_rank(r, &go) = epoch;
    } else {
        wait_at_least(&go, epoch);
    }
}

static void multiply_add(const float *a, const float *b, float *c)
{
    for (unsigned i = 0; i < BS; i++)
        for (unsigned j = 0; j < BS; j++)
            for (unsigned k = 0; k < BS; k++)
                c[i * BS + j] += a[i * BS + k] * b[k * BS + j];
}

int main(void)
{
    unsigned me = my_rank();
    unsigned row = my_row(), col = my_col();
    unsigned left = (col + G - 1) % G, up = (row + G - 1) % G;
    unsigned kb = (row + col) % G;

    /* The stream in DRAM: for each outer block, A's chunk then B's. */
    volatile float *region = (volatile float *)(uintptr_t)(DRAM_BASE + me * REGION);
    for (unsigned o = 0; o < OUTER; o++) {
        volatile float *a = region + o * 2 * BS * BS, *b = a + BS * BS;
        for (unsigned i = 0; i < BS; i++) {
            /* (Residues stepped along the row: no division per element.) */
            unsigned ra = a_at(o, row * BS + i, kb * BS) + 5;
            unsigned rb = b_at(o, kb * BS + i, col * BS) + 4;
            for (unsigned j = 0; j < BS; j++) {
                a[i * BS + j] = (float)((int)ra - 5);
                b[i * BS + j] = (float)((int)rb - 4);
                ra = ra + 3 >= 11 ? ra + 3 - 11 : ra + 3;
                rb = rb + 2 >= 9 ? rb + 2 - 9 : rb + 2;
            }
        }
    }
    (void)region[REGION / 4 - 1];
    for (unsigned k = 0; k < BS * BS; k++)
        cblk[k] = 0.0f;
    timer_start();
    irq_attach(DMA1_SLOT, dma1_handler);
    irq_unmask(DMA1_BIT);
    unsigned epoch = 1;
    meet(me, epoch++);

    float *their_a[2] = {on_core(row, left, abuf[0]), on_core(row, left, abuf[1])};
    float *their_b[2] = {on_core(up, col, bbuf[0]), on_core(up, col, bbuf[1])};
    for (unsigned o = 0; o < OUTER; o++) {
        const volatile float *chunk = region + o * 2 * BS * BS;
        push(&get_a, abuf[0], chunk, CHUNK);
        wait_done(&get_a);
        push(&get_b, bbuf[0], chunk + BS * BS, CHUNK);
        wait_done(&get_b);
        /* (Every core is done with the last outer block's buffers.) */
        meet(me, epoch++);
        for (unsigned s = 0, cur = 0; s < G; s++, cur = 1 - cur) {
            if (s + 1 < G) {
                push(&put_a, their_a[1 - cur], abuf[cur], CHUNK);
                push(&put_b, their_b[1 - cur], bbuf[cur], CHUNK);
            }
            multiply_add(abuf[cur], bbuf[cur], cblk);
            if (s + 1 == G)
                break;
            wait_done(&put_b);
            wait_done(&put_a);
            meet(me, epoch++);
        }
    }
    push(&put_c, (void *)(uintptr_t)(C_BASE + me * CHUNK), cblk, CHUNK);
    wait_done(&put_c);

    /* Check C(row,col); checksum its elements, each weighted by 1 + (its
     * index in the matrix mod 13). */
    unsigned bad = 0;
    int sum = 0;
    for (unsigned i = 0; i < BS; i++)
        for (unsigned j = 0; j < BS; j++) {
            unsigned r = row * BS + i, c = col * BS + j;
            float want = 0.0f;
            for (unsigned o = 0; o < OUTER; o++) {
                unsigned ra = a_at(o, r, 0) + 5, rb = b_at(o, 0, c) + 4;
                for (unsigned k = 0; k < G * BS; k++) {
                    want += (float)((int)ra - 5) * (float)((int)rb - 4);
                    ra = ra + 3 >= 11 ? ra + 3 - 11 : ra + 3;
                    rb = rb + 5 >= 9 ? rb + 5 - 9 : rb + 5;
                }
            }
            float got = cblk[i * BS + j];
            bad += got != want;
            sum += (int)got * (int)((r * G * BS + c) % 13 + 1);
        }
    *(volatile unsigned *)on_rank(0, &sums[me]) = sum;
    *(volatile unsigned *)on_rank(0, &reported[me]) = 1 + (bad != 0);
    if (me != 0)
        return bad != 0;
    unsigned wrong = 0;
    int total = 0;
    for (unsigned r = 0; r < GROUP_SIZE; r++) {
        wait_at_least(&reported[r], 1);
        wrong += reported[r] != 1;
        total += (int)sums[r];
    }
    say_num(wrong ? "dram_cannon: FAIL, checksum " : "dram_cannon: ok, checksum ", total);
    return wrong != 0;
}
