/* sort_algos: hand-written quicksort, merge sort, heap sort, insertion sort
 * and counting sort on the same pseudo-random data; all must agree. */
#define CHECK_USE_STDIO
#include "check.h"

#define N 1000
static int32_t orig[N], a[N], b[N], tmp[N];

static void insertion(int32_t *v, int n)
{
    int i, j;
    for (i = 1; i < n; i++) {
        int32_t x = v[i];
        for (j = i - 1; j >= 0 && v[j] > x; j--)
            v[j + 1] = v[j];
        v[j + 1] = x;
    }
}

static void quick(int32_t *v, int lo, int hi)
{
    while (hi - lo > 16) {
        int32_t pivot = v[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                int32_t t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        }
        if (j - lo < hi - i) {
            quick(v, lo, j);
            lo = i;
        } else {
            quick(v, i, hi);
            hi = j;
        }
    }
    insertion(v + lo, hi - lo + 1);
}

static void merge_sort(int32_t *v, int n)
{
    int width, i;
    for (width = 1; width < n; width *= 2) {
        for (i = 0; i < n; i += 2 * width) {
            int l = i, m = i + width < n ? i + width : n, r = i + 2 * width < n ? i + 2 * width : n;
            int p = l, q = m, k = l;
            while (p < m && q < r)
                tmp[k++] = v[p] <= v[q] ? v[p++] : v[q++];
            while (p < m)
                tmp[k++] = v[p++];
            while (q < r)
                tmp[k++] = v[q++];
        }
        memcpy(v, tmp, (size_t)n * sizeof *v);
    }
}

static void sift(int32_t *v, int root, int n)
{
    for (;;) {
        int c = 2 * root + 1;
        if (c >= n)
            return;
        if (c + 1 < n && v[c + 1] > v[c])
            c++;
        if (v[root] >= v[c])
            return;
        int32_t t = v[root];
        v[root] = v[c];
        v[c] = t;
        root = c;
    }
}

static void heap_sort(int32_t *v, int n)
{
    int i;
    for (i = n / 2 - 1; i >= 0; i--)
        sift(v, i, n);
    for (i = n - 1; i > 0; i--) {
        int32_t t = v[0];
        v[0] = v[i];
        v[i] = t;
        sift(v, 0, i);
    }
}

static void counting(int32_t *v, int n, int32_t lo, int32_t hi)
{
    static uint16_t count[4096];
    int i, k = 0;
    int32_t x;
    memset(count, 0, sizeof count);
    for (i = 0; i < n; i++)
        count[v[i] - lo]++;
    for (x = lo; x <= hi; x++)
        for (i = 0; i < count[x - lo]; i++)
            v[k++] = x;
}

static int same(const int32_t *x, const int32_t *y) { return memcmp(x, y, N * sizeof *x) == 0; }

int main(void)
{
    int i;
    uint32_t h = 0;
    for (i = 0; i < N; i++)
        orig[i] = (int32_t)(lcg() % 4000u) - 2000; /* duplicates on purpose */

    memcpy(a, orig, sizeof a);
    insertion(a, N);
    for (i = 1; i < N; i++)
        CHECK(a[i - 1] <= a[i]);
    for (i = 0; i < N; i++)
        h = h * 31u + (uint32_t)a[i];
    printf("insertion: min %d max %d median %d hash 0x%08x\n", (int)a[0], (int)a[N - 1], (int)a[N / 2], (unsigned)h);

    memcpy(b, orig, sizeof b);
    quick(b, 0, N - 1);
    CHECK(same(a, b));
    memcpy(b, orig, sizeof b);
    merge_sort(b, N);
    CHECK(same(a, b));
    memcpy(b, orig, sizeof b);
    heap_sort(b, N);
    CHECK(same(a, b));
    memcpy(b, orig, sizeof b);
    counting(b, N, -2000, 1999);
    CHECK(same(a, b));
    printf("quick, merge, heap, counting agree: %s\n", check_failures == 0 ? "yes" : "no");
    {
        int distinct = 1;
        for (i = 1; i < N; i++)
            distinct += a[i] != a[i - 1];
        printf("distinct values: %d\n", distinct);
    }
    return check_done("sort_algos");
}
