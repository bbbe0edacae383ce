/* The mailbox host/tests/c/dramwatch.c and host/tests/dev/flag_dev.c share
 * in external memory, at DRAM offset BOX_OFFSET (device address
 * BOX_DEVICE_ADDR on the Parallella-16's 0x8e000000 base). */
#ifndef DRAMWATCH_H
#define DRAMWATCH_H

#define BOX_OFFSET 0x00100000u
#define BOX_DEVICE_ADDR (0x8e000000u + BOX_OFFSET)

struct box {
    unsigned n;      /* host: iterations of the device's computation */
    unsigned ack;    /* host: 1 after it has read the first result */
    unsigned result; /* device: the computation's result */
    unsigned flag;   /* device: 1 with the result, 2 after the ack */
};

/* What the device computes from n (the host checks it). */
static inline unsigned box_compute(unsigned n)
{
    unsigned x = 12345;
    for (unsigned i = 0; i < n; i++)
        x = x * 1103515245u + 12345u + i;
    return x;
}

#endif
