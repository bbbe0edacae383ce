/* remote_fetch: calls a function through its global address on core
 * (0,1). Executing another core's SRAM is not simulated yet: epsim stops
 * with a clear message. */
#include "multi.h"

int twice(int x) { return 2 * x; }

int main(void)
{
    int (*f)(int) = (int (*)(int))on_core(0, 1, (void *)twice);
    return f(21) == 42 ? 0 : 1;
}
