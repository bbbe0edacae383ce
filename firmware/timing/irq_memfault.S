/* irq_memfault.S -- MEMPROTECT makes SRAM page 1 (0x1000-0x1fff) read-only
 * with the memory-fault interrupt enabled; a store there is dropped and
 * raises interrupt 2. The handler exits with 11 + the word at 0x1000 (so
 * 11 when the store was dropped) and leaves MEMSTATUS in r4. */
        .file "irq_memfault.S"
        .section .text
        .global _start
_start: b start
        .org 0x08
        b memfault_isr
        .org 0x40
start:  mov r0, 0
        movts imask, r0
        gie
        mov r0, 0x8002
        movts memprotect, r0
        mov r1, 0x1000
        mov r2, 0x55
        str r2, [r1]
        mov r0, 95             /* not reached: the interrupt comes first */
        trap 3
memfault_isr:
        ldr r3, [r1]
        movfs r4, memstatus
        mov r0, 11
        add r0, r0, r3
        trap 3
