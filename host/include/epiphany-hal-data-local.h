/* epiphany-hal-data-local.h -- the rest of e-hal's types (epsim's drop-in
 * for ESDK 2016.11; included by epiphany-hal-data.h, as the ESDK's is).
 * Names, values and member order are the ESDK's. */
#ifndef EPIPHANY_HAL_DATA_LOCAL_H
#define EPIPHANY_HAL_DATA_LOCAL_H

#include "epiphany-hal-data.h"

#ifdef __cplusplus
extern "C" {
#endif

/* e_signal's interrupt (ILAT bit) numbers. */
typedef enum {
    E_SYNC = 0,
    E_USER_INT = 9,
} e_signal_t;

typedef enum {
    E_RD = 1,
    E_WR = 2,
    E_RDWR = 3,
} e_memtype_t;

/* The first member of every e-hal object. */
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

/* One window of a core (its SRAM or its registers). epsim maps nothing:
 * mapped_base and base are NULL; core memory is reached with e_read and
 * e_write. */
typedef struct {
    e_objtype_t objtype;
    off_t phy_base;
    off_t page_base;
    off_t page_offset;
    size_t map_size;
    void *mapped_base;
    void *base;
} e_mmap_t;

typedef struct {
    e_objtype_t objtype;
    unsigned int id;
    unsigned int row; /* epsim, as the ESDK: relative to the group */
    unsigned int col;
    e_mmap_t mems;
    e_mmap_t regs;
} e_core_t;

typedef struct {
    e_objtype_t objtype;
    e_chiptype_t type;
    char version[32];
    unsigned int arch;
    unsigned int base_coreid;
    unsigned int row; /* absolute */
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
    off_t phy_base;  /* host side */
    off_t ephy_base; /* device side */
    size_t size;
    e_memtype_t type;
} e_memseg_t;

typedef struct es_state_ es_state;
typedef struct e_target_ops e_target_ops_t;

typedef struct {
    e_objtype_t objtype;
    e_platformtype_t type;
    char version[32];
    unsigned int hal_ver;
    int initialized;
    int num_chips;
    e_chip_t *chip;
    unsigned int row;
    unsigned int col;
    unsigned int rows;
    unsigned int cols;
    int num_emems;
    e_memseg_t *emem;
    const e_target_ops_t *target_ops; /* epsim: NULL */
    void *priv;
} e_platform_t;

typedef unsigned int e_coreid_t;

/* The interrupt vector table's size: e-lib's configuration words follow it. */
#define SIZEOF_IVT (0x28)

/* What e-loader writes at a core's workgroup_cfg (0x28 in the ESDK's
 * layouts) ... */
typedef struct {
    e_objtype_t objtype;
    e_chiptype_t chiptype;
    e_coreid_t group_id;
    unsigned group_row;
    unsigned group_col;
    unsigned group_rows;
    unsigned group_cols;
    unsigned core_row;
    unsigned core_col;
    unsigned alignment_padding;
} e_group_config_t;

/* ... and at ext_mem_cfg (0x50). */
typedef struct {
    e_objtype_t objtype;
    unsigned base;
} e_emem_config_t;

/* One row of the chip table (e_chip_params_table). */
typedef struct {
    e_objtype_t objtype;
    e_chiptype_t type;
    char version[32];
    unsigned int arch;
    unsigned int rows;
    unsigned int cols;
    unsigned int sram_base;
    unsigned int sram_size;
    unsigned int regs_base;
    unsigned int regs_size;
    off_t ioregs_n;
    off_t ioregs_e;
    off_t ioregs_s;
    off_t ioregs_w;
} e_chip_db_t;

#define E_CHIP_DB_NUM_CHIP_VERSIONS 3
/* E16G301, E64G401 and ESIM, with the ESDK's figures. */
extern e_chip_db_t e_chip_params_table[E_CHIP_DB_NUM_CHIP_VERSIONS];

struct e_epiphany_t;
struct e_mem_t;

/* The ESDK's back-end interface (native, esim, pal). epsim has a single
 * back end and never fills one (e_platform.target_ops is NULL); the type
 * is here for programs that name it. */
struct e_target_ops {
    int (*ee_read_word)(struct e_epiphany_t *, unsigned, unsigned, const off_t);
    ssize_t (*ee_write_word)(struct e_epiphany_t *, unsigned, unsigned, off_t, int);
    ssize_t (*ee_read_buf)(struct e_epiphany_t *, unsigned, unsigned, const off_t, void *, size_t);
    ssize_t (*ee_write_buf)(struct e_epiphany_t *, unsigned, unsigned, off_t, const void *,
                            size_t);
    int (*ee_read_reg)(struct e_epiphany_t *, unsigned, unsigned, const off_t);
    ssize_t (*ee_write_reg)(struct e_epiphany_t *, unsigned, unsigned, off_t, int);
    int (*ee_mread_word)(struct e_mem_t *, const off_t);
    ssize_t (*ee_mwrite_word)(struct e_mem_t *, off_t, int);
    ssize_t (*ee_mread_buf)(struct e_mem_t *, const off_t, void *, size_t);
    ssize_t (*ee_mwrite_buf)(struct e_mem_t *, off_t, const void *, size_t);
    int (*e_reset_system)(void);
    int (*populate_platform)(e_platform_t *, char *);
    int (*init)(void);
    void (*finalize)(void);
    int (*open)(struct e_epiphany_t *, unsigned, unsigned, unsigned, unsigned);
    int (*close)(struct e_epiphany_t *);
    int (*load_group)(const char *, struct e_epiphany_t *, unsigned, unsigned, unsigned,
                      unsigned);
    int (*start_group)(struct e_epiphany_t *, unsigned, unsigned, unsigned, unsigned);
    void *(*get_raw_pointer)(unsigned long, unsigned long);
    int (*alloc)(struct e_mem_t *);
    int (*shm_alloc)(struct e_mem_t *);
    int (*free)(struct e_mem_t *);
};

#ifdef __cplusplus
}
#endif

#endif
