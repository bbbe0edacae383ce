/* regs_autodma.S -- a word written to DMAxAUTODMA0 reads back from
 * AUTODMA0 and AUTODMA1, as Adapteva's cpu/register_test checks on the
 * board; a write to AUTODMA1 changes AUTODMA1 only. DMA0 (0xf0514) and
 * DMA1 (0xf0534). Results in r10..r17; exits with 0. */
        .file "regs_autodma.S"
        .section .text
        .global _start
_start: mov r1, 0x0514
        movt r1, 0x000f
        mov r2, 0x0534
        movt r2, 0x000f
        mov r3, 0xffff
        movt r3, 0xffff
        mov r4, 0x1234
        mov r0, 0
        str r3, [r1]           /* DMA0AUTODMA0 = 0xffffffff */
        ldr r10, [r1]
        ldr r11, [r1, 1]       /* DMA0AUTODMA1 */
        str r0, [r1]           /* DMA0AUTODMA0 = 0 */
        ldr r12, [r1]
        ldr r13, [r1, 1]
        str r3, [r2]           /* DMA1AUTODMA0 = 0xffffffff */
        str r4, [r2, 1]        /* DMA1AUTODMA1 = 0x1234 */
        ldr r14, [r2]
        ldr r15, [r2, 1]
        str r0, [r2]           /* DMA1AUTODMA0 = 0 */
        ldr r16, [r2]
        ldr r17, [r2, 1]
        mov r0, 0
        trap 3
