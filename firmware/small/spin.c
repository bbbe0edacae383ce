/* Never finishes: for --max-cycles. */
int main(void) {
    for (;;)
        __asm__ volatile("nop");
}
