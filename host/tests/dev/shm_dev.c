/* shm_dev: finds the shared-memory region "epsim_shm" as e-lib's
 * e_shm_attach does (the table at 0x8f000000: magic 0xabcdef00, 64
 * regions of 296 bytes from offset 8, each name at +8, paddr at +272,
 * valid at +292), reads the host's string at the region's start and
 * answers at offset 128. (host/tests/c/shm.c) */
#include <string.h>

#include "edev.h"

#define TABLE 0x8f000000u

int main(void)
{
    const volatile unsigned char *t = (const volatile unsigned char *)TABLE;
    if (*(const volatile unsigned *)t != 0xabcdef00u) {
        eprintf("shm_dev: no table\n");
        return 1;
    }
    for (unsigned i = 0; i < 64; i++) {
        const volatile unsigned char *r = t + 8 + i * 296;
        if (*(const volatile unsigned *)(r + 292) != 1 || strcmp((const char *)(r + 8), "epsim_shm"))
            continue;
        char *region = (char *)*(const volatile unsigned *)(r + 272);
        char *reply = region + 128;
        strcpy(reply, "core saw: ");
        strcpy(reply + 10, region);
        eprintf("shm_dev: region %u at %x\n", i, (unsigned)region);
        return 0;
    }
    eprintf("shm_dev: no region epsim_shm\n");
    return 1;
}
