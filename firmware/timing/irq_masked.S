/* irq_masked.S -- the user interrupt is raised while IMASK masks it: it
 * stays latched (r5 = ILAT) and the program goes on (r6 = 1); unmasking it
 * lets it in, and its handler exits with status 7. */
        .file "irq_masked.S"
        .section .text
        .global _start
_start: b start
        .org 0x24
        b user_isr
        .org 0x40
start:  mov r0, 0x200
        movts imask, r0
        gie
        movts ilatst, r0
        movfs r5, ilat
        mov r6, 1
        mov r0, 0
        movts imask, r0
        mov r0, 97             /* not reached */
        trap 3
user_isr:
        mov r0, 7
        trap 3
