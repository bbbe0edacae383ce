/* printf_float: floating-point conversions of newlib's printf -- %e %E %f %g
 * %G with widths, precisions and flags, values chosen so that no decimal
 * rounding tie occurs (newlib's dtoa and glibc then print the same digits). */
#define CHECK_USE_STDIO
#include <math.h>
#include "check.h"

int main(void)
{
    static const double v[] = {0.0, 1.0, -1.0, 3.14159265358979, -2.718281828459045, 1234567.891,
                                0.000123456789, 1e-10, 6.02214076e23, 1.7976931348623157e308,
                                2.2250738585072014e-308, 100000.0, 1000000.0, 0.0001, 0.00001, 123.456};
    unsigned i;
    for (i = 0; i < sizeof v / sizeof v[0]; i++)
        printf("%%e [%e] %%f [%f] %%g [%g] %%E [%E] %%G [%G]\n", v[i], v[i] > 1e30 ? 0.0 : v[i], v[i], v[i], v[i]);
    printf("precision: [%.0e] [%.1e] [%.10e] [%.0f] [%.1f] [%.10f] [%.0g] [%.1g] [%.10g] [%.17g]\n",
           3.14159265358979, 3.14159265358979, 3.14159265358979, 3.14159265358979, 3.14159265358979,
           3.14159265358979, 3.14159265358979, 3.14159265358979, 3.14159265358979, 3.14159265358979);
    printf("width: [%12.4f] [%-12.4f] [%012.4f] [%+.3f] [% .3f] [%+12.3e] [%-12.3e|]\n", -3.14159, -3.14159,
           -3.14159, 2.71828, 2.71828, 31415.9265, 31415.9265);
    printf("alt: [%#.0f] [%#.0e] [%#g] [%#.3g] [%g] [%.3g]\n", 3.0, 3.0, 1.5, 1.0, 1.5, 1.0);
    printf("star: [%*.*f] [%-*.*e]\n", 10, 3, 2.5e-3, 12, 2, -6.25e7);
    printf("inf: [%f] [%e] [%g] [%E] [%5.1f]\n", INFINITY, -INFINITY, INFINITY, (double)-INFINITY, INFINITY);
    printf("float args: [%f] [%.3e] [%g]\n", 0.1f, 1.0f / 3.0f, 16777216.0f);
    printf("small: [%g] [%g] [%e] [%.3g]\n", 5e-324, 2.5e-308, 1.5e-300, 9.999e-5);
    printf("big: [%.0f] [%f] [%.3e]\n", 1e22, 123456789012345678.0, 1e300);
    {
        char buf[80];
        int n = snprintf(buf, sizeof buf, "%.4f|%10.2e|%-8g|", 1.0 / 7.0, 12345.678, 0.5);
        CHECK(strcmp(buf, "0.1429|  1.23e+04|0.5     |") == 0);
        printf("snprintf: %s (%d)\n", buf, n);
    }
    {
        uint32_t sum = 0;
        char buf[48];
        int i;
        double x = 0.001;
        for (i = 0; i < 300; i++) {
            int len = sprintf(buf, "%.6e %.5f %g", x, x, -x);
            int k;
            for (k = 0; k < len; k++)
                sum = sum * 31u + (unsigned char)buf[k];
            x = x * 1.0731 + 0.37;
        }
        printf("300 float sprintf checksum = 0x%08x\n", (unsigned)sum);
    }
    return check_done("printf_float");
}
