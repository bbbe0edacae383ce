/* e-hal.h -- epsim's drop-in for the Epiphany host library (ESDK 2016.11
 * API). Link with -le-hal (libe-hal.so from epsim, see README "The e-hal
 * drop-in"). Written for epsim from the documented API; layouts match the
 * original headers on the same host. */
#ifndef E_HAL_H
#define E_HAL_H
#include "epiphany-hal.h"
#endif
