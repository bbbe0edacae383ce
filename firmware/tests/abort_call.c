/* abort_call: abort() after flushing stdout.  newlib's abort() raises
 * SIGABRT (libgloss kill -> _e_raise(6): sets ILAT bit 3, the timer-0
 * interrupt, whose default handler just returns) and then calls _exit(1):
 * "trap 3" with r0 = 1.  abort() does not flush stdio, so the program flushes
 * first.  Expected exit status: 1 (on a Linux host: killed by SIGABRT).
 * newlib on the Epiphany (no fcntl) starts stdout line-buffered whatever it
 * is connected to; glibc fully buffers a pipe.  The program asks for line
 * buffering so both print the line before abort(). */
#define CHECK_USE_STDIO
#include <stdlib.h>
#include "check.h"

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, BUFSIZ);
    int32_t x = 6 * 7;
    CHECK(x == 42);
    printf("about to abort (x = %d)\n", (int)x);
    check_done("abort_call");
    fflush(stdout);
    printf("this line is printed before abort\n");
    abort();
    printf("not reached\n");
    return 0;
}
