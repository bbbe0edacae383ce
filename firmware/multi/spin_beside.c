/* spin_beside: a sender writes a value beside the flag its receiver polls,
 * then the flag, as ePython's message passing does (sim/tests/spin.rs).
 *
 * Core (0,0) polls a flag in its own SRAM. Core (0,1) writes the word
 * beside it after a delay of BASE loop iterations and then k single-cycle
 * NOPs, for k = 0 .. STEPS-1 (the value's arrival moves one cycle at a
 * time across the polling loop), and the flag LATER loop iterations
 * after that. Core (0,0) checks the value and answers by raising core
 * (0,1)'s user interrupt, whose handler reads CTIMER0: core (0,1) prints
 * the cycles from the start of its delay to the handler,
 *   a<k>: <cycles>   (the mailbox in .data, the bank of the loop's code:
 *                     the value's write may delay the loop's fetch)
 *   b<k>: <cycles>   (the mailbox at 0x6000, SRAM bank 3: it cannot)
 * and the wrong values core (0,0) saw. The other cores return at once. */
#include "multi.h"

#ifndef STEPS
#define STEPS 16
#endif
#ifndef BASE
#define BASE 200
#endif
#ifndef LATER
#define LATER 10
#endif

#define DATA __attribute__((section(".data")))

struct mailbox {
    volatile unsigned value;
    volatile unsigned flag;
};

/* On (0,0) (in .data: crt0 clears .bss, which could wipe a store that
 * arrived before it ran), and in bank 3. */
struct mailbox near_code DATA;
#define FAR ((struct mailbox *)0x6000)
volatile unsigned bad DATA;   /* on (0,0): wrong values seen */
volatile unsigned go DATA;    /* on (0,1): start round k + 1 */
volatile unsigned acked DATA; /* on (0,1): answers counted */
volatile unsigned seen DATA;  /* on (0,1): CTIMER0 at the last answer */

#define USER_BIT (1u << 9)

void __attribute__((interrupt)) user_handler(void)
{
    unsigned t;
    __asm__ volatile("movfs %0, ctimer0" : "=r"(t));
    seen = 0xffffffffu - t;
    acked = acked + 1;
}

int main(void)
{
    unsigned me = my_rank();
    if (me == 0) {
        volatile unsigned *their_go = on_rank(1, &go);
        volatile unsigned *their_ilatst = on_rank(1, (void *)0xf042c);
        FAR->flag = 0;
        for (unsigned k = 0; k < 2 * STEPS; k++) {
            struct mailbox *box = k < STEPS ? &near_code : FAR;
            *their_go = k + 1;
            while (box->flag != k + 1)
                ;
            if (box->value != 1000 + k)
                bad = bad + 1;
            *their_ilatst = USER_BIT;
        }
        say_num("bad: ", bad);
        return 0;
    }
    if (me != 1)
        return 0;
    unsigned took[2 * STEPS];
    irq_attach(0x24, user_handler);
    irq_unmask(USER_BIT);
    timer_start();
    for (unsigned k = 0; k < 2 * STEPS; k++) {
        struct mailbox *box = on_rank(0, k < STEPS ? &near_code : FAR);
        while (go != k + 1)
            ;
        unsigned t0 = timer_now();
        for (unsigned i = 0; i < BASE; i++)
            __asm__ volatile("nop");
        nops(k % STEPS);
        box->value = 1000 + k;
        for (unsigned i = 0; i < LATER; i++)
            __asm__ volatile("nop");
        box->flag = k + 1;
        while (acked != k + 1)
            __asm__ volatile("idle");
        took[k] = seen - t0;
    }
    for (unsigned k = 0; k < 2 * STEPS; k++) {
        char name[16] = "a ";
        name[0] = k < STEPS ? 'a' : 'b';
        two_digits(name + 1, k % STEPS);
        say_num(name, took[k]);
    }
    return 0;
}
