/* argv_check: what main receives.  The harness runs this program with the
 * arguments in argv_check.args (one per line; the manifest's args column),
 * on the host and on the simulator, where our crt0 (sysroot/lib/crt0.o)
 * asks the host for them (SYS_argc/SYS_argnlen/SYS_argn) and builds argv
 * on the stack.  It prints argc and every argument but argv[0] (the
 * program's path, which differs: only checked to name this program),
 * and checks that argv is well formed: NULL-terminated, no two strings
 * overlapping each other or the pointer array, the strings writable, and
 * all of it intact after main's frame and a deep call have used the
 * stack below.  argc 0 (crt0's answer when the host has no arguments to
 * give) is well formed with argv NULL or argv[0] NULL. */
#define CHECK_USE_STDIO
#include "check.h"

/* a rotate-and-xor hash of every byte (no multiply: see fpmode-check in
 * ../README.md) */
static uint32_t sum_args(int argc, char **argv)
{
    uint32_t h = 0x9e3779b9u;
    int i;
    for (i = 0; i < argc; i++) {
        const unsigned char *p = (const unsigned char *)argv[i];
        do
            h = ((h << 7) | (h >> 25)) ^ *p;
        while (*p++);
    }
    return h;
}

/* uses about 1 KB of stack below main's frame */
static __attribute__((noinline)) uint32_t deep(int n)
{
    volatile unsigned char buf[200];
    unsigned i;
    uint32_t s = 0;
    for (i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)(0x55 + n);
    if (n > 0)
        s = deep(n - 1);
    for (i = 0; i < sizeof buf; i++)
        s += buf[i];
    return s;
}

int main(int argc, char **argv)
{
    int i, j, well_formed = 1;
    uint32_t before;

    if (argc == 0) {
        well_formed = argv == NULL || argv[0] == NULL;
        CHECK(well_formed);
        printf("argc: 0\n");
        printf("argv well formed: %s\n", well_formed ? "yes" : "no");
        return check_done("argv_check");
    }
    CHECK(argc > 0);
    if (argc < 0 || argv == NULL || argv[argc] != NULL)
        well_formed = 0;
    for (i = 0; well_formed && i < argc; i++)
        if (argv[i] == NULL)
            well_formed = 0;
    CHECK(well_formed);
    if (!well_formed) {
        printf("argv well formed: no\n");
        return check_done("argv_check");
    }
    CHECK((uintptr_t)argv % sizeof(char *) == 0);
    printf("argc: %d\n", argc);
    printf("argv[0] names the program: %s\n", strstr(argv[0], "argv_check") ? "yes" : "no");
    CHECK(strstr(argv[0], "argv_check") != NULL);
    for (i = 1; i < argc; i++)
        printf("argv[%d]: \"%s\" (%u bytes)\n", i, argv[i], (unsigned)strlen(argv[i]));

    /* no string overlaps another or the pointer array */
    for (i = 0; i < argc; i++) {
        uintptr_t a = (uintptr_t)argv[i], a_end = a + strlen(argv[i]) + 1;
        uintptr_t v = (uintptr_t)argv, v_end = (uintptr_t)&argv[argc + 1];
        CHECK(a_end <= v || a >= v_end);
        for (j = i + 1; j < argc; j++) {
            uintptr_t b = (uintptr_t)argv[j], b_end = b + strlen(argv[j]) + 1;
            CHECK(a_end <= b || a >= b_end);
        }
    }

    /* the strings are the program's to modify */
    before = sum_args(argc, argv);
    for (i = 0; i < argc; i++) {
        size_t k, n = strlen(argv[i]);
        for (k = 0; k < n; k++)
            argv[i][k] = (char)~argv[i][k];
    }
    CHECK(sum_args(argc, argv) != before);
    for (i = 0; i < argc; i++) {
        size_t k, n = strlen(argv[i]);
        for (k = 0; k < n; k++)
            argv[i][k] = (char)~argv[i][k];
    }
    CHECK(sum_args(argc, argv) == before);

    /* a deep call does not reach them */
    CHECK(deep(4) == 200u * (0x55u + 0x56u + 0x57u + 0x58u + 0x59u));
    CHECK(sum_args(argc, argv) == before);
    CHECK(argv[argc] == NULL);

    printf("argv well formed: yes\n");
    return check_done("argv_check");
}
