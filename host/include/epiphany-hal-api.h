/* epiphany-hal-api.h -- e-hal's functions (epsim's drop-in for ESDK
 * 2016.11). Every function returns E_OK or E_ERR unless said otherwise
 * (e_read/e_write: bytes copied or E_ERR). An object (workgroup, memory
 * buffer) belongs to the e_init that made it: after e_close, e_free or
 * e_finalize every call given it returns E_ERR (README "The e-hal
 * drop-in"). */
#ifndef EPIPHANY_HAL_API_H
#define EPIPHANY_HAL_API_H

#include <sys/types.h>
#include <stdint.h>
#include "epiphany-hal-data.h"
#include "epiphany-shm-manager.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The platform. A second e_init while initialized checks its HDF as the
 * first did: E_OK, the chip kept as it is, if it describes the same
 * platform; E_ERR otherwise (nothing changes). */
int e_init(char *hdf);
int e_get_platform_info(e_platform_t *platform);
int e_finalize(void);

/* Workgroups. */
int e_open(e_epiphany_t *dev, unsigned row, unsigned col, unsigned rows, unsigned cols);
int e_close(e_epiphany_t *dev);

/* External memory: base is the offset in the platform's external memory. */
int e_alloc(e_mem_t *mbuf, off_t base, size_t size);
int e_free(e_mem_t *mbuf);

/* dev is an e_epiphany_t (core SRAM or registers) or an e_mem_t. */
ssize_t e_read(void *dev, unsigned row, unsigned col, off_t from_addr, void *buf, size_t size);
ssize_t e_write(void *dev, unsigned row, unsigned col, off_t to_addr, const void *buf,
                size_t size);

/* Control. */
#define e_reset e_reset_system
int e_reset_system(void);
int e_reset_chip(void);
int e_reset_group(e_epiphany_t *dev);
int e_start(e_epiphany_t *dev, unsigned row, unsigned col);
int e_start_group(e_epiphany_t *dev);
int e_signal(e_epiphany_t *dev, unsigned row, unsigned col);
int e_halt(e_epiphany_t *dev, unsigned row, unsigned col);
int e_resume(e_epiphany_t *dev, unsigned row, unsigned col);

/* Named shared-memory regions, in the 4 MB pool at external-memory offset
 * 0x01000000 (device 0x8f000000). e_shm_alloc: errno EEXIST (the name is
 * taken) or ENOMEM (no room) on failure; e_shm_attach: ENOENT. */
int e_shm_alloc(e_mem_t *mbuf, const char *name, size_t size);
int e_shm_attach(e_mem_t *mbuf, const char *name);
int e_shm_release(const char *name);
e_shmtable_t *e_shm_get_shmtable(void);

/* Arithmetic on a group (no e_init needed). */
unsigned e_get_num_from_coords(e_epiphany_t *dev, unsigned row, unsigned col);
void e_get_coords_from_num(e_epiphany_t *dev, unsigned corenum, unsigned *row, unsigned *col);

e_bool_t e_is_addr_on_chip(void *addr);
e_bool_t e_is_addr_on_group(e_epiphany_t *dev, void *addr);
e_bool_t e_is_addr_in_emem(uintptr_t addr);

/* Returns the previous level. */
e_hal_diag_t e_set_host_verbosity(e_hal_diag_t verbose);

#ifdef __cplusplus
}
#endif

#endif
