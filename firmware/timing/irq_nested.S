/* irq_nested.S -- the user interrupt (9, raised through ILATST) runs a
 * handler that enables interrupts and raises CTIMER0's (3, higher
 * priority): it nests. The inner handler exits with IPEND as the status
 * (bits 3 and 9: 0x208; the CLI shows 0x208 & 0xff = 8) and leaves IPEND
 * in r4. */
        .file "irq_nested.S"
        .section .text
        .global _start
_start: b start
        .org 0x0c
        b timer0_isr
        .org 0x24
        b user_isr
        .org 0x40
start:  mov r0, 0
        movts imask, r0
        gie
        mov r0, 0x200
        movts ilatst, r0
        mov r0, 99             /* not reached: the interrupt comes first */
        trap 3
user_isr:
        gie
        mov r0, 0x8
        movts ilatst, r0
        mov r0, 98             /* not reached */
        trap 3
timer0_isr:
        movfs r4, ipend
        mov r0, r4
        trap 3
