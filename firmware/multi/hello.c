/* hello: every core of the group says who it is. */
#include "multi.h"

int main(void)
{
    say_num("hello from rank ", my_rank());
    return 0;
}
