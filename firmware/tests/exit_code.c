/* exit_code: exit(42) from deep inside the call stack.  atexit handlers run
 * in reverse order of registration, stdio buffers are flushed by exit.
 * Expected exit status: 42. */
#define CHECK_USE_STDIO
#include <stdlib.h>
#include "check.h"

static void first(void) { printf("atexit: registered first, runs last\n"); }
static void second(void) { printf("atexit: registered second, runs second\n"); }
static void third(void) { printf("atexit: registered third, runs first\n"); }

static void deep(int n)
{
    if (n == 0) {
        printf("calling exit(42) at depth 10\n");
        exit(42);
    }
    if (n > 0)
        deep(n - 1);
    printf("not reached\n");
}

int main(void)
{
    CHECK(atexit(first) == 0);
    CHECK(atexit(second) == 0);
    CHECK(atexit(third) == 0);
    printf("buffered line without a flush\n");
    check_done("exit_code");
    printf("unflushed text before exit\n");
    deep(10);
    return 0;
}
