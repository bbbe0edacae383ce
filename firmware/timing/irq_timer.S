/* irq_timer.S -- CTIMER0 counts 100 clock cycles while the program spins;
 * its interrupt (vector 3) ends the run with exit status 42. r2 counts the
 * loop iterations, r3 is the IRET the handler saw. */
        .file "irq_timer.S"
        .section .text
        .global _start
_start: b start
        .org 0x0c
        b timer0_isr
        .org 0x40
start:  mov r0, 0
        movts imask, r0
        mov r0, 100
        movts ctimer0, r0
        movfs r0, config
        mov r1, 0x10
        orr r0, r0, r1
        mov r2, 0
        gie
        movts config, r0
loop:   add r2, r2, 1
        b loop
timer0_isr:
        movfs r3, iret
        mov r0, 42
        trap 3
