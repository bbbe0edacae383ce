/* epy.h -- the epython firmware's shared declarations: values, the fixed
 * SRAM blocks of PROTOCOL.md, the device-managed area, and the entry points
 * the parts (main.c, vm.c, mathf.c, start.S) give each other. */
#ifndef EPY_H
#define EPY_H

#include "gen/opcodes.h"

void *memcpy(void *d, const void *s, unsigned n);

typedef unsigned int u32;
typedef int i32;
typedef unsigned short u16;
typedef unsigned char u8;
typedef unsigned long long u64;

/* Value tags (PROTOCOL.md section 1). */
enum { T_INT = 0, T_FLOAT = 1, T_BOOL = 2, T_NONE = 3, T_STR = 4, T_LIST = 5 };

/* One 8-byte value; `d` lets the compiler move it as one double word. */
typedef union {
    struct {
        u32 tag;
        u32 v;
    };
    u64 d;
} __attribute__((aligned(8))) Value;

typedef struct {
    u32 len;
    char b[];
} Str;

typedef struct {
    u32 len;
    u32 cap;
    Value *items;
    u32 flags;
} List;

/* A forwarded string (copy-out of globals): len = STR_FWD, then the new
 * address; a forwarded list has flags = LIST_FWD and items = the new one. */
#define STR_FWD 0xffffffffu
#define LIST_FWD 0xffffffffu

typedef struct {
    u32 magic, nfuncs, funcs, consts, nconsts, size;
} Module;

typedef struct {
    u32 code;
    union {
        struct {
            u16 nparams, nregs;
        };
        u32 pr; /* both as one word: nparams | nregs << 16 */
    };
} FuncEntry;

#define MODULE_MAGIC 0x4d595045u
#define INFO_MAGIC 0x32595045u /* "EPY2" */
#define PROTOCOL_VERSION 2

/* The fixed blocks (PROTOCOL.md section 3).  No arrays inside: the
 * Epiphany ABI aligns an array member of 4-byte elements to 8 bytes. */
typedef struct {
    u32 magic, version, fw_end, rsv0, rsv1, rsv2, ready_count, rsv3;
} Info;
typedef struct {
    u32 core_num, ncores, row0, col0, rows, cols, dram_slot, dram_slot_size;
    u32 code_base, code_size, args_base, args_size, seed, status_table, rsv1, rsv2;
} Config;
/* index: the function (CALL) or the global id (SETGLOBAL, GETGLOBAL);
 * args = 0: the arguments are the args_len bytes (rounded up to 8) right
 * below the mailbox. */
typedef struct {
    u32 cmd, module, index, args, args_len, group_lo, group_hi, seq;
} Mailbox;
typedef struct {
    u32 abort_seq, print_ack;
} Control;

#define INFO ((volatile Info *)0x4080)
#define CONFIG ((volatile Config *)0x40a0)
#define MAILBOX_AT 0x7fe0u
#define MAILBOX ((volatile Mailbox *)MAILBOX_AT)
#define CONTROL ((volatile Control *)0x40e0)
#define USER_BASE 0x4100u
#define USER_END MAILBOX_AT

/* The DRAM slot (PROTOCOL.md section 4). */
typedef struct {
    u32 state, seq, t_recv, t_start, t_end, t_done, result_len, print_len;
    /* ERROR: err_kind..depth; DONE with a result of at most 8 bytes: the
     * serialised result at +32 (err_kind, err_func) */
    u32 err_kind, err_func, err_pc, err_a, err_b, depth, print_acked, rsv1;
} Status;
#define STATUS_INLINE 32u
enum { ST_BOOTING, ST_READY, ST_RUNNING, ST_DONE, ST_ERROR, ST_PRINTFULL, ST_ABORTED };
enum { CMD_CALL = 1, CMD_SETGLOBAL, CMD_GETGLOBAL, CMD_PING, CMD_CLEARGLOBALS };
#define SLOT_RESULT 0x100u
#define RESULT_SIZE 0x3f00u
#define SLOT_PRINT 0x4000u
#define PRINT_SIZE 0x4000u
#define SLOT_SPILL 0x8000u

_Static_assert(sizeof(Mailbox) == 32 && sizeof(Config) == 64 && sizeof(Status) == 64, "blocks");

/* Sizes of the device-managed area (README.md, "Memory layout"). */
#define NGLOBALS 128
#define MAXDEPTH 96
#define VSTACK_BYTES 2048
#define NCHAN 2 /* 0: send/recv, 1: collectives */

/* A channel's per-peer words (section 7): the postbox a peer writes into
 * (seq << 8 | tag, payload), the acknowledgement a peer writes back (the
 * count of our messages it took), and our own counts. */
typedef struct {
    volatile u64 *pb;
    volatile u32 *ack;
    u32 *sent;
    u32 *taken;
} Chan;

/* Call information of a Python frame. */
typedef struct {
    const u32 *pc;
    u32 rf; /* the caller's frame (an SRAM address) | its function << 16 */
} CallInfo;

/* The state of the running launch that errors and the ISR look at. */
typedef struct {
    const u32 *pc; /* the failing instruction's word (set before a slow path) */
    u32 func;
    u32 depth;
    const Module *mod;
} VmWhere;

extern VmWhere g_where;
extern Value *g_globals;
extern const void **g_dispatch;
extern Value *g_vstack, *g_vstack_end;
extern CallInfo *g_ci, *g_ci_end;
extern Chan g_chan[NCHAN];
extern u32 g_dirty;
extern u32 g_rng;
extern u32 g_group_lo, g_group_hi;
extern volatile u32 g_abortable;
extern volatile u32 g_cur_seq;

/* start.S */
/* A jump buffer: 26 words, 8-aligned (r4-r11, sp, lr, r15, r32-r43). */
#define JMPBUF_BYTES 104
int epy_setjmp(u32 *b) __attribute__((returns_twice));
void epy_longjmp(u32 *b, int v) __attribute__((noreturn));
void epy_sleep_unless(volatile u32 *p, u32 v);
/* The command loop's jump buffer, in the device area (README.md). */
extern u32 *g_cmd_jmp;

u32 epy_imul(u32 a, u32 b);
u32 epy_udiv(u32 n, u32 d, u32 *rem);

/* main.c */
void epy_raise(u32 kind, u32 a, u32 b) __attribute__((noreturn));
void *epy_alloc(u32 n);
int epy_is_persistent(const void *p);
Str *epy_new_str(u32 n);
List *epy_new_list(u32 len, u32 cap);
void epy_list_reserve(List *l, u32 cap);
void epy_print(const Value *v, u32 n);
u32 epy_now(void);
u32 epy_member(u32 core);
u32 epy_global_addr(u32 core, const volatile void *local);
void epy_send(u32 ch, u32 core, Value v);
Value epy_recv(u32 ch, u32 core);
u32 epy_core_num(void);

/* vm.c */
Value epy_run(const Module *m, u32 func, Value *args);
int epy_truth(Value v);
int epy_equal(Value a, Value b, u32 depth);
Value epy_arith(u32 op, Value a, Value b);
int epy_less(Value a, Value b, int or_equal);

/* mathf.c */
float epy_sqrtf(float x);
float epy_sinf(float x);
float epy_cosf(float x);
float epy_tanf(float x);
float epy_atan2f(float y, float x);
float epy_expf(float x);
float epy_logf(float x);
float epy_powf(float x, float y);
float epy_floorf(float x);
float epy_fmodf(float x, float y);

static inline Value mkv(u32 tag, u32 v)
{
    Value r;
    r.tag = tag;
    r.v = v;
    return r;
}

static inline u32 f2u(float f);
static inline float u2f(u32 u);

/* float to int, truncating (no FPU mode switch); |f| < 2^31 */
static inline i32 epy_ftoi(float f)
{
    union {
        float f;
        u32 u;
    } c = {.f = f};
    i32 e = (i32)((c.u >> 23) & 0xff) - 127;
    if (e < 0)
        return 0;
    u32 m = (c.u & 0x7fffffu) | 0x800000u;
    u32 r = e >= 23 ? m << (e - 23) : m >> (23 - e);
    return (c.u >> 31) ? (i32)(0u - r) : (i32)r;
}

static inline u32 f2u(float f)
{
    union {
        float f;
        u32 u;
    } c = {.f = f};
    return c.u;
}

static inline float u2f(u32 u)
{
    union {
        u32 u;
        float f;
    } c = {.u = u};
    return c.f;
}

#define NOINLINE __attribute__((noinline))
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define LIKELY(x) __builtin_expect(!!(x), 1)

#endif
