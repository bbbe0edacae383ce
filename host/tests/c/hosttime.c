/* hosttime.c -- host time is simulated time: a host program that sleeps,
 * reads the clock or polls, as Parallella examples do, unchanged
 * (host/tests/hosttime.rs checks the figures it prints, in both run modes).
 * Usage: hosttime TICK_DEV.ELF sleep|bandwidth|poll|sleeppoll|busy
 *   sleep      before loading, sleep(2) and time(); then with the core of
 *              tick_dev.elf counting, for usleep, nanosleep and
 *              clock_nanosleep (relative and absolute): the chip's cycles
 *              (as the core's timer counts them) and the clock's
 *              nanoseconds across the sleep; then the clock across
 *              e_finalize.
 *   bandwidth  e_write and e_read bandwidth into core SRAM measured with
 *              clock_gettime, gettimeofday and clock(), as e-bandwidth-test
 *              measures it.
 *   poll       polls the core's message word with e_read until message 16,
 *              printing each new message once; then the number of polls.
 *   sleeppoll [SLACK]
 *              the same with usleep(1) before each e_read, as Epiphany
 *              BSP's host polls (with SLACK, after prctl(PR_SET_TIMERSLACK,
 *              SLACK)): on a board each sleep takes the thread's timer
 *              slack (50 us by default) more.
 *   busy       computes for 0.3 s of real time (read past the library's
 *              clock_gettime, with the system call), then usleep(1000)
 *              and e_finalize: with EPSIM_PROGRESS, its lines count real
 *              seconds.
 * Every mode first prints the thread's timer slack: "slack N ns". */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <e-hal.h>
#include <e-loader.h>

#define TICK_OUT 0x6000

static e_epiphany_t dev;

static long long mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static unsigned word(unsigned i)
{
    unsigned v = 0;
    if (e_read(&dev, 0, 0, TICK_OUT + 4 * i, &v, 4) != 4)
        fprintf(stderr, "e_read failed\n");
    return v;
}

/* The cycles the core counted and the clock's nanoseconds across one
 * sleep, done by `how` for `us` microseconds. */
static void across(const char *how, unsigned us)
{
    long long t0 = mono_ns();
    unsigned a = word(1);
    if (strcmp(how, "usleep") == 0) {
        usleep(us);
    } else if (strcmp(how, "nanosleep") == 0) {
        struct timespec req = {us / 1000000, (us % 1000000) * 1000L};
        nanosleep(&req, NULL);
    } else if (strcmp(how, "clock_nanosleep") == 0) {
        struct timespec req = {us / 1000000, (us % 1000000) * 1000L};
        clock_nanosleep(CLOCK_MONOTONIC, 0, &req, NULL);
    } else {
        struct timespec req;
        clock_gettime(CLOCK_MONOTONIC, &req);
        req.tv_nsec += us * 1000L;
        req.tv_sec += req.tv_nsec / 1000000000L;
        req.tv_nsec %= 1000000000L;
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &req, NULL);
    }
    unsigned b = word(1);
    long long t1 = mono_ns();
    printf("%s %u us: cycles %u ns %lld\n", how, us, b - a, t1 - t0);
}

static int sleeps(void)
{
    time_t s0 = time(NULL);
    long long t0 = mono_ns();
    struct timeval tv0, tv1;
    gettimeofday(&tv0, NULL);
    sleep(2);
    gettimeofday(&tv1, NULL);
    printf("sleep 2 s: ns %lld us %lld s %lld\n", mono_ns() - t0,
           (tv1.tv_sec - tv0.tv_sec) * 1000000LL + (tv1.tv_usec - tv0.tv_usec),
           (long long)(time(NULL) - s0));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 3 && prctl(PR_SET_TIMERSLACK, strtoul(argv[3], NULL, 0)) != 0)
        return 1;
    printf("slack %d ns\n", prctl(PR_GET_TIMERSLACK));
    if (argc < 3 || e_init(NULL) != E_OK || e_reset_system() != E_OK ||
        e_open(&dev, 0, 0, 1, 1) != E_OK)
        return 1;
    if (strcmp(argv[2], "sleep") == 0) {
        if (sleeps())
            return 1;
        if (e_load_group(argv[1], &dev, 0, 0, 1, 1, E_TRUE) != E_OK)
            return 1;
        while (word(1) == 0) /* the core's timer has started */
            ;
        across("usleep", 1000);
        across("nanosleep", 2000);
        across("clock_nanosleep", 500);
        across("clock_nanosleep_abs", 700);
        e_close(&dev);
        long long before = mono_ns();
        e_finalize();
        long long after = mono_ns();
        printf("after e_finalize: the clock %s\n", after >= before ? "goes on" : "went back");
        return 0;
    }
    if (strcmp(argv[2], "bandwidth") == 0) {
        static char buf[8192];
        memset(buf, 0x5a, sizeof buf);
        struct timeval tv0, tv1;
        long long t0 = mono_ns();
        gettimeofday(&tv0, NULL);
        clock_t c0 = clock();
        for (int i = 0; i < 64; i++)
            if (e_write(&dev, 0, 0, 0, buf, sizeof buf) != sizeof buf)
                return 1;
        clock_t c1 = clock();
        gettimeofday(&tv1, NULL);
        long long t1 = mono_ns();
        double bytes = 64.0 * sizeof buf;
        printf("write MB/s: clock_gettime %.3f gettimeofday %.3f clock %.3f\n",
               bytes / ((t1 - t0) / 1e3),
               bytes / ((tv1.tv_sec - tv0.tv_sec) * 1e6 + (tv1.tv_usec - tv0.tv_usec)),
               bytes / ((double)(c1 - c0) / CLOCKS_PER_SEC * 1e6));
        t0 = mono_ns();
        for (int i = 0; i < 16; i++)
            if (e_read(&dev, 0, 0, 0, buf, 2048) != 2048)
                return 1;
        t1 = mono_ns();
        printf("read MB/s: clock_gettime %.3f\n", 16 * 2048.0 / ((t1 - t0) / 1e3));
        e_finalize();
        return 0;
    }
    if (strcmp(argv[2], "busy") == 0) {
        struct timespec t0, t;
        syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t0);
        do
            syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
        while ((t.tv_sec - t0.tv_sec) * 1000000000LL + (t.tv_nsec - t0.tv_nsec) < 300000000LL);
        usleep(1000);
        e_finalize();
        return 0;
    }
    if (strcmp(argv[2], "poll") == 0 || strcmp(argv[2], "sleeppoll") == 0) {
        int sleeping = strcmp(argv[2], "sleeppoll") == 0;
        if (e_load_group(argv[1], &dev, 0, 0, 1, 1, E_TRUE) != E_OK)
            return 1;
        unsigned polls = 0, last = 0, seen = 0, m;
        do {
            if (sleeping)
                usleep(1);
            m = word(2);
            polls++;
            if (m != last) {
                printf("message %u\n", m);
                last = m;
                seen++;
            }
        } while (m < 16 && polls < 10000000);
        printf("poll: %u polls, %u messages\n", polls, seen);
        e_finalize();
        return 0;
    }
    return 1;
}
