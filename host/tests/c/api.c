/* api.c -- calls every function of epsim's libe-hal at least once,
 * including with bad arguments, and checks what each returns and does.
 * Usage: api DEVICE.ELF (a program that exits at once, e.g.
 * examples/hello/hello_dev.elf). Runs in deterministic mode. Prints the
 * struct layouts the header gives, for the Rust test to compare with the
 * library's, then "api: N checks, M failures". */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <e-hal.h>
#include <e-loader.h>
#include <epsim.h>

static int checks, failures;

#define CHECK(cond)                                                          \
    do {                                                                     \
        checks++;                                                            \
        if (!(cond)) {                                                       \
            failures++;                                                      \
            fprintf(stderr, "api.c:%d: check failed: %s\n", __LINE__, #cond); \
        }                                                                    \
    } while (0)

static unsigned reg(e_epiphany_t *dev, unsigned r, unsigned c, off_t off)
{
    unsigned v = 0xffffffff;
    CHECK(e_read(dev, r, c, off, &v, sizeof v) == 4);
    return v;
}

int main(int argc, char **argv)
{
    const char *elf = argc > 1 ? argv[1] : "hello_dev.elf";
    e_epiphany_t dev, one;
    e_platform_t p;
    e_mem_t mem, shm, shm2, other;
    unsigned char buf[256], back[256];
    unsigned r = 0, c = 0, v;

    setvbuf(stdout, NULL, _IONBF, 0);
    printf("layout e_platform_t=%zu chip@%zu rows@%zu cols@%zu emem@%zu\n", sizeof(e_platform_t),
           offsetof(e_platform_t, chip), offsetof(e_platform_t, rows), offsetof(e_platform_t, cols),
           offsetof(e_platform_t, emem));
    printf("layout e_chip_t=%zu rows@%zu cols@%zu num_cores@%zu\n", sizeof(e_chip_t),
           offsetof(e_chip_t, rows), offsetof(e_chip_t, cols), offsetof(e_chip_t, num_cores));
    printf("layout e_epiphany_t=%zu row@%zu col@%zu rows@%zu cols@%zu core@%zu\n",
           sizeof(e_epiphany_t), offsetof(e_epiphany_t, row), offsetof(e_epiphany_t, col),
           offsetof(e_epiphany_t, rows), offsetof(e_epiphany_t, cols), offsetof(e_epiphany_t, core));
    printf("layout e_mem_t=%zu phy_base@%zu ephy_base@%zu base@%zu\n", sizeof(e_mem_t),
           offsetof(e_mem_t, phy_base), offsetof(e_mem_t, ephy_base), offsetof(e_mem_t, base));
    printf("layout e_core_t=%zu e_memseg_t=%zu e_shmtable_t=%zu e_shmseg_pvt_t=%zu\n",
           sizeof(e_core_t), sizeof(e_memseg_t), sizeof(e_shmtable_t), sizeof(e_shmseg_pvt_t));

    /* Diagnostics: the old level comes back. */
    CHECK(e_set_host_verbosity(H_D1) == H_D0);
    CHECK(e_set_loader_verbosity(L_D1) == L_D0);

    /* Before e_init everything but the arithmetic fails. */
    CHECK(e_open(&dev, 0, 0, 1, 1) == E_ERR);
    CHECK(e_reset_system() == E_ERR);
    CHECK(e_finalize() == E_ERR);
    CHECK(e_get_platform_info(&p) == E_ERR);
    CHECK(e_shm_get_shmtable() == NULL);
    CHECK(epsim_run(10) == E_ERR);
    CHECK(epsim_now() == 0);
    CHECK(e_is_addr_on_chip((void *)0x80800000) == E_FALSE);

    /* e_init */
    CHECK(e_init("/nonexistent/platform.hdf") == E_ERR);
    CHECK(e_init(NULL) == E_OK);
    CHECK(e_init(NULL) == E_OK); /* again: the chip is kept */
    CHECK(epsim_set_mode(EPSIM_DETERMINISTIC) == E_OK);
    CHECK(epsim_get_mode() == EPSIM_DETERMINISTIC);
    CHECK(epsim_set_mode(7) == E_ERR);
    CHECK(e_platform.initialized == 1);
    CHECK(e_platform.objtype == E_EPI_PLATFORM && e_platform.type == E_PARALLELLA1601);
    CHECK(e_platform.num_chips == 1 && e_platform.chip != NULL);
    CHECK(e_platform.chip[0].rows == 4 && e_platform.chip[0].cols == 4);
    CHECK(e_platform.chip[0].num_cores == 16 && e_platform.chip[0].arch == 3);
    CHECK(e_platform.chip[0].base_coreid == 0x808 && e_platform.chip[0].sram_size == 0x8000);
    CHECK(e_platform.num_emems == 1 && e_platform.emem[0].ephy_base == 0x8e000000);
    CHECK(e_platform.emem[0].size == 0x02000000 && e_platform.emem[0].type == E_RDWR);
    CHECK(strcmp(e_platform.version, "PARALLELLA1601") == 0);
    CHECK(strcmp(e_platform.chip[0].version, "E16G301") == 0);

    CHECK(e_get_platform_info(NULL) == E_ERR);
    memset(&p, 0xa5, sizeof p);
    CHECK(e_get_platform_info(&p) == E_OK);
    CHECK(p.chip == NULL && p.emem == NULL && p.rows == 4 && p.cols == 4 && p.row == 32 && p.col == 8);

    CHECK(e_reset_system() == E_OK);
    CHECK(e_reset_chip() == E_OK);

    /* e_open */
    CHECK(e_open(NULL, 0, 0, 1, 1) == E_ERR);
    CHECK(e_open(&dev, 0, 0, 5, 1) == E_ERR);
    CHECK(e_open(&dev, 3, 3, 1, 2) == E_ERR);
    CHECK(e_open(&dev, 0, 0, 0, 1) == E_ERR);
    CHECK(e_open(&dev, 0, 0, 4, 4) == E_OK);
    CHECK(dev.objtype == E_EPI_GROUP && dev.type == E_E16G301 && dev.num_cores == 16);
    CHECK(dev.base_coreid == 0x808 && dev.row == 32 && dev.col == 8 && dev.rows == 4 && dev.cols == 4);
    CHECK(dev.core[1][2].id == 0x84a && dev.core[1][2].row == 1 && dev.core[1][2].col == 2);
    CHECK(dev.core[1][2].mems.phy_base == 0x84a00000 && dev.core[1][2].mems.map_size == 0x8000);
    CHECK(dev.core[3][3].regs.phy_base == 0x8cbf0000 && dev.core[3][3].regs.map_size == 0x1000);
    CHECK(e_open(&one, 1, 1, 1, 1) == E_OK);
    CHECK(one.base_coreid == 0x849 && one.num_cores == 1);

    /* Coordinates and addresses */
    CHECK(e_get_num_from_coords(&dev, 2, 3) == 11);
    e_get_coords_from_num(&dev, 11, &r, &c);
    CHECK(r == 2 && c == 3);
    e_get_coords_from_num(NULL, 11, &r, &c); /* refused without a crash */
    CHECK(e_is_addr_on_chip((void *)0x80800000) == E_TRUE);
    CHECK(e_is_addr_on_chip((void *)0x8cbf0000) == E_TRUE);
    CHECK(e_is_addr_on_chip((void *)0x80000000) == E_FALSE);
    CHECK(e_is_addr_in_emem(0x8e000000) == E_TRUE);
    CHECK(e_is_addr_in_emem(0x8fffffff) == E_TRUE);
    CHECK(e_is_addr_in_emem(0x90000000) == E_FALSE);
    CHECK(e_is_addr_on_group(&dev, (void *)0x8cb00000) == E_TRUE);
    CHECK(e_is_addr_on_group(&one, (void *)0x80800000) == E_FALSE);
    CHECK(e_is_addr_on_group(&one, (void *)0x84900010) == E_TRUE);

    /* Core SRAM and registers */
    for (int i = 0; i < 256; i++)
        buf[i] = (unsigned char)(i * 7 + 1);
    CHECK(e_write(&dev, 1, 2, 0x2001, buf, 100) == 100);
    memset(back, 0, sizeof back);
    CHECK(e_read(&dev, 1, 2, 0x2001, back, 100) == 100);
    CHECK(memcmp(buf, back, 100) == 0);
    CHECK(e_read(&one, 0, 0, 0x2001, back, 4) == 4 && back[0] == 0);       /* (1,1), not (1,2) */
    CHECK(e_write(&dev, 0, 0, 0x7ff0, buf, 32) == E_ERR);                 /* runs past SRAM */
    CHECK(e_read(&dev, 0, 0, 0x7ff0, back, 16) == 16 && back[0] == 0);     /* ... and wrote nothing */
    CHECK(e_write(&dev, 4, 0, 0, buf, 4) == E_ERR);
    CHECK(e_write(&dev, 0, 4, 0, buf, 4) == E_ERR);
    CHECK(e_write(&one, 0, 1, 0, buf, 4) == E_ERR);
    CHECK(e_read(&dev, 0, 0, -4, back, 4) == E_ERR);
    CHECK(e_read(&dev, 0, 0, 0, NULL, 4) == E_ERR);
    CHECK(e_write(NULL, 0, 0, 0, buf, 4) == E_ERR);
    v = 42;
    CHECK(e_read(&v, 0, 0, 0, back, 4) == E_ERR); /* not an e-hal object */
    CHECK(e_read(&dev, 0, 0, 0xf0402, &v, 4) == E_ERR); /* unaligned register */
    CHECK(e_read(&dev, 0, 0, 0x9000, &v, 4) == E_ERR);  /* neither SRAM nor register */
    CHECK(e_read(&dev, 0, 0, E_REG_COREID, &v, 2) == E_ERR);
    CHECK(reg(&dev, 1, 2, E_REG_COREID) == 0x84a);
    v = 1234;
    CHECK(e_write(&dev, 2, 2, E_REG_R0 + 4 * 5, &v, 4) == 4);
    CHECK(reg(&dev, 2, 2, E_REG_R0 + 4 * 5) == 1234);
    CHECK(e_write(&dev, 2, 2, 0xf0ff0, &v, 4) == E_ERR); /* no such register */

    /* External memory */
    CHECK(e_alloc(NULL, 0, 16) == E_ERR);
    CHECK(e_alloc(&mem, -1, 16) == E_ERR);
    CHECK(e_alloc(&mem, 0, 0) == E_ERR);
    CHECK(e_alloc(&mem, 0x01fffff8, 16) == E_ERR);
    CHECK(e_alloc(&mem, 0x00100000, 4096) == E_OK);
    CHECK(mem.objtype == E_EXT_MEM && mem.ephy_base == 0x8e100000 && mem.emap_size == 4096);
    CHECK(mem.base != NULL);
    CHECK(e_write(&mem, 0, 0, 16, "hello", 6) == 6);
    CHECK(strcmp((char *)mem.base + 16, "hello") == 0);
    memcpy((char *)mem.base + 100, "pointer", 8);
    CHECK(e_read(&mem, 9, 9, 100, back, 8) == 8 && strcmp((char *)back, "pointer") == 0);
    CHECK(e_read(&mem, 0, 0, 4090, back, 16) == E_ERR);
    CHECK(e_alloc(&other, 0x00100000 + 16, 16) == E_OK);
    CHECK(strcmp((char *)other.base, "hello") == 0); /* the same memory */
    CHECK(e_free(&mem) == E_OK);
    CHECK(e_read(&mem, 0, 0, 0, back, 4) == E_ERR); /* freed */
    CHECK(e_free(NULL) == E_ERR);
    CHECK(e_free(&mem) == E_ERR);

    /* Shared-memory regions */
    CHECK(e_shm_alloc(&shm, "test_region", 1000) == E_OK);
    CHECK(shm.objtype == E_SHARED_MEM && shm.base != NULL && shm.emap_size == 1000);
    CHECK(shm.ephy_base >= 0x8f000000 && shm.ephy_base < 0x8f400000);
    errno = 0;
    CHECK(e_shm_alloc(&shm2, "test_region", 8) == E_ERR && errno == EEXIST);
    CHECK(e_shm_alloc(NULL, "x", 8) == E_ERR);
    CHECK(e_shm_alloc(&shm2, NULL, 8) == E_ERR);
    CHECK(e_shm_alloc(&shm2, "huge", 64 << 20) == E_ERR);
    CHECK(e_shm_attach(&shm2, "test_region") == E_OK && shm2.base == shm.base);
    errno = 0;
    CHECK(e_shm_attach(&shm2, "missing") == E_ERR && errno == ENOENT);
    e_shmtable_t *table = e_shm_get_shmtable();
    CHECK(table != NULL && table->magic == SHM_MAGIC);
    CHECK(table->regions[0].valid == 1 && table->regions[0].refcnt == 2);
    CHECK(strcmp(table->regions[0].shm_seg.name, "test_region") == 0);
    CHECK((uintptr_t)table->regions[0].shm_seg.paddr == (uintptr_t)shm.ephy_base);
    CHECK(table->regions[0].shm_seg.size == 1000);
    CHECK(e_write(&shm, 0, 0, 0, "shared", 7) == 7 && strcmp(shm2.base, "shared") == 0);
    CHECK(e_write(&shm, 0, 0, 996, "12345", 5) == E_ERR);
    CHECK(e_free(&shm2) == E_OK);
    CHECK(e_shm_release("test_region") == E_OK);
    CHECK(table->regions[0].valid == 1);
    CHECK(e_shm_release("test_region") == E_OK);
    CHECK(table->regions[0].valid == 0);
    CHECK(e_shm_release("test_region") == E_ERR);
    CHECK(e_shm_release(NULL) == E_ERR);

    /* Loading */
    CHECK(e_load(NULL, &dev, 0, 0, E_FALSE) == E_ERR);
    CHECK(e_load("/nonexistent.elf", &dev, 0, 0, E_FALSE) == E_ERR);
    CHECK(e_load(argv[0], &dev, 0, 0, E_FALSE) == E_ERR); /* an ELF, not Epiphany's */
    CHECK(e_load(elf, NULL, 0, 0, E_FALSE) == E_ERR);
    CHECK(e_load(elf, &dev, 4, 0, E_FALSE) == E_ERR);
    CHECK(e_load_group(elf, &dev, 3, 3, 2, 2, E_FALSE) == E_ERR);
    CHECK(e_load_group(elf, &dev, 0, 0, 0, 1, E_FALSE) == E_ERR);
    CHECK(reg(&dev, 0, 0, E_REG_DEBUGSTATUS) == 0);
    CHECK(e_load(elf, &dev, 0, 0, E_FALSE) == E_OK);
    unsigned cfg[16];
    CHECK(e_read(&dev, 0, 0, 0x28, cfg, sizeof cfg) == sizeof cfg);
    CHECK(cfg[0] == E_EPI_GROUP && cfg[1] == E_E16G301 && cfg[2] == 0x808);
    CHECK(cfg[3] == 32 && cfg[4] == 8 && cfg[5] == 4 && cfg[6] == 4);
    CHECK(cfg[7] == 0 && cfg[8] == 0 && cfg[9] == 0xdeadbeef);
    CHECK(cfg[10] == E_EXT_MEM && cfg[11] == 0x8e000000 && cfg[12] == 1);
    CHECK(e_read(&dev, 0, 0, 0x2001, back, 4) == 4 && back[0] == 0); /* SRAM was cleared */
    CHECK(epsim_run_until_idle(1000000) == E_OK);
    CHECK(reg(&dev, 0, 0, E_REG_DEBUGSTATUS) == 0); /* loaded, not started */
    CHECK(e_start(&dev, 0, 0) == E_OK);
    CHECK(epsim_run_until_idle(10000000) == E_OK);
    CHECK((reg(&dev, 0, 0, E_REG_DEBUGSTATUS) & 1) == 1); /* exited: halted */
    CHECK(e_start(&dev, 4, 4) == E_ERR);
    CHECK(e_load_group(elf, &dev, 2, 1, 1, 3, E_TRUE) == E_OK);
    CHECK(epsim_run_until_idle(10000000) == E_OK);
    CHECK(e_read(&dev, 2, 3, 0x28, cfg, 40) == 40 && cfg[7] == 2 && cfg[8] == 3);
    for (c = 1; c < 4; c++)
        CHECK((reg(&dev, 2, c, E_REG_DEBUGSTATUS) & 1) == 1);
    CHECK(e_load(elf, &one, 0, 0, E_FALSE) == E_OK);
    CHECK(e_read(&one, 0, 0, 0x28, cfg, 40) == 40 && cfg[2] == 0x849 && cfg[5] == 1);
    CHECK(e_start_group(&one) == E_OK);
    CHECK(e_start_group(NULL) == E_ERR);
    CHECK(epsim_run_until_idle(10000000) == E_OK);
    CHECK((reg(&dev, 1, 1, E_REG_DEBUGSTATUS) & 1) == 1);

    /* Halt, resume, signal, reset */
    CHECK(e_halt(&dev, 3, 0) == E_OK);
    CHECK((reg(&dev, 3, 0, E_REG_DEBUGSTATUS) & 1) == 1);
    CHECK(e_resume(&dev, 3, 0) == E_OK);
    CHECK((reg(&dev, 3, 0, E_REG_DEBUGSTATUS) & 1) == 0);
    CHECK(e_halt(NULL, 0, 0) == E_ERR);
    CHECK(e_resume(&dev, 0, 9) == E_ERR);
    CHECK(e_signal(&dev, 3, 1) == E_OK);
    CHECK((reg(&dev, 3, 1, E_REG_ILAT) & (1 << 9)) != 0);
    CHECK(e_signal(&dev, 4, 0) == E_ERR);
    CHECK(e_reset_group(&one) == E_OK);
    CHECK(reg(&dev, 1, 1, E_REG_DEBUGSTATUS) == 0);
    CHECK(e_reset_group(NULL) == E_ERR);

    /* epsim controls */
    unsigned long long t0 = epsim_now();
    CHECK(epsim_step() == E_OK && epsim_now() == t0 + 1);
    CHECK(epsim_run(100) == E_OK && epsim_now() == t0 + 101);
    epsim_stats_t s;
    CHECK(epsim_stats(NULL) == E_ERR);
    CHECK(epsim_stats(&s) == E_OK);
    CHECK(s.cycles == t0 + 101 && s.calls > 40);
    if (s.cycles != t0 + 101 || s.calls <= 40)
        printf("stats: cycles %llu (t0 %llu) calls %llu\n", s.cycles, t0, s.calls);
    CHECK(s.bytes_written >= 100 && s.bytes_read >= 100 && s.instret > 100);
    CHECK(s.host_cycles > 0 && s.write_txns > 0 && s.read_txns > 0);
    CHECK(epsim_set_mode(EPSIM_FREE) == E_OK && epsim_get_mode() == EPSIM_FREE);
    CHECK(epsim_set_mode(EPSIM_DETERMINISTIC) == E_OK);

    /* Closing */
    CHECK(e_close(&dev) == E_OK);
    CHECK(e_close(&dev) == E_ERR);
    CHECK(e_read(&dev, 0, 0, 0, back, 4) == E_ERR); /* closed */
    CHECK(e_close(NULL) == E_ERR);
    CHECK(e_close(&one) == E_OK);
    CHECK(e_finalize() == E_OK);
    CHECK(e_platform.initialized == 0 && e_platform.chip == NULL);
    CHECK(e_finalize() == E_ERR);
    CHECK(e_open(&dev, 0, 0, 1, 1) == E_ERR);

    printf("api: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
