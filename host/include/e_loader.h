/* e_loader.h -- the ESDK's old name for e-loader.h (deprecated there). */
#ifndef E_LOADER_DEPRECATED_H
#define E_LOADER_DEPRECATED_H
#warning "e_loader.h is deprecated: include e-loader.h"
#include "e-loader.h"
#endif
