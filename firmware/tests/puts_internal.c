/* puts_internal: newlib puts()/fputs()/putchar() without printf, linked with
 * internal.ld (stdio buffers come from the heap in SRAM). */
#include <stdio.h>

int main(void)
{
    int i;
    puts("puts from SRAM");
    fputs("fputs without newline, ", stdout);
    fputs("then one\n", stdout);
    for (i = 0; i < 10; i++)
        putchar('0' + i);
    putchar('\n');
    fputs("to stderr\n", stderr);
    puts("puts_internal: PASS");
    return 0;
}
