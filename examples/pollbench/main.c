/* pollbench: a host that polls the chip (issue 16), as a benchmark of what
 * one short run of the machine costs. It loads pollbench_dev.elf on 4x4
 * cores and, ROUNDS times (the first argument, 2000 unless given), writes
 * every core's go word with the round's number and polls the cores' done
 * words with e_read, one core at a time, until each has finished the
 * round (a core computes a few hundred cycles per round, then spins on
 * its go word). Prints the simulated cycles, the polls and a checksum of
 * the cores' work: the same every run in deterministic mode
 * (EPSIM_MODE=deterministic). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <e-hal.h>
#include <e-loader.h>
#include <epsim.h>

#include "pollbench.h"

#define G 4

int main(int argc, char **argv)
{
    unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 2000;
    const char *elf = argc > 2 ? argv[2] : "pollbench_dev.elf";
    e_epiphany_t dev;
    if (e_init(NULL) != E_OK || e_reset_system() != E_OK)
        return 1;
    if (e_open(&dev, 0, 0, G, G) != E_OK || e_load_group(elf, &dev, 0, 0, G, G, E_FALSE) != E_OK)
        return 1;
    unsigned zero = 0;
    for (unsigned r = 0; r < G; r++)
        for (unsigned c = 0; c < G; c++)
            if (e_write(&dev, r, c, GO_OFF, &zero, 4) != 4 || e_write(&dev, r, c, DONE_OFF, &zero, 4) != 4)
                return 1;
    unsigned long long t0 = epsim_now();
    if (e_start_group(&dev) != E_OK)
        return 1;
    unsigned long long polls = 0;
    for (unsigned round = 1; round <= rounds; round++) {
        for (unsigned r = 0; r < G; r++)
            for (unsigned c = 0; c < G; c++)
                if (e_write(&dev, r, c, GO_OFF, &round, 4) != 4)
                    return 1;
        for (unsigned k = 0; k < G * G; k++) {
            unsigned done = 0;
            while (done != round) {
                if (e_read(&dev, k / G, k % G, DONE_OFF, &done, 4) != 4)
                    return 1;
                polls++;
            }
        }
    }
    unsigned long long cycles = epsim_now() - t0;
    unsigned sum = 0;
    for (unsigned k = 0; k < G * G; k++) {
        unsigned s = 0;
        if (e_read(&dev, k / G, k % G, SUM_OFF, &s, 4) != 4)
            return 1;
        sum = sum * 31 + s;
    }
    for (unsigned r = 0; r < G; r++)
        for (unsigned c = 0; c < G; c++)
            if (e_write(&dev, r, c, GO_OFF, &zero, 4) != 4)
                return 1;
    printf("pollbench: %u rounds on %u cores, %llu cycles, %llu polls, checksum %08x\n", rounds,
           G * G, cycles, polls, sum);
    e_close(&dev);
    e_finalize();
    return 0;
}
