/* Self-modifying code: the program rewrites instructions it has already
 * executed (so they sit in the decode cache) and runs them again.
 *
 * 1. `patch:` first executes `mov r0,1`; the program then stores the
 *    encoding of `mov r0,2` over it and calls it again.
 * 2. A loop body is patched from `add r2,r2,1` to `add r2,r2,3` half-way.
 * The exit status is r0 + r2 = 2 + (5*1 + 5*3) = 22 when every rewrite is
 * seen, anything else when a stale decode runs. */
        .file "selfmod.S"
        .section .text
        .global _main
        .balign 4
_main:
        mov r12, lr
        bl patch               /* r0 = 1 */
        mov r1, %low(patch)
        movt r1, %high(patch)
        mov r3, 0x0043         /* `mov r0,2` = 0x0043 (16-bit) */
        strh r3, [r1]
        bl patch               /* r0 = 2 after the rewrite */
        mov r2, 0
        mov r4, 10             /* iterations */
        mov r5, %low(body)
        movt r5, %high(body)
        mov r6, 0x4993         /* `add r2,r2,3` = 0x4993 */
loop:
body:   add r2, r2, 1          /* 0x4893, patched to 0x4993 at i == 5 */
        sub r4, r4, 1
        sub r7, r4, 5
        bne 1f
        strh r6, [r5]
1:      sub r7, r4, 0
        bne loop
        add r0, r0, r2
        mov lr, r12
        rts

        .balign 4
patch:  mov r0, 1              /* 0x0023 */
        rts
