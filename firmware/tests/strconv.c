/* strconv: string <-> number conversions -- sprintf, sscanf (%d %u %x %o %i
 * %s %c %[...] %n %f %lf), strtol/strtoul with bases 0/2/8/10/16/36 and end
 * pointers, atoi/atol, strtod, and errno for an out-of-range strtoll. */
#define CHECK_USE_STDIO
#include <errno.h>
#include <stdlib.h>
#include "check.h"

int main(void)
{
    char *end;
    char buf[64];
    int i, n;

    /* strtol / strtoul */
    {
        static const char *const in[] = {"0", "42", "-42", "  +17xyz", "0x1fz", "0777", "1010", "zz", "-0x80000000",
                                         "2147483647", "   -12 34"};
        static const int bases[] = {10, 10, 10, 10, 0, 0, 2, 36, 16, 10, 10};
        for (i = 0; i < 11; i++) {
            long v = strtol(in[i], &end, bases[i]);
            printf("strtol(\"%s\", %d) = %ld, rest \"%s\"\n", in[i], bases[i], v, end);
        }
        CHECK(strtol("0x1fz", &end, 0) == 31 && *end == 'z');
        CHECK(strtol("0777", NULL, 0) == 511);
        CHECK(strtol("zz", NULL, 36) == 1295);
        CHECK(strtoul("4294967295", NULL, 10) == 4294967295u);
        CHECK(strtoul("ffffffff", NULL, 16) == 0xffffffffu);
        printf("strtoul: %lu %lu\n", strtoul("4294967295", NULL, 10), strtoul("deadBEEF", NULL, 16));
    }
    /* 64-bit */
    {
        long long big = strtoll("-9223372036854775808", &end, 10);
        unsigned long long ubig = strtoull("18446744073709551615", NULL, 10);
        CHECK(big == -9223372036854775807LL - 1 && *end == 0);
        CHECK(ubig == 18446744073709551615ULL);
        errno = 0;
        big = strtoll("9999999999999999999", NULL, 10);
        CHECK(errno == ERANGE && big == 9223372036854775807LL);
        printf("strtoll overflow: errno %s, value ", errno == ERANGE ? "ERANGE" : "other");
        out_i64(big);
        out_nl();
    }
    /* atoi / atol */
    CHECK(atoi("  -123abc") == -123 && atoi("abc") == 0 && atol("77") == 77);
    printf("atoi: %d %d %d\n", atoi("  -123abc"), atoi("abc"), atoi("+2147483647"));

    /* sscanf */
    {
        int a, b, c;
        unsigned u, x, o;
        char word[16], ch, set[16];
        n = sscanf("  12 -7 0x1F", "%d %d %i", &a, &b, &c);
        CHECK(n == 3 && a == 12 && b == -7 && c == 31);
        printf("sscanf ints: %d -> %d %d %d\n", n, a, b, c);
        n = sscanf("4000000000 beef 777", "%u %x %o", &u, &x, &o);
        CHECK(n == 3 && u == 4000000000u && x == 0xbeef && o == 0777);
        printf("sscanf unsigned: %d -> %u %x %o\n", n, u, x, o);
        n = sscanf("name=epiphany; core:16 Z", "name=%15[a-z]; core:%d %c", set, &a, &ch);
        CHECK(n == 3 && strcmp(set, "epiphany") == 0 && a == 16 && ch == 'Z');
        printf("sscanf set: %d -> %s %d %c\n", n, set, a, ch);
        n = sscanf("hello world", "%s%n", word, &a);
        CHECK(n == 1 && a == 5 && strcmp(word, "hello") == 0);
        printf("sscanf %%n: %d -> %s consumed %d\n", n, word, a);
        n = sscanf("abc", "%d", &a);
        CHECK(n == 0);
        n = sscanf("", "%d", &a);
        CHECK(n == EOF);
        printf("sscanf failures: %d %d\n", sscanf("abc", "%d", &a), sscanf("", "%d", &a));
    }
    /* floating point parse */
    {
        float f;
        double d;
        n = sscanf("3.25 -1.5e-3", "%f %lf", &f, &d);
        CHECK(n == 2 && f == 3.25f && d == -1.5e-3);
        printf("sscanf float: %g %g\n", f, d);
        d = strtod("  6.02214076e23xyz", &end);
        CHECK(d == 6.02214076e23 && *end == 'x');
        printf("strtod: %.9g rest \"%s\"\n", d, end);
        d = strtod("0.1", NULL);
        CHECK(d == 0.1);
        d = strtod("-inf", NULL);
        CHECK(d < 0 && d * 0.5 == d);
        printf("strtod(0.1) = %.17g, strtod(1e-5) = %.17g\n", strtod("0.1", NULL), strtod("1e-5", NULL));
    }
    /* round trip of many numbers through sprintf + strtol/strtod */
    {
        uint32_t k, bad = 0;
        for (k = 0; k < 2000; k++) {
            int32_t v = (int32_t)(lcg() ^ (lcg() << 17));
            double dv = (double)v / 1024.0;
            sprintf(buf, "%ld %.17g", (long)v, dv);
            if (strtol(buf, &end, 10) != v || strtod(end, NULL) != dv)
                bad++;
        }
        CHECK(bad == 0);
        printf("round trips: %u bad\n", (unsigned)bad);
    }
    return check_done("strconv");
}
