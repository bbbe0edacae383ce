/* matmul.h -- the external-memory layout of the matmul example: 64 x 64
 * single-precision matrices stored block by block (16 x 16 blocks of
 * 1 KB, each row-major): A by block rows (A(i,0..3) contiguous), B by
 * block columns (B(0..3,j) contiguous), C block (i,j) at index i*4+j;
 * then one "done" word per core. */
#ifndef MATMUL_H
#define MATMUL_H

#define MM_OFFSET 0x00a00000u /* into external memory: device 0x8ea00000 */
#define N 64
#define G 4
#define BS (N / G)
#define BLOCK_FLOATS (BS * BS)
#define A_OFF 0u
#define B_OFF (N * N * 4u)
#define C_OFF (2u * N * N * 4u)
#define DONE_OFF (3u * N * N * 4u)

#endif
