/* time_of_day: gettimeofday (trap 7, SYS_gettimeofday 19) succeeds, tv_usec
 * is in range, and time never goes backwards over a few calls with work in
 * between.  Nothing about the actual time is printed.  (newlib 3.3 has a
 * 64-bit time_t: struct timeval is {int64 tv_sec; int32 tv_usec; pad}.) */
#define CHECK_USE_STDIO
#include <sys/time.h>
#include <time.h>
#include "check.h"

int main(void)
{
    struct timeval prev, now;
    int i, ok_calls = 0, monotonic = 1, usec_ok = 1;
    volatile uint32_t sink = 0;

    CHECK(gettimeofday(&prev, NULL) == 0);
    for (i = 0; i < 5; i++) {
        uint32_t k;
        for (k = 0; k < 20000; k++)
            sink += k * k;
        if (gettimeofday(&now, NULL) == 0)
            ok_calls++;
        if (now.tv_usec < 0 || now.tv_usec >= 1000000)
            usec_ok = 0;
        if (now.tv_sec < prev.tv_sec || (now.tv_sec == prev.tv_sec && now.tv_usec < prev.tv_usec))
            monotonic = 0;
        prev = now;
    }
    CHECK(ok_calls == 5 && usec_ok && monotonic);
    printf("gettimeofday: %d/5 calls ok, tv_usec in range: %s, monotonic: %s\n", ok_calls, usec_ok ? "yes" : "no",
           monotonic ? "yes" : "no");
    {
        time_t t = time(NULL);
        CHECK(t != (time_t)-1);
        printf("time() succeeded: %s\n", t != (time_t)-1 ? "yes" : "no");
    }
    return check_done("time_of_day");
}
