/* mbox.h -- the shared external-memory layout of the mailbox example,
 * seen by the host through e_alloc and by the cores at their device
 * address (e_emem_config.base + MBOX_OFFSET). */
#ifndef MBOX_H
#define MBOX_H

#include <stdint.h>

#define MBOX_OFFSET 0x00800000u /* device 0x8e800000 on a Parallella */
#define ITEMS 8
#define CORES 16
#define BLOCK 16

/* One core's mailbox: the host writes value then seq; the core answers
 * with reply then ack = seq. ack = ITEMS + 1 means "block written". */
typedef struct {
    volatile uint32_t seq;
    volatile uint32_t value;
    volatile uint32_t ack;
    volatile uint32_t reply;
    uint32_t pad[4];
} mbox_t;

typedef struct {
    mbox_t box[CORES];
    volatile uint32_t block[CORES][BLOCK];
} shared_t;

#define REPLY(value, rank) ((value) * (value) + (rank))

#endif
