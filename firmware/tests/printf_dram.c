/* printf_dram: an everyday program with everything (code, data, newlib) in
 * external DRAM (dram.ld): printf of integers, strings and doubles. */
#define CHECK_USE_STDIO
#include "check.h"

static const char *const planets[] = {"Mercury", "Venus", "Earth", "Mars", "Jupiter", "Saturn", "Uranus", "Neptune"};
static const double au[] = {0.387, 0.723, 1.0, 1.524, 5.203, 9.537, 19.191, 30.069};

int main(void)
{
    int i;
    double total = 0.0;
    printf("%-8s %8s %10s\n", "planet", "AU", "years");
    for (i = 0; i < 8; i++) {
        /* Kepler: T^2 = a^3; sqrt by Newton to keep libm out */
        double a3 = au[i] * au[i] * au[i], t = a3 > 1 ? a3 : 1.0;
        int k;
        for (k = 0; k < 40; k++)
            t = 0.5 * (t + a3 / t);
        total += t;
        printf("%-8s %8.3f %10.3f\n", planets[i], au[i], t);
    }
    printf("sum of periods %.4f years\n", total);
    CHECK(total > 294.0 && total < 294.1);
    return check_done("printf_dram");
}
