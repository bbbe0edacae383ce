/* int_sram: integer algorithms with a tiny formatter (no stdio), all in SRAM
 * (internal.ld): gcd, primes, Collatz, integer square root, digit sums. */
#include "check.h"

static uint32_t gcd(uint32_t a, uint32_t b)
{
    while (b != 0) {
        uint32_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static int is_prime(uint32_t n)
{
    uint32_t d;
    if (n < 2)
        return 0;
    for (d = 2; d * d <= n; d++)
        if (n % d == 0)
            return 0;
    return 1;
}

static uint32_t collatz_steps(uint32_t n)
{
    uint32_t steps = 0;
    while (n != 1) {
        n = (n & 1) ? 3 * n + 1 : n / 2;
        steps++;
    }
    return steps;
}

static uint32_t isqrt(uint32_t n)
{
    uint32_t res = 0, bit = 1u << 30;
    while (bit > n)
        bit >>= 2;
    while (bit != 0) {
        if (n >= res + bit) {
            n -= res + bit;
            res = (res >> 1) + bit;
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    return res;
}

int main(void)
{
    uint32_t i, count = 0, last = 0, best = 0, best_n = 0, dsum = 0;

    CHECK_EQ_U32(gcd(1071, 462), 21);
    CHECK_EQ_U32(gcd(17, 5), 1);
    CHECK_EQ_U32(gcd(0, 9), 9);
    out_str("gcd(1071,462) = ");
    out_u32(gcd(1071, 462));
    out_nl();

    for (i = 0; i < 2000; i++)
        if (is_prime(i)) {
            count++;
            last = i;
        }
    CHECK_EQ_U32(count, 303);
    CHECK_EQ_U32(last, 1999);
    out_str("primes below 2000: ");
    out_u32(count);
    out_str(", largest ");
    out_u32(last);
    out_nl();

    for (i = 1; i < 1000; i++) {
        uint32_t s = collatz_steps(i);
        if (s > best) {
            best = s;
            best_n = i;
        }
    }
    CHECK_EQ_U32(best_n, 871);
    CHECK_EQ_U32(best, 178);
    out_str("longest Collatz chain below 1000: ");
    out_u32(best_n);
    out_str(" (");
    out_u32(best);
    out_str(" steps)\n");

    CHECK_EQ_U32(isqrt(0), 0);
    CHECK_EQ_U32(isqrt(99), 9);
    CHECK_EQ_U32(isqrt(100), 10);
    CHECK_EQ_U32(isqrt(4294967295u), 65535);
    out_str("isqrt(2^32-1) = ");
    out_u32(isqrt(4294967295u));
    out_nl();

    for (i = 0; i < 10000; i++) {
        uint32_t n = i;
        while (n) {
            dsum += n % 10;
            n /= 10;
        }
    }
    CHECK_EQ_U32(dsum, 180000);
    out_str("digit sum 0..9999 = ");
    out_u32(dsum);
    out_nl();

    out_str("signed: ");
    out_i32(-2147483647 - 1);
    out_str(" ");
    out_hex32(0xdeadbeefu);
    out_str(" ");
    out_i64(-1234567890123LL);
    out_str(" ");
    out_hex64(0x0123456789abcdefULL);
    out_nl();
    return check_done("int_sram");
}
