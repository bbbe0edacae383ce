/* printf_int: integer conversions of newlib's printf -- %d %i %u %x %X %o %c
 * with widths, precisions, flags (- + space # 0), '*' width/precision, and
 * the h and l length modifiers.  (This newlib has no %lld/%hhd/%zu/%j: it was
 * built without --enable-newlib-io-long-long/-c99-formats.) */
#define CHECK_USE_STDIO
#include <limits.h>
#include "check.h"

int main(void)
{
    int n;
    printf("[%d] [%i] [%d] [%d] [%d]\n", 0, 42, -42, INT_MAX, INT_MIN);
    printf("[%u] [%u] [%u]\n", 0u, 42u, UINT_MAX);
    printf("[%x] [%X] [%x] [%X]\n", 0xdeadbeefu, 0xdeadbeefu, 0u, 255u);
    printf("[%o] [%o] [%o]\n", 8u, 0u, 0777u);
    printf("[%c%c%c] [%5c] [%-5c]\n", 'a', 'B', '0', 'x', 'y');
    printf("width: [%5d] [%-5d] [%05d] [%5d] [%-5d] [%05d]\n", 42, 42, 42, -42, -42, -42);
    printf("flags: [%+d] [%+d] [% d] [% d] [%+5d] [% 05d]\n", 42, -42, 42, -42, 7, 7);
    printf("alt: [%#x] [%#X] [%#o] [%#x] [%#o] [%#10x] [%#010x]\n", 255u, 255u, 8u, 0u, 0u, 255u, 255u);
    printf("precision: [%.3d] [%.3d] [%.0d] [%5.3d] [%-6.3d] [%.5x] [%8.5o]\n", 7, -7, 0, 42, 42, 0xabu, 8u);
    printf("star: [%*d] [%-*d] [%*d] [%.*d] [%*.*d]\n", 6, 42, 6, 42, -6, 42, 4, 42, 7, 4, -42);
    printf("short: [%hd] [%hu] [%hx] [%hd]\n", (short)-1234, (unsigned short)65535, (unsigned short)0xbeef,
           (short)32767);
    printf("long: [%ld] [%lu] [%lx] [%li]\n", -123456789L, 4000000000UL, 0x7fffffffUL, 2147483647L);
    printf("mixed: [%d|%s|%x|%c|%u]\n", -1, "str", 0x1fu, '!', 17u);
    n = printf("count me\n");
    CHECK(n == 9);
    printf("printf returned %d\n", n);
    {
        char buf[64];
        n = sprintf(buf, "%08X-%-4d|%+.2d", 0xabcu, 5, 3);
        CHECK(n == 17);
        CHECK(strcmp(buf, "00000ABC-5   |+03") == 0);
        printf("sprintf: %s (%d)\n", buf, n);
    }
    {
        uint32_t i, sum = 0;
        char buf[32];
        for (i = 0; i < 2000; i++) {
            int len = sprintf(buf, "%d:%x:%o", (int)(i * 7919u) - 5000, (unsigned)(i * 2654435761u), (unsigned)i);
            unsigned k;
            for (k = 0; k < (unsigned)len; k++)
                sum = sum * 31u + (unsigned char)buf[k];
        }
        printf("2000 sprintf checksum = 0x%08x\n", (unsigned)sum);
    }
    return check_done("printf_int");
}
