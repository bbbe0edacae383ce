/* irq_memprotect.S -- MEMPROTECT = 0x7f, as Adapteva's labs/mem_protect
 * writes it: pages 0-6 read-only, EXC_EN (bit 15) clear. A store to page
 * 1 is dropped and still raises the memory-fault interrupt; the handler
 * exits with 11 + the word at 0x1000 and leaves MEMSTATUS in r4. */
        .file "irq_memprotect.S"
        .section .text
        .global _start
_start: b start
        .org 0x08
        b memfault_isr
        .org 0x40
start:  mov r0, 0
        movts imask, r0
        gie
        mov r0, 0x7f
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
