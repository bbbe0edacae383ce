/* Sample for the loader tests: code in local SRAM plus a mailbox placed by
 * global address in the SRAM of core (32,9), i.e. 0x80900000 + 0x4000. */

__attribute__((section(".core_32_9.data"))) volatile unsigned mailbox[4] = {
	0xcafef00d, 1, 2, 3
};
__attribute__((section(".core_32_9.bss"))) volatile unsigned inbox[8];

int main(void)
{
	mailbox[1] = inbox[0] + 1;
	return 0;
}
