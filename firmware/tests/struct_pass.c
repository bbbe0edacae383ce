/* struct_pass: structures passed and returned by value -- sizes 1, 4, 8, 12,
 * 16 and 64 bytes, with chars, shorts, doubles and arrays inside, nested
 * structs, struct assignment and copies, and arrays of structs. */
#define CHECK_USE_STDIO
#include "check.h"

struct s1 { uint8_t c; };
struct s4 { int16_t a; uint8_t b, c; };
struct s8 { int32_t x, y; };
struct s12 { int32_t x, y, z; };
struct sd { double d; int32_t tag; };
struct big { int32_t v[16]; };
struct nested { struct s8 pos; struct s4 meta; char name[7]; };

static struct s1 mk1(uint8_t c) { struct s1 s = {c}; return s; }
static struct s4 mk4(int16_t a, uint8_t b, uint8_t c) { struct s4 s = {a, b, c}; return s; }
static struct s8 add8(struct s8 p, struct s8 q) { struct s8 r = {p.x + q.x, p.y + q.y}; return r; }
static struct s12 cross(struct s12 a, struct s12 b)
{
    struct s12 r = {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
    return r;
}
static struct sd scale(struct sd s, double f) { s.d *= f; s.tag++; return s; }
static struct big reverse(struct big b)
{
    struct big r;
    int i;
    for (i = 0; i < 16; i++)
        r.v[i] = b.v[15 - i];
    return r;
}
static int32_t sum_big(struct big b)
{
    int32_t s = 0;
    int i;
    for (i = 0; i < 16; i++)
        s += b.v[i] * (i + 1);
    b.v[0] = 999999; /* modifies the callee's copy only */
    return s;
}
static struct nested move(struct nested n, int32_t dx, int32_t dy)
{
    n.pos.x += dx;
    n.pos.y += dy;
    n.meta.a--;
    n.name[0] = (char)(n.name[0] - 'a' + 'A');
    return n;
}
/* mixed with scalars so the struct ends up in registers or on the stack */
static int32_t mixed(int32_t a, struct s8 p, int32_t b, struct s12 q, int32_t c, struct s4 r)
{
    return a + 10 * p.x + 100 * p.y + 1000 * b + q.x - q.y + q.z + c * r.a + r.b - r.c;
}

int main(void)
{
    struct s1 one = mk1(200);
    struct s4 four = mk4(-300, 7, 250);
    struct s8 p = {3, -4}, q = {10, 20}, r = add8(p, q);
    struct s12 a = {1, 2, 3}, b = {4, 5, 6}, c = cross(a, b);
    struct sd d = {1.5, 41};
    struct big big;
    struct nested n = {{1, 2}, {100, 1, 2}, "robot"}, m;
    int i;

    CHECK(one.c == 200 && four.a == -300 && four.b == 7 && four.c == 250);
    printf("s1 %u, s4 %d %u %u\n", one.c, four.a, four.b, four.c);
    CHECK(r.x == 13 && r.y == 16);
    printf("s8 add = (%d, %d)\n", (int)r.x, (int)r.y);
    CHECK(c.x == -3 && c.y == 6 && c.z == -3);
    printf("s12 cross = (%d, %d, %d)\n", (int)c.x, (int)c.y, (int)c.z);
    d = scale(scale(d, 2.0), -0.25);
    CHECK(d.d == -0.75 && d.tag == 43);
    printf("sd = %g tag %d\n", d.d, (int)d.tag);

    for (i = 0; i < 16; i++)
        big.v[i] = i * i - 7;
    {
        struct big rev = reverse(big);
        int32_t s1 = sum_big(big), s2 = sum_big(rev);
        CHECK(big.v[0] == -7 && rev.v[0] == 218 && rev.v[15] == -7);
        printf("big sums %d %d\n", (int)s1, (int)s2);
    }
    m = move(n, 5, -6);
    CHECK(n.pos.x == 1 && m.pos.x == 6 && m.pos.y == -4 && m.meta.a == 99 && strcmp(m.name, "Robot") == 0 &&
          strcmp(n.name, "robot") == 0);
    printf("nested: %s at (%d,%d) meta %d; original %s at (%d,%d)\n", m.name, (int)m.pos.x, (int)m.pos.y,
           m.meta.a, n.name, (int)n.pos.x, (int)n.pos.y);
    {
        int32_t v = mixed(1, p, 2, a, 3, four);
        CHECK(v == 1 + 30 - 400 + 2000 + 1 - 2 + 3 - 900 + 7 - 250);
        printf("mixed = %d\n", (int)v);
    }
    {
        struct s8 arr[10];
        struct s8 acc = {0, 0};
        for (i = 0; i < 10; i++) {
            arr[i].x = i;
            arr[i].y = -2 * i;
        }
        for (i = 0; i < 10; i++)
            acc = add8(acc, arr[i]);
        CHECK(acc.x == 45 && acc.y == -90);
        printf("array of structs sum (%d, %d)\n", (int)acc.x, (int)acc.y);
        struct s8 copy = arr[9];
        arr[9].x = 0;
        CHECK(copy.x == 9);
    }
    return check_done("struct_pass");
}
