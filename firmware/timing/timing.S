/* timing.S -- cycle costs measured the way Epiphany programmers measure
 * them: CTIMER0 counts clock cycles, read with MOVFS before and after each
 * snippet. Each measurement stores (before - after) into the results array
 * at 0x6000 (bank 3); the first one measures an empty snippet, so
 * results[i] - results[0] is the snippet's cost: the cycles from the first
 * MOVFS issuing to the snippet's last instruction issuing.
 * sim/tests/timing.rs holds the expected cost of every snippet, each argued
 * from the parameters in sim/TIMING.md.
 *
 * Registers: r63 results pointer, r60-r62 measurement scratch, r30 data in
 * bank 1 (0x2400), r31 data in bank 0 (0x1800, the code's bank), r29 data
 * in DRAM, r28 a DRAM function; r5 r6 r11 r12 hold 1.0f. */
        .file "timing.S"

        .macro BEGIN
        /* Six cycles of nothing: no result of an earlier snippet is still
         * in flight (the longest latency is 5). */
        nop
        nop
        nop
        nop
        nop
        nop
        movfs r60, ctimer0
        .endm

        .macro END
        movfs r61, ctimer0
        sub r62, r60, r61
        str r62, [r63], +1
        .endm

        .section .text
        .global _start
_start:
        mov r63, 0x6000
        mov r30, 0x2400
        mov r31, 0x1800
        mov r29, 0x0100
        movt r29, 0x8e00
        mov r28, %low(dram_ret)
        movt r28, %high(dram_ret)
        /* [r30] holds an address (r30 + 0x40) for the load-to-address case. */
        mov r0, 0x2440
        str r0, [r30]
        mov r5, 0
        movt r5, 0x3f80
        mov r6, r5
        mov r11, r5
        mov r12, r5
        mov r1, 1
        mov r2, 2
        mov r3, 3
        /* CTIMER0 = 0xffffffff counting clock cycles (CONFIG[7:4] = 1). */
        mov r0, 0xffff
        movt r0, 0xffff
        movts ctimer0, r0
        movfs r0, config
        mov r1, 0x10
        orr r0, r0, r1
        movts config, r0
        mov r1, 1

        /* 0: empty */
        BEGIN
        END

        /* 1: IALU -> IALU, dependent */
        BEGIN
        add r7, r2, r3
        add r8, r7, r1
        END

        /* 2: IALU, IALU independent (never pair) */
        BEGIN
        add r7, r2, r3
        add r8, r1, r2
        END

        /* 3: IALU -> FPU, dependent */
        BEGIN
        add r7, r2, r3
        fadd r8, r7, r5
        END

        /* 4: IALU + FPU pair */
        BEGIN
        add r7, r2, r3
        fadd r8, r5, r6
        END

        /* 5: FPU + IALU pair */
        BEGIN
        fadd r8, r5, r6
        add r7, r2, r3
        END

        /* 6: FPU + load pair */
        BEGIN
        fadd r8, r5, r6
        ldr r7, [r30, 0x1]
        END

        /* 7: load + FPU pair */
        BEGIN
        ldr r7, [r30, 0x1]
        fadd r8, r5, r6
        END

        /* 8: load, load (never pair) */
        BEGIN
        ldr r7, [r30, 0x1]
        ldr r8, [r30, 0x2]
        END

        /* 9: IALU, load (never pair) */
        BEGIN
        add r7, r2, r3
        ldr r8, [r30, 0x2]
        END

        /* 10: word load -> IALU */
        BEGIN
        ldr r7, [r30, 0x1]
        add r8, r7, r1
        END

        /* 11: word load -> FPU */
        BEGIN
        ldr r7, [r30, 0x1]
        fadd r8, r7, r5
        END

        /* 12: byte load -> IALU */
        BEGIN
        ldrb r7, [r30, 0x1]
        add r8, r7, r1
        END

        /* 13: word load -> load address */
        BEGIN
        ldr r7, [r30]
        ldr r8, [r7]
        END

        /* 14: word load -> store data */
        BEGIN
        ldr r7, [r30, 0x1]
        str r7, [r30, 0x3]
        END

        /* 15: FPU -> FPU, round to nearest */
        BEGIN
        fadd r8, r5, r6
        fadd r9, r8, r6
        END

        /* 16: FPU -> IALU */
        BEGIN
        fadd r8, r5, r6
        add r9, r8, r1
        END

        /* 17: FPU -> store data */
        BEGIN
        fadd r8, r5, r6
        str r8, [r30, 0x3]
        END

        /* 18: FPU flags -> B-flag branch (not taken: 2.0 is not zero) */
        BEGIN
        fadd r8, r5, r6
        bbeq 1f
1:
        END

        /* 19: IALU flags -> branch (not taken) */
        BEGIN
        sub r7, r2, r1
        beq 1f
1:
        END

        /* 20: branch taken */
        BEGIN
        b 1f
        nop
1:      add r7, r2, r3
        END

        /* 21: taken branch to a 32-bit target at 8n+0 */
        BEGIN
        b 1f
        .balign 8
1:      add r40, r41, r42
        END

        /* 22: taken branch to a 32-bit target straddling two lines (8n+6) */
        BEGIN
        b 1f
        .balign 8
        nop
        nop
        nop
1:      add r40, r41, r42
        END

        /* 23: hardware loop: 4 iterations of a 2-instruction body */
        mov r9, 4
        movts lc, r9
        mov r9, %low(2f)
        movts ls, r9
        mov r9, %low(3f)
        movts le, r9
        BEGIN
2:      add r7, r2, r3
3:      add r8, r2, r1
        END

        /* 24: call into DRAM (one line: rts) and back */
        BEGIN
        jalr r28
        END

        /* 25: load from DRAM, then an independent IALU instruction */
        BEGIN
        ldr r7, [r29]
        add r8, r1, r2
        END

        /* 26: six stores to DRAM, then an IALU instruction */
        BEGIN
        str r1, [r29]
        str r1, [r29]
        str r1, [r29]
        str r1, [r29]
        str r1, [r29]
        str r1, [r29]
        add r8, r1, r2
        END

        /* 27: FPU -> FPU in truncate mode (CONFIG.RMODE = 1) */
        movfs r0, config
        orr r0, r0, r1
        movts config, r0
        BEGIN
        fadd r8, r5, r6
        fadd r9, r8, r6
        END

        /* 28: 32-bit load + FPU pairs streaming, loads from the code's bank */
        BEGIN
        b 1f
        .balign 8
1:      ldr r20, [r31, 0x1]
        fadd r40, r5, r6
        ldr r21, [r31, 0x2]
        fadd r41, r5, r6
        ldr r22, [r31, 0x3]
        fadd r42, r5, r6
        ldr r23, [r31, 0x4]
        fadd r43, r5, r6
        ldr r24, [r31, 0x5]
        fadd r44, r5, r6
        END

        /* 29: the same, loads from another bank */
        BEGIN
        b 1f
        .balign 8
1:      ldr r20, [r30, 0x1]
        fadd r40, r5, r6
        ldr r21, [r30, 0x2]
        fadd r41, r5, r6
        ldr r22, [r30, 0x3]
        fadd r42, r5, r6
        ldr r23, [r30, 0x4]
        fadd r43, r5, r6
        ldr r24, [r30, 0x5]
        fadd r44, r5, r6
        END

        /* 30: IALU -> load address */
        BEGIN
        add r7, r30, 4
        ldr r8, [r7]
        END

        /* 31: post-modified base -> next use as an address */
        BEGIN
        mov r7, r30
        ldr r8, [r7], +0x1
        ldr r9, [r7]
        END

        /* 32: FPU -> IALU in truncate mode (still truncating) */
        BEGIN
        fadd r8, r5, r6
        add r9, r8, r1
        END

        /* the number of results, then exit(0) */
        mov r0, 0
        trap 3

        .section .dram, "ax"
dram_ret:
        rts
