/* abort_call: abort() after flushing stdout.  newlib's abort() raises
 * SIGABRT (libgloss kill -> _e_raise(6): sets ILAT bit 3, the timer-0
 * interrupt, whose default handler just returns) and then calls _exit(1):
 * "trap 3" with r0 = 1.  abort() does not flush stdio, so the program flushes
 * first.  Expected exit status: 1 (on a Linux host: killed by SIGABRT). */
#define CHECK_USE_STDIO
#include <stdlib.h>
#include "check.h"

int main(void)
{
    int32_t x = 6 * 7;
    CHECK(x == 42);
    printf("about to abort (x = %d)\n", (int)x);
    check_done("abort_call");
    fflush(stdout);
    printf("this buffered line is lost by abort\n");
    abort();
    printf("not reached\n");
    return 0;
}
