/* irq_gie_idle.S -- an interrupt pending when GIE enables interrupts is
 * not taken between a GIE at an 8-byte boundary and the IDLE after it
 * (isa.md, the GIE row): the IDLE takes it at once, returning after the
 * IDLE. The same pair with GIE at 8n+2 takes it before the IDLE, with
 * IRET at the IDLE. The user interrupt (ILAT[9]) is latched by ILATST
 * while GID holds it. The handler keeps IRET in r1; in the second phase
 * (r3 = 1) it exits with status 7. r4: IRET of the first phase, r6 and
 * r7: the addresses each phase should see. */
        .file "irq_gie_idle.S"
        .section .text
        .global _start
_start: b start
        .org 0x24
        b user_isr
        .org 0x40
start:  mov r0, 0
        movts imask, r0
        mov r6, %low(after1)
        mov r7, %low(idle2)
        mov r3, 0
        gid
        mov r0, 0x200
        movts ilatst, r0
        .balignw 8, 0x01a2
        gie                    /* at 8n: shielded */
        idle
after1: mov r4, r1
        mov r3, 1
        gid
        mov r0, 0x200
        movts ilatst, r0
        .balignw 8, 0x01a2
        nop
        gie                    /* at 8n+2: not shielded */
idle2:  idle
        mov r0, 98             /* not reached: the handler exits */
        trap 3
user_isr:
        movfs r1, iret
        sub r2, r3, 0
        bne 1f
        rti
1:      mov r0, 7
        trap 3
