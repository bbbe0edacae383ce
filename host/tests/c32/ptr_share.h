/* ptr_share.h -- a structure holding pointers, shared by a host program
 * and a core through external DRAM, as ePython's core_ctrl and Epiphany
 * BSP's host tables are. Its layout is the same on both sides only when
 * the host's pointers are 32 bits wide, as on a Parallella's ARM host:
 * 32 bytes on the device and on a 32-bit host, 56 on a 64-bit one (whose
 * pointers are 8 bytes; the field offsets differ from the second on).
 * Every pointer in it holds a device address. (epiphany-elf-gcc rounds a
 * structure's size up to 8 bytes: with 7 words it would be 32 on the
 * device but 28 on the host.) */
#ifndef PTR_SHARE_H
#define PTR_SHARE_H

/* Where the host puts the job: external DRAM offset 0x00100000, device
 * address 0x8e100000 on the Parallella-16. */
#define JOB_OFFSET 0x00100000u
#define JOB_DEVICE_ADDR 0x8e100000u
#define JOB_N 16
#define JOB_DONE 0x600d600du

struct job {
    const int *in;       /* host writes: JOB_N inputs */
    int *out;            /* host writes: where the squares go */
    struct job *self;    /* host writes: this structure */
    unsigned n;          /* host writes: JOB_N */
    char *msg;           /* device writes: its reply, in DRAM */
    unsigned size;       /* device writes: sizeof(struct job) as it sees it */
    int sum;             /* device writes: the sum of the squares */
    volatile unsigned done; /* device writes last: JOB_DONE */
};

#endif
