/* vm_run.c -- the epython interpreter loop (isa.txt): computed-goto
 * dispatch over EPY_DISPATCH_TABLE; the common int cases run inline, every
 * other case is one call to epy_slow (vm.c), after the instruction's
 * address is saved for error reports.  One call site: GCC's FPU-mode
 * switching puts a CONFIG write before every call in a function with
 * computed gotos (README.md). */
#include "epy.h"

const u32 *epy_slow(u32 ins, Value *R, const u32 *pc);

#define REG(sh) ((Value *)((char *)R + ((ins >> (sh)) & 0x7f8)))
#define RA REG(5)
#define RB REG(13)
#define RC REG(21)
#define OFF(sh) ((ins >> (sh)) & 0x7f8)

/* R[x] as one double-word load or store (GCC splits u64 accesses that
 * use only one half at a time into two word accesses). */
static inline u64 ldv(const Value *base, u32 off)
{
    u64 d;
    __asm__("ldrd %0,[%1,%2]" : "=r"(d) : "r"(base), "r"(off) : "memory");
    return d;
}

static inline void stv(Value *base, u32 off, u64 d)
{
    __asm__ volatile("strd %0,[%1,%2]" : : "r"(d), "r"(base), "r"(off) : "memory");
}
#define LDA ldv(R, OFF(5))
#define LDB ldv(R, OFF(13))
#define LDC ldv(R, OFF(21))
#define STA(d) stv(R, OFF(5), d)
#define OPB ((ins >> 16) & 0xff)
#define OPC (ins >> 24)
#define SBX ((i32)ins >> 16)

/* Values move as one double word: the tag is the low word. */
#define LD(p) (*(const u64 *)(p))
#define ST(p, d) (*(u64 *)(p) = (d))
#define TAG(d) ((u32)(d))
#define PAY(d) ((u32)((d) >> 32))
#define MKI(v) ((u64)(u32)(v) << 32)
#define MKB(v) (((u64)(u32)(v) << 32) | T_BOOL)

/* Fetch and dispatch through the 64-entry table in the device area
 * (g_dispatch, filled on the first launch), indexed by the opcode's low six
 * bits (two shifts, as an 8-bit index would be): opcodes without a handler
 * go to `slow`, which reports BAD_OPCODE. 64 entries instead of 256 leave
 * 768 bytes more SRAM for the user; the host's compiler emits only the
 * opcodes of isa.txt, and an opcode of 64 or more runs as its low six bits
 * (PROTOCOL.md, limits). */
#define DISPATCH_ENTRIES 64
#define HANDLER(w) (*(const void *const *)((const char *)table + ((w) << 26 >> 24)))
#define NEXT()                                                                                     \
    do {                                                                                           \
        ins = *pc++;                                                                               \
        goto *HANDLER(ins);                                                                        \
    } while (0)
/* The same, split: FETCH() the next word into `ins` and look up its
 * handler once this instruction's operands are decoded, finish, then GO():
 * the loads overlap the rest of the handler. */
#define FETCH()                                                                                    \
    ins = *pc++;                                                                                   \
    const void *nt_ = HANDLER(ins)
#define GO() goto *nt_

/* The tail of a compare-and-jump: skip the extension word, or add it to
 * pc when the condition holds (`skip` is the branch that skips the jump). */
#define CJUMP(skip, x, y)                                                                          \
    do {                                                                                           \
        u32 off_, t_;                                                                              \
        __asm__("ldr %1,[%0],+0x1\n\tsub %2,%3,%4\n\t" skip " 1f\n\t"                           \
                "lsl %1,%1,0x2\n\tadd %0,%0,%1\n1:"                                            \
                : "+r"(pc), "=&r"(off_), "=&r"(t_)                                                 \
                : "r"(x), "r"(y)                                                                   \
                : "cc");                                                                           \
    } while (0)

Value epy_run(const Module *m, u32 func, Value *args)
{
    static const void *const handlers[] = EPY_DISPATCH_TABLE(L_);
    const void **table = g_dispatch;
    if (UNLIKELY(table[OP_COUNT] != &&slow))
        for (u32 k = 0; k < DISPATCH_ENTRIES; k++)
            table[k] = k < OP_COUNT ? handlers[k] : &&slow;
    const FuncEntry *funcs = (const FuncEntry *)m->funcs;
    const Value *K = (const Value *)m->consts;
    const u32 nconsts = m->nconsts;
    CallInfo *const ci0 = g_ci, *const ci_end = g_ci_end, *ci = ci0;
    const Value *const vstack_end = g_vstack_end;
    Value *R = args;
    const u32 *pc = (const u32 *)funcs[func].code;
    u32 ins;
    g_where.mod = m;
    g_where.func = func;
    g_where.pc = pc + 1;
    g_where.depth = 0;
    NEXT();

L_MOVE: {
    u32 a = OFF(5);
    u64 b = LDB;
    FETCH();
    stv(R, a, b);
    GO();
}
L_LOADK: {
    u32 k = ins >> 16;
    if (UNLIKELY(k >= nconsts))
        goto slow;
    ST(RA, LD(&K[k]));
    NEXT();
}
L_LOADI: {
    u32 a = OFF(5);
    u64 v = MKI(SBX);
    FETCH();
    stv(R, a, v);
    GO();
}
L_GETGLOBAL: {
    u32 g = ins >> 16;
    if (UNLIKELY(g >= NGLOBALS))
        goto slow;
    ST(RA, LD(&g_globals[g]));
    NEXT();
}
L_ADD: {
    u32 a = OFF(5);
    u64 b = LDB, c = LDC;
    if (UNLIKELY((TAG(b) | TAG(c)) != 0))
        goto slow;
    FETCH();
    stv(R, a, MKI(PAY(b) + PAY(c)) | TAG(b)); /* TAG(b) is 0: no new zero register */
    GO();
}
L_SUB: {
    u32 a = OFF(5);
    u64 b = LDB, c = LDC;
    if (UNLIKELY((TAG(b) | TAG(c)) != 0))
        goto slow;
    FETCH();
    stv(R, a, MKI(PAY(b) - PAY(c)) | TAG(b));
    GO();
}
L_ADDI: {
    u32 a = OFF(5);
    u32 k = (u32)((i32)ins >> 24);
    u64 b = LDB;
    if (UNLIKELY(TAG(b) != T_INT))
        goto slow;
    FETCH();
    stv(R, a, MKI(PAY(b) + k) | TAG(b));
    GO();
}
L_JMP:
    pc += (i32)ins >> 8;
    NEXT();
L_JT: {
    u64 a = LD(RA);
    if (UNLIKELY((TAG(a) & ~2u) != 0)) /* int or bool; a float may be -0.0 */
        goto slow;
    if (PAY(a))
        pc += SBX;
    NEXT();
}
L_JF: {
    u64 a = LD(RA);
    if (UNLIKELY((TAG(a) & ~2u) != 0)) /* int or bool; a float may be -0.0 */
        goto slow;
    if (!PAY(a))
        pc += SBX;
    NEXT();
}
#define JUMP2(label, skip)                                                                         \
    label : {                                                                                      \
        u64 a = LDA, b = LDB;                                                                      \
        if (UNLIKELY((TAG(a) | TAG(b)) != 0))                                                      \
            goto slow;                                                                             \
        CJUMP(skip, PAY(a), PAY(b));                                                               \
        NEXT();                                                                                    \
    }
JUMP2(L_JLT, "bgte")
JUMP2(L_JLE, "bgt")
JUMP2(L_JNLT, "blt")
JUMP2(L_JNLE, "blte")
JUMP2(L_JEQ, "bne")
JUMP2(L_JNE, "beq")
/* i += k, then compare and jump (a while loop's bottom): one dispatch
 * instead of two, i loaded once.  Scheduled by hand: the int result is
 * made in the register pair i was loaded into (one strd), the jump is a
 * conditional move of pc, the next word and its handler are loaded in the
 * same block.  Not two ints: nothing changes and the handler is `slow`,
 * which does the whole instruction.  `cond`: when the jump is taken. */
#define INCJUMP(label, cond)                                                                       \
    label : {                                                                                      \
        const void *h_ = &&slow;                                                                   \
        __asm__("lsr r16,%[ins],0x5\n\t"                                                          \
                "lsr r18,%[ins],0xd\n\t"                                                          \
                "and r16,r16,%[m]\n\t"                                                            \
                "and r18,r18,%[m]\n\t"                                                            \
                "ldrd r20,[%[R],+r16]\n\t"                                                        \
                "ldrd r18,[%[R],+r18]\n\t"                                                        \
                "asr r17,%[ins],0x18\n\t"                                                         \
                "orr r23,r20,r18\n\t"                                                            \
                "bne 1f\n\t"                                                                      \
                "ldr r22,[%[pc]],+0x1\n\t"                                                        \
                "add r21,r21,r17\n\t"                                                            \
                "lsl r22,r22,0x2\n\t"                                                            \
                "add r22,%[pc],r22\n\t"                                                          \
                "sub r23,r21,r19\n\t" /* the flags the move tests: last */                        \
                "mov" cond " %[pc],r22\n\t"                                                      \
                "ldr %[ins],[%[pc]],+0x1\n\t"                                                     \
                "strd r20,[%[R],+r16]\n\t"                                                        \
                "lsl %[h],%[ins],0x1a\n\t"                                                        \
                "lsr %[h],%[h],0x18\n\t"                                                          \
                "ldr %[h],[%[T],+%[h]]\n"                                                          \
                "1:"                                                                               \
                : [pc] "+r"(pc), [ins] "+r"(ins), [h] "+r"(h_)                                     \
                : [R] "r"(R), [m] "r"(0x7f8u), [T] "r"(table)                                      \
                : "r16", "r17", "r18", "r19", "r20", "r21", "r22", "r23", "cc", "memory");         \
        goto *h_;                                                                                  \
    }
INCJUMP(L_INCJLT, "lt")
INCJUMP(L_INCJLE, "lte")
L_FORLOOP: {
    Value *r = RA;
    i32 step = (i32)r[2].v;
    i32 i = (i32)(r[0].v + (u32)step), stop = (i32)r[1].v;
    r[0].v = (u32)i;
    if (LIKELY(step > 0 ? i < stop : i > stop)) {
        ST(&r[3], MKI(i));
        pc += SBX;
    }
    NEXT();
}
L_FORLIST: {
    Value *r = RA;
    if (UNLIKELY(r[0].tag != T_LIST))
        goto slow;
    List *l = (List *)r[0].v;
    u32 i = r[1].v;
    if (i < l->len) {
        ST(&r[2], LD(&l->items[i]));
        r[1].v = i + 1;
    } else {
        pc += SBX;
    }
    NEXT();
}
L_GETITEM: {
    u64 b = LDB, c = LDC;
    if (UNLIKELY(TAG(b) != T_LIST || TAG(c) != T_INT))
        goto slow;
    List *l = (List *)PAY(b);
    if (UNLIKELY(PAY(c) >= l->len))
        goto slow;
    STA(ldv(l->items, PAY(c) << 3));
    NEXT();
}
L_SETITEM: {
    u64 a = LDA, b = LDB, c = LDC;
    if (UNLIKELY(TAG(a) != T_LIST || TAG(b) != T_INT || TAG(c) >= T_STR))
        goto slow;
    List *l = (List *)PAY(a);
    if (UNLIKELY(PAY(b) >= l->len))
        goto slow;
    stv(l->items, PAY(b) << 3, c);
    NEXT();
}
L_CALL: {
    u32 f = OPC;
    if (UNLIKELY(f >= m->nfuncs))
        goto slow;
    const FuncEntry *fe = &funcs[f];
    Value *nb = RA;
    /* nparams and nregs as one word (a half-word load costs two cycles
     * more before its use) */
    u32 pr = fe->pr;
    if (UNLIKELY((ins << 8 >> 24) != (pr << 16 >> 16) || ci + 1 >= ci_end ||
                 (const char *)nb + (pr >> 16 << 3) > (const char *)vstack_end))
        goto slow;
    ci->pc = pc;
    ci->rf = (u32)R | func << 16;
    ci++;
    R = nb;
    func = f;
    pc = (const u32 *)fe->code;
    NEXT();
}
L_RET: {
    u64 v = LD(RA);
    if (ci == ci0)
        return *(const Value *)RA;
    ST(R, v);
    ci--;
    u32 rf = ci->rf;
    R = (Value *)(rf & 0xffff);
    pc = ci->pc;
    func = rf >> 16;
    NEXT();
}
L_RETNONE:
    if (ci == ci0)
        return mkv(T_NONE, 0);
    ST(R, T_NONE);
    ci--;
    u32 rf = ci->rf;
    R = (Value *)(rf & 0xffff);
    pc = ci->pc;
    func = rf >> 16;
    NEXT();
L_NOP:
L_LOADNONE:
L_LOADBOOL:
L_SETGLOBAL:
L_EQ:
L_NE:
L_LT:
L_LE:
L_IS:
L_ISNOT:
L_FORPREP:
L_MUL:
L_TRUEDIV:
L_FLOORDIV:
L_MOD:
L_POW:
L_BAND:
L_BOR:
L_BXOR:
L_LSHIFT:
L_RSHIFT:
L_NEG:
L_INVERT:
L_NOT:
L_NEWLIST:
L_LISTEXT:
L_LISTREP:
L_CALLB:
L_PRINT:
slow:
    g_where.pc = pc;
    g_where.func = func;
    g_where.depth = (u32)(ci - ci0);
    pc = epy_slow(ins, R, pc);
    NEXT();
}
