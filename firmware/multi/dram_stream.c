/* dram_stream: every core of the group stores STORES doublewords to its
 * own slice of external DRAM as fast as it can (an unrolled strd loop),
 * measures the cycles with CTIMER0 and prints cycles per store x 100 (the
 * last few stores still in the network's buffers when the timer is read
 * are a small part of 512).
 * Built for one core and for the whole 4x4 chip: alone, a stream costs the
 * eLink's per-transaction time; together, the cores share the eLink. */
#include "multi.h"

#define STORES 512
#define SHARED ((volatile unsigned long long *)0x8f000000)

int main(void)
{
    volatile unsigned long long *p = SHARED + my_rank() * STORES;
    unsigned long long v = 0x0102030405060708ull;
    timer_start();
    unsigned t0 = timer_now();
    for (unsigned i = 0; i < STORES; i += 8) {
        p[i] = v;
        p[i + 1] = v;
        p[i + 2] = v;
        p[i + 3] = v;
        p[i + 4] = v;
        p[i + 5] = v;
        p[i + 6] = v;
        p[i + 7] = v;
    }
    unsigned t1 = timer_now();
    say_num("cycles per 8-byte store x100: ", (long)((t1 - t0) * 100ull / STORES));
    return 0;
}
