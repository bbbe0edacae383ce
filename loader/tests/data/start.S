/* Minimal start-up code for the loader's sample programs.
 *
 * Linked at local address 0, where the SYNC (reset) vector lives: set the
 * stack pointer, call _main, then idle. `_start` is left without a .type so
 * that the samples also carry an untyped (NOTYPE) symbol. */
	.file	"start.S"
	.section .text.start,"ax",@progbits
	.global	_start
_start:
	mov	r13, %low(__stack)
	movt	r13, %high(__stack)
	bl	_main
_halt:
	idle
	b	_halt
