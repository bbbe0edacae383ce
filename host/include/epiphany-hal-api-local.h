/* epiphany-hal-api-local.h -- the lower-level ee_* functions of ESDK
 * 2016.11's e-hal that programs call (epsim's drop-in). e-hal.h does not
 * include this header, as in the ESDK: include it to get the prototypes.
 *
 * Provided by libe-hal, with the ESDK's signatures and results:
 *   core memory and registers: ee_read_word, ee_write_word, ee_read_buf,
 *     ee_write_buf, ee_read_reg, ee_write_reg (a register offset is taken
 *     as 0xf0xxx or as 0x0xxx, as in the ESDK);
 *   external memory: ee_mread, ee_mwrite, ee_mread_word, ee_mwrite_word,
 *     ee_mread_buf, ee_mwrite_buf;
 *   control: ee_reset_core (e_reset_group on one core), ee_reset_group,
 *     ee_start_group (cores of a rectangle of dev);
 *   arithmetic: ee_get_num_from_id, ee_get_id_from_coords,
 *     ee_get_id_from_num, ee_get_coords_from_id.
 * The ESDK's internals (HDF parsing, target detection, page rounding,
 * absolute-address legacy calls) are not: they have no meaning here. */
#ifndef EPIPHANY_HAL_API_LOCAL_H
#define EPIPHANY_HAL_API_LOCAL_H

#include <sys/types.h>
#include <stdbool.h>
#include "epiphany-hal-data.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The board's device node (epsim opens nothing). */
#define EPIPHANY_DEV "/dev/epiphany/mesh0"

/* The word read (or E_ERR, which is also a possible word: as in the ESDK). */
int ee_read_word(e_epiphany_t *dev, unsigned row, unsigned col, const off_t from_addr);
/* sizeof(int) or E_ERR. */
ssize_t ee_write_word(e_epiphany_t *dev, unsigned row, unsigned col, off_t to_addr, int data);
ssize_t ee_read_buf(e_epiphany_t *dev, unsigned row, unsigned col, const off_t from_addr,
                    void *buf, size_t size);
ssize_t ee_write_buf(e_epiphany_t *dev, unsigned row, unsigned col, off_t to_addr,
                     const void *buf, size_t size);
int ee_read_reg(e_epiphany_t *dev, unsigned row, unsigned col, const off_t from_addr);
ssize_t ee_write_reg(e_epiphany_t *dev, unsigned row, unsigned col, off_t to_addr, int data);

ssize_t ee_mread(e_mem_t *mbuf, const off_t from_addr, void *buf, size_t size);
ssize_t ee_mwrite(e_mem_t *mbuf, off_t to_addr, const void *buf, size_t size);
int ee_mread_word(e_mem_t *mbuf, const off_t from_addr);
ssize_t ee_mwrite_word(e_mem_t *mbuf, off_t to_addr, int data);
ssize_t ee_mread_buf(e_mem_t *mbuf, const off_t from_addr, void *buf, size_t size);
ssize_t ee_mwrite_buf(e_mem_t *mbuf, off_t to_addr, const void *buf, size_t size);

int ee_reset_core(e_epiphany_t *dev, unsigned row, unsigned col);
int ee_reset_group(e_epiphany_t *dev, unsigned row, unsigned col, unsigned rows, unsigned cols);
int ee_start_group(e_epiphany_t *dev, unsigned row, unsigned col, unsigned rows, unsigned cols);

unsigned ee_get_num_from_id(e_epiphany_t *dev, unsigned coreid);
unsigned ee_get_id_from_coords(e_epiphany_t *dev, unsigned row, unsigned col);
unsigned ee_get_id_from_num(e_epiphany_t *dev, unsigned corenum);
void ee_get_coords_from_id(e_epiphany_t *dev, unsigned coreid, unsigned *row, unsigned *col);

#ifdef __cplusplus
}
#endif

#endif
