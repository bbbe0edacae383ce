/* argv_check: what main receives.  This toolchain's crt0 (upstream libgloss)
 * calls main(0, NULL, NULL): no argument passing at all (no SYS_argc/argn
 * traps).  On a host argc >= 1.  The program prints only what both agree on,
 * and checks that argv is well formed either way. */
#define CHECK_USE_STDIO
#include "check.h"

int main(int argc, char **argv)
{
    int user_args = argc > 1 ? argc - 1 : 0;
    int well_formed;
    if (argc == 0)
        well_formed = argv == NULL || argv[0] == NULL;
    else
        well_formed = argc > 0 && argv != NULL && argv[argc] == NULL;
    CHECK(well_formed);
    CHECK(argc >= 0);
    printf("argv well formed: %s\n", well_formed ? "yes" : "no");
    printf("user arguments: %d\n", user_args);
    return check_done("argv_check");
}
