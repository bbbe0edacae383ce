/* epiphany-hal-api.h -- e-hal's functions (epsim). Every function returns
 * E_OK or E_ERR (e_read/e_write: bytes copied or E_ERR). */
#ifndef EPIPHANY_HAL_API_H
#define EPIPHANY_HAL_API_H

#include "epiphany-hal-data.h"

#ifdef __cplusplus
extern "C" {
#endif

int e_init(char *hdf);
int e_get_platform_info(e_platform_t *platform);
int e_finalize(void);

int e_open(e_epiphany_t *dev, unsigned row, unsigned col, unsigned rows, unsigned cols);
int e_close(e_epiphany_t *dev);

int e_alloc(e_mem_t *mbuf, off_t offset, size_t size);
int e_free(e_mem_t *mbuf);

ssize_t e_read(void *dev, unsigned row, unsigned col, off_t from_addr, void *buf, size_t size);
ssize_t e_write(void *dev, unsigned row, unsigned col, off_t to_addr, const void *buf, size_t size);

int e_reset_system(void);
int e_reset_chip(void);
int e_reset_group(e_epiphany_t *dev);
#define e_reset() e_reset_system()

int e_start(e_epiphany_t *dev, unsigned row, unsigned col);
int e_start_group(e_epiphany_t *dev);
int e_signal(e_epiphany_t *dev, unsigned row, unsigned col);
int e_halt(e_epiphany_t *dev, unsigned row, unsigned col);
int e_resume(e_epiphany_t *dev, unsigned row, unsigned col);

unsigned e_get_num_from_coords(e_epiphany_t *dev, unsigned row, unsigned col);
void e_get_coords_from_num(e_epiphany_t *dev, unsigned corenum, unsigned *row, unsigned *col);

e_bool_t e_is_addr_on_chip(void *addr);
e_bool_t e_is_addr_in_emem(uintptr_t addr);
e_bool_t e_is_addr_on_group(e_epiphany_t *dev, void *addr);

e_hal_diag_t e_set_host_verbosity(e_hal_diag_t verbose);

#ifdef __cplusplus
}
#endif

#endif
