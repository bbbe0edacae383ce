/* hello_dev: every core of the group greets, naming itself from the
 * workgroup configuration the loader wrote at 0x28. */
#include "edev.h"

int main(void)
{
    eprintf("Hello World from core 0x%x, (%u,%u) of a %ux%u group\n", coreid(),
            GROUP_CONFIG->core_row, GROUP_CONFIG->core_col, GROUP_CONFIG->group_rows,
            GROUP_CONFIG->group_cols);
    return 0;
}
