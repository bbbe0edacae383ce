/* math_float: single-precision libm (sqrtf, floorf, ceilf, fabsf, fmodf, sinf,
 * cosf, expf, logf, powf, atan2f), printed to 6 significant digits so that
 * newlib and glibc results within an ulp print the same; sqrtf is exact. */
#define CHECK_USE_STDIO
#include <math.h>
#include "check.h"

int main(void)
{
    static const float x[] = {0.25f, 0.5f, 1.0f, 2.0f, 3.0f, 10.0f, 42.5f};
    unsigned i;
    for (i = 0; i < sizeof x / sizeof x[0]; i++) {
        float v = x[i];
        printf("x=%-5g sqrtf %.7g sinf %.6g cosf %.6g expf %.6g logf %.6g powf %.6g\n", v, sqrtf(v), sinf(v),
               cosf(v), expf(v / 4), logf(v), powf(v, 0.75f));
    }
    CHECK(sqrtf(16.0f) == 4.0f && sqrtf(2.0f) == 1.41421354f);
    CHECK(floorf(-1.5f) == -2.0f && ceilf(-1.5f) == -1.0f && fabsf(-0.75f) == 0.75f);
    CHECK(fmodf(7.5f, 2.0f) == 1.5f);
    CHECK(fabsf(atan2f(1.0f, 1.0f) - 0.785398163f) < 1e-6f);
    printf("floorf %g ceilf %g fmodf %g atan2f %.6f\n", floorf(-1.5f), ceilf(-1.5f), fmodf(7.5f, 2.0f),
           atan2f(1.0f, 1.0f));
    {
        float s = 0.0f;
        int k;
        for (k = 1; k <= 100; k++)
            s += sqrtf((float)k);
        printf("sum of sqrtf(1..100) = %.6g\n", s);
    }
    return check_done("math_float");
}
