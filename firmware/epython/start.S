/* start.S -- the epython firmware's vectors, start-up, user-interrupt
 * handler, sleep and setjmp/longjmp (no newlib crt0).
 *
 * Interrupts stay enabled from start-up on; only the user interrupt (IVT
 * entry 9, raised by e_signal) is unmasked.  Its handler does two things:
 *
 *  - abort: while a kernel runs (g_abortable != 0) and control.abort_seq
 *    names the running command, it points IRET at epy_abort_tramp, which
 *    (after RTI, in normal context) long-jumps back to the command loop;
 *  - no lost wake-ups: the simulator does not make an aligned GIE;IDLE
 *    atomic, so epy_sleep_unless tests its word and sleeps in one short
 *    sequence [epy_wait_begin, epy_idle_insn]; an interrupt taken anywhere
 *    in it returns past the IDLE, and the caller looks at its word again.
 */
        .file   "start.S"

/* The vectors branch to global symbols: a branch to a local label of
 * another section gets its addend applied twice by this binutils. */
        .global _epy_boot
        .global _epy_ignore
        .global _epy_isr_user
        .section .vectors,"ax",@progbits
        .global _start
_start: b.l     _epy_boot               /* 0 SYNC (reset, e_start) */
        b.l     _epy_ignore             /* 1 software exception */
        b.l     _epy_ignore             /* 2 memory fault */
        b.l     _epy_ignore             /* 3 CTIMER0 */
        b.l     _epy_ignore             /* 4 CTIMER1 */
        b.l     _epy_ignore             /* 5 message */
        b.l     _epy_ignore             /* 6 DMA0 */
        b.l     _epy_ignore             /* 7 DMA1 */
        b.l     _epy_ignore             /* 8 WAND */
        b.l     _epy_isr_user           /* 9 user (e_signal) */

        .text
        .balign 8
_epy_boot:
        mov     r0, %low(___stack_top)
        movt    r0, %high(___stack_top)
        mov     sp, r0
        mov     fp, 0
        /* clear .bss (8-aligned, a multiple of 8 bytes) */
        mov     r0, %low(___bss_start)
        movt    r0, %high(___bss_start)
        mov     r1, %low(___bss_end)
        movt    r1, %high(___bss_end)
        mov     r2, 0
        mov     r3, 0
1:      sub     r4, r1, r0
        beq     2f
        strd    r2, [r0], +0x1
        b       1b
2:      mov     r0, 0x1ff               /* IMASK: only the user interrupt */
        movts   imask, r0
        mov     r0, 0x3ff
        movts   ilatcl, r0
        mov     r0, %low(_epy_main_entry)
        movt    r0, %high(_epy_main_entry)
        movts   iret, r0
        rti                             /* leave the SYNC interrupt: GID = 0 */
_epy_main_entry:
        bl      _epy_main
3:      idle
        b       3b

_epy_ignore:
        rti

/* The user interrupt.  Works below sp (nothing lives there). */
        .balign 8
_epy_isr_user:
        strd    r0, [sp, -0x1]
        strd    r2, [sp, -0x2]
        movfs   r0, status
        str     r0, [sp, -0x5]
        /* abort? */
        mov     r2, %low(_g_abortable)
        movt    r2, %high(_g_abortable)
        ldr     r3, [r2]
        sub     r3, r3, 0
        beq     4f
        mov     r1, 0x40e0              /* control.abort_seq */
        ldr     r3, [r1]
        mov     r1, %low(_g_cur_seq)
        movt    r1, %high(_g_cur_seq)
        ldr     r1, [r1]
        sub     r3, r3, r1
        bne     4f
        mov     r3, 0
        str     r3, [r2]                /* g_abortable = 0 */
        mov     r1, %low(_epy_abort_tramp)
        movt    r1, %high(_epy_abort_tramp)
        movts   iret, r1
        b       9f
        /* woken inside epy_sleep_unless's test: skip the IDLE */
4:      movfs   r1, iret
        mov     r2, %low(_epy_wait_begin)
        movt    r2, %high(_epy_wait_begin)
        sub     r3, r1, r2
        blt     9f
        mov     r2, %low(_epy_idle_insn)
        movt    r2, %high(_epy_idle_insn)
        sub     r3, r2, r1
        blt     9f
        add     r2, r2, 2
        movts   iret, r2
9:      ldr     r0, [sp, -0x5]
        movts   status, r0
        ldrd    r2, [sp, -0x2]
        ldrd    r0, [sp, -0x1]
        rti

/* After an abort: normal context, any registers.  CONFIG back to float
 * round-to-nearest (the kernel may have been between GCC's mode switches),
 * no hardware loop, then back to the command loop. */
_epy_abort_tramp:
        mov     r0, %low(_g_cmd_jmp)
        movt    r0, %high(_g_cmd_jmp)
        ldr     r0, [r0]
        mov     r1, 2
        b       _epy_longjmp

/* void epy_sleep_unless(volatile u32 *p, u32 v): sleeps in IDLE unless
 * *p != v; returns after any wake-up (the caller looks again). */
        .global _epy_sleep_unless
        .global _epy_wait_begin
        .global _epy_idle_insn
        .balign 8
_epy_sleep_unless:
_epy_wait_begin:
        ldr     r2, [r0]
        sub     r2, r2, r1
        bne     5f
_epy_idle_insn:
        idle
5:      rts

/* int epy_setjmp(JmpBuf b): r4-r11, sp, lr, r15, r32-r43. */
        .global _epy_setjmp
        .balign 8
_epy_setjmp:
        strd    r4, [r0, 0x0]
        strd    r6, [r0, 0x1]
        strd    r8, [r0, 0x2]
        strd    r10, [r0, 0x3]
        str     sp, [r0, 0x8]
        str     lr, [r0, 0x9]
        str     r15, [r0, 0xa]
        strd    r32, [r0, 0x6]
        strd    r34, [r0, 0x7]
        strd    r36, [r0, 0x8]
        strd    r38, [r0, 0x9]
        strd    r40, [r0, 0xa]
        strd    r42, [r0, 0xb]
        mov     r0, 0
        rts

/* void epy_longjmp(JmpBuf b, int v) */
        .global _epy_longjmp
        .balign 8
_epy_longjmp:
        gid
        movfs   r2, config
        mov     r3, %low(0xfff1fffe)
        movt    r3, %high(0xfff1fffe)
        and     r2, r2, r3
        movts   config, r2
        gie
        mov     r2, 0
        movts   lc, r2
        ldrd    r4, [r0, 0x0]
        ldrd    r6, [r0, 0x1]
        ldrd    r8, [r0, 0x2]
        ldrd    r10, [r0, 0x3]
        ldr     sp, [r0, 0x8]
        ldr     lr, [r0, 0x9]
        ldr     r15, [r0, 0xa]
        ldrd    r32, [r0, 0x6]
        ldrd    r34, [r0, 0x7]
        ldrd    r36, [r0, 0x8]
        ldrd    r38, [r0, 0x9]
        ldrd    r40, [r0, 0xa]
        ldrd    r42, [r0, 0xb]
        mov     r0, r1
        jr      lr

/* u32 epy_imul(u32 a, u32 b): the FPU's integer multiply; GCC's own mode
 * switching (README.md) is kept out of the firmware altogether. */
        .global _epy_imul
        .balign 8
_epy_imul:
        movfs   r2, config
        mov     r3, 0
        movt    r3, 0x8
        orr     r3, r2, r3
        movts   config, r3
        imul    r0, r0, r1
        movts   config, r2
        add     r0, r0, 0
        rts
