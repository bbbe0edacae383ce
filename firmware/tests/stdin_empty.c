/* stdin_empty: standard input is empty (the harness gives no input):
 * read(0) returns 0, getchar() returns EOF and sets the EOF flag, fgets
 * returns NULL, scanf returns EOF. */
#define CHECK_USE_STDIO
#include <unistd.h>
#include "check.h"

int main(void)
{
    char buf[16];
    int x = 5;
    long n = (long)read(0, buf, sizeof buf);
    CHECK(n == 0);
    printf("read(0) = %ld\n", n);
    CHECK(getchar() == EOF && feof(stdin));
    printf("getchar: EOF, feof %d\n", feof(stdin) != 0);
    clearerr(stdin);
    CHECK(fgets(buf, sizeof buf, stdin) == NULL);
    printf("fgets: NULL\n");
    clearerr(stdin);
    CHECK(scanf("%d", &x) == EOF && x == 5);
    printf("scanf: EOF, x still %d\n", x);
    return check_done("stdin_empty");
}
