/* Stores to core (16,0), which is not on the E16G301: an unmapped address. */
int main(void) {
    *(volatile int *)0x40000000 = 1;
    return 0;
}
