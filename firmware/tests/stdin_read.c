/* stdin_read: reads standard input (the harness feeds stdin_read.stdin):
 * first a few bytes with read(0, ...) (trap 1), then the rest with stdio
 * fgets/getchar; counts lines, words and bytes, and checksums the text. */
#define CHECK_USE_STDIO
#include <ctype.h>
#include <unistd.h>
#include "check.h"

int main(void)
{
    char head[8];
    char line[256];
    long n;
    uint32_t lines = 0, words = 0, bytes = 0, sum = 0;
    int c, in_word = 0;

    n = (long)read(0, head, 6);
    CHECK(n == 6);
    if (n < 0)
        n = 0;
    head[n] = 0;
    printf("first %ld bytes via read(): \"%s\"\n", n, head);
    bytes += (uint32_t)n;

    /* the rest of the first line and the next two lines through fgets */
    while (lines < 3 && fgets(line, sizeof line, stdin)) {
        size_t len = strlen(line);
        size_t k;
        bytes += (uint32_t)len;
        for (k = 0; k < len; k++)
            sum = sum * 31u + (unsigned char)line[k];
        if (len && line[len - 1] == '\n') {
            lines++;
            line[len - 1] = 0;
        }
        printf("fgets: \"%s\"\n", line);
    }
    /* everything else character by character */
    while ((c = getchar()) != EOF) {
        bytes++;
        sum = sum * 31u + (unsigned)c;
        if (c == '\n')
            lines++;
        if (isspace(c))
            in_word = 0;
        else if (!in_word) {
            in_word = 1;
            words++;
        }
    }
    CHECK(feof(stdin) && !ferror(stdin));
    printf("lines %u, words after line 3: %u, bytes %u, checksum 0x%08x\n", (unsigned)lines, (unsigned)words,
           (unsigned)bytes, (unsigned)sum);
    CHECK(lines == 8 && bytes == 296);
    return check_done("stdin_read");
}
