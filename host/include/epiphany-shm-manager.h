/* epiphany-shm-manager.h -- named shared-memory regions (epsim). The
 * table lives in external memory at offset 0x01000000 (device
 * 0x8f000000), where the device's e_shm_attach reads it. */
#ifndef EPIPHANY_SHM_MANAGER_H
#define EPIPHANY_SHM_MANAGER_H

#include <stdint.h>
#include "epiphany-hal-data.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MAX_SHM_REGIONS 64
#define SHM_MAGIC 0xabcdef00
#define GLOBAL_SHM_SIZE (4 * 1024 * 1024)

#pragma pack(push, 1)
typedef struct {
    uint64_t addr; /* host address */
    char name[256];
    uint64_t size;
    uint64_t paddr;  /* device address */
    uint64_t offset; /* from the table's start */
} e_shmseg_t;

typedef struct {
    e_shmseg_t shm_seg;
    uint32_t refcnt;
    uint32_t valid;
} e_shmseg_pvt_t;

typedef struct {
    uint32_t magic;
    uint32_t initialized;
    e_shmseg_pvt_t regions[MAX_SHM_REGIONS];
    uint64_t free_space;
    uint64_t next_free_offset;
    uint64_t paddr_epi;
    uint64_t paddr_cpu;
    uint64_t heap;
    uint64_t lock;
} e_shmtable_t;
#pragma pack(pop)

int e_shm_alloc(e_mem_t *mbuf, const char *name, size_t size);
int e_shm_attach(e_mem_t *mbuf, const char *name);
int e_shm_release(const char *name);
e_shmtable_t *e_shm_get_shmtable(void);

#ifdef __cplusplus
}
#endif

#endif
