/* Sample for the loader tests: code in SRAM, data and one function in
 * external DRAM (the Parallella window at 0x8e000000). */

__attribute__((section(".dram.data"))) int shared[4] = { 1, 2, 3, 4 };
__attribute__((section(".dram.bss"))) int scratch[1024];

__attribute__((section(".dram.text"), long_call, noinline)) int dram_sum(void)
{
	int s = 0;
	for (int i = 0; i < 4; i++)
		s += shared[i];
	return s;
}

int main(void)
{
	scratch[0] = dram_sum();
	return scratch[0];
}
