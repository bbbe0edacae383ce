/* hello: an ordinary e-hal host program. It loads hello_dev.elf onto every
 * core of the chip, starts them, and waits until each has finished (a core
 * that exits halts: DEBUGSTATUS bit 0), polling every millisecond. */
#include <stdio.h>
#include <unistd.h>

#include <e-hal.h>
#include <e-loader.h>

int main(int argc, char **argv)
{
    const char *elf = argc > 1 ? argv[1] : "hello_dev.elf";
    e_platform_t platform;
    e_epiphany_t dev;

    e_set_host_verbosity(H_D1);
    if (e_init(NULL) != E_OK || e_reset_system() != E_OK || e_get_platform_info(&platform) != E_OK) {
        fprintf(stderr, "hello: no Epiphany\n");
        return 1;
    }
    printf("host: %s, %u x %u cores from (%u,%u)\n", platform.version, platform.rows,
           platform.cols, platform.row, platform.col);
    fflush(stdout);
    if (e_open(&dev, 0, 0, platform.rows, platform.cols) != E_OK ||
        e_load_group(elf, &dev, 0, 0, platform.rows, platform.cols, E_TRUE) != E_OK) {
        fprintf(stderr, "hello: cannot load %s\n", elf);
        return 1;
    }
    unsigned done = 0, n = platform.rows * platform.cols;
    for (int poll = 0; poll < 20000 && done < n; poll++) {
        done = 0;
        for (unsigned r = 0; r < platform.rows; r++)
            for (unsigned c = 0; c < platform.cols; c++) {
                unsigned status = 0;
                e_read(&dev, r, c, E_REG_DEBUGSTATUS, &status, sizeof status);
                done += status & 1;
            }
        if (done < n)
            usleep(1000);
    }
    printf("host: %u of %u cores done\n", done, n);
    e_close(&dev);
    e_finalize();
    return done == n ? 0 : 1;
}
