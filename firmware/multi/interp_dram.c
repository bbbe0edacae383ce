/* interp_dram: every core runs a toy bytecode interpreter, as ePython's
 * cores do, whose state is partly in external DRAM (ePython's newlib data,
 * `_impure_data`, and its soft-float code live there): the program and the
 * operand stack are in SRAM; each "global" op loads a word from a table in
 * the shared DRAM region, every 16th op stores one back to the core's own
 * slot there. Sixteen cores together load from DRAM through the one eLink,
 * interleaved with local work (the ePython examples spend half their
 * cycles waiting for such loads; EPSIM_PROGRESS shows it). Each core
 * prints a checksum of its run.
 *
 * STEPS ops per core (default 3000). */
#include "multi.h"

#ifndef STEPS
#define STEPS 3000
#endif
#define TABLE ((volatile unsigned *)0x8f000000)
#define TABLE_WORDS 256
#define SLOTS ((volatile unsigned *)0x8f000400)

enum { OP_PUSH, OP_ADD, OP_MUL, OP_GLOBAL, OP_DUP, OP_SWAP, OP_XOR, OP_DROP };

static unsigned char code[64];
static unsigned stack[32];

#ifdef DRAM_CODE
/* A helper in external DRAM, as newlib's soft-float division is in
 * ePython's build: every line it runs is fetched over the eLink. */
__attribute__((section(".dram_text"), noinline)) unsigned slow_mix(unsigned a, unsigned b)
{
    for (unsigned i = 0; i < 4; i++)
        a = (a ^ (b >> i)) * 2654435761u + i;
    return a;
}
#endif

int main(void)
{
    unsigned me = my_rank();
    /* Core 0 fills the table; the others wait for its flag in DRAM. */
    volatile unsigned *ready = SLOTS + 64;
    if (me == 0) {
        for (unsigned i = 0; i < TABLE_WORDS; i++)
            TABLE[i] = i * 2654435761u;
        *ready = 1;
    } else {
        while (*ready != 1)
            ;
    }
    /* A program of 64 ops, different on each core. */
    unsigned x = 12345u + me * 777u;
    for (unsigned i = 0; i < sizeof code; i++) {
        x = x * 1103515245u + 12345u;
        code[i] = (x >> 16) & 7;
    }
    unsigned sp = 2, pc = 0, acc = me;
    stack[0] = me;
    stack[1] = me + 1;
    for (unsigned step = 0; step < STEPS; step++) {
        unsigned op = code[pc];
        pc = (pc + 1) & 63;
        switch (op) {
        case OP_PUSH:
            if (sp < 31)
                stack[sp++] = step;
            break;
        case OP_ADD:
            if (sp > 1) {
                sp--;
                stack[sp - 1] += stack[sp];
            }
            break;
        case OP_MUL:
            if (sp > 1) {
                sp--;
                stack[sp - 1] *= stack[sp] | 1;
            }
            break;
        case OP_GLOBAL:
            if (sp < 31)
                stack[sp++] = TABLE[(acc + step) & (TABLE_WORDS - 1)];
            break;
        case OP_DUP:
            if (sp > 0 && sp < 31) {
                stack[sp] = stack[sp - 1];
                sp++;
            }
            break;
        case OP_SWAP:
            if (sp > 1) {
                unsigned t = stack[sp - 1];
                stack[sp - 1] = stack[sp - 2];
                stack[sp - 2] = t;
            }
            break;
        case OP_XOR:
#ifdef DRAM_CODE
            acc = slow_mix(acc, sp > 0 ? stack[sp - 1] : step);
#else
            acc ^= sp > 0 ? stack[sp - 1] : step;
#endif
            break;
        default:
            if (sp > 0)
                sp--;
            break;
        }
        if ((step & 15) == 15)
            SLOTS[me] = acc;
    }
    for (unsigned i = 0; i < sp; i++)
        acc = acc * 31u + stack[i];
    say_num("interp_dram: ", (long)(acc & 0x7fffffff));
    return 0;
}
