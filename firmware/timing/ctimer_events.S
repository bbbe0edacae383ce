/* ctimer_events.S -- the core timers count every stall event true in a
 * cycle. Part 1: CTIMER0 counts RA stalls, CTIMER1 external-load stalls,
 * both from 0xffffffff, over two loads from DRAM, the first followed by an
 * instruction that uses its result, the second by one that does not:
 * the core waits for each, an external-load and an RA stall (the
 * instruction behind the load waits in RA) -- r6, r7. Part 2: CTIMER0
 * counts E1 stalls over one more such load (none: r8), then over sixteen
 * stores to DRAM, the later ones waiting for the store queue (E1 stalls:
 * r9). Exits with 0. */
        .file "ctimer_events.S"
        .section .text
        .global _start
_start: mov r29, 0x0100
        movt r29, 0x8e00
        mov r0, 0xffff
        movt r0, 0xffff
        movts ctimer0, r0
        movts ctimer1, r0
        movfs r10, config
        mov r1, 0xd80          /* CTIMER0CFG = 1000 (RA), CTIMER1CFG = 1101 */
        orr r0, r10, r1
        mov r1, 1
        movts config, r0
        ldr r2, [r29]
        add r3, r2, 1          /* uses r2 */
        ldr r4, [r29, 2]
        add r5, r1, 1          /* independent */
        movfs r6, ctimer0
        movfs r7, ctimer1
        /* part 2: CTIMER0 counts E1 stalls (0111), CTIMER1 off */
        movts config, r10
        mov r0, 0xffff
        movt r0, 0xffff
        movts ctimer0, r0
        mov r1, 0x70
        orr r0, r10, r1
        mov r1, 1
        movts config, r0
        ldr r2, [r29]
        add r3, r2, 1
        movfs r8, ctimer0
        .rept 16
        str r1, [r29]
        .endr
        movfs r9, ctimer0
        mov r0, 0
        trap 3
