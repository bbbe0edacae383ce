/* switch_sparse: sparse case values (GCC emits a compare tree, not a table),
 * large and negative case labels, and switch on a 64-bit value. */
#define CHECK_USE_STDIO
#include "check.h"

static int sparse(int32_t v)
{
    switch (v) {
    case -1000000: return 1;
    case -5: return 2;
    case 0: return 3;
    case 7: return 4;
    case 100: return 5;
    case 1023: return 6;
    case 4096: return 7;
    case 65535: return 8;
    case 100000: return 9;
    case 2147483647: return 10;
    case -2147483647 - 1: return 11;
    default: return 0;
    }
}

static const char *http(int code)
{
    switch (code) {
    case 200: return "OK";
    case 201: return "Created";
    case 301: return "Moved Permanently";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 418: return "I'm a teapot";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Unknown";
    }
}

static int wide(uint64_t v)
{
    switch (v) {
    case 0x100000000ULL: return 1;
    case 0xffffffffULL: return 2;
    case 0x8000000000000000ULL: return 3;
    case 42: return 4;
    default: return 0;
    }
}

int main(void)
{
    static const int32_t probe[] = {-1000000, -5, 0, 7, 100, 1023, 4096, 65535, 100000, 2147483647,
                                    -2147483647 - 1, 1, -4, 8, 1024, 99999, 4095};
    static const int codes[] = {200, 201, 202, 301, 304, 400, 404, 418, 500, 503, 999};
    unsigned i;
    uint32_t h = 0;
    printf("sparse:");
    for (i = 0; i < sizeof probe / sizeof probe[0]; i++) {
        printf(" %d", sparse(probe[i]));
        h = h * 13u + (uint32_t)sparse(probe[i]);
    }
    printf("\n");
    CHECK(sparse(2147483647) == 10 && sparse(4095) == 0);
    for (i = 0; i < sizeof codes / sizeof codes[0]; i++)
        printf("%d %s\n", codes[i], http(codes[i]));
    printf("wide: %d %d %d %d %d\n", wide(0x100000000ULL), wide(0xffffffffULL), wide(0x8000000000000000ULL),
           wide(42), wide(43));
    CHECK(wide(0x100000000ULL) == 1 && wide(0x8000000000000000ULL) == 3 && wide(0) == 0);
    /* scan a range: how many values in [-10, 70000) hit a case */
    {
        int32_t v, hits = 0;
        for (v = -10; v < 70000; v++)
            hits += sparse(v) != 0;
        CHECK(hits == 7);
        printf("hits in [-10, 70000): %d, hash 0x%08x\n", (int)hits, (unsigned)h);
    }
    return check_done("switch_sparse");
}
