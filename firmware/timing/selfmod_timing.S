/* selfmod_timing.S -- code rewritten between two runs of the same block
 * from the same pipeline state. Each of three iterations stores the next
 * halfword of `patches` over `body`'s first instruction, then calls
 * `body`: twice `add r0,r1,r1` (unchanged), then `fadd r0,r1,r1`, whose
 * result the second instruction waits for longer. The second and third
 * calls start from the same pipeline state, and both versions read one
 * register that is long ready and touch no memory; a schedule recorded for
 * the add version must not be replayed for the fadd version: the run must
 * take exactly as many cycles with replayed schedules as without. */
        .file "selfmod_timing.S"
        .section .text
        .global _start
_start: mov r5, 3
        mov r4, 0x2000
        mov r6, %low(target)
        mov r8, %low(patches)
        mov r1, 1
again:  ldrh r7, [r8], +1
        strh r7, [r6]
        bl body
        sub r5, r5, 1
        bne again
        mov r0, r3
        trap 3
        .balign 8
body:
target: add r0, r1, r1
        add r3, r0, r0
        rts
        .balign 8
patches:
        .hword 0x049a, 0x049a, 0x0487   /* add r0,r1,r1 twice, fadd r0,r1,r1 */
