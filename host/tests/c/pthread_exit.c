/* pthread_exit.c -- a host whose main thread ends with pthread_exit, as
 * ePython v2.0's does (issue 15, defect 7): the process must end when its
 * last thread does, although the library's chip thread runs on.
 * Usage: pthread_exit DEVICE.ELF. The main thread loads DEVICE.ELF on two
 * cores, starts them and leaves; a worker thread waits for the cores and
 * writes its last words without a newline into stdout's buffer, which
 * only the exit of the process (exit(0) by the last thread) flushes. */
#include <pthread.h>
#include <stdio.h>

#include <e-hal.h>
#include <e-loader.h>
#include <epsim.h>

static e_epiphany_t dev;

static void *worker(void *arg)
{
    unsigned rows[2] = {0, 0}, cols[2] = {0, 1};
    (void)arg;
    int rc = epsim_run_until_cores_idle(rows, cols, 2, 0, 100000000ULL);
    printf("worker: cores done (%s)\n", rc == E_OK ? "ok" : "not ok");
    /* No e_close, no e_finalize, no newline: the process's end writes it. */
    printf("worker: last words");
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t;
    if (argc < 2 || e_init(NULL) != E_OK || e_open(&dev, 0, 0, 1, 2) != E_OK ||
        e_load_group(argv[1], &dev, 0, 0, 1, 2, E_TRUE) != E_OK) {
        fprintf(stderr, "pthread_exit: set-up failed\n");
        return 1;
    }
    printf("main: leaving\n");
    fflush(stdout);
    if (pthread_create(&t, NULL, worker, NULL) != 0) {
        fprintf(stderr, "pthread_exit: no thread\n");
        return 1;
    }
    pthread_exit(NULL);
}
