/* hash_table: an open-addressing hash table of strings (word counts), with
 * deletion by tombstones and growth by rehashing into a larger malloc'd
 * table. */
#define CHECK_USE_STDIO
#include <stdlib.h>
#include "check.h"

struct slot {
    char key[16];
    int32_t count;
    uint8_t state; /* 0 empty, 1 used, 2 deleted */
};

static struct slot *tab;
static uint32_t cap, used;

static uint32_t hash(const char *s)
{
    uint32_t h = 5381;
    while (*s)
        h = h * 33u ^ (unsigned char)*s++;
    return h;
}

static struct slot *find(const char *k, int insert);

static void grow(void)
{
    struct slot *old = tab;
    uint32_t i, oldcap = cap;
    cap = cap ? cap * 2 : 16;
    tab = calloc(cap, sizeof *tab);
    used = 0;
    for (i = 0; i < oldcap; i++)
        if (old[i].state == 1) {
            struct slot *s = find(old[i].key, 1);
            s->count = old[i].count;
        }
    free(old);
}

static struct slot *find(const char *k, int insert)
{
    uint32_t i, h;
    struct slot *tomb = NULL;
    if (insert && (used + 1) * 4 > cap * 3)
        grow();
    h = hash(k);
    for (i = 0; i < cap; i++) {
        struct slot *s = &tab[(h + i) & (cap - 1)];
        if (s->state == 0) {
            if (!insert)
                return NULL;
            if (tomb)
                s = tomb;
            strcpy(s->key, k);
            s->count = 0;
            s->state = 1;
            used++;
            return s;
        }
        if (s->state == 2) {
            if (!tomb)
                tomb = s;
        } else if (strcmp(s->key, k) == 0) {
            return s;
        }
    }
    return NULL;
}

int main(void)
{
    static const char *const words[] = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
                                        "iota", "kappa", "lambda", "mu", "nu", "xi", "omicron", "pi", "rho",
                                        "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega"};
    const int nw = (int)(sizeof words / sizeof words[0]);
    char key[16];
    int i;
    uint32_t distinct = 0, total = 0;

    for (i = 0; i < 3000; i++) {
        uint32_t r = lcg();
        sprintf(key, "%s%u", words[r % (uint32_t)nw], (unsigned)((r >> 8) % 20u));
        find(key, 1)->count++;
    }
    for (i = 0; i < (int)cap; i++)
        if (tab[i].state == 1) {
            distinct++;
            total += (uint32_t)tab[i].count;
        }
    CHECK(total == 3000);
    printf("capacity %u, distinct keys %u, total %u\n", (unsigned)cap, (unsigned)distinct, (unsigned)total);
    printf("alpha0 %d, omega19 %d, pi7 %d, missing %s\n", find("alpha0", 0) ? (int)find("alpha0", 0)->count : -1,
           find("omega19", 0) ? (int)find("omega19", 0)->count : -1, find("pi7", 0) ? (int)find("pi7", 0)->count : -1,
           find("nothing", 0) ? "found" : "absent");
    /* delete all keys that end in '3', then re-count */
    for (i = 0; i < (int)cap; i++)
        if (tab[i].state == 1 && tab[i].key[strlen(tab[i].key) - 1] == '3') {
            tab[i].state = 2;
            used--;
        }
    distinct = total = 0;
    for (i = 0; i < (int)cap; i++)
        if (tab[i].state == 1) {
            distinct++;
            total += (uint32_t)tab[i].count;
        }
    CHECK(find("alpha3", 0) == NULL && find("alpha4", 0) != NULL);
    find("alpha3", 1)->count = 1000;
    CHECK(find("alpha3", 0) && find("alpha3", 0)->count == 1000);
    printf("after deleting *3: distinct %u total %u\n", (unsigned)distinct, (unsigned)total);
    free(tab);
    return check_done("hash_table");
}
