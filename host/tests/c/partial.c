/* partial.c -- the cores' unfinished last lines of output are written out
 * when the host is done with the chip, not before: loads PARTIAL_DEV.ELF
 * onto a 1x2 group at (0,0) (each core prints a line without its newline,
 * then spins), opens a second group (1x1 at (2,2), left empty), runs
 * 100000 cycles, then, per WHEN:
 *   close     closes the loaded group ("one closed" on stdout), then the
 *             other, the last open one ("all closed"), and exits without
 *             e_finalize;
 *   finalize  e_finalize with both groups still open ("finalized").
 * Usage: partial PARTIAL_DEV.ELF close|finalize */
#include <stdio.h>
#include <string.h>

#include <e-hal.h>
#include <e-loader.h>
#include <epsim.h>

int main(int argc, char **argv)
{
    e_epiphany_t group, other;

    if (argc < 3 || e_init(NULL) != E_OK || e_reset_system() != E_OK)
        return 1;
    if (e_open(&group, 0, 0, 1, 2) != E_OK || e_open(&other, 2, 2, 1, 1) != E_OK)
        return 1;
    if (e_load_group(argv[1], &group, 0, 0, 1, 2, E_TRUE) != E_OK)
        return 1;
    if (epsim_run(100000) != E_OK)
        return 2;
    printf("ran\n");
    fflush(stdout);
    if (strcmp(argv[2], "close") == 0) {
        e_close(&group);
        printf("one closed\n");
        fflush(stdout);
        e_close(&other);
        printf("all closed\n");
        fflush(stdout);
        return 0;
    }
    e_finalize();
    printf("finalized\n");
    return 0;
}
