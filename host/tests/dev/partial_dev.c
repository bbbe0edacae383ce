/* partial_dev: prints a line without its newline, then spins for ever, so
 * that no run ends before the host is done with the chip: the host must
 * write the line out then (host/tests/ehal.rs, c/partial.c). */
#include "edev.h"

int main(void)
{
    eprintf("unfinished line of core %u,%u", GROUP_CONFIG->core_row, GROUP_CONFIG->core_col);
    for (;;)
        __asm__ volatile("nop");
}
