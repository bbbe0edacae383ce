/* diag.c -- what the library says on stderr (issue 15, defect 10). A core
 * runs into a BKPT (the board says nothing: the core just stops) and a
 * call fails (the board's e-hal warns). Usage: diag DEVICE.ELF [verbose]:
 * DEVICE.ELF is loaded and its reset vector replaced by a BKPT; "verbose"
 * sets e_set_host_verbosity(H_D1). Prints "diag: halted N" on stdout. */
#include <stdio.h>
#include <string.h>

#include <e-hal.h>
#include <e-loader.h>
#include <epsim.h>

int main(int argc, char **argv)
{
    e_epiphany_t dev;
    unsigned short bkpt = 0x01c2; /* BKPT */
    unsigned v = 0;

    if (argc > 2 && strcmp(argv[2], "verbose") == 0)
        e_set_host_verbosity(H_D1);
    if (e_init(NULL) != E_OK) {
        printf("diag: no e_init\n");
        return 1;
    }
    e_open(&dev, 0, 0, 1, 1);
    if (argc < 2 || e_load(argv[1], &dev, 0, 0, E_FALSE) != E_OK) {
        printf("diag: no program\n");
        return 1;
    }
    e_write(&dev, 0, 0, 0, &bkpt, sizeof bkpt); /* the SYNC vector */
    e_start(&dev, 0, 0);
    epsim_run_until_idle(1000000);
    e_read(&dev, 0, 0, E_REG_DEBUGSTATUS, &v, 4);
    printf("diag: halted %u\n", v & 1);
    if (e_read(&dev, 5, 5, 0, &v, 4) != E_ERR) /* outside the group */
        printf("diag: the bad read worked\n");
    e_close(&dev);
    e_finalize();
    return 0;
}
