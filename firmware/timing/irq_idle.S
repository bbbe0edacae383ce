/* irq_idle.S -- IDLE until CTIMER0 (1000 clock cycles) expires; its
 * handler exits with status 5. */
        .file "irq_idle.S"
        .section .text
        .global _start
_start: b start
        .org 0x0c
        b timer0_isr
        .org 0x40
start:  mov r0, 0
        movts imask, r0
        mov r0, 1000
        movts ctimer0, r0
        movfs r0, config
        mov r1, 0x10
        orr r0, r0, r1
        gie
        movts config, r0
        idle
        mov r0, 96             /* not reached before the interrupt */
        trap 3
timer0_isr:
        mov r0, 5
        trap 3
