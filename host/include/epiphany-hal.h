/* epiphany-hal.h -- e-hal's types and functions (epsim). */
#ifndef EPIPHANY_HAL_H
#define EPIPHANY_HAL_H
#include <sys/types.h>
#include "epiphany-hal-data.h"
#include "epiphany-hal-api.h"
#endif
