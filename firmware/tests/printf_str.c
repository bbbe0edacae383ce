/* printf_str: %s %c %% %p and friends -- widths and precisions on strings,
 * %p of a fixed (non-address) pointer value, snprintf truncation and its
 * return value, fputs/puts/putchar/fputc, and printing to stderr. */
#define CHECK_USE_STDIO
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include "check.h"

int main(void)
{
    const char *s = "epiphany";
    char buf[16];
    int n;

    printf("[%s] [%10s] [%-10s] [%.3s] [%10.3s] [%-10.3s] [%.0s] [%s]\n", s, s, s, s, s, s, s, "");
    printf("[%*s] [%-*s] [%.*s]\n", 12, s, 12, s, 5, s);
    printf("percent: [%%] [100%%] [%%d]\n");
    printf("char: [%c] [%3c] [%-3c] [%c]\n", 'q', 'r', 's', 65);
    printf("pointer: [%p] [%p]\n", (void *)(uintptr_t)0x1234u, (void *)(uintptr_t)0x8e000000u);

    n = snprintf(buf, sizeof buf, "%s-%s-%s", s, s, s);
    CHECK(n == 26);
    CHECK(strlen(buf) == 15);
    printf("snprintf truncated: [%s] returned %d\n", buf, n);
    n = snprintf(buf, 1, "abc");
    CHECK(n == 3 && buf[0] == 0);
    n = snprintf(NULL, 0, "%d%s", 12345, s);
    CHECK(n == 13);
    printf("snprintf(NULL, 0) = %d\n", n);

    fputs("fputs line\n", stdout);
    puts("puts line");
    putchar('p');
    putchar('c');
    fputc('\n', stdout);
    fprintf(stdout, "fprintf(stdout) %d\n", 1);
    fprintf(stderr, "this goes to stderr (%s)\n", s);
    fflush(stderr);

    {
        /* a long line, longer than any small buffer */
        int i;
        for (i = 0; i < 300; i++)
            putchar('a' + i % 26);
        putchar('\n');
    }
    return check_done("printf_str");
}
