/* switch_dense: a dense switch (GCC emits a jump table: "jr" through a table
 * in .rodata), a dense switch on characters, and fall-through cases. */
#define CHECK_USE_STDIO
#include "check.h"

static int dense(int v)
{
    switch (v) {
    case 0: return 17;
    case 1: return 4;
    case 2: return 99;
    case 3: return -3;
    case 4: return 1000;
    case 5: return 55;
    case 6: return 6;
    case 7: return -77;
    case 8: return 8080;
    case 9: return 9;
    case 10: return 1010;
    case 11: return -11;
    case 12: return 12345;
    case 13: return 13;
    case 14: return 1414;
    case 15: return -1515;
    default: return -1;
    }
}

static const char *digit_name(char c)
{
    switch (c) {
    case '0': return "zero";
    case '1': return "one";
    case '2': return "two";
    case '3': return "three";
    case '4': return "four";
    case '5': return "five";
    case '6': return "six";
    case '7': return "seven";
    case '8': return "eight";
    case '9': return "nine";
    default: return "?";
    }
}

static int fallthrough(int v)
{
    int r = 0;
    switch (v) {
    case 5: r += 5; /* fall through */
    case 4: r += 4; /* fall through */
    case 3: r += 3; /* fall through */
    case 2: r += 2; /* fall through */
    case 1: r += 1; break;
    case 0: r = 100; break;
    default: r = -1;
    }
    return r;
}

int main(void)
{
    int i;
    int32_t sum = 0;
    printf("dense:");
    for (i = -2; i < 18; i++) {
        printf(" %d", dense(i));
        sum += dense(i) * (i + 3);
    }
    printf("\nweighted sum %d\n", (int)sum);
    CHECK(dense(12) == 12345 && dense(16) == -1 && dense(-1) == -1);

    {
        const char *s = "2024-0913";
        printf("digits:");
        for (i = 0; s[i]; i++)
            printf(" %s", digit_name(s[i]));
        printf("\n");
    }
    printf("fallthrough:");
    for (i = -1; i < 7; i++)
        printf(" %d", fallthrough(i));
    printf("\n");
    CHECK(fallthrough(5) == 15 && fallthrough(0) == 100 && fallthrough(6) == -1);

    /* a switch inside a loop driving a small state machine (count words) */
    {
        const char *text = "  the quick  brown\tfox\njumps over the lazy dog ";
        int state = 0, words = 0;
        for (i = 0; text[i]; i++) {
            switch (state) {
            case 0:
                if (text[i] != ' ' && text[i] != '\t' && text[i] != '\n') {
                    state = 1;
                    words++;
                }
                break;
            case 1:
                if (text[i] == ' ' || text[i] == '\t' || text[i] == '\n')
                    state = 0;
                break;
            }
        }
        CHECK(words == 9);
        printf("words: %d\n", words);
    }
    return check_done("switch_dense");
}
