/* cfg_dev: reads e-lib's configuration objects, defined as e-lib defines
 * them (zero-initialised constants in the sections workgroup_cfg,
 * ext_mem_cfg and loader_cfg, which cfg_dev.ld loads as a segment of their
 * own), and prints what the loader wrote into them: where they are, the
 * group (id, origin, size), this core's place in it, the padding word,
 * the external memory and the loader flags. (host/tests/ehal.rs) */
#include "edev.h"

const group_config_t e_group_config __attribute__((section("workgroup_cfg")));
const emem_config_t e_emem_config __attribute__((section("ext_mem_cfg")));
const struct {
    unsigned flags, pad1, args_ptr, pad2;
} loader_cfg __attribute__((section("loader_cfg")));

int main(void)
{
    /* Through volatile: the compiler may not fold the zero initialisers. */
    const volatile group_config_t *g = &e_group_config;
    const volatile emem_config_t *m = &e_emem_config;
    const volatile unsigned *l = &loader_cfg.flags;
    eprintf("at %x: type %u chip %u group %x at %u,%u of %ux%u\n", (unsigned)g, g->objtype,
            g->chiptype, g->group_id, g->group_row, g->group_col, g->group_rows, g->group_cols);
    eprintf("core %u,%u pad %x emem %u %x at %x loader %u at %x\n", g->core_row, g->core_col,
            g->padding, m->objtype, m->base, (unsigned)m, *l, (unsigned)l);
    return 0;
}
