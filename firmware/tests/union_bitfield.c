/* union_bitfield: unions for type punning (float/int, bytes of a word:
 * little-endian on both sides), bitfields -- unsigned and signed, packing,
 * read-modify-write of neighbouring fields, overflow truncation. */
#define CHECK_USE_STDIO
#include "check.h"

union word {
    uint32_t u;
    int32_t s;
    float f;
    uint8_t b[4];
    uint16_t h[2];
};

struct flags {
    unsigned ready : 1;
    unsigned mode : 3;
    unsigned count : 12;
    signed delta : 5;
    unsigned top : 11;
};

struct packet {
    uint32_t kind : 4;
    uint32_t len : 12;
    uint32_t seq : 16;
};

int main(void)
{
    union word w;
    struct flags f;
    struct packet p;
    union {
        struct packet p;
        uint32_t raw;
    } pu;
    int i;

    w.f = 1.0f;
    CHECK(w.u == 0x3f800000u);
    printf("1.0f bits 0x%08x\n", (unsigned)w.u);
    w.f = -2.5f;
    printf("-2.5f bits 0x%08x\n", (unsigned)w.u);
    w.u = 0x11223344u;
    CHECK(w.b[0] == 0x44 && w.b[3] == 0x11 && w.h[0] == 0x3344 && w.h[1] == 0x1122);
    printf("bytes %02x %02x %02x %02x halves %04x %04x\n", w.b[0], w.b[1], w.b[2], w.b[3], w.h[0], w.h[1]);
    w.b[1] = 0xff;
    CHECK(w.u == 0x1122ff44u);
    w.u = 0xfffffffeu;
    CHECK(w.s == -2);

    memset(&f, 0, sizeof f);
    f.ready = 1;
    f.mode = 5;
    f.count = 4095;
    f.delta = -16;
    f.top = 2047;
    CHECK(f.ready == 1 && f.mode == 5 && f.count == 4095 && f.delta == -16 && f.top == 2047);
    printf("flags: ready %u mode %u count %u delta %d top %u\n", f.ready, f.mode, f.count, f.delta, f.top);
    f.count++;      /* wraps to 0 */
    f.mode += 4;    /* 9 -> 1 */
    f.delta += 31;  /* -16 + 31 = 15 */
    CHECK(f.count == 0 && f.mode == 1 && f.delta == 15 && f.ready == 1 && f.top == 2047);
    printf("after wrap: ready %u mode %u count %u delta %d top %u\n", f.ready, f.mode, f.count, f.delta, f.top);

    p.kind = 0xa;
    p.len = 0x123;
    p.seq = 0xbeef;
    pu.p = p;
    CHECK(pu.raw == 0xbeef123au);
    printf("packet raw 0x%08x\n", (unsigned)pu.raw);
    pu.raw = 0x12345678u;
    printf("decoded kind %x len %x seq %x\n", (unsigned)pu.p.kind, (unsigned)pu.p.len, (unsigned)pu.p.seq);
    CHECK(pu.p.kind == 8 && pu.p.len == 0x567 && pu.p.seq == 0x1234);

    {
        uint32_t h = 0;
        for (i = 0; i < 1000; i++) {
            f.count = (unsigned)(f.count + 7u * (unsigned)i);
            f.delta = (signed)((int)f.delta ^ i) % 16;
            f.mode = (unsigned)i;
            h = h * 31u + f.count + (uint32_t)f.delta * 5u + f.mode * 11u + f.ready + f.top;
        }
        printf("bitfield loop hash 0x%08x\n", (unsigned)h);
    }
    return check_done("union_bitfield");
}
