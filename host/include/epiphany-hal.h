/* epiphany-hal.h -- data types, the API and the shared-memory manager. */
#ifndef EPIPHANY_HAL_H
#define EPIPHANY_HAL_H
#include "epiphany-hal-data.h"
#include "epiphany-hal-api.h"
#include "epiphany-shm-manager.h"
#endif
