/* Linked with the toolchain's default script (no -T): everything at 0x80000000. */
#include <stdio.h>
int main(){printf("hi %d\n",42);return 3;}
