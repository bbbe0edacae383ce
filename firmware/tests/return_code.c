/* return_code: main returns 7; crt0 passes main's return value to exit().
 * Expected exit status: 7. */
#define CHECK_USE_STDIO
#include "check.h"

static int32_t compute(void)
{
    int32_t i, s = 0;
    for (i = 0; i < 10; i++)
        s += i;
    return s;
}

int main(void)
{
    int32_t s = compute();
    CHECK(s == 45);
    printf("sum 0..9 = %d, returning 7 from main\n", (int)s);
    if (check_done("return_code") != 0)
        return 1;
    return 7;
}
