/* epiphany-hal-data.h -- e-hal's constants and types (epsim's drop-in for
 * ESDK 2016.11). Every name and value the ESDK's header of this name gives
 * (with epiphany-hal-data-local.h, which it includes) is here with the same
 * value; the structs have the same members in the same order, so they lay
 * out as the ESDK's on the same host (LP64 or ILP32). */
#ifndef EPIPHANY_HAL_DATA_H
#define EPIPHANY_HAL_DATA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <semaphore.h>

#ifdef __cplusplus
extern "C" {
typedef enum {
    E_FALSE = false,
    E_TRUE = true,
} e_bool_t;
#else
typedef enum {
    E_FALSE = 0,
    E_TRUE = 1,
} e_bool_t;
#endif

#include "epiphany-hal-data-local.h"

/* The environment variable naming the ESDK's target (native, esim, pal);
 * epsim reads EPSIM_MODE instead and ignores it. */
#define EHAL_TARGET_ENV "EHAL_TARGET"

/* e_set_host_verbosity levels. epsim: H_D1 or more also prints why a call
 * failed and each core the chip stops (fault, breakpoint); see README
 * "The e-hal drop-in", diagnostics. */
typedef enum {
    H_D0 = 0,
    H_D1 = 1,
    H_D2 = 2,
    H_D3 = 3,
    H_D4 = 4,
} e_hal_diag_t;

typedef enum {
    E_OK = 0,
    E_ERR = -1,
    E_WARN = -2,
} e_return_stat_t;

/* The general-purpose registers in a core's register window (offsets in
 * its 1 MB window, as e_read/e_write take them). */
typedef enum {
    E_REG_R0 = 0xf0000,
    E_REG_R1 = 0xf0004,
    E_REG_R2 = 0xf0008,
    E_REG_R3 = 0xf000c,
    E_REG_R4 = 0xf0010,
    E_REG_R5 = 0xf0014,
    E_REG_R6 = 0xf0018,
    E_REG_R7 = 0xf001c,
    E_REG_R8 = 0xf0020,
    E_REG_R9 = 0xf0024,
    E_REG_R10 = 0xf0028,
    E_REG_R11 = 0xf002c,
    E_REG_R12 = 0xf0030,
    E_REG_R13 = 0xf0034,
    E_REG_R14 = 0xf0038,
    E_REG_R15 = 0xf003c,
    E_REG_R16 = 0xf0040,
    E_REG_R17 = 0xf0044,
    E_REG_R18 = 0xf0048,
    E_REG_R19 = 0xf004c,
    E_REG_R20 = 0xf0050,
    E_REG_R21 = 0xf0054,
    E_REG_R22 = 0xf0058,
    E_REG_R23 = 0xf005c,
    E_REG_R24 = 0xf0060,
    E_REG_R25 = 0xf0064,
    E_REG_R26 = 0xf0068,
    E_REG_R27 = 0xf006c,
    E_REG_R28 = 0xf0070,
    E_REG_R29 = 0xf0074,
    E_REG_R30 = 0xf0078,
    E_REG_R31 = 0xf007c,
    E_REG_R32 = 0xf0080,
    E_REG_R33 = 0xf0084,
    E_REG_R34 = 0xf0088,
    E_REG_R35 = 0xf008c,
    E_REG_R36 = 0xf0090,
    E_REG_R37 = 0xf0094,
    E_REG_R38 = 0xf0098,
    E_REG_R39 = 0xf009c,
    E_REG_R40 = 0xf00a0,
    E_REG_R41 = 0xf00a4,
    E_REG_R42 = 0xf00a8,
    E_REG_R43 = 0xf00ac,
    E_REG_R44 = 0xf00b0,
    E_REG_R45 = 0xf00b4,
    E_REG_R46 = 0xf00b8,
    E_REG_R47 = 0xf00bc,
    E_REG_R48 = 0xf00c0,
    E_REG_R49 = 0xf00c4,
    E_REG_R50 = 0xf00c8,
    E_REG_R51 = 0xf00cc,
    E_REG_R52 = 0xf00d0,
    E_REG_R53 = 0xf00d4,
    E_REG_R54 = 0xf00d8,
    E_REG_R55 = 0xf00dc,
    E_REG_R56 = 0xf00e0,
    E_REG_R57 = 0xf00e4,
    E_REG_R58 = 0xf00e8,
    E_REG_R59 = 0xf00ec,
    E_REG_R60 = 0xf00f0,
    E_REG_R61 = 0xf00f4,
    E_REG_R62 = 0xf00f8,
    E_REG_R63 = 0xf00fc,
} e_gp_reg_id_t;

/* A core's special registers (offsets in its window). */
typedef enum {
    /* control */
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
    /* the two DMA channels */
    E_REG_DMA0CONFIG = 0xf0500,
    E_REG_DMA0STRIDE = 0xf0504,
    E_REG_DMA0COUNT = 0xf0508,
    E_REG_DMA0SRCADDR = 0xf050c,
    E_REG_DMA0DSTADDR = 0xf0510,
    E_REG_DMA0AUTODMA0 = 0xf0514,
    E_REG_DMA0AUTODMA1 = 0xf0518,
    E_REG_DMA0STATUS = 0xf051c,
    E_REG_DMA1CONFIG = 0xf0520,
    E_REG_DMA1STRIDE = 0xf0524,
    E_REG_DMA1COUNT = 0xf0528,
    E_REG_DMA1SRCADDR = 0xf052c,
    E_REG_DMA1DSTADDR = 0xf0530,
    E_REG_DMA1AUTODMA0 = 0xf0534,
    E_REG_DMA1AUTODMA1 = 0xf0538,
    E_REG_DMA1STATUS = 0xf053c,
    /* memory protection */
    E_REG_MEMSTATUS = 0xf0604,
    E_REG_MEMPROTECT = 0xf0608,
    /* the node */
    E_REG_MESHCONFIG = 0xf0700,
    E_REG_COREID = 0xf0704,
    E_REG_MULTICAST = 0xf0708,
    E_REG_RESETCORE = 0xf070c,
    E_REG_CMESHROUTE = 0xf0710,
    E_REG_XMESHROUTE = 0xf0714,
    E_REG_RMESHROUTE = 0xf0718,
} e_core_reg_id_t;

/* The chip's (eLink) registers. epsim models no eLink register file: an
 * e_read/e_write of these offsets is refused with E_ERR. */
typedef enum {
    E_REG_LINKCFG = 0xf0300,
    E_REG_LINKTXCFG = 0xf0304,
    E_REG_LINKRXCFG = 0xf0308,
    E_REG_GPIOCFG = 0xf030c,
    E_REG_FLAGCFG = 0xf0318,
    E_REG_SYNC = 0xf031c,
    E_REG_HALT = 0xf0320,
    E_REG_RESET = 0xf0324,
    E_REG_LINKDEBUG = 0xf0328,
} e_chip_regs_t;

/* A workgroup (e_open): rows x cols cores from absolute (row, col). */
typedef struct e_epiphany_t {
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
    void *priv; /* epsim: the e_init session the group belongs to */
} e_epiphany_t;

/* An external-memory buffer (e_alloc, e_shm_alloc, e_shm_attach). */
typedef struct e_mem_t {
    e_objtype_t objtype;
    off_t phy_base;    /* host-side physical address */
    off_t page_base;
    off_t page_offset;
    size_t map_size;
    off_t ephy_base;   /* the device address of base[0] */
    size_t emap_size;
    void *mapped_base;
    void *base;        /* host pointer: the simulated external memory itself */
    int memfd;
    void *priv;        /* epsim: the e_init session the buffer belongs to */
} e_mem_t;

#define ALIGN(x) __attribute__((aligned(x)))

#define MAX_SHM_REGIONS 64

/* The shared-memory table (in external memory, where the device's
 * e_shm_attach reads it): byte-packed, pointers padded to 64 bits, so host
 * and device agree on every offset. */
#pragma pack(push, 1)

typedef struct ALIGN(8) e_shmseg {
    __extension__ union { /* anonymous, as the ESDK's (C11) */
        void *addr; /* host address */
        uint64_t __fill1;
    };
    char name[256];
    uint64_t size;
    __extension__ union { /* anonymous, as the ESDK's (C11) */
        void *paddr; /* device address */
        uint64_t __fill2;
    };
    uint64_t offset; /* from the table's start */
} e_shmseg_t;

typedef struct ALIGN(8) e_shmseg_pvt {
    e_shmseg_t shm_seg;
    uint32_t refcnt; /* host references */
    uint32_t valid;  /* 1 while the region is in use */
} e_shmseg_pvt_t;

typedef struct ALIGN(8) e_shmtable {
    uint32_t magic;
    uint32_t initialized;
    e_shmseg_pvt_t regions[MAX_SHM_REGIONS];
    uint64_t free_space;
    uint64_t next_free_offset;
    uint64_t paddr_epi; /* the table's device address */
    uint64_t paddr_cpu; /* the table's host physical address */
    __extension__ union { /* anonymous, as the ESDK's (C11) */
        uint8_t *heap;
        uint64_t __fill1;
    };
    __extension__ union { /* anonymous, as the ESDK's (C11) */
        void *lock;
        uint64_t __fill2;
    };
} e_shmtable_t;

#pragma pack(pop)

/* Filled by e_init. */
extern e_platform_t e_platform;

#ifdef __cplusplus
}
#endif

#endif
