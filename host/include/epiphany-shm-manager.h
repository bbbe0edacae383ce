/* epiphany-shm-manager.h -- the shared-memory manager's set-up and
 * tear-down (epsim's drop-in for ESDK 2016.11). The region functions are
 * in epiphany-hal-api.h, the table's types in epiphany-hal-data.h.
 *
 * epsim keeps the table in the simulated external memory at offset
 * 0x01000000 (device 0x8f000000), where the device's e_shm_attach reads
 * it, and sets it up when first used: e_shm_init does that now (E_OK, or
 * E_ERR before e_init); e_shm_finalize does nothing (the table lives as
 * long as the chip). */
#ifndef EPIPHANY_SHM_MANAGER_H
#define EPIPHANY_SHM_MANAGER_H

#ifdef __cplusplus
extern "C" {
#endif

/* epsim's figures, for programs that look at the table. */
#define SHM_MAGIC 0xabcdef00
#define GLOBAL_SHM_SIZE (4 * 1024 * 1024)

int e_shm_init(void);
void e_shm_finalize(void);

#ifdef __cplusplus
}
#endif

#endif
