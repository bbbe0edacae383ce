/* matmul512.h -- the external-memory layout of the matmul512 example:
 * C = A x B for N x N single-precision matrices (N a multiple of 128; 512
 * by default) on a 4 x 4 group, each core computing its N/4 x N/4 block of
 * C in T x T tiles. Every matrix is stored tile by tile (T x T floats, 4 KB,
 * each row-major): A and C by tile rows (tile (r,c) at index r*NT+c), B by
 * tile columns (tile (r,c) at index c*NT+r), NT = N/T tiles a side, so each
 * tile is one contiguous 4 KB DMA. A header in front gives N; then one
 * "done" word per core. */
#ifndef MATMUL512_H
#define MATMUL512_H

#define MM_OFFSET 0x00200000u /* into external memory: device 0x8e200000 */
#define G 4                   /* cores a side */
#define T 32                  /* tile side */
#define TILE_FLOATS (T * T)
#define TILE_BYTES (TILE_FLOATS * 4u)
#define N_MAX 512u
#define HDR_OFF 0u         /* word 0: N */
#define DONE_OFF 0x40u     /* G*G words: 1 when the core has written its block of C */
#define A_OFF 0x1000u
#define B_OFF (A_OFF + N_MAX * N_MAX * 4u)
#define C_OFF (B_OFF + N_MAX * N_MAX * 4u)
#define MM_BYTES (C_OFF + N_MAX * N_MAX * 4u)

#endif
