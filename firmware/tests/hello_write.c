/* hello_write: the smallest program -- write(2) to stdout, return 0.
 * Linked with internal.ld: everything in SRAM, no stdio. */
#include <string.h>
#include <unistd.h>

int main(void)
{
    static const char msg[] = "Hello, Epiphany!\n";
    static const char done[] = "hello_write: PASS\n";
    if (write(1, msg, strlen(msg)) != (long)strlen(msg))
        return 1;
    write(1, done, strlen(done));
    return 0;
}
