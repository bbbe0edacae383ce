/* linked_list: heap-allocated singly and doubly linked lists -- push,
 * reverse, merge sort on lists, removal while iterating, and freeing. */
#define CHECK_USE_STDIO
#include <stdlib.h>
#include "check.h"

struct node {
    int32_t v;
    struct node *next;
};

struct dnode {
    int32_t v;
    struct dnode *prev, *next;
};

static struct node *push(struct node *head, int32_t v)
{
    struct node *n = malloc(sizeof *n);
    if (!n)
        return head;
    n->v = v;
    n->next = head;
    return n;
}

static struct node *reverse(struct node *h)
{
    struct node *prev = NULL;
    while (h) {
        struct node *next = h->next;
        h->next = prev;
        prev = h;
        h = next;
    }
    return prev;
}

static struct node *merge(struct node *a, struct node *b)
{
    struct node head, *t = &head;
    while (a && b) {
        if (a->v <= b->v) {
            t->next = a;
            a = a->next;
        } else {
            t->next = b;
            b = b->next;
        }
        t = t->next;
    }
    t->next = a ? a : b;
    return head.next;
}

static struct node *sort(struct node *h)
{
    struct node *slow, *fast, *second;
    if (!h || !h->next)
        return h;
    slow = h;
    fast = h->next;
    while (fast && fast->next) {
        slow = slow->next;
        fast = fast->next->next;
    }
    second = slow->next;
    slow->next = NULL;
    return merge(sort(h), sort(second));
}

static uint32_t list_hash(const struct node *h, int *len)
{
    uint32_t x = 0;
    int n = 0;
    for (; h; h = h->next, n++)
        x = x * 31u + (uint32_t)h->v;
    *len = n;
    return x;
}

int main(void)
{
    struct node *l = NULL, *p, **pp;
    int i, len;
    uint32_t h;

    for (i = 0; i < 300; i++)
        l = push(l, (int32_t)(lcg() % 1000u));
    h = list_hash(l, &len);
    CHECK(len == 300);
    printf("built %d nodes, hash 0x%08x, head %d\n", len, (unsigned)h, (int)l->v);
    l = reverse(l);
    h = list_hash(l, &len);
    printf("reversed: hash 0x%08x, head %d\n", (unsigned)h, (int)l->v);
    l = sort(l);
    for (p = l; p && p->next; p = p->next)
        CHECK(p->v <= p->next->v);
    h = list_hash(l, &len);
    CHECK(len == 300);
    printf("sorted: hash 0x%08x, min %d\n", (unsigned)h, (int)l->v);
    /* remove every odd value */
    for (pp = &l; *pp;) {
        if ((*pp)->v & 1) {
            struct node *dead = *pp;
            *pp = dead->next;
            free(dead);
        } else {
            pp = &(*pp)->next;
        }
    }
    h = list_hash(l, &len);
    printf("evens only: %d nodes, hash 0x%08x\n", len, (unsigned)h);
    while (l) {
        p = l->next;
        free(l);
        l = p;
    }

    /* doubly linked ring: insert, rotate, unlink */
    {
        struct dnode ring = {-1, &ring, &ring}, *d;
        int32_t fwd = 0, back = 0, count = 0;
        for (i = 1; i <= 50; i++) {
            d = malloc(sizeof *d);
            if (!d)
                break;
            d->v = i;
            d->prev = ring.prev;
            d->next = &ring;
            ring.prev->next = d;
            ring.prev = d;
        }
        for (d = ring.next; d != &ring; d = d->next)
            fwd = fwd * 3 + d->v;
        for (d = ring.prev; d != &ring; d = d->prev)
            back = back * 3 + d->v;
        for (d = ring.next; d != &ring;) {
            struct dnode *next = d->next;
            if (d->v % 3 == 0) {
                d->prev->next = d->next;
                d->next->prev = d->prev;
                free(d);
            } else {
                count++;
            }
            d = next;
        }
        CHECK(count == 34);
        printf("ring: forward 0x%08x backward 0x%08x, %d left after unlinking multiples of 3\n", (unsigned)fwd,
               (unsigned)back, (int)count);
        for (d = ring.next; d != &ring;) {
            struct dnode *next = d->next;
            free(d);
            d = next;
        }
    }
    return check_done("linked_list");
}
