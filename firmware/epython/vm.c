/* vm.c -- the epython operations: values (truth, equality, order),
 * arithmetic with Python semantics on 32-bit ints and floats, lists and
 * strings, the builtins, and epy_slow, every case the interpreter loop
 * (vm_run.c) does not finish inline. */
#include "epy.h"

/* ---- values ---- */

static const char *const reduce_ops[] = {"sum", "min", "max", "prod"};

int epy_truth(Value v)
{
    switch (v.tag) {
    case T_FLOAT:
        return (v.v & 0x7fffffffu) != 0;
    case T_NONE:
        return 0;
    case T_STR:
        return ((Str *)v.v)->len != 0;
    case T_LIST:
        return ((List *)v.v)->len != 0;
    default:
        return v.v != 0;
    }
}

/* int, bool: 0; float: 1; anything else: the TYPE error (a, b tags). */
static int numkind(Value v)
{
    return v.tag == T_FLOAT;
}

static int is_num(Value v)
{
    return v.tag <= T_BOOL;
}

static float tofloat(Value v)
{
    return v.tag == T_FLOAT ? u2f(v.v) : (float)(i32)v.v;
}

static Value mkf(float f)
{
    return mkv(T_FLOAT, f2u(f));
}

static Value mki(i32 i)
{
    return mkv(T_INT, (u32)i);
}

static void type_error(Value a, Value b)
{
    epy_raise(ERR_TYPE, a.tag, b.tag);
}

/* a unary operation's TYPE error: the second tag is 0xffffffff */
static void type_error1(Value a)
{
    epy_raise(ERR_TYPE, a.tag, 0xffffffffu);
}

static int str_cmp(const Str *a, const Str *b)
{
    u32 n = a->len < b->len ? a->len : b->len;
    for (u32 i = 0; i < n; i++)
        if (a->b[i] != b->b[i])
            return (u8)a->b[i] < (u8)b->b[i] ? -1 : 1;
    return a->len < b->len ? -1 : a->len > b->len;
}

/* Nested lists compare to a depth of 10 (the C stack is small). */
int epy_equal(Value a, Value b, u32 depth)
{
    if (is_num(a) && is_num(b)) {
        if ((numkind(a) | numkind(b)) == 0)
            return a.v == b.v;
        return tofloat(a) == tofloat(b);
    }
    if (a.tag != b.tag)
        return 0;
    if (a.tag == T_STR)
        return str_cmp((Str *)a.v, (Str *)b.v) == 0;
    if (a.tag == T_LIST) {
        List *x = (List *)a.v, *y = (List *)b.v;
        if (x == y)
            return 1;
        if (x->len != y->len)
            return 0;
        if (depth > 10)
            epy_raise(ERR_RECURSION, depth, 0);
        for (u32 i = 0; i < x->len; i++)
            if (!epy_equal(x->items[i], y->items[i], depth + 1))
                return 0;
        return 1;
    }
    return a.v == b.v; /* None */
}

int epy_less(Value a, Value b, int or_equal)
{
    if (is_num(a) && is_num(b)) {
        if ((numkind(a) | numkind(b)) == 0)
            return or_equal ? (i32)a.v <= (i32)b.v : (i32)a.v < (i32)b.v;
        float x = tofloat(a), y = tofloat(b);
        if (x != x || y != y)
            return 0; /* NaN: unordered */
        return or_equal ? x <= y : x < y;
    }
    if (a.tag == T_STR && b.tag == T_STR) {
        int c = str_cmp((Str *)a.v, (Str *)b.v);
        return or_equal ? c <= 0 : c < 0;
    }
    type_error(a, b);
    return 0;
}

/* ---- arithmetic ---- */

static Value concat_str(Str *x, Str *y)
{
    Str *s = epy_new_str(x->len + y->len);
    memcpy(s->b, x->b, x->len);
    memcpy(s->b + x->len, y->b, y->len);
    return mkv(T_STR, (u32)s);
}

static Value concat_list(List *x, List *y)
{
    u32 n = x->len + y->len;
    List *l = epy_new_list(n, n);
    for (u32 i = 0; i < x->len; i++)
        l->items[i] = x->items[i];
    for (u32 i = 0; i < y->len; i++)
        l->items[x->len + i] = y->items[i];
    return mkv(T_LIST, (u32)l);
}

static Value repeat(Value seq, Value count)
{
    if (count.tag != T_INT && count.tag != T_BOOL)
        type_error(seq, count);
    i32 n = (i32)count.v;
    if (n < 0)
        n = 0;
    if (seq.tag != T_LIST)
        type_error(seq, count);
    List *s = (List *)seq.v;
    u32 total = epy_imul(s->len, (u32)n);
    if (n && epy_udiv(total, (u32)n, 0) != s->len)
        epy_raise(ERR_NOMEM, 0xffffffffu, 0);
    List *r = epy_new_list(total, total);
    u32 k = 0;
    for (i32 j = 0; j < n; j++)
        for (u32 i = 0; i < s->len; i++)
            r->items[k++] = s->items[i];
    return mkv(T_LIST, (u32)r);
}

static i32 ipow(i32 b, i32 e)
{
    u32 r = 1, x = (u32)b;
    while (e) {
        if (e & 1)
            r = epy_imul(r, x);
        x = epy_imul(x, x);
        e >>= 1;
    }
    return (i32)r;
}

static float fpow(float x, float y)
{
    if (x == 0.0f && y < 0.0f)
        epy_raise(ERR_ZERODIV, 0, 0);
    if (x < 0.0f && y != epy_floorf(y))
        epy_raise(ERR_VALUE, f2u(x), f2u(y));
    return epy_powf(x, y);
}

Value epy_arith(u32 op, Value a, Value b)
{
    if (!is_num(a) || !is_num(b)) {
        if (op == OP_ADD && a.tag == T_STR && b.tag == T_STR)
            return concat_str((Str *)a.v, (Str *)b.v);
        if (op == OP_ADD && a.tag == T_LIST && b.tag == T_LIST)
            return concat_list((List *)a.v, (List *)b.v);
        if (op == OP_MUL && a.tag == T_LIST)
            return repeat(a, b);
        if (op == OP_MUL && b.tag == T_LIST)
            return repeat(b, a);
        type_error(a, b);
    }
    if ((numkind(a) | numkind(b)) == 0) {
        i32 x = (i32)a.v, y = (i32)b.v;
        int both_bool = a.tag == T_BOOL && b.tag == T_BOOL;
        switch (op) {
        case OP_ADD:
            return mkv(T_INT, (u32)x + (u32)y);
        case OP_SUB:
            return mkv(T_INT, (u32)x - (u32)y);
        case OP_MUL:
            return mkv(T_INT, epy_imul((u32)x, (u32)y));
        case OP_TRUEDIV:
            if (y == 0)
                epy_raise(ERR_ZERODIV, 0, 0);
            return mkf((float)x / (float)y);
        case OP_FLOORDIV:
        case OP_MOD: {
            if (y == 0)
                epy_raise(ERR_ZERODIV, 0, 0);
            i32 q, r;
            if (y == -1) {
                q = (i32)(0u - (u32)x);
                r = 0;
            } else {
                u32 ur;
                q = (i32)epy_udiv(x < 0 ? 0u - (u32)x : (u32)x, y < 0 ? 0u - (u32)y : (u32)y, &ur);
                r = (i32)ur;
                if ((x < 0) != (y < 0))
                    q = -q;
                if (x < 0)
                    r = -r;
                if (r != 0 && ((r ^ y) < 0)) {
                    r += y;
                    q -= 1;
                }
            }
            return mki(op == OP_MOD ? r : q);
        }
        case OP_POW:
            if (y >= 0)
                return mki(ipow(x, y));
            if (x == 0)
                epy_raise(ERR_ZERODIV, 0, 0);
            return mkf(fpow((float)x, (float)y));
        case OP_BAND:
            return mkv(both_bool ? T_BOOL : T_INT, (u32)(x & y));
        case OP_BOR:
            return mkv(both_bool ? T_BOOL : T_INT, (u32)(x | y));
        case OP_BXOR:
            return mkv(both_bool ? T_BOOL : T_INT, (u32)(x ^ y));
        case OP_LSHIFT:
            if (y < 0)
                epy_raise(ERR_VALUE, (u32)y, 0);
            return mki(y >= 32 ? 0 : (i32)((u32)x << y));
        case OP_RSHIFT:
            if (y < 0)
                epy_raise(ERR_VALUE, (u32)y, 0);
            return mki(y >= 32 ? (x < 0 ? -1 : 0) : x >> y);
        }
    }
    float x = tofloat(a), y = tofloat(b);
    switch (op) {
    case OP_ADD:
        return mkf(x + y);
    case OP_SUB:
        return mkf(x - y);
    case OP_MUL:
        return mkf(x * y);
    case OP_TRUEDIV:
        if (y == 0.0f)
            epy_raise(ERR_ZERODIV, 0, 0);
        return mkf(x / y);
    case OP_FLOORDIV:
    case OP_MOD: {
        if (y == 0.0f)
            epy_raise(ERR_ZERODIV, 0, 0);
        /* CPython's float_divmod, in single precision */
        float mod = epy_fmodf(x, y);
        float div = (x - mod) / y;
        if (mod != 0.0f) {
            if ((y < 0.0f) != (mod < 0.0f)) {
                mod += y;
                div -= 1.0f;
            }
        } else {
            mod = y < 0.0f ? -0.0f : 0.0f;
        }
        if (op == OP_MOD)
            return mkf(mod);
        float fd;
        if (div != 0.0f) {
            fd = epy_floorf(div);
            if (div - fd > 0.5f)
                fd += 1.0f;
        } else {
            fd = ((x < 0.0f) != (y < 0.0f)) ? -0.0f : 0.0f;
        }
        return mkf(fd);
    }
    case OP_POW:
        return mkf(fpow(x, y));
    default:
        type_error(a, b);
    }
    return a;
}

static Value unary(u32 op, Value a)
{
    Value none = mkv(0xffffffffu, 0);
    if (op == OP_NOT)
        return mkv(T_BOOL, !epy_truth(a));
    if (!is_num(a))
        type_error(a, none);
    if (op == OP_NEG)
        return a.tag == T_FLOAT ? mkv(T_FLOAT, a.v ^ 0x80000000u) : mkv(T_INT, 0u - a.v);
    if (a.tag == T_FLOAT)
        type_error(a, none);
    return mkv(T_INT, ~a.v); /* INVERT */
}

/* ---- lists and strings ---- */

static u32 index_of(Value seq, Value idx, u32 len)
{
    if (idx.tag != T_INT && idx.tag != T_BOOL)
        type_error(seq, idx);
    i32 i = (i32)idx.v;
    if (i < 0)
        i += (i32)len;
    if (i < 0 || (u32)i >= len)
        epy_raise(ERR_INDEX, idx.v, len);
    return (u32)i;
}

static Value char_at(Str *s, u32 i)
{
    Str *c = epy_new_str(1);
    c->b[0] = s->b[i];
    return mkv(T_STR, (u32)c);
}

static Value getitem(Value seq, Value idx)
{
    if (seq.tag == T_LIST) {
        List *l = (List *)seq.v;
        return l->items[index_of(seq, idx, l->len)];
    }
    if (seq.tag == T_STR) {
        Str *s = (Str *)seq.v;
        return char_at(s, index_of(seq, idx, s->len));
    }
    type_error(seq, idx);
    return seq;
}

static void setitem(Value seq, Value idx, Value v)
{
    if (seq.tag != T_LIST)
        type_error(seq, idx);
    List *l = (List *)seq.v;
    u32 i = index_of(seq, idx, l->len);
    if (v.tag >= T_STR && epy_is_persistent(l))
        g_dirty = 1;
    l->items[i] = v;
}

static void append(Value list, const Value *v, u32 n)
{
    if (list.tag != T_LIST)
        type_error(list, n ? v[0] : list);
    List *l = (List *)list.v;
    epy_list_reserve(l, l->len + n);
    if (epy_is_persistent(l))
        for (u32 i = 0; i < n; i++)
            if (v[i].tag >= T_STR)
                g_dirty = 1;
    for (u32 i = 0; i < n; i++)
        l->items[l->len + i] = v[i];
    l->len += n;
}

static Value new_list(const Value *v, u32 n)
{
    List *l = epy_new_list(n, n);
    for (u32 i = 0; i < n; i++)
        l->items[i] = v[i];
    return mkv(T_LIST, (u32)l);
}

static Value str_of(Value v)
{
    char buf[12];
    const char *p = buf;
    u32 n = 0;
    switch (v.tag) {
    case T_STR:
        return v;
    case T_NONE:
        p = "None";
        n = 4;
        break;
    case T_BOOL:
        p = v.v ? "True" : "False";
        n = v.v ? 4 : 5;
        break;
    case T_INT: {
        u32 u = (i32)v.v < 0 ? 0u - v.v : v.v;
        char *q = buf + sizeof buf;
        do {
            u32 d = epy_udiv(u, 10, 0);
            *--q = (char)('0' + (u - (d << 3) - (d << 1)));
            u = d;
        } while (u);
        if ((i32)v.v < 0)
            *--q = '-';
        p = q;
        n = (u32)(buf + sizeof buf - q);
        break;
    }
    default:
        type_error1(v);
    }
    Str *s = epy_new_str(n);
    memcpy(s->b, p, n);
    return mkv(T_STR, (u32)s);
}

/* ---- builtins ---- */

static const u8 arity[][2] = {
#define X(name, lo, hi) {lo, hi},
    EPY_BUILTINS(X)
#undef X
};

static float num_arg(Value v)
{
    if (!is_num(v))
        type_error1(v);
    return tofloat(v);
}

/* int(f): NaN, inf and anything outside 32 bits are a VALUE error */
static i32 to_int(float f)
{
    u32 u = f2u(f);
    if (((u >> 23) & 0xff) >= 127 + 31 && u != 0xcf000000u)
        epy_raise(ERR_VALUE, u, 0);
    return epy_ftoi(f);
}

static Value minmax(const Value *a, u32 n, int want_max)
{
    if (n == 1) {
        if (a[0].tag != T_LIST)
            type_error1(a[0]);
        List *l = (List *)a[0].v;
        a = l->items;
        n = l->len;
        if (n == 0)
            epy_raise(ERR_VALUE, 0, 0);
    }
    Value best = a[0];
    for (u32 i = 1; i < n; i++)
        if (want_max ? epy_less(best, a[i], 0) : epy_less(a[i], best, 0))
            best = a[i];
    return best;
}

static u32 rng_next(void)
{
    u32 x = g_rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    g_rng = x;
    return x;
}

static u32 in_group(u32 i)
{
    return (i < 32 ? g_group_lo >> i : g_group_hi >> (i - 32)) & 1;
}

static u32 group_first(void)
{
    u32 i = 0;
    while (i < 63 && !in_group(i))
        i++;
    return i;
}

static u32 popcount(u32 x)
{
    u32 n = 0;
    while (x) {
        x &= x - 1;
        n++;
    }
    return n;
}

static Value combine(u32 op, Value a, Value b)
{
    switch (op) {
    case 0:
        return epy_arith(OP_ADD, a, b);
    case 1:
        return epy_less(b, a, 0) ? b : a;
    case 2:
        return epy_less(a, b, 0) ? b : a;
    default:
        return epy_arith(OP_MUL, a, b);
    }
}

/* Collectives over the launch's group (channel 1): the lowest member
 * gathers, combines in core order and sends the result back. */
static Value collective(u32 op, Value v, u32 root)
{
    u32 me = epy_core_num();
    epy_member(me);
    if (v.tag > T_NONE)
        epy_raise(ERR_TYPE, v.tag, 0xffffffffu);
    if (op == 4) { /* bcast from root */
        epy_member(root);
        if (me == root) {
            for (u32 i = 0; i < 64; i++)
                if (i != me && in_group(i))
                    epy_send(1, i, v);
            return v;
        }
        return epy_recv(1, root);
    }
    u32 first = group_first();
    if (me != first) {
        epy_send(1, first, v);
        return epy_recv(1, first);
    }
    Value acc = v;
    for (u32 i = first + 1; i < 64; i++)
        if (in_group(i)) {
            Value x = epy_recv(1, i);
            if (op < 4)
                acc = combine(op, acc, x);
        }
    for (u32 i = first + 1; i < 64; i++)
        if (in_group(i))
            epy_send(1, i, acc);
    return acc;
}

static NOINLINE Value builtin(u32 id, Value *a, u32 n)
{
    if (id >= BI_COUNT)
        epy_raise(ERR_BAD_OPCODE, OP_CALLB | id << 24, 0);
    if (n < arity[id][0] || n > arity[id][1])
        epy_raise(ERR_ARITY, n, id);
    Value none = mkv(T_NONE, 0);
    switch (id) {
    case BI_ABS:
        if (a[0].tag == T_FLOAT)
            return mkv(T_FLOAT, a[0].v & 0x7fffffffu);
        if (!is_num(a[0]))
            type_error1(a[0]);
        return mki((i32)a[0].v < 0 ? -(i32)a[0].v : (i32)a[0].v);
    case BI_MIN:
        return minmax(a, n, 0);
    case BI_MAX:
        return minmax(a, n, 1);
    case BI_INT:
        if (a[0].tag == T_FLOAT)
            return mki(to_int(u2f(a[0].v)));
        if (!is_num(a[0]))
            type_error1(a[0]);
        return mki((i32)a[0].v);
    case BI_FLOAT:
        return mkf(num_arg(a[0]));
    case BI_BOOL:
        return mkv(T_BOOL, epy_truth(a[0]));
    case BI_LEN:
        if (a[0].tag == T_STR)
            return mki((i32)((Str *)a[0].v)->len);
        if (a[0].tag == T_LIST)
            return mki((i32)((List *)a[0].v)->len);
        type_error1(a[0]);
        break;
    case BI_SUM: {
        if (a[0].tag != T_LIST)
            type_error1(a[0]);
        List *l = (List *)a[0].v;
        Value s = mki(0);
        for (u32 i = 0; i < l->len; i++)
            s = epy_arith(OP_ADD, s, l->items[i]);
        return s;
    }
    case BI_RANGE: {
        for (u32 i = 0; i < n; i++)
            if (a[i].tag != T_INT && a[i].tag != T_BOOL)
                type_error1(a[i]);
        i32 start = n > 1 ? (i32)a[0].v : 0;
        i32 stop = n > 1 ? (i32)a[1].v : (i32)a[0].v;
        i32 step = n > 2 ? (i32)a[2].v : 1;
        if (step == 0)
            epy_raise(ERR_RANGE_STEP, 0, 0);
        u32 cnt = 0;
        if (step > 0 && start < stop)
            cnt = epy_udiv((u32)stop - (u32)start - 1, (u32)step, 0) + 1;
        else if (step < 0 && start > stop)
            cnt = epy_udiv((u32)start - (u32)stop - 1, 0u - (u32)step, 0) + 1;
        List *l = epy_new_list(cnt, cnt);
        u32 x = (u32)start;
        for (u32 i = 0; i < cnt; i++, x += (u32)step)
            l->items[i] = mkv(T_INT, x);
        return mkv(T_LIST, (u32)l);
    }
    case BI_STR:
        return str_of(a[0]);
    case BI_APPEND:
        append(a[0], &a[1], 1);
        return none;
    case BI_MATH_SQRT: {
        float x = num_arg(a[0]);
        if (x < 0.0f)
            epy_raise(ERR_VALUE, f2u(x), 0);
        return mkf(epy_sqrtf(x));
    }
    case BI_MATH_POW: {
        float x = num_arg(a[0]), y = num_arg(a[1]);
        if (x == 0.0f && y < 0.0f)
            epy_raise(ERR_VALUE, f2u(x), f2u(y));
        return mkf(fpow(x, y));
    }
    case BI_MATH_SIN:
    case BI_MATH_COS:
    case BI_MATH_TAN: {
        static float (*const trig[])(float) = {epy_sinf, epy_cosf, epy_tanf};
        return mkf(trig[id - BI_MATH_SIN](num_arg(a[0])));
    }
    case BI_MATH_ATAN2:
        return mkf(epy_atan2f(num_arg(a[0]), num_arg(a[1])));
    case BI_MATH_EXP:
        return mkf(epy_expf(num_arg(a[0])));
    case BI_MATH_LOG: {
        float x = num_arg(a[0]);
        if (!(x > 0.0f))
            epy_raise(ERR_VALUE, f2u(x), 0);
        float r = epy_logf(x);
        if (n == 2) {
            float b = num_arg(a[1]);
            if (!(b > 0.0f))
                epy_raise(ERR_VALUE, f2u(b), 0);
            if (b == 1.0f)
                epy_raise(ERR_ZERODIV, 0, 0);
            r = r / epy_logf(b);
        }
        return mkf(r);
    }
    case BI_MATH_FLOOR:
    case BI_MATH_CEIL: {
        if (a[0].tag != T_FLOAT) {
            num_arg(a[0]);
            return mki((i32)a[0].v);
        }
        float x = u2f(a[0].v), f = epy_floorf(x);
        if (id == BI_MATH_CEIL && f != x)
            f += 1.0f;
        return mki(to_int(f));
    }
    case BI_MATH_FABS:
        return mkv(T_FLOAT, f2u(num_arg(a[0])) & 0x7fffffffu);
    case BI_RANDOM_RANDOM:
        return mkf((float)(rng_next() >> 8) * (1.0f / 16777216.0f));
    case BI_RANDOM_RANDINT: {
        if ((a[0].tag != T_INT && a[0].tag != T_BOOL) || (a[1].tag != T_INT && a[1].tag != T_BOOL))
            type_error(a[0], a[1]);
        i32 lo = (i32)a[0].v, hi = (i32)a[1].v;
        if (lo > hi)
            epy_raise(ERR_VALUE, (u32)lo, (u32)hi);
        u32 span = (u32)hi - (u32)lo + 1, r = rng_next(), m = r;
        if (span)
            epy_udiv(r, span, &m);
        return mkv(T_INT, (u32)lo + m);
    }
    case BI_RANDOM_SEED: {
        if (!is_num(a[0]))
            type_error1(a[0]);
        u32 s = a[0].v ^ 0x9e3779b9u;
        g_rng = s ? s : 1;
        return none;
    }
    case BI_PARALLEL_COREID:
        return mki((i32)epy_core_num());
    case BI_PARALLEL_NUMCORES:
        return mki((i32)(popcount(g_group_lo) + popcount(g_group_hi)));
    case BI_PARALLEL_SEND:
    case BI_PARALLEL_RECV:
    case BI_PARALLEL_SENDRECV: {
        Value c = id == BI_PARALLEL_RECV ? a[0] : a[1];
        if (c.tag != T_INT)
            type_error1(c);
        epy_member(epy_core_num());
        if (id != BI_PARALLEL_RECV)
            epy_send(0, c.v, a[0]);
        if (id == BI_PARALLEL_SEND)
            return none;
        return epy_recv(0, c.v);
    }
    case BI_PARALLEL_BCAST:
        if (a[1].tag != T_INT)
            type_error1(a[1]);
        return collective(4, a[0], a[1].v);
    case BI_PARALLEL_REDUCE: {
        if (a[1].tag != T_STR)
            epy_raise(ERR_REDUCE_OP, 0, 0);
        Str *s = (Str *)a[1].v;
        u32 op = 0;
        for (; op < 4; op++) {
            const char *o = reduce_ops[op];
            u32 k = 0;
            while (o[k] && k < s->len && o[k] == s->b[k])
                k++;
            if (!o[k] && k == s->len)
                break;
        }
        if (op == 4)
            epy_raise(ERR_REDUCE_OP, 0, 0);
        if (!is_num(a[0]))
            type_error1(a[0]);
        return collective(op, a[0], 0);
    }
    case BI_PARALLEL_SYNC:
        collective(5, none, 0);
        return none;
    }
    return none;
}

/* ---- the slow paths ---- */

static int jump_taken(u32 op, Value a, Value b)
{
    switch (op) {
    case OP_JLT:
        return epy_less(a, b, 0);
    case OP_JLE:
        return epy_less(a, b, 1);
    case OP_JNLT:
        return !epy_less(a, b, 0);
    case OP_JNLE:
        return !epy_less(a, b, 1);
    case OP_JEQ:
        return epy_equal(a, b, 0);
    default:
        return !epy_equal(a, b, 0);
    }
}

#define REG(sh) ((Value *)((char *)R + ((ins >> (sh)) & 0x7f8)))
#define RA REG(5)
#define RB REG(13)
#define RC REG(21)
#define OPB ((ins >> 16) & 0xff)
#define OPC (ins >> 24)
#define SBX ((i32)ins >> 16)

/* Every instruction (or case of one) the loop does not finish inline;
 * pc is the word after the instruction; returns the next pc. */
NOINLINE const u32 *epy_slow(u32 ins, Value *R, const u32 *pc)
{
    u32 op = ins & 63; /* the dispatch table's index (vm_run.c) */
    const Module *m = g_where.mod;
    Value *ra = RA, *rb = RB, *rc = RC;
    switch (op) {
    case OP_NOP:
        break;
    case OP_LOADNONE:
        *ra = mkv(T_NONE, 0);
        break;
    case OP_LOADBOOL:
        *ra = mkv(T_BOOL, OPB != 0);
        break;
    case OP_IS:
    case OP_ISNOT:
        *ra = mkv(T_BOOL, (rb->d == rc->d) ^ (op == OP_ISNOT));
        break;
    case OP_LOADK:
        epy_raise(ERR_BAD_MODULE, (u32)m, ins);
    case OP_SETGLOBAL:
        if ((ins >> 16) < NGLOBALS) {
            g_dirty = 1;
            g_globals[ins >> 16] = *ra;
            break;
        }
        /* fall through */
    case OP_GETGLOBAL:
        epy_raise(ERR_VALUE, ins >> 16, 0);
    case OP_ADD:
    case OP_SUB:
    case OP_MUL:
    case OP_TRUEDIV:
    case OP_FLOORDIV:
    case OP_MOD:
    case OP_POW:
    case OP_BAND:
    case OP_BOR:
    case OP_BXOR:
    case OP_LSHIFT:
    case OP_RSHIFT:
        *ra = epy_arith(op, *rb, *rc);
        break;
    case OP_ADDI:
        *ra = epy_arith(OP_ADD, *rb, mki((i32)ins >> 24));
        break;
    case OP_NEG:
    case OP_INVERT:
    case OP_NOT:
        *ra = unary(op, *rb);
        break;
    case OP_EQ:
        *ra = mkv(T_BOOL, epy_equal(*rb, *rc, 0));
        break;
    case OP_NE:
        *ra = mkv(T_BOOL, !epy_equal(*rb, *rc, 0));
        break;
    case OP_LT:
    case OP_LE:
        *ra = mkv(T_BOOL, epy_less(*rb, *rc, op == OP_LE));
        break;
    case OP_JT:
    case OP_JF:
        if (epy_truth(*ra) == (op == OP_JT))
            pc += SBX;
        break;
    case OP_INCJLT:
    case OP_INCJLE:
        *ra = epy_arith(OP_ADD, *ra, mki((i32)ins >> 24));
        op += OP_JLT - OP_INCJLT; /* then the compare-and-jump of JLT, JLE */
        /* fall through */
    case OP_JLT:
    case OP_JLE:
    case OP_JNLT:
    case OP_JNLE:
    case OP_JEQ:
    case OP_JNE: {
        int t = jump_taken(op, *ra, *rb);
        i32 off = (i32)*pc++;
        if (t)
            pc += off;
        break;
    }
    case OP_FORPREP: {
        Value *r = ra;
        for (u32 i = 0; i < 3; i++)
            if (r[i].tag > T_BOOL || r[i].tag == T_FLOAT)
                type_error1(r[i]);
        if (r[2].v == 0)
            epy_raise(ERR_RANGE_STEP, 0, 0);
        for (u32 i = 0; i < 3; i++)
            r[i].tag = T_INT;
        i32 i = (i32)r[0].v, stop = (i32)r[1].v, step = (i32)r[2].v;
        if (step > 0 ? i >= stop : i <= stop)
            pc += SBX;
        else
            r[3] = r[0];
        break;
    }
    case OP_FORLIST: {
        Value *r = ra;
        u32 i = r[1].v;
        if (r[0].tag != T_STR)
            type_error1(r[0]);
        if (i >= ((Str *)r[0].v)->len) {
            pc += SBX;
        } else {
            r[2] = char_at((Str *)r[0].v, i);
            r[1].v = i + 1;
        }
        break;
    }
    case OP_NEWLIST:
        *ra = new_list(rb, OPC);
        break;
    case OP_LISTEXT:
        append(*ra, RB, OPC);
        break;
    case OP_LISTREP:
        if (rb->tag != T_LIST)
            type_error(*rb, *rc);
        *ra = repeat(*rb, *rc);
        break;
    case OP_GETITEM:
        *ra = getitem(*rb, *rc);
        break;
    case OP_SETITEM:
        setitem(*ra, *rb, *rc);
        break;
    case OP_CALL: {
        u32 f = OPC;
        if (f >= m->nfuncs)
            epy_raise(ERR_BAD_MODULE, (u32)m, ins);
        const FuncEntry *fe = (const FuncEntry *)m->funcs + f;
        if (OPB != fe->nparams)
            epy_raise(ERR_ARITY, OPB, fe->nparams);
        epy_raise(ERR_RECURSION, g_where.depth + 1, 0);
    }
    case OP_CALLB:
        *ra = builtin(OPC, RA, OPB);
        break;
    case OP_PRINT:
        epy_print(ra, OPB);
        break;
    default:
        epy_raise(ERR_BAD_OPCODE, op, ins);
    }
    return pc;
}
