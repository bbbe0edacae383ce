/* recursion_deep: deep non-tail recursion that needs most of the SRAM stack
 * (dram.ld: code and data in external DRAM, the stack alone fills the
 * core's 32 KB SRAM).  Depths in the hundreds to thousands, with frames
 * holding local arrays, plus a recursive flood fill. */
#define CHECK_USE_STDIO
#include "check.h"

static uint32_t depth_max;

/* not a tail call: the addition happens after the call returns */
static uint32_t sum_to(uint32_t n, uint32_t depth)
{
    if (depth > depth_max)
        depth_max = depth;
    if (n == 0)
        return 0;
    return n + sum_to(n - 1, depth + 1);
}

/* frames with a local array that must survive the nested call */
static uint32_t framed(int n)
{
    volatile uint32_t local[8];
    uint32_t r = 0;
    int i;
    for (i = 0; i < 8; i++)
        local[i] = (uint32_t)(n * 8 + i);
    if (n > 0)
        r = framed(n - 1);
    for (i = 0; i < 8; i++)
        r = r * 3u + local[i];
    return r;
}

#define W 24
#define H 20
static char grid[H][W + 1];
static int fill(int y, int x)
{
    if (y < 0 || y >= H || x < 0 || x >= W || grid[y][x] != '.')
        return 0;
    grid[y][x] = '#';
    return 1 + fill(y + 1, x) + fill(y - 1, x) + fill(y, x + 1) + fill(y, x - 1);
}

int main(void)
{
    uint32_t s;
    int y, x, filled;

    s = sum_to(1500, 1);
    CHECK(s == 1500u * 1501u / 2u);
    printf("sum_to(1500) = %u, depth %u\n", (unsigned)s, (unsigned)depth_max);

    s = framed(300);
    printf("framed(300) = 0x%08x\n", (unsigned)s);

    /* a maze-free grid with a wall: flood fill recursion goes ~1000 deep */
    for (y = 0; y < H; y++) {
        for (x = 0; x < W; x++)
            grid[y][x] = (x == 12 && y != H - 1) ? '|' : '.';
        grid[y][W] = 0;
    }
    filled = fill(0, 0);
    CHECK(filled == W * H - (H - 1));
    printf("flood fill: %d cells\n", filled);
    return check_done("recursion_deep");
}
