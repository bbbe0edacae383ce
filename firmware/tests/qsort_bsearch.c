/* qsort_bsearch: newlib qsort on ints, strings and structs (all keys
 * distinct, so any correct sort gives the same order), bsearch hits and
 * misses. */
#define CHECK_USE_STDIO
#include <stdlib.h>
#include "check.h"

static int cmp_int(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}
static int cmp_int_desc(const void *a, const void *b) { return cmp_int(b, a); }
static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

struct rec {
    char name[12];
    int32_t age;
    double score;
};
static int cmp_rec(const void *a, const void *b)
{
    const struct rec *x = a, *y = b;
    if (x->score != y->score)
        return x->score < y->score ? 1 : -1; /* descending score */
    return strcmp(x->name, y->name);
}

int main(void)
{
    static int32_t v[500];
    int i;
    uint32_t h = 0;

    /* distinct values: a permutation of 0..499 scaled and shifted */
    for (i = 0; i < 500; i++)
        v[i] = (int32_t)((uint32_t)(i * 263) % 500u) * 3 - 700;
    qsort(v, 500, sizeof v[0], cmp_int);
    for (i = 1; i < 500; i++)
        CHECK(v[i - 1] < v[i]);
    for (i = 0; i < 500; i++)
        h = h * 31u + (uint32_t)v[i];
    printf("sorted 500: first %d last %d hash 0x%08x\n", (int)v[0], (int)v[499], (unsigned)h);
    {
        int32_t key = 101, miss = 100;
        int32_t *hit = bsearch(&key, v, 500, sizeof v[0], cmp_int);
        CHECK(hit != NULL && *hit == 101 && hit - v == 267);
        CHECK(bsearch(&miss, v, 500, sizeof v[0], cmp_int) == NULL);
        printf("bsearch 101 -> index %d, 100 -> %s\n", hit ? (int)(hit - v) : -1,
               bsearch(&miss, v, 500, sizeof v[0], cmp_int) ? "found" : "missing");
    }
    qsort(v, 500, sizeof v[0], cmp_int_desc);
    CHECK(v[0] == 797 && v[499] == -700);
    printf("descending: %d %d %d ... %d\n", (int)v[0], (int)v[1], (int)v[2], (int)v[499]);

    {
        const char *words[] = {"pear", "apple", "fig", "banana", "kiwi", "cherry", "date", "grape",
                               "elderberry", "lemon", "mango", "apricot"};
        const int nw = (int)(sizeof words / sizeof words[0]);
        const char *key = "grape";
        const char **found;
        qsort(words, (size_t)nw, sizeof words[0], cmp_str);
        printf("words:");
        for (i = 0; i < nw; i++)
            printf(" %s", words[i]);
        printf("\n");
        found = bsearch(&key, words, (size_t)nw, sizeof words[0], cmp_str);
        CHECK(found && strcmp(*found, "grape") == 0);
    }
    {
        struct rec r[] = {{"ann", 31, 88.5}, {"bob", 25, 92.25}, {"cid", 40, 88.5},
                          {"dee", 22, 75.0}, {"eve", 35, 99.0},  {"fay", 28, 60.5}};
        const int nr = (int)(sizeof r / sizeof r[0]);
        qsort(r, (size_t)nr, sizeof r[0], cmp_rec);
        for (i = 0; i < nr; i++)
            printf("%-4s %2d %6.2f\n", r[i].name, (int)r[i].age, r[i].score);
        CHECK(strcmp(r[0].name, "eve") == 0 && strcmp(r[2].name, "ann") == 0 && strcmp(r[3].name, "cid") == 0);
    }
    /* random data, many sizes */
    {
        static int32_t w[300];
        int n, ok = 1;
        for (n = 0; n <= 300; n += 23) {
            for (i = 0; i < n; i++)
                w[i] = (int32_t)(lcg() % 100000u) * 300 + i; /* distinct */
            qsort(w, (size_t)n, sizeof w[0], cmp_int);
            for (i = 1; i < n; i++)
                if (w[i - 1] >= w[i])
                    ok = 0;
        }
        CHECK(ok);
        printf("random sorts: %s\n", ok ? "ok" : "bad");
    }
    return check_done("qsort_bsearch");
}
