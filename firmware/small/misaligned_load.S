/* A word load from an odd address: a misaligned access. */
        .file "misaligned_load.S"
        .section .text
        .global _main
_main:
        mov r1, 0x1001
        ldr r0, [r1]
        rts
