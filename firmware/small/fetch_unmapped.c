/* Jumps to an address no memory answers. */
int main(void) {
    void (*f)(void) = (void (*)(void))0x40000000;
    f();
    return 0;
}
