/* exit_internal: exit(3) from a nested call, with an atexit() handler that
 * writes a line; everything in SRAM (internal.ld).  Expected status: 3. */
#include <stdlib.h>
#include "check.h"

static void bye(void)
{
    out_str("atexit handler ran\n");
}

static void leave(int code)
{
    out_str("leaving with ");
    out_i32(code);
    out_nl();
    exit(code);
}

int main(void)
{
    int i, sum = 0;
    CHECK(atexit(bye) == 0);
    for (i = 1; i <= 10; i++)
        sum += i * i;
    CHECK(sum == 385);
    out_str("sum of squares 1..10 = ");
    out_i32(sum);
    out_nl();
    check_done("exit_internal");
    leave(3);
    return 0; /* not reached */
}
