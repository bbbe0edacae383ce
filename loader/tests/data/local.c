/* Sample for the loader tests: everything in core-local SRAM. */

int counter = 5;     /* .data: file bytes */
int table[16];       /* .bss: zero fill */
const char greeting[] = "epsim";   /* .rodata */

static __attribute__((noinline)) int helper(int x)
{
	return x * 3 + counter;
}

int main(void)
{
	for (int i = 0; i < 16; i++)
		table[i] = helper(i) + greeting[i & 3];
	return table[3];
}
