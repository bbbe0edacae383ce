/* e-loader.h -- loading Epiphany programs onto cores (epsim's drop-in for
 * ESDK 2016.11). The functions are in libe-hal; `-le-loader` on a link
 * line finds the libe-loader.so that `make -C host install` puts beside
 * it (a linker script naming libe-hal). */
#ifndef E_LOADER_H
#define E_LOADER_H

#include "e-hal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* e_set_loader_verbosity levels (L_D4 is 40, as in the ESDK). epsim: L_D1
 * or more prints why a load failed. */
typedef enum {
    L_D0 = 0,
    L_D1 = 1,
    L_D2 = 2,
    L_D3 = 3,
    L_D4 = 40,
} e_loader_diag_t;

int e_load(const char *executable, e_epiphany_t *dev, unsigned row, unsigned col, e_bool_t start);
int e_load_group(const char *executable, e_epiphany_t *dev, unsigned row, unsigned col,
                 unsigned rows, unsigned cols, e_bool_t start);
/* Returns the previous level. */
e_loader_diag_t e_set_loader_verbosity(e_loader_diag_t verbose);

#ifdef __cplusplus
}
#endif

#endif
