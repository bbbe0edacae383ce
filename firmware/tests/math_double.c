/* math_double: libm in double precision (newlib's fdlibm vs glibc: printed
 * to 10 significant digits, where they agree) -- sqrt (exact in both),
 * sin, cos, tan, atan, atan2, exp, log, log10, pow, floor, ceil, fabs, fmod,
 * hypot, and some identities. */
#define CHECK_USE_STDIO
#include <math.h>
#include "check.h"

int main(void)
{
    static const double x[] = {0.0, 0.5, 1.0, 2.0, 3.14159265358979, 10.0, 100.0, 0.001, 12345.678};
    unsigned i;
    for (i = 0; i < sizeof x / sizeof x[0]; i++) {
        double v = x[i];
        printf("x=%-10g sqrt %.10g sin %.10g cos %.10g atan %.10g exp %.10g\n", v, sqrt(v), sin(v), cos(v),
               atan(v), v < 700 ? exp(v / 10) : 0.0);
        if (v > 0)
            printf("            log %.10g log10 %.10g pow(v,1.5) %.10g\n", log(v), log10(v), pow(v, 1.5));
    }
    CHECK(sqrt(2.0) * sqrt(2.0) - 2.0 < 1e-15);
    CHECK(sqrt(144.0) == 12.0 && sqrt(0.25) == 0.5);
    CHECK(floor(-2.5) == -3.0 && ceil(-2.5) == -2.0 && floor(2.5) == 2.0 && ceil(2.0) == 2.0);
    CHECK(fabs(-3.5) == 3.5 && fmod(10.5, 3.0) == 1.5 && fmod(-10.5, 3.0) == -1.5);
    CHECK(pow(2.0, 10.0) == 1024.0 && pow(2.0, -2.0) == 0.25);
    CHECK(fabs(exp(log(10.0)) - 10.0) < 1e-14);
    CHECK(fabs(atan2(1.0, 1.0) * 4 - 3.141592653589793) < 1e-15);
    printf("floor/ceil(-2.5) %g %g, fmod(10.5,3) %g fmod(-10.5,3) %g, hypot(3,4) %g\n", floor(-2.5), ceil(-2.5),
           fmod(10.5, 3.0), fmod(-10.5, 3.0), hypot(3.0, 4.0));
    printf("atan2 quadrants: %.10f %.10f %.10f %.10f\n", atan2(1.0, 1.0), atan2(1.0, -1.0), atan2(-1.0, -1.0),
           atan2(-1.0, 1.0));
    printf("pi from atan: %.15f, e = %.15f\n", 4.0 * atan(1.0), exp(1.0));
    printf("tan(0.5) %.10f, sinh(1) %.10f, cosh(1) %.10f, tanh(0.5) %.10f\n", tan(0.5), sinh(1.0), cosh(1.0),
           tanh(0.5));
    printf("sqrt(-1) is nan: %d, log(0) = %g, exp(1000) = %g\n", isnan(sqrt(-1.0)) != 0, log(0.0), exp(1000.0));
    {
        /* sin^2 + cos^2 over many angles */
        double worst = 0.0, a;
        for (a = -10.0; a < 10.0; a += 0.0137) {
            double e = fabs(sin(a) * sin(a) + cos(a) * cos(a) - 1.0);
            if (e > worst)
                worst = e;
        }
        CHECK(worst < 1e-15);
        printf("max |sin^2+cos^2-1| below 1e-15: %s\n", worst < 1e-15 ? "yes" : "no");
    }
    return check_done("math_double");
}
