/* esdk.c -- the ESDK 2016.11 names epsim's headers and libe-hal give
 * (issue 15, defect 6) and the rules for objects used after e_close,
 * e_free and e_finalize, a second e_init and the clock's limit (issue 14).
 * Linked with "-le-hal -le-loader", as the ESDK's examples link.
 * Usage: esdk DEVICE.ELF OTHER.HDF (a program that exits at once, and an
 * HDF describing another platform than the built-in one). Runs in
 * deterministic mode. Prints "esdk: N checks, M failures". */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <e-hal.h>
#include <e-loader.h>
#include <epiphany-hal-api-local.h>
#include <epsim.h>

static int checks, failures;

#define CHECK(cond)                                                           \
    do {                                                                      \
        checks++;                                                             \
        if (!(cond)) {                                                        \
            failures++;                                                       \
            fprintf(stderr, "esdk.c:%d: check failed: %s\n", __LINE__, #cond); \
        }                                                                     \
    } while (0)

/* The values a program of the ESDK era relies on (epiphany-hal-data.h and
 * e-loader.h of ESDK 2016.11). */
static void names(void)
{
    CHECK(L_D0 == 0 && L_D3 == 3 && L_D4 == 40);
    CHECK(H_D4 == 4);
    CHECK(E_REG_R0 == 0xf0000 && E_REG_R1 == 0xf0004 && E_REG_R32 == 0xf0080);
    CHECK(E_REG_R63 == 0xf00fc);
    CHECK(E_REG_DMA0CONFIG == 0xf0500 && E_REG_DMA0STRIDE == 0xf0504);
    CHECK(E_REG_DMA0COUNT == 0xf0508 && E_REG_DMA0SRCADDR == 0xf050c);
    CHECK(E_REG_DMA0DSTADDR == 0xf0510 && E_REG_DMA0AUTODMA0 == 0xf0514);
    CHECK(E_REG_DMA0AUTODMA1 == 0xf0518 && E_REG_DMA0STATUS == 0xf051c);
    CHECK(E_REG_DMA1STRIDE == 0xf0524 && E_REG_DMA1COUNT == 0xf0528);
    CHECK(E_REG_DMA1SRCADDR == 0xf052c && E_REG_DMA1DSTADDR == 0xf0530);
    CHECK(E_REG_DMA1AUTODMA0 == 0xf0534 && E_REG_DMA1AUTODMA1 == 0xf0538);
    CHECK(E_REG_CMESHROUTE == 0xf0710 && E_REG_XMESHROUTE == 0xf0714);
    CHECK(E_REG_RMESHROUTE == 0xf0718);
    CHECK(E_REG_LINKCFG == 0xf0300 && E_REG_LINKTXCFG == 0xf0304);
    CHECK(E_REG_LINKRXCFG == 0xf0308 && E_REG_GPIOCFG == 0xf030c);
    CHECK(E_REG_FLAGCFG == 0xf0318 && E_REG_SYNC == 0xf031c && E_REG_HALT == 0xf0320);
    CHECK(E_REG_RESET == 0xf0324 && E_REG_LINKDEBUG == 0xf0328);
    CHECK(SIZEOF_IVT == 0x28 && MAX_SHM_REGIONS == 64);
    CHECK(strcmp(EHAL_TARGET_ENV, "EHAL_TARGET") == 0);
    CHECK(E_CHIP_DB_NUM_CHIP_VERSIONS == 3);
    /* e-loader's configuration words: e_group_config_t at 0x28, then
     * e_emem_config_t at 0x50. */
    CHECK(SIZEOF_IVT + sizeof(e_group_config_t) == 0x50);
    CHECK(offsetof(e_group_config_t, core_col) == 0x48 - SIZEOF_IVT);
    CHECK(sizeof(e_emem_config_t) == 8 && offsetof(e_emem_config_t, base) == 4);
    /* The chip table. */
    e_chip_db_t *e64 = &e_chip_params_table[1];
    CHECK(e64->objtype == E_EPI_CHIP && e64->type == E_E64G401);
    CHECK(strcmp(e64->version, "E64G401") == 0 && e64->arch == 4);
    CHECK(e64->rows == 8 && e64->cols == 8 && e64->sram_size == 0x8000);
    CHECK(e64->regs_base == 0xf0000 && e64->ioregs_e == 0x087f0000 && e64->ioregs_s == 0x1c2f0000);
    CHECK(e_chip_params_table[0].ioregs_e == 0x083f0000);
    CHECK(strcmp(e_chip_params_table[2].version, "ESIM") == 0);
    /* The shared-memory table's layout (the device reads it). */
    CHECK(sizeof(e_shmseg_t) == 288 && offsetof(e_shmseg_t, paddr) == 272);
    CHECK(sizeof(e_shmtable_t) == 19000 && offsetof(e_shmtable_t, lock) == 18992);
}

int main(int argc, char **argv)
{
    const char *elf = argc > 1 ? argv[1] : "hello_dev.elf";
    const char *other_hdf = argc > 2 ? argv[2] : "other.hdf";
    e_epiphany_t dev, closed;
    e_mem_t mem;
    unsigned r, c, v;
    int w;

    setvbuf(stdout, NULL, _IONBF, 0);
    names();

    /* e_init reads no endless file. */
    CHECK(e_init("/dev/zero") == E_ERR);
    CHECK(e_shm_init() == E_ERR);
    CHECK(e_init(NULL) == E_OK);
    CHECK(epsim_set_mode(EPSIM_DETERMINISTIC) == E_OK);
    /* A second e_init checks its HDF as the first did; the chip is kept
     * for the same platform only. */
    CHECK(e_init("/nonexistent/platform.hdf") == E_ERR);
    CHECK(e_init("/dev/zero") == E_ERR);
    CHECK(e_init((char *)other_hdf) == E_ERR);
    CHECK(e_platform.initialized == 1 && e_platform.chip[0].rows == 4);
    CHECK(e_init(NULL) == E_OK);

    CHECK(e_shm_init() == E_OK);
    e_shm_finalize();
    CHECK(e_shm_get_shmtable() != NULL);

    CHECK(e_open(&dev, 0, 0, 4, 4) == E_OK);
    CHECK(e_open(&closed, 2, 2, 1, 1) == E_OK);
    CHECK(e_is_addr_on_group(&closed, (void *)0x88a00000) == E_TRUE);
    CHECK(e_close(&closed) == E_OK);
    CHECK(e_is_addr_on_group(&closed, (void *)0x88a00000) == E_FALSE); /* closed */

    /* ee_* */
    CHECK(ee_write_word(&dev, 1, 1, 0x100, 0x12345678) == sizeof(int));
    CHECK(ee_read_word(&dev, 1, 1, 0x100) == 0x12345678);
    CHECK(ee_write_word(&dev, 1, 1, 0x7ffe, 1) == E_ERR);
    CHECK(ee_write_buf(&dev, 1, 2, 0x200, "abc", 4) == 4);
    char s[4] = {0};
    CHECK(ee_read_buf(&dev, 1, 2, 0x200, s, 4) == 4 && strcmp(s, "abc") == 0);
    CHECK(ee_write_reg(&dev, 2, 2, E_REG_R3, 77) == sizeof(int));
    CHECK(ee_read_reg(&dev, 2, 2, E_REG_R3) == 77);
    CHECK(ee_read_reg(&dev, 2, 2, E_REG_R3 - E_REG_R0) == 77); /* offset in the window */
    CHECK(ee_read_reg(&dev, 2, 2, E_REG_COREID) == 0x88a);
    CHECK(ee_get_id_from_coords(&dev, 1, 2) == 0x84a);
    CHECK(ee_get_num_from_id(&dev, 0x84a) == 6);
    CHECK(ee_get_id_from_num(&dev, 6) == 0x84a);
    ee_get_coords_from_id(&dev, 0x8cb, &r, &c);
    CHECK(r == 3 && c == 3);
    CHECK(e_alloc(&mem, 0x10000, 64) == E_OK);
    CHECK(ee_mwrite_word(&mem, 8, -5) == sizeof(int));
    CHECK(ee_mread_word(&mem, 8) == -5);
    CHECK(ee_mwrite_buf(&mem, 16, "xyz", 4) == 4 && strcmp((char *)mem.base + 16, "xyz") == 0);
    CHECK(ee_mread(&mem, 16, s, 4) == 4 && strcmp(s, "xyz") == 0);
    CHECK(ee_mwrite(&mem, 62, "xyz", 4) == E_ERR);

    /* ee_reset_core resets one core as e_reset_group resets each. */
    CHECK(e_halt(&dev, 3, 0) == E_OK && e_halt(&dev, 3, 1) == E_OK);
    CHECK(ee_read_reg(&dev, 3, 0, E_REG_DEBUGSTATUS) == 1);
    CHECK(ee_reset_core(&dev, 3, 0) == E_OK);
    CHECK(ee_read_reg(&dev, 3, 0, E_REG_DEBUGSTATUS) == 0);
    CHECK(ee_read_reg(&dev, 3, 1, E_REG_DEBUGSTATUS) == 1); /* its neighbour: still halted */
    CHECK(ee_reset_group(&dev, 3, 1, 1, 3) == E_OK);
    CHECK(ee_read_reg(&dev, 3, 1, E_REG_DEBUGSTATUS) == 0);
    CHECK(ee_reset_core(&dev, 4, 0) == E_ERR);
    CHECK(ee_reset_group(&dev, 3, 3, 1, 2) == E_ERR);
    CHECK(ee_reset_core(NULL, 0, 0) == E_ERR);

    /* e_load_group and ee_start_group, linked through -le-loader */
    CHECK(e_load_group(elf, &dev, 0, 0, 1, 2, E_FALSE) == E_OK);
    CHECK(ee_start_group(&dev, 0, 0, 1, 2) == E_OK);
    CHECK(epsim_run_until_idle(10000000) == E_OK);
    CHECK((ee_read_reg(&dev, 0, 1, E_REG_DEBUGSTATUS) & 1) == 1); /* exited: halted */

    /* The clock's limit: a run past it is refused, nothing run. */
    unsigned long long t0 = epsim_now();
    CHECK(epsim_run(~0ULL) == E_ERR && epsim_now() == t0);
    CHECK(epsim_run((1ULL << 63) - t0 + 1) == E_ERR && epsim_now() == t0);
    CHECK(epsim_run(10) == E_OK && epsim_now() == t0 + 10);
    CHECK(epsim_run_until_idle(~0ULL) == E_OK); /* a bound: "no bound" */
    CHECK(epsim_step() == E_OK);

    /* After e_finalize every object of that session is dead: calls given
     * it fail, e_close and e_free included. */
    CHECK(e_finalize() == E_OK);
    CHECK(e_shm_init() == E_ERR);
    CHECK(e_is_addr_on_group(&dev, (void *)0x80800000) == E_FALSE);
    CHECK(e_read(&dev, 0, 0, 0, &v, 4) == E_ERR);
    CHECK(e_read(&mem, 0, 0, 0, &v, 4) == E_ERR);
    CHECK(ee_read_word(&dev, 0, 0, 0) == E_ERR);
    CHECK(e_get_num_from_coords(&dev, 1, 1) == 5); /* arithmetic works on any struct */
    CHECK(e_init(NULL) == E_OK); /* a new session: the old objects stay dead */
    CHECK(e_read(&dev, 0, 0, 0, &v, 4) == E_ERR);
    CHECK(e_start(&dev, 0, 0) == E_ERR);
    CHECK(e_is_addr_on_group(&dev, (void *)0x80800000) == E_FALSE);
    CHECK(e_close(&dev) == E_ERR);
    CHECK(dev.core == NULL); /* released all the same */
    CHECK(e_close(&dev) == E_ERR);
    CHECK(e_free(&mem) == E_ERR);
    CHECK(mem.base == NULL);
    CHECK(e_free(&mem) == E_ERR);
    /* The new session's objects work. */
    CHECK(e_open(&dev, 0, 0, 1, 1) == E_OK);
    w = 5;
    CHECK(e_write(&dev, 0, 0, 0x300, &w, 4) == 4 && ee_read_word(&dev, 0, 0, 0x300) == 5);
    CHECK(e_close(&dev) == E_OK);
    CHECK(e_finalize() == E_OK);

    printf("esdk: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
