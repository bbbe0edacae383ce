/* shm.c -- a named region made by the host with e_shm_alloc is found by a
 * core reading the table as e-lib's e_shm_attach does (dev/shm_dev.c).
 * Usage: shm SHM_DEV.ELF */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <e-hal.h>
#include <e-loader.h>
#include <epsim.h>

int main(int argc, char **argv)
{
    e_epiphany_t dev;
    e_mem_t first, shm;
    char reply[64] = "";

    if (argc < 2 || e_init(NULL) != E_OK || e_reset_system() != E_OK)
        return 1;
    /* Not the first region, so the core has to search. */
    if (e_shm_alloc(&first, "other", 100) != E_OK || e_shm_alloc(&shm, "epsim_shm", 256) != E_OK)
        return 1;
    strcpy(shm.base, "hello through shm");
    printf("host: region at device %#lx\n", (long)shm.ephy_base);
    fflush(stdout);
    if (e_open(&dev, 0, 0, 1, 1) != E_OK || e_load(argv[1], &dev, 0, 0, E_TRUE) != E_OK)
        return 1;
    /* The core is done when it has halted (exit). Wait up to 20 s: in free
     * mode the simulation runs on its own thread, which a loaded machine
     * may hold back for a while. */
    unsigned status = 0;
    for (int poll = 0; poll < 200000 && !(status & 1); poll++) {
        e_read(&dev, 0, 0, E_REG_DEBUGSTATUS, &status, sizeof status);
        if (!(status & 1))
            usleep(100);
    }
    e_read(&shm, 0, 0, 128, reply, sizeof reply - 1);
    printf("host: %s\n", reply);
    e_close(&dev);
    e_shm_release("epsim_shm");
    e_finalize();
    return strcmp(reply, "core saw: hello through shm") != 0;
}
