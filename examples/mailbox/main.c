/* mailbox: the host produces ITEMS values for each of the 16 cores through
 * mailboxes in external memory (e_alloc: the host writes through the
 * pointer, the cores read at their device address), the cores answer
 * through the same memory, and each finally writes a block the host checks.
 * The host polls with e_read, so it works in both of epsim's run modes. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <e-hal.h>
#include <e-loader.h>
#include <epsim.h>

#include "mbox.h"

static e_mem_t mem;

/* Waits until core `rank` has acknowledged `want` (it may be further). */
static int wait_ack(unsigned rank, unsigned want)
{
    for (int poll = 0; poll < 200000; poll++) {
        uint32_t ack = 0;
        e_read(&mem, 0, 0, offsetof(shared_t, box[rank].ack), &ack, sizeof ack);
        if (ack >= want)
            return 0;
        if (poll % 64 == 63)
            usleep(100);
    }
    fprintf(stderr, "mailbox: core %u never acknowledged %u\n", rank, want);
    return 1;
}

int main(int argc, char **argv)
{
    const char *elf = argc > 1 ? argv[1] : "consumer.elf";
    e_epiphany_t dev;

    e_set_host_verbosity(H_D1);
    if (e_init(NULL) != E_OK || e_reset_system() != E_OK)
        return 1;
    if (e_alloc(&mem, MBOX_OFFSET, sizeof(shared_t)) != E_OK)
        return 1;
    shared_t *sh = mem.base;
    memset(sh, 0, sizeof *sh);
    printf("host: mailboxes at device %#lx, host pointer %s\n", (long)mem.ephy_base, mem.base ? "set" : "NULL");
    fflush(stdout);
    if (e_open(&dev, 0, 0, 4, 4) != E_OK || e_load_group(elf, &dev, 0, 0, 4, 4, E_TRUE) != E_OK)
        return 1;
    int bad = 0;
    for (unsigned i = 1; i <= ITEMS; i++) {
        for (unsigned r = 0; r < CORES; r++) {
            sh->box[r].value = i * 10 + r;
            sh->box[r].seq = i;
        }
        for (unsigned r = 0; r < CORES; r++) {
            if (wait_ack(r, i))
                return 1;
            unsigned v = i * 10 + r;
            if (sh->box[r].reply != REPLY(v, r)) {
                fprintf(stderr, "mailbox: core %u answered %u to %u\n", r, sh->box[r].reply, v);
                bad++;
            }
        }
    }
    for (unsigned r = 0; r < CORES; r++) {
        if (wait_ack(r, ITEMS + 1))
            return 1;
        for (unsigned k = 0; k < BLOCK; k++)
            if (sh->block[r][k] != r * 1000 + k)
                bad++;
    }
    printf("host: %u replies and %u block words checked, %d wrong\n", ITEMS * CORES, CORES * BLOCK, bad);
    if (epsim_get_mode() == EPSIM_DETERMINISTIC) {
        epsim_stats_t s;
        epsim_stats(&s);
        printf("host: deterministic: %llu cycles, %llu e-hal calls, %llu instructions\n", s.cycles,
               s.calls, s.instret);
    }
    e_close(&dev);
    e_free(&mem);
    e_finalize();
    return bad != 0;
}
