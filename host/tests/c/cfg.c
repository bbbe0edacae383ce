/* cfg.c -- e-loader's configuration words reach programs that define
 * e-lib's objects in their own loaded sections (dev/cfg_dev.c): loads
 * CFG_DEV.ELF (sections at 0x28) onto a 2x3 group at chip-relative (1,1)
 * and CFG_DEV_DRAM.ELF (sections in external memory) onto the 1x1 group
 * at (3,3), runs each to the end; the cores print what they read.
 * Usage: cfg CFG_DEV.ELF CFG_DEV_DRAM.ELF */
#include <stdio.h>

#include <e-hal.h>
#include <e-loader.h>
#include <epsim.h>

int main(int argc, char **argv)
{
    e_epiphany_t group, one;

    if (argc < 3 || e_init(NULL) != E_OK || e_reset_system() != E_OK)
        return 1;
    if (e_open(&group, 1, 1, 2, 3) != E_OK || e_open(&one, 3, 3, 1, 1) != E_OK)
        return 1;
    if (e_load_group(argv[1], &group, 0, 0, 2, 3, E_TRUE) != E_OK)
        return 1;
    if (epsim_run_until_idle(100000000ULL) != E_OK)
        return 2;
    fflush(stdout);
    if (e_load(argv[2], &one, 0, 0, E_TRUE) != E_OK)
        return 1;
    if (epsim_run_until_idle(100000000ULL) != E_OK)
        return 2;
    e_close(&group);
    e_close(&one);
    e_finalize();
    return 0;
}
