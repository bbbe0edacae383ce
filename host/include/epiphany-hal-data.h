/* epiphany-hal-data.h -- e-hal's types (epsim). */
#ifndef EPIPHANY_HAL_DATA_H
#define EPIPHANY_HAL_DATA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    E_FALSE = 0,
    E_TRUE = 1,
} e_bool_t;

typedef enum {
    H_D0 = 0,
    H_D1 = 1,
    H_D2 = 2,
    H_D3 = 3,
    H_D4 = 4,
} e_hal_diag_t;

typedef enum {
    E_NULL = 0,
    E_EPI_PLATFORM = 1,
    E_EPI_CHIP = 2,
    E_EPI_GROUP = 3,
    E_EPI_CORE = 4,
    E_EXT_MEM = 5,
    E_MAPPING = 6,
    E_SHARED_MEM = 7,
} e_objtype_t;

typedef enum {
    E_E16G301 = 0,
    E_E64G401 = 1,
    E_ESIM = 2,
} e_chiptype_t;

typedef enum {
    E_GENERIC = 0,
    E_EMEK301 = 1,
    E_EMEK401 = 2,
    E_ZEDBOARD1601 = 3,
    E_ZEDBOARD6401 = 4,
    E_PARALLELLA1601 = 5,
    E_PARALLELLA6401 = 6,
    E_PARALLELLASIM = 7,
} e_platformtype_t;

typedef enum {
    E_OK = 0,
    E_ERR = -1,
    E_WARN = -2,
} e_return_stat_t;

typedef enum {
    E_SYNC = 0,
    E_USER_INT = 9,
} e_signal_t;

typedef enum {
    E_RD = 1,
    E_WR = 2,
    E_RDWR = 3,
} e_memtype_t;

/* Memory-mapped registers (offsets in a core's 1 MB window). */
typedef enum {
    E_REG_R0 = 0xf0000,
    E_REG_CONFIG = 0xf0400,
    E_REG_STATUS = 0xf0404,
    E_REG_PC = 0xf0408,
    E_REG_DEBUGSTATUS = 0xf040c,
    E_REG_LC = 0xf0414,
    E_REG_LS = 0xf0418,
    E_REG_LE = 0xf041c,
    E_REG_IRET = 0xf0420,
    E_REG_IMASK = 0xf0424,
    E_REG_ILAT = 0xf0428,
    E_REG_ILATST = 0xf042c,
    E_REG_ILATCL = 0xf0430,
    E_REG_IPEND = 0xf0434,
    E_REG_CTIMER0 = 0xf0438,
    E_REG_CTIMER1 = 0xf043c,
    E_REG_FSTATUS = 0xf0440,
    E_REG_DEBUGCMD = 0xf0448,
    E_REG_DMA0CONFIG = 0xf0500,
    E_REG_DMA0STATUS = 0xf051c,
    E_REG_DMA1CONFIG = 0xf0520,
    E_REG_DMA1STATUS = 0xf053c,
    E_REG_MEMSTATUS = 0xf0604,
    E_REG_MEMPROTECT = 0xf0608,
    E_REG_MESHCONFIG = 0xf0700,
    E_REG_COREID = 0xf0704,
    E_REG_MULTICAST = 0xf0708,
    E_REG_RESETCORE = 0xf070c,
} e_core_reg_id_t;

typedef struct {
    e_objtype_t objtype;
    off_t phy_base;
    off_t page_base;
    off_t page_offset;
    size_t map_size;
    void *mapped_base;
    void *base; /* epsim: NULL (core memory is reached with e_read/e_write) */
} e_mmap_t;

typedef struct {
    e_objtype_t objtype;
    unsigned int id;
    unsigned int row; /* relative to the group */
    unsigned int col;
    e_mmap_t mems;
    e_mmap_t regs;
} e_core_t;

typedef struct {
    e_objtype_t objtype;
    e_chiptype_t type;
    unsigned int num_cores;
    unsigned int base_coreid;
    unsigned int row; /* absolute */
    unsigned int col;
    unsigned int rows;
    unsigned int cols;
    e_core_t **core; /* core[row][col] */
    int memfd;
    void *priv;
} e_epiphany_t;

typedef struct {
    e_objtype_t objtype;
    off_t phy_base;
    off_t page_base;
    off_t page_offset;
    size_t map_size;
    off_t ephy_base; /* the device address of base[0] */
    size_t emap_size;
    void *mapped_base;
    void *base; /* host pointer: the simulated external memory itself */
    int memfd;
    void *priv;
} e_mem_t;

typedef struct {
    e_objtype_t objtype;
    e_chiptype_t type;
    char version[32];
    unsigned int arch;
    unsigned int base_coreid;
    unsigned int row;
    unsigned int col;
    unsigned int rows;
    unsigned int cols;
    unsigned int num_cores;
    unsigned int sram_base;
    unsigned int sram_size;
    unsigned int regs_base;
    unsigned int regs_size;
    off_t ioregs_n;
    off_t ioregs_e;
    off_t ioregs_s;
    off_t ioregs_w;
} e_chip_t;

typedef struct {
    e_objtype_t objtype;
    off_t phy_base;
    off_t ephy_base;
    size_t size;
    e_memtype_t type;
} e_memseg_t;

struct e_target_ops;

typedef struct {
    e_objtype_t objtype;
    e_platformtype_t type;
    char version[32];
    unsigned int hal_ver;
    int initialized;
    unsigned int num_chips;
    e_chip_t *chip;
    unsigned int row;
    unsigned int col;
    unsigned int rows;
    unsigned int cols;
    int num_emems;
    e_memseg_t *emem;
    const struct e_target_ops *target_ops; /* epsim: NULL */
    void *priv;
} e_platform_t;

/* Filled by e_init. */
extern e_platform_t e_platform;

#ifdef __cplusplus
}
#endif

#endif
