/* figures: the modelled cost of host accesses, in deterministic mode:
 * host->core SRAM write and core SRAM->host read bandwidth through
 * e_write/e_read (32 KB in one call, and 2 KB calls), and the cost of
 * e_load_group + e_start_group on all 16 cores. Cycles are the chip's
 * 600 MHz clock; MB = 10^6 bytes. Usage: figures [DEVICE.ELF] */
#include <stdio.h>

#include <e-hal.h>
#include <e-loader.h>
#include <epsim.h>

#define MHZ 600.0

static unsigned char buf[32768];

static double mbps(size_t bytes, unsigned long long cycles)
{
    return bytes * MHZ / cycles;
}

int main(int argc, char **argv)
{
    const char *elf = argc > 1 ? argv[1] : "../hello/hello_dev.elf";
    e_epiphany_t dev;
    unsigned long long t0, t1, t2;

    if (e_init(NULL) != E_OK || epsim_set_mode(EPSIM_DETERMINISTIC) != E_OK ||
        e_reset_system() != E_OK || e_open(&dev, 0, 0, 4, 4) != E_OK)
        return 1;

    t0 = epsim_now();
    if (e_write(&dev, 0, 0, 0, buf, sizeof buf) != sizeof buf)
        return 1;
    t1 = epsim_now();
    printf("e_write 32 KB to core SRAM: %llu cycles, %.1f MB/s (board test: >= 30 MB/s)\n", t1 - t0,
           mbps(sizeof buf, t1 - t0));
    t0 = epsim_now();
    for (int i = 0; i < 16; i++)
        e_write(&dev, 0, 1, i * 2048, buf, 2048);
    t1 = epsim_now();
    printf("e_write 16 x 2 KB to core SRAM: %llu cycles, %.1f MB/s\n", t1 - t0,
           mbps(sizeof buf, t1 - t0));

    t0 = epsim_now();
    if (e_read(&dev, 0, 0, 0, buf, sizeof buf) != sizeof buf)
        return 1;
    t1 = epsim_now();
    printf("e_read 32 KB from core SRAM: %llu cycles, %.1f MB/s (board test: >= 4 MB/s)\n", t1 - t0,
           mbps(sizeof buf, t1 - t0));
    unsigned v;
    t0 = epsim_now();
    e_read(&dev, 0, 0, E_REG_STATUS, &v, 4);
    t1 = epsim_now();
    printf("e_read of one register: %llu cycles, %.2f us\n", t1 - t0, (t1 - t0) / MHZ);

    t0 = epsim_now();
    if (e_load_group(elf, &dev, 0, 0, 4, 4, E_FALSE) != E_OK)
        return 1;
    t1 = epsim_now();
    e_start_group(&dev);
    t2 = epsim_now();
    printf("e_load_group 16 cores: %llu cycles, %.0f us; e_start_group: %llu cycles, %.2f us; "
           "together %.0f us\n",
           t1 - t0, (t1 - t0) / MHZ, t2 - t1, (t2 - t1) / MHZ, (t2 - t0) / MHZ);
    epsim_run_until_idle(10000000);
    e_close(&dev);
    e_finalize();
    return 0;
}
