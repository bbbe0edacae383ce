/* Executes a word that decodes to no Epiphany-III instruction. */
        .file "illegal.S"
        .section .text
        .global _main
_main:
        .short 0x0122          /* FLOW16 key 0x12: unassigned */
        rts
