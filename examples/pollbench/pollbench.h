/* pollbench.h -- what the host and the device program share. */
#ifndef POLLBENCH_H
#define POLLBENCH_H

/* Offsets in each core's SRAM: the round the host lets the core start
 * (written by the host), the last round the core finished (written by
 * the core), and the checksum of its work. */
#define GO_OFF 0x7000
#define DONE_OFF 0x7004
#define SUM_OFF 0x7008

#endif
