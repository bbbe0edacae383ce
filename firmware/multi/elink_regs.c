/* elink_regs: the chip's eLink registers (E_REG_LINKCFG ... E_REG_LINKDEBUG,
 * 0xF0300-0xF0328 of the node that holds each link's: north (32,10),
 * south (35,10), east (34,11), west (34,8); mesh/MESH.md, "The chip's
 * eLink registers"). Reads their reset values, then sets loopback mode in
 * the north and south links' LINKDEBUG (bit 14) the way
 * test/e-loopback-test does, CONFIG's CTRLMODE set to "north" around each
 * write, and reads every register back.
 *
 * Built with -DLOOP (elink_loopback.elf) the program then writes to
 * 0x40804000, north of the chip, as that test does: the north link loops
 * it back to this core's own SRAM at 0x4000 (mesh/MESH.md, "Loopback"),
 * where it is waited for; then it takes the north link out of loopback
 * mode and writes there again: the write leaves through an edge where
 * nothing is attached and the run stops with a fault. */
#include "multi.h"

#define WORD(a) (*(volatile unsigned *)(a))
#define NORTH 0x80a00000u
#define SOUTH 0x8ca00000u
#define EAST 0x88b00000u
#define WEST 0x88800000u

static const unsigned offsets[6] = {0xf0300, 0xf0304, 0xf0308, 0xf030c, 0xf0318, 0xf0328};

static void set_ctrlmode(unsigned mode)
{
    unsigned cfg;
    __asm__ volatile("movfs %0, config" : "=r"(cfg));
    cfg = (cfg & ~0xf000u) | mode << 12;
    __asm__ volatile("movts config, %0" : : "r"(cfg));
}

static unsigned sum_of(unsigned node)
{
    unsigned sum = 0;
    for (int i = 0; i < 6; i++)
        sum += WORD(node | offsets[i]);
    return sum;
}

int main(void)
{
    int bad = 0;
    say_num("reset values, sum over 4 links: ",
            sum_of(NORTH) + sum_of(SOUTH) + sum_of(EAST) + sum_of(WEST));

    set_ctrlmode(1);
    WORD(NORTH | 0xf0328) = 0x4000;
    set_ctrlmode(0);
    set_ctrlmode(1);
    WORD(SOUTH | 0xf0328) = 0x4000;
    set_ctrlmode(0);
    say_num("north LINKDEBUG: ", WORD(NORTH | 0xf0328));
    say_num("south LINKDEBUG: ", WORD(SOUTH | 0xf0328));
    bad |= WORD(NORTH | 0xf0328) != 0x4000 || WORD(SOUTH | 0xf0328) != 0x4000;

    /* Each register of the east link keeps what is written to it. */
    for (int i = 0; i < 6; i++)
        WORD(EAST | offsets[i]) = 0x100 + i;
    for (int i = 0; i < 6; i++)
        bad |= WORD(EAST | offsets[i]) != 0x100u + i;
    say_num("east link registers, sum: ", sum_of(EAST));
    /* The west link's are its own. */
    say_num("west link registers, sum: ", sum_of(WEST));
    bad |= sum_of(WEST) != 0;

    say(bad ? "elink registers: FAIL\n" : "elink registers: ok\n");
#ifdef LOOP
    WORD(0x40804000) = 0x55555555;
    int polls = 0;
    while (WORD(0x4000) != 0x55555555 && polls < 100000)
        polls++;
    say_num("looped back to 0x4000: ", WORD(0x4000));
    WORD(NORTH | 0xf0328) = 0;
    say_num("north LINKDEBUG: ", WORD(NORTH | 0xf0328));
    WORD(0x40804004) = 0xaaaaaaaa;
    say("not reached\n");
#endif
    return bad;
}
