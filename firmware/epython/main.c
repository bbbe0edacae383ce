/* main.c -- the epython firmware's command loop (PROTOCOL.md section 5),
 * its memory (device area, launch arena, persistent globals heap, DRAM
 * spill), serialisation, print records and the core-to-core channels. */
#include "epy.h"

/* ---- state ---- */

VmWhere g_where;
Value *g_globals;
const void **g_dispatch;
Value *g_vstack, *g_vstack_end;
CallInfo *g_ci, *g_ci_end;
Chan g_chan[NCHAN];
u32 g_dirty;
u32 g_rng;
u32 g_group_lo, g_group_hi;
volatile u32 g_abortable;
volatile u32 g_cur_seq;
u32 *g_cmd_jmp;

static volatile Status *g_status;
static u32 g_slot;
static u32 g_ncores, g_me;
static u32 g_print_len, g_ack_seen, g_shown;
static u32 g_t_recv, g_t_start, g_t_end, g_result_len;
static u32 g_err[6]; /* kind, func, pc, a, b, depth */

/* Heaps: SRAM [heap_base, heap_end) and DRAM [spill_base, spill_end); the
 * persistent globals' objects at the bottom of each ([base, ptop)), the
 * launch arena above them ([ptop, atop)). */
static u32 heap_base, heap_end, ptop_s, atop_s;
static u32 spill_base, spill_end, ptop_d, atop_d;

extern char __fw_end[], __stack_top[];

/* ---- small library (no newlib) ---- */

void *memcpy(void *d, const void *s, u32 n)
{
    u8 *dp = d;
    const u8 *sp = s;
    if ((((u32)dp | (u32)sp | n) & 3) == 0) {
        u32 *dw = d;
        const u32 *sw = s;
        for (u32 i = 0; i < n / 4; i++)
            dw[i] = sw[i];
        return d;
    }
    for (u32 i = 0; i < n; i++)
        dp[i] = sp[i];
    return d;
}


/* Unsigned division by shift and subtract (libgcc's helpers are 1.4 KB);
 * the remainder goes to *rem if asked. */
u32 epy_udiv(u32 n, u32 d, u32 *rem)
{
    u32 q = 0, r = 0;
    for (int i = 31; i >= 0; i--) {
        r = (r << 1) | ((n >> i) & 1);
        if (r >= d) {
            r -= d;
            q |= 1u << i;
        }
    }
    if (rem)
        *rem = r;
    return q;
}

/* ---- time ---- */

static inline u32 cfg_get(void)
{
    u32 c;
    __asm__ volatile("movfs %0,config" : "=r"(c));
    return c;
}

static inline void cfg_set(u32 c)
{
    __asm__ volatile("movts config,%0" : : "r"(c) : "memory");
}

u32 epy_now(void)
{
    u32 t;
    __asm__ volatile("movfs %0,ctimer0" : "=r"(t));
    return 0xffffffffu - t;
}

/* CTIMER0 counts clock cycles (CTIMER0CFG = 1) except while the core
 * sleeps: a sleeping firmware is then idle for the simulator too. */
static void timer_on(void)
{
    cfg_set((cfg_get() & ~0xf0u) | 0x10u);
}

static void timer_off(void)
{
    cfg_set(cfg_get() & ~0xf0u);
}

/* ---- errors ---- */

void epy_raise(u32 kind, u32 a, u32 b)
{
    g_err[0] = kind;
    if (g_where.mod) {
        const FuncEntry *fe = (const FuncEntry *)g_where.mod->funcs + g_where.func;
        g_err[1] = g_where.func;
        g_err[2] = (u32)(g_where.pc - 1 - (const u32 *)fe->code);
    } else {
        g_err[1] = 0xffffffffu;
        g_err[2] = 0xffffffffu;
    }
    g_err[3] = a;
    g_err[4] = b;
    g_err[5] = g_where.depth;
    epy_longjmp(g_cmd_jmp, 1);
}

/* ---- memory ---- */

void *epy_alloc(u32 n)
{
    u32 m = (n + 7) & ~7u;
    if (m >= n && m <= heap_end - atop_s) {
        u32 p = atop_s;
        atop_s += m;
        return (void *)p;
    }
    if (m >= n && m <= spill_end - atop_d) {
        u32 p = atop_d;
        atop_d += m;
        return (void *)p;
    }
    epy_raise(ERR_NOMEM, n, 0);
}

static int in_heap(u32 p)
{
    return (p >= heap_base && p < heap_end) || (p >= spill_base && p < spill_end);
}

int epy_is_persistent(const void *q)
{
    u32 p = (u32)q;
    return (p >= heap_base && p < ptop_s) || (p >= spill_base && p < ptop_d);
}

Str *epy_new_str(u32 n)
{
    if (n > 0x100000)
        epy_raise(ERR_NOMEM, n, 0);
    Str *s = epy_alloc(4 + n);
    s->len = n;
    return s;
}

List *epy_new_list(u32 len, u32 cap)
{
    if (cap > 0x20000)
        epy_raise(ERR_NOMEM, cap * 8, 0);
    List *l = epy_alloc(16 + cap * 8);
    l->len = len;
    l->cap = cap;
    l->items = (Value *)(l + 1);
    l->flags = 0;
    return l;
}

void epy_list_reserve(List *l, u32 cap)
{
    if (cap <= l->cap)
        return;
    u32 nc = l->cap * 2;
    if (nc < cap)
        nc = cap;
    if (nc < 4)
        nc = 4;
    if (nc > 0x20000)
        epy_raise(ERR_NOMEM, nc * 8, 0);
    if (epy_is_persistent(l))
        g_dirty = 1;
    Value *it = epy_alloc(nc * 8);
    for (u32 i = 0; i < l->len; i++)
        it[i] = l->items[i];
    l->items = it;
    l->cap = nc;
}

/* Copy-out of the globals (after a launch that stored into them): every
 * object reachable from a global is copied above the arena, with the
 * address it will have once that copy slides down to the bottom of its
 * heap; then the copies slide down and become the persistent heap. */
static u32 ts_s0, ts_d0;

static u32 final_addr(u32 temp)
{
    if (temp >= heap_base && temp < heap_end)
        return heap_base + (temp - ts_s0);
    return spill_base + (temp - ts_d0);
}

static Value persist(Value v, u32 depth)
{
    if (v.tag == T_STR) {
        Str *s = (Str *)v.v;
        if (s->len == STR_FWD)
            return mkv(T_STR, ((u32 *)s)[1]);
        Str *n = epy_new_str(s->len);
        memcpy(n->b, s->b, s->len);
        u32 f = final_addr((u32)n);
        if (in_heap((u32)s)) {
            ((u32 *)s)[1] = f;
            s->len = STR_FWD;
        }
        return mkv(T_STR, f);
    }
    if (v.tag == T_LIST) {
        List *l = (List *)v.v;
        if (l->flags == LIST_FWD)
            return mkv(T_LIST, (u32)l->items);
        if (depth > 10)
            epy_raise(ERR_RECURSION, depth, 0);
        u32 len = l->len;
        Value *old = l->items;
        List *n = epy_new_list(len, len);
        u32 f = final_addr((u32)n);
        n->items = (Value *)(f + 16);
        l->flags = LIST_FWD;
        l->items = (Value *)f;
        Value *dst = (Value *)(n + 1);
        for (u32 i = 0; i < len; i++)
            dst[i] = persist(old[i], depth + 1);
        return mkv(T_LIST, f);
    }
    return v;
}

static void copy_out(void)
{
    ts_s0 = atop_s;
    ts_d0 = atop_d;
    for (u32 g = 0; g < NGLOBALS; g++)
        g_globals[g] = persist(g_globals[g], 0);
    u32 ns = atop_s - ts_s0, nd = atop_d - ts_d0;
    /* downwards: a forward copy is safe */
    memcpy((void *)heap_base, (void *)ts_s0, ns);
    memcpy((void *)spill_base, (void *)ts_d0, nd);
    ptop_s = heap_base + ns;
    ptop_d = spill_base + nd;
}

static void clear_globals(void)
{
    for (u32 g = 0; g < NGLOBALS; g++)
        g_globals[g] = mkv(T_NONE, 0);
    ptop_s = heap_base;
    ptop_d = spill_base;
}

/* ---- serialisation (PROTOCOL.md section 2) ---- */

static u32 ser_size(Value v, u32 depth)
{
    if (v.tag == T_STR)
        return 8 + ((((Str *)v.v)->len + 7) & ~7u);
    if (v.tag == T_LIST) {
        if (depth > 10)
            epy_raise(ERR_RECURSION, depth, 0);
        List *l = (List *)v.v;
        u32 n = 8;
        for (u32 i = 0; i < l->len; i++)
            n += ser_size(l->items[i], depth + 1);
        return n;
    }
    return 8;
}

/* Writes whole words (the area may be in DRAM). */
static volatile u32 *ser_write(volatile u32 *o, Value v)
{
    o[0] = v.tag;
    if (v.tag == T_STR) {
        Str *s = (Str *)v.v;
        o[1] = s->len;
        o += 2;
        u32 w = 0, k = 0;
        for (u32 i = 0; i < s->len; i++) {
            w |= (u32)(u8)s->b[i] << (8 * k);
            if (++k == 4) {
                *o++ = w;
                w = 0;
                k = 0;
            }
        }
        if (k)
            *o++ = w;
        if ((s->len + 3) / 4 & 1)
            *o++ = 0;
        return o;
    }
    if (v.tag == T_LIST) {
        List *l = (List *)v.v;
        o[1] = l->len;
        o += 2;
        for (u32 i = 0; i < l->len; i++)
            o = ser_write(o, l->items[i]);
        return o;
    }
    o[1] = v.v;
    return o + 2;
}

/* Reads one serialised value at *pp (not past end) into the arena. */
static Value deser(const u32 **pp, const u32 *end, u32 depth)
{
    const u32 *p = *pp;
    if (end - p < 2)
        epy_raise(ERR_VALUE, (u32)p, 0);
    u32 tag = p[0], n = p[1];
    *pp = p + 2;
    if (tag <= T_NONE)
        return mkv(tag, n);
    if (tag == T_STR) {
        u32 words = ((n + 7) & ~7u) / 4;
        if (n > 0x100000 || (u32)(end - *pp) < words)
            epy_raise(ERR_VALUE, (u32)p, n);
        Str *s = epy_new_str(n);
        const volatile u8 *src = (const volatile u8 *)*pp;
        for (u32 i = 0; i < n; i++)
            s->b[i] = src[i];
        *pp += words;
        return mkv(T_STR, (u32)s);
    }
    if (tag == T_LIST) {
        if (depth > 10)
            epy_raise(ERR_RECURSION, depth, 0);
        if (n > (u32)(end - *pp) / 2)
            epy_raise(ERR_VALUE, (u32)p, n);
        List *l = epy_new_list(n, n);
        for (u32 i = 0; i < n; i++)
            l->items[i] = deser(pp, end, depth + 1);
        return mkv(T_LIST, (u32)l);
    }
    epy_raise(ERR_VALUE, tag, (u32)p);
}

/* ---- status ---- */

/* Two words in one 8-byte store (one eLink transaction to DRAM); p is
 * 8-aligned. */
static inline void st64(volatile void *p, u32 lo, u32 hi)
{
    unsigned long long w = ((unsigned long long)hi << 32) | lo;
    __asm__ volatile("strd %0,[%1]" : : "r"(w), "r"(p) : "memory");
}

/* ---- print records ---- */

void epy_print(const Value *v, u32 n)
{
    u32 size = 8;
    for (u32 i = 0; i < n; i++)
        size += ser_size(v[i], 0);
    if (size > PRINT_SIZE)
        epy_raise(ERR_RESULT_TOO_BIG, size, PRINT_SIZE);
    if (g_print_len + size > PRINT_SIZE) {
        /* PRINTFULL: the host drains the area, then acknowledges.
         * print_acked (+56) tells it which acknowledgement we have seen,
         * so that it acknowledges each full area once. */
        g_status->print_acked = g_ack_seen;
        g_status->state = ST_PRINTFULL;
        while (CONTROL->print_ack == g_ack_seen) {
            timer_off();
            epy_sleep_unless(&CONTROL->print_ack, g_ack_seen);
            timer_on();
        }
        g_ack_seen = CONTROL->print_ack;
        g_print_len = 0;
        g_status->print_len = 0;
        g_status->state = ST_RUNNING;
    }
    volatile u32 *o = (volatile u32 *)(g_slot + SLOT_PRINT + g_print_len);
    o[0] = T_LIST;
    o[1] = n;
    o += 2;
    for (u32 i = 0; i < n; i++)
        o = ser_write(o, v[i]);
    g_print_len += size;
    if (g_shown) {
        g_status->print_len = g_print_len;
    } else {
        /* the command's first record: RUNNING and its seq, after
         * result_len and print_len (the host never sees an older
         * command's print_len beside this seq) */
        g_shown = 1;
        st64(&g_status->result_len, 0, g_print_len);
        st64(g_status, ST_RUNNING, g_cur_seq);
    }
}

/* ---- core to core ---- */

u32 epy_member(u32 core)
{
    u32 in = core < 32 ? (g_group_lo >> core) & 1 : core < 64 ? (g_group_hi >> (core - 32)) & 1 : 0;
    if (!in || core >= g_ncores)
        epy_raise(ERR_PARALLEL, core, 0);
    return core;
}

u32 epy_global_addr(u32 core, const volatile void *local)
{
    u32 cols = CONFIG->cols;
    u32 r = 0, c = core;
    while (c >= cols) {
        c -= cols;
        r++;
    }
    u32 id = ((CONFIG->row0 + r) << 6) | (CONFIG->col0 + c);
    return (id << 20) | (u32)local;
}

/* Sends v to core's postbox on channel ch once core has taken our previous
 * message (its acknowledgement lands in our SRAM: we poll only locally). */
void epy_send(u32 ch, u32 core, Value v)
{
    epy_member(core);
    if (v.tag > T_NONE)
        epy_raise(ERR_TYPE, v.tag, 0xffffffffu);
    Chan *c = &g_chan[ch];
    while (c->ack[core] != c->sent[core])
        ;
    u32 n = ++c->sent[core];
    u64 w = ((u64)v.v << 32) | (u32)((n << 8) | v.tag);
    *(volatile u64 *)epy_global_addr(core, &c->pb[g_me]) = w;
}

/* The next value core sent on channel ch (waits for it). */
Value epy_recv(u32 ch, u32 core)
{
    epy_member(core);
    Chan *c = &g_chan[ch];
    u32 n = c->taken[core] + 1;
    volatile u32 *pb = (volatile u32 *)&c->pb[core];
    while ((pb[0] ^ (n << 8)) & 0xffffff00u)
        ;
    Value v = mkv(pb[0] & 0xff, pb[1]);
    c->taken[core] = n;
    *(volatile u32 *)epy_global_addr(core, &c->ack[g_me]) = n;
    return v;
}

u32 epy_core_num(void)
{
    return g_me;
}

/* ---- the device area ---- */

static u32 carve(u32 *p, u32 n)
{
    u32 a = *p;
    *p = a + ((n + 7) & ~7u);
    return a;
}

static void layout(void)
{
    volatile Config *cf = CONFIG;
    g_ncores = cf->ncores > 64 ? 64 : cf->ncores;
    g_me = cf->core_num;
    g_slot = cf->dram_slot;
    g_status = (volatile Status *)(cf->status_table + g_me * sizeof(Status));
    u32 p = USER_BASE;
    for (u32 ch = 0; ch < NCHAN; ch++) {
        g_chan[ch].pb = (volatile u64 *)carve(&p, g_ncores * 8);
        g_chan[ch].ack = (volatile u32 *)carve(&p, g_ncores * 4);
        g_chan[ch].sent = (u32 *)carve(&p, g_ncores * 4);
        g_chan[ch].taken = (u32 *)carve(&p, g_ncores * 4);
    }
    for (u32 *w = (u32 *)USER_BASE; w < (u32 *)p; w++)
        *w = 0;
    g_cmd_jmp = (u32 *)carve(&p, JMPBUF_BYTES);
    g_dispatch = (const void **)carve(&p, 64 * 4); /* vm_run.c DISPATCH_ENTRIES */
    g_globals = (Value *)carve(&p, NGLOBALS * 8);
    g_ci = (CallInfo *)carve(&p, MAXDEPTH * sizeof(CallInfo));
    g_ci_end = g_ci + MAXDEPTH;
    g_vstack = (Value *)carve(&p, VSTACK_BYTES);
    g_vstack_end = (Value *)p;
    heap_base = p;
    heap_end = USER_END;
    u32 lim[2] = {cf->code_base, cf->args_base};
    for (u32 i = 0; i < 2; i++)
        if (lim[i] > p && lim[i] < heap_end)
            heap_end = lim[i] & ~7u;
    spill_base = g_slot + SLOT_SPILL;
    spill_end = g_slot + (cf->dram_slot_size & ~7u);
    if (spill_end < spill_base)
        spill_end = spill_base;
    clear_globals();
    atop_s = ptop_s;
    atop_d = ptop_d;
    g_rng = cf->seed ? cf->seed : 0x2545f491u + g_me;
}

/* ---- commands ---- */

static const Module *check_module(u32 addr, u32 func)
{
    const Module *m = (const Module *)addr;
    if ((addr & 7) || m->magic != MODULE_MAGIC || func >= m->nfuncs)
        epy_raise(ERR_BAD_MODULE, addr, func);
    return m;
}

/* A result of 8 bytes (a scalar) goes into the status itself: the host
 * reads it with the status. */
static void write_result(Value v)
{
    u32 size = ser_size(v, 0);
    if (size > RESULT_SIZE)
        epy_raise(ERR_RESULT_TOO_BIG, size, RESULT_SIZE);
    if (size <= 8) /* a scalar, or an empty str or list (length 0) */
        st64((volatile u32 *)((u32)g_status + STATUS_INLINE), v.tag, v.tag <= T_NONE ? v.v : 0);
    else
        ser_write((volatile u32 *)(g_slot + SLOT_RESULT), v);
    g_result_len = size;
}

static u32 g_state;
static u32 g_phase;

static void run_command(const Mailbox *mb)
{
    /* The status changes only when the command prints (RUNNING) and when
     * it ends: the fields, then state and seq in one 8-byte store. Until
     * then it shows the previous command (its seq). */
    volatile Status *st = g_status;
    u32 t = epy_now();
    g_t_recv = t;
    g_t_start = t;
    g_t_end = t;
    g_result_len = 0;
    g_print_len = 0;
    g_shown = 0;
    g_ack_seen = CONTROL->print_ack;
    g_dirty = 0;
    g_where.mod = 0;
    g_where.depth = 0;
    g_group_lo = mb->group_lo;
    g_group_hi = mb->group_hi;
    g_phase = 0;
    g_state = ST_DONE;

    int r = epy_setjmp(g_cmd_jmp);
    if (r == 0) {
        switch (mb->cmd) {
        case CMD_CALL: {
            const Module *m = check_module(mb->module, mb->index);
            const FuncEntry *fe = (const FuncEntry *)m->funcs + mb->index;
            const u32 *p = (const u32 *)mb->args, *end = p + mb->args_len / 4;
            if ((mb->args & 3) || end - p < 2 || p[0] != T_LIST)
                epy_raise(ERR_VALUE, mb->args, mb->args_len);
            u32 n = p[1];
            p += 2;
            if (n != fe->nparams)
                epy_raise(ERR_ARITY, n, fe->nparams);
            if (fe->nregs * 8u > VSTACK_BYTES)
                epy_raise(ERR_RECURSION, 0, 0);
            for (u32 i = 0; i < n; i++)
                g_vstack[i] = deser(&p, end, 0);
            g_t_start = epy_now();
            g_abortable = 1;
            Value v = epy_run(m, mb->index, g_vstack);
            g_abortable = 0;
            g_t_end = epy_now();
            g_where.mod = 0;
            write_result(v);
            break;
        }
        case CMD_SETGLOBAL: {
            const u32 *p = (const u32 *)mb->args, *end = p + mb->args_len / 4;
            if (mb->index >= NGLOBALS || (mb->args & 3))
                epy_raise(ERR_VALUE, mb->index, mb->args);
            g_globals[mb->index] = deser(&p, end, 0);
            g_dirty = 1;
            break;
        }
        case CMD_GETGLOBAL:
            if (mb->index >= NGLOBALS)
                epy_raise(ERR_VALUE, mb->index, 0);
            write_result(g_globals[mb->index]);
            break;
        case CMD_PING:
            break;
        case CMD_CLEARGLOBALS:
            clear_globals();
            break;
        default:
            epy_raise(ERR_VALUE, mb->cmd, 0);
        }
    } else if (g_phase == 0) {
        g_abortable = 0;
        g_state = r == 2 ? ST_ABORTED : ST_ERROR;
    }
    if (g_phase == 0) {
        g_phase = 1;
        if (g_dirty) {
            g_where.mod = 0;
            if (epy_setjmp(g_cmd_jmp) == 0) {
                copy_out();
            } else {
                /* The globals' old objects carry forwarding marks now. */
                clear_globals();
                if (g_state == ST_DONE)
                    g_state = ST_ERROR;
            }
        }
    }
    atop_s = ptop_s;
    atop_d = ptop_d;
    if (g_state == ST_ERROR) {
        st64(&st->err_kind, g_err[0], g_err[1]);
        st64(&st->err_pc, g_err[2], g_err[3]);
        st64(&st->err_b, g_err[4], g_err[5]);
    }
    if (g_state == ST_ABORTED)
        g_t_end = epy_now();
    st64(&st->t_recv, g_t_recv, g_t_start);
    st64(&st->t_end, g_t_end, epy_now());
    st64(&st->result_len, g_result_len, g_print_len);
    st64(st, g_state, mb->seq);
}

void epy_main(void)
{
    cfg_set((cfg_get() & ~0xf0u) | 0x10u);
    /* CTIMER0 = 0xffffffff */
    {
        u32 all = 0xffffffffu;
        __asm__ volatile("movts ctimer0,%0" : : "r"(all));
    }
    volatile Info *in = INFO;
    in->magic = INFO_MAGIC;
    in->version = PROTOCOL_VERSION;
    in->fw_end = (u32)__fw_end;
    in->ready_count = 0;
    layout();
    g_status->seq = 0;
    g_status->state = ST_READY;
    u32 last = 0;
    for (;;) {
        in->ready_count++;
        while (MAILBOX->seq == last) {
            timer_off();
            epy_sleep_unless(&MAILBOX->seq, last);
            timer_on();
        }
        Mailbox mb;
        for (u32 i = 0; i < sizeof mb / 4; i++)
            ((u32 *)&mb)[i] = ((volatile u32 *)MAILBOX)[i];
        last = mb.seq;
        g_cur_seq = last;
        run_command(&mb);
    }
}
