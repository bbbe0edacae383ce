/* strings: <string.h> and <ctype.h> -- lengths, copies (overlapping too),
 * comparisons, searches, tokenising, and memcpy/memmove/memset at every
 * alignment, which exercises newlib's word-at-a-time paths. */
#define CHECK_USE_STDIO
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <ctype.h>
#include <stdlib.h>
#include "check.h"

static int sign(int v) { return v < 0 ? -1 : v > 0 ? 1 : 0; }

int main(void)
{
    char buf[64], buf2[64];
    const char *hello = "Hello, Epiphany";
    char *p;
    int i, j;

    CHECK(strlen("") == 0 && strlen(hello) == 15);
    printf("strlen = %u\n", (unsigned)strlen(hello));

    strcpy(buf, hello);
    CHECK(strcmp(buf, hello) == 0);
    strcat(buf, " world");
    printf("strcat: %s\n", buf);
    CHECK(strcmp(buf, "Hello, Epiphany world") == 0);
    strncat(buf, "!!!???", 3);
    printf("strncat: %s\n", buf);
    memset(buf2, 'x', sizeof buf2);
    strncpy(buf2, "abc", 6);
    CHECK(buf2[3] == 0 && buf2[5] == 0 && buf2[6] == 'x');
    strncpy(buf2, "abcdefgh", 4);
    CHECK(buf2[4] == 0 && memcmp(buf2, "abcd", 4) == 0);

    printf("strcmp: %d %d %d %d\n", sign(strcmp("abc", "abd")), sign(strcmp("abd", "abc")),
           sign(strcmp("abc", "abc")), sign(strcmp("ab", "abc")));
    printf("strncmp: %d %d\n", sign(strncmp("abcX", "abcY", 3)), sign(strncmp("abcX", "abcY", 4)));
    /* bytes above 0x7f compare as unsigned char */
    CHECK(strcmp("\xff", "\x01") > 0);
    CHECK(memcmp("\x80", "\x7f", 1) > 0);

    p = strchr(hello, 'p');
    CHECK(p && p - hello == 8);
    p = strrchr(hello, 'p');
    CHECK(p && p - hello == 10);
    CHECK(strchr(hello, 'z') == NULL);
    CHECK(strchr(hello, '\0') == hello + 15);
    p = strstr(hello, "phan");
    printf("strchr %d, strrchr %d, strstr %d\n", (int)(strchr(hello, 'p') - hello),
           (int)(strrchr(hello, 'p') - hello), p ? (int)(p - hello) : -1);
    CHECK(strstr(hello, "xyz") == NULL && strstr(hello, "") == hello);
    printf("strspn %u strcspn %u strpbrk %s\n", (unsigned)strspn("aabbcxd", "ab"),
           (unsigned)strcspn("hello world", " w"), strpbrk(hello, "Ep"));
    p = memchr(hello, ',', 15);
    CHECK(p == hello + 5);

    /* strtok */
    strcpy(buf, "  one,two;;three , four  ");
    printf("tokens:");
    for (p = strtok(buf, " ,;"); p; p = strtok(NULL, " ,;"))
        printf(" [%s]", p);
    printf("\n");

    /* ctype */
    strcpy(buf, "MiXeD case 123!");
    for (i = 0; buf[i]; i++)
        buf2[i] = (char)(isupper((unsigned char)buf[i]) ? tolower((unsigned char)buf[i])
                                                          : toupper((unsigned char)buf[i]));
    buf2[i] = 0;
    printf("swapcase: %s\n", buf2);
    {
        int alpha = 0, digit = 0, space = 0, punct = 0;
        for (i = 0; buf[i]; i++) {
            alpha += isalpha((unsigned char)buf[i]) != 0;
            digit += isdigit((unsigned char)buf[i]) != 0;
            space += isspace((unsigned char)buf[i]) != 0;
            punct += ispunct((unsigned char)buf[i]) != 0;
        }
        printf("classes: alpha %d digit %d space %d punct %d\n", alpha, digit, space, punct);
        CHECK(alpha == 9 && digit == 3 && space == 2 && punct == 1);
    }

    /* memcpy / memmove / memset at all small alignments and lengths */
    {
        static unsigned char src[96], dst[96];
        uint32_t sum = 0;
        for (i = 0; i < 96; i++)
            src[i] = (unsigned char)(i * 7 + 3);
        for (i = 0; i < 8; i++)
            for (j = 0; j < 8; j++) {
                int n;
                for (n = 0; n <= 40; n += 3) {
                    int k, ok = 1;
                    memset(dst, 0xa5, sizeof dst);
                    memcpy(dst + j, src + i, (size_t)n);
                    for (k = 0; k < 96; k++) {
                        unsigned char want = (k >= j && k < j + n) ? src[i + k - j] : 0xa5;
                        if (dst[k] != want)
                            ok = 0;
                        sum = sum * 33u + dst[k];
                    }
                    if (!ok)
                        CHECK(ok);
                }
            }
        printf("memcpy sweep checksum = 0x%08x\n", (unsigned)sum);
        /* overlapping moves both ways */
        for (i = 0; i < 96; i++)
            dst[i] = (unsigned char)i;
        memmove(dst + 3, dst, 50);
        CHECK(dst[3] == 0 && dst[52] == 49 && dst[2] == 2);
        for (i = 0; i < 96; i++)
            dst[i] = (unsigned char)i;
        memmove(dst, dst + 5, 60);
        CHECK(dst[0] == 5 && dst[59] == 64 && dst[60] == 60);
        sum = 0;
        for (i = 0; i < 96; i++)
            sum = sum * 33u + dst[i];
        printf("memmove checksum = 0x%08x\n", (unsigned)sum);
        for (i = 0; i < 8; i++) {
            memset(dst, 0, sizeof dst);
            memset(dst + i, 0x5a, (size_t)(37 + i));
            CHECK(dst[i] == 0x5a && dst[i + 36 + i] == 0x5a && dst[i + 37 + i] == 0);
            if (i > 0)
                CHECK(dst[i - 1] == 0);
        }
    }

    /* strdup (malloc'd) */
    p = strdup(hello);
    CHECK(p && strcmp(p, hello) == 0 && p != hello);
    free(p);
    return check_done("strings");
}
