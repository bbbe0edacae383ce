/* ptr_share.c -- a 32-bit host program (built with -m32 against the
 * i686 libe-hal) shares a pointer-holding struct job (ptr_share.h) with a
 * core through external DRAM: it writes device addresses into the
 * struct's pointers, the core (dev/ptr_share_dev.c) follows them, and the
 * host follows the pointer the core wrote back. Prints what it checked;
 * exits 0 when everything matched.
 * Usage: ptr_share PTR_SHARE_DEV.ELF */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <e-hal.h>
#include <e-loader.h>

#include "ptr_share.h"

_Static_assert(sizeof(void *) == 4, "build this program with -m32: its struct job must match the device's");

/* The device address of a place in the allocation. */
static uint32_t dev_addr(const e_mem_t *m, const void *p)
{
    return (uint32_t)((uintptr_t)p - (uintptr_t)m->base) + (uint32_t)m->ephy_base;
}

int main(int argc, char **argv)
{
    e_epiphany_t dev;
    e_mem_t mem;
    int bad = 0;

    if (argc < 2) {
        fprintf(stderr, "usage: ptr_share PTR_SHARE_DEV.ELF\n");
        return 2;
    }
    if (e_init(NULL) != E_OK || e_reset_system() != E_OK ||
        e_alloc(&mem, JOB_OFFSET, 4096) != E_OK) {
        fprintf(stderr, "ptr_share: e_init/e_reset_system/e_alloc failed\n");
        return 1;
    }
    printf("host: sizeof(void *) %u, sizeof(struct job) %u, job at device %#x\n",
           (unsigned)sizeof(void *), (unsigned)sizeof(struct job), (unsigned)mem.ephy_base);

    struct job *job = (struct job *)mem.base;
    int *in = (int *)((char *)mem.base + 256);
    int *out = (int *)((char *)mem.base + 512);
    memset(mem.base, 0, 4096);
    for (int i = 0; i < JOB_N; i++)
        in[i] = i - 5;
    /* The pointers hold device addresses: on a 32-bit host a pointer is
     * exactly as wide as the device's, so the cast loses nothing. */
    job->in = (const int *)(uintptr_t)dev_addr(&mem, in);
    job->out = (int *)(uintptr_t)dev_addr(&mem, out);
    job->self = (struct job *)(uintptr_t)dev_addr(&mem, job);
    job->n = JOB_N;

    if (e_open(&dev, 0, 0, 1, 1) != E_OK || e_load(argv[1], &dev, 0, 0, E_TRUE) != E_OK) {
        fprintf(stderr, "ptr_share: e_open/e_load %s failed\n", argv[1]);
        return 1;
    }
    /* Poll the flag through e_read (each read costs its modelled time, so
     * the chip advances in both run modes). */
    unsigned done = 0;
    for (long poll = 0; poll < 2000000 && done != JOB_DONE; poll++)
        e_read(&mem, 0, 0, offsetof(struct job, done), &done, sizeof done);
    if (done != JOB_DONE) {
        fprintf(stderr, "ptr_share: the core never finished (done %#x)\n", done);
        return 1;
    }
    printf("core: sizeof(struct job) %u\n", job->size);
    if (job->size != sizeof(struct job))
        bad = 1;
    int sum = 0;
    for (int i = 0; i < JOB_N; i++) {
        sum += in[i] * in[i];
        if (out[i] != in[i] * in[i]) {
            printf("out[%d] = %d, expected %d\n", i, out[i], in[i] * in[i]);
            bad = 1;
        }
    }
    printf("core: sum of squares %d\n", job->sum);
    if (job->sum != sum)
        bad = 1;
    /* The core's pointer is a device address: back to a host pointer. */
    uint32_t msg = (uint32_t)(uintptr_t)job->msg;
    if (msg < (uint32_t)mem.ephy_base || msg >= (uint32_t)mem.ephy_base + 4096) {
        printf("core's msg pointer %#x is outside the job's memory\n", msg);
        bad = 1;
    } else {
        const char *m = (const char *)mem.base + (msg - (uint32_t)mem.ephy_base);
        printf("core: msg at device %#x: %s\n", msg, m);
        if (strcmp(m, "squared by the core") != 0)
            bad = 1;
    }
    printf("%s\n", bad ? "FAIL" : "PASS");
    e_close(&dev);
    e_free(&mem);
    e_finalize();
    return bad;
}
