/* pypipe: ePython's examples/pipeline.py as its cores run it in timed
 * mode, in the proportions measured there (session 27): one core
 * interpreting a sort for a long time while the other three wait for it.
 *
 * What the four stages do while an item is sorted (a trace of cycles
 * 30.0-30.1 M of pipeline.py under ePython v2.0):
 * - stage 0 (core (32,8)) and stage 1 (core (32,9)) wait in `send`: each
 *   turn they copy the six-byte slot of the next stage's postbox into their
 *   own SRAM with a byte loop whose loads cross the mesh (one remote byte
 *   read per 28 cycles, 60 % of their cycles `remote` stalls), then compare
 *   its sequence byte with what they sent; stage 1 thus polls the SRAM of
 *   the core that is sorting;
 * - stage 2 (core (32,10)) interprets bytecode held in its own SRAM (code,
 *   operand stack and array local), now and then reading a word of a table
 *   in external DRAM (ePython's memory manager: one load per ~10 k cycles);
 * - stage 3 (core (32,11)) waits in `recv`: each turn it loads its
 *   postbox's address from the table in DRAM (a 530-cycle `ext-load`
 *   stall) and copies its own six-byte slot with the same byte loop.
 *
 * Here stage 0 makes ITEMS items, stage 1 passes each on, stage 2 sorts
 * an array made from it with a small stack-machine interpreter, and
 * stage 3 folds the sorted arrays' sums into a checksum it prints; the
 * other twelve cores end at once. */
#include "multi.h"

#ifndef ITEMS
#define ITEMS 3
#endif
#ifndef SORTED
#define SORTED 32
#endif
#define STAGES 4
#define TABLE ((volatile unsigned *)0x8f000000)
/* The word the interpreter looks up in DRAM now and then, and how often. */
#define HEAP_WORD (TABLE + 32)
#define LOOKUP_EVERY 512

/* Postboxes in the last SRAM bank, as ePython's (its data from 0x6000 on). */
#define POSTBOX ((volatile unsigned char *)0x6bf2)
static unsigned char sent_seq[GROUP_SIZE], got_seq[GROUP_SIZE];

/* A byte copy that is a call, as the runtime's is. */
static __attribute__((noinline)) void cpy(volatile unsigned char *to,
                                          const volatile unsigned char *from, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        to[i] = from[i];
}

static volatile unsigned char *box_of(unsigned rank)
{
    unsigned a;
    while ((a = TABLE[rank]) == 0)
        ;
    return on_rank(rank, (void *)a);
}

static void send(unsigned to, unsigned v)
{
    unsigned char msg[6];
    msg[0] = 1;
    for (int i = 0; i < 4; i++)
        msg[1 + i] = v >> (8 * i);
    sent_seq[to]++;
    msg[5] = sent_seq[to];
    volatile unsigned char *remote = box_of(to) + 6 * my_rank();
    cpy(remote, msg, 6);
    sent_seq[to]++;
    /* Wait until the receiver bumps the sequence byte: the whole slot
     * copied back each turn, a remote byte read at a time. */
    volatile unsigned char copy[6];
    do
        cpy(copy, remote, 6);
    while (copy[5] != sent_seq[to]);
}

static unsigned recv(unsigned from)
{
    volatile unsigned char msg[6];
    got_seq[from]++;
    /* Each turn: the postbox's address from DRAM, then the slot copied. */
    do
        cpy(msg, (volatile unsigned char *)TABLE[my_rank()] + 6 * from, 6);
    while (msg[5] != got_seq[from]);
    got_seq[from]++;
    msg[5] = got_seq[from];
    cpy((volatile unsigned char *)TABLE[my_rank()] + 6 * from, msg, 6);
    return msg[1] | msg[2] << 8 | msg[3] << 16 | (unsigned)msg[4] << 24;
}

/* The interpreter: a stack machine whose code, stack and variables live
 * in local SRAM. */
enum { PUSH, LOAD, STORE, LOADA, STOREA, ADD, AND, LT, JZ, JMP, HALT };
static short code[128];
static int array[SORTED];

/* The odd-even transposition sort of `array` (variables: 0 n, 1 i, 2 j, 3 t). */
static void assemble(void)
{
    unsigned pc = 0, l1, l2, l4, fix_end, fix_l3, fix_l4;
#define E(op, arg) (code[pc++] = (op), code[pc++] = (arg))
    E(PUSH, 0), E(STORE, 1);
    l1 = pc;
    E(LOAD, 1), E(LOAD, 0), E(LT, 0), E(JZ, 0), fix_end = pc - 1;
    E(LOAD, 1), E(PUSH, 1), E(AND, 0), E(STORE, 2);
    l2 = pc;
    E(LOAD, 2), E(PUSH, 1), E(ADD, 0), E(LOAD, 0), E(LT, 0), E(JZ, 0), fix_l3 = pc - 1;
    E(LOAD, 2), E(PUSH, 1), E(ADD, 0), E(LOADA, 0), E(LOAD, 2), E(LOADA, 0), E(LT, 0);
    E(JZ, 0), fix_l4 = pc - 1;
    E(LOAD, 2), E(LOADA, 0), E(STORE, 3);
    E(LOAD, 2), E(PUSH, 1), E(ADD, 0), E(LOADA, 0), E(LOAD, 2), E(STOREA, 0);
    E(LOAD, 3), E(LOAD, 2), E(PUSH, 1), E(ADD, 0), E(STOREA, 0);
    l4 = pc;
    code[fix_l4] = l4;
    E(LOAD, 2), E(PUSH, 2), E(ADD, 0), E(STORE, 2), E(JMP, l2);
    code[fix_l3] = pc;
    E(LOAD, 1), E(PUSH, 1), E(ADD, 0), E(STORE, 1), E(JMP, l1);
    code[fix_end] = pc;
    E(HALT, 0);
#undef E
    (void)pc;
}

/* Runs the code with n in variable 0; the DRAM word is read every
 * LOOKUP_EVERY instructions and folded into the result. */
static unsigned interpret(int n)
{
    int stack[8], var[4] = {n, 0, 0, 0};
    unsigned sp = 0, pc = 0, steps = 0, seen = 0;
    for (;;) {
        if (++steps % LOOKUP_EVERY == 0)
            seen += *HEAP_WORD;
        int op = code[pc], arg = code[pc + 1];
        pc += 2;
        switch (op) {
        case PUSH: stack[sp++] = arg; break;
        case LOAD: stack[sp++] = var[arg]; break;
        case STORE: var[arg] = stack[--sp]; break;
        case LOADA: stack[sp - 1] = array[stack[sp - 1]]; break;
        case STOREA: sp -= 2; array[stack[sp + 1]] = stack[sp]; break;
        case ADD: sp--; stack[sp - 1] += stack[sp]; break;
        case AND: sp--; stack[sp - 1] &= stack[sp]; break;
        case LT: sp--; stack[sp - 1] = stack[sp - 1] < stack[sp]; break;
        case JZ: if (stack[--sp] == 0) pc = arg; break;
        case JMP: pc = arg; break;
        default: return seen + steps;
        }
    }
}

static unsigned sorted_sum(unsigned v)
{
    for (int i = 0; i < SORTED; i++) {
        v = v * 1103515245u + 12345u;
        array[i] = (v >> 16) % 1000;
    }
    unsigned work = interpret(SORTED);
    unsigned s = 0;
    for (int i = 0; i < SORTED; i++)
        s = s * 31 + array[i];
    return s + work;
}

int main(void)
{
    unsigned me = my_rank();
    if (me >= STAGES)
        return 0;
    if (me == 2) {
        assemble();
        *HEAP_WORD = 0x6c56;
    }
    TABLE[me] = (unsigned)(uintptr_t)POSTBOX;
    unsigned sum = 0;
    for (unsigned item = 1; item <= ITEMS; item++) {
        unsigned v;
        if (me == 0)
            v = lcg_work(200, item);
        else
            v = recv(me - 1);
        if (me == 2)
            v = sorted_sum(v);
        if (me + 1 < STAGES)
            send(me + 1, v);
        else
            sum = sum * 7 + v;
    }
    if (me == STAGES - 1)
        say_num("pypipe: checksum ", (long)sum);
    return 0;
}
