/* remote_fetch: executing code that lives in another core's SRAM.
 *
 * Core (0,0) calls functions through their global addresses on core
 * (0,1): a function of the program itself; code that (0,1) copies into a
 * buffer of its SRAM while (0,0) waits; other code that (0,1) copies over
 * the same buffer afterwards (the new code must run, not the old); and
 * code that (0,0) writes into that buffer itself with remote stores. It
 * prints each result and the cycles one call takes to a local function
 * and to the same function on (0,1). Every other core of the group exits
 * at once. */
#include "multi.h"

__attribute__((noinline)) int twice(int x) { return 2 * x; }
__attribute__((noinline)) int thrice(int x) { return 3 * x; }
__attribute__((noinline)) int add_five(int x) { return x + 5; }

/* Where code is copied to (on core (0,1)). */
#define CODE_HALFWORDS 16
unsigned short code_buf[CODE_HALFWORDS] __attribute__((aligned(8)));

/* On (0,0): how far (0,1) got.  On (0,1): how far (0,0) got. */
volatile int stage;
volatile int ack;

typedef int (*fn)(int);

/* Copies the first CODE_HALFWORDS halfwords of f to dst (the functions
 * above are shorter; what follows them is copied too, harmlessly: none of
 * them refers to anything by address). */
static void copy_code(volatile unsigned short *dst, fn f)
{
    const volatile unsigned short *src = (const volatile unsigned short *)f;
    for (int i = 0; i < CODE_HALFWORDS; i++)
        dst[i] = src[i];
}

/* CTIMER0 (counting clock cycles down), read as a compiler barrier. */
static inline unsigned ticks(void)
{
    unsigned t;
    __asm__ volatile("movfs %0, ctimer0" : "=r"(t) : : "memory");
    return t;
}

static void wait_for(volatile int *flag, int value)
{
    while (*flag != value)
        ;
}

static int caller(void)
{
    volatile int *owner_ack = on_core(0, 1, &ack);
    fn remote_twice = (fn)on_core(0, 1, (void *)twice);
    fn remote_buf = (fn)on_core(0, 1, code_buf);
    int failed = 0;

    int r = remote_twice(21);
    say_num("program function: ", r);
    failed |= r != 42;

    wait_for(&stage, 1); /* (0,1) copied thrice */
    r = remote_buf(7);
    say_num("copied by the owner: ", r);
    failed |= r != 21;

    *owner_ack = 1;
    wait_for(&stage, 2); /* (0,1) copied add_five over it */
    r = remote_buf(7);
    say_num("replaced by the owner: ", r);
    failed |= r != 12;

    copy_code(on_core(0, 1, code_buf), twice);
    *owner_ack = 2; /* after the code: same path, so it lands after it */
    wait_for(&stage, 3);
    r = remote_buf(7);
    say_num("written by the caller: ", r);
    failed |= r != 14;

    /* One call each way, from a warm start (the second of two). */
    fn local_twice = twice;
    unsigned t0, t1, local = 0, remote = 0;
    for (int i = 0; i < 2; i++) {
        timer_start();
        t0 = ticks();
        r = local_twice(i);
        t1 = ticks();
        local = t0 - t1;
        failed |= r != 2 * i;
        t0 = ticks();
        r = remote_twice(i);
        t1 = ticks();
        remote = t0 - t1;
        failed |= r != 2 * i;
    }
    say_num("local call cycles: ", local);
    say_num("remote call cycles: ", remote);

    *owner_ack = 3;
    return failed;
}

static int owner(void)
{
    volatile int *caller_stage = on_core(0, 0, &stage);
    copy_code(code_buf, thrice);
    *caller_stage = 1;
    wait_for(&ack, 1);
    copy_code(code_buf, add_five);
    *caller_stage = 2;
    wait_for(&ack, 2); /* (0,0) wrote its code, then this */
    *caller_stage = 3;
    wait_for(&ack, 3); /* keep the code here until (0,0) is done */
    return 0;
}

int main(void)
{
    switch (my_rank()) {
    case 0:
        return caller();
    case 1:
        return owner();
    default:
        return 0;
    }
}
