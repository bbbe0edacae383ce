# rules.mk -- shared by the example Makefiles.
#
#   make            the host program, with the system cc, against the
#                   libe-hal that `make -C host install [PREFIX=DIR]` put
#                   in DIR: EHAL=DIR names it; by default the first of
#                   build/ehal in the repository (install's default),
#                   $HOME/.local, /usr/local and /usr that has
#                   include/e-hal.h
#   make device     the device ELF (needs epiphany-elf-gcc; the ELFs are
#                   committed, so only after changing the device source)
#   make run        builds and runs the host program
EPSIM ?= $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../..)
EHAL_PLACES := $(EPSIM)/build/ehal $(HOME)/.local /usr/local /usr
EHAL ?= $(firstword $(foreach d,$(EHAL_PLACES),$(if $(wildcard $(d)/include/e-hal.h),$(d))) $(EPSIM)/build/ehal)
CROSS ?= epiphany-elf-gcc
CFLAGS ?= -O2 -Wall -Wextra
DEV_CFLAGS := -O2 -std=gnu11 -Wall -Wextra --param=min-pagesize=0 -I$(EPSIM)/examples/common
DEV_LDFLAGS := -T $(EPSIM)/firmware/ldscripts/internal.ld -B$(EPSIM)/firmware/sysroot/lib/ \
	-L$(EPSIM)/firmware/sysroot/lib -Wl,-S -Wl,-z,max-page-size=0x10

export LC_ALL := C

$(HOST): main.c $(wildcard *.h)
	@test -f $(EHAL)/include/e-hal.h || { echo "no libe-hal in $(EHAL) (nor in $(EHAL_PLACES)): run 'make -C $(EPSIM)/host install' (PREFIX=DIR for elsewhere, then EHAL=DIR here)" >&2; exit 1; }
	$(CC) $(CFLAGS) -I$(EHAL)/include main.c -o $@ -L$(EHAL)/lib -le-hal -Wl,-rpath,$(EHAL)/lib

device: $(DEVICE)

%.elf: %.c $(wildcard *.h) $(EPSIM)/examples/common/edev.h
	$(CROSS) $(DEV_CFLAGS) $< -o $@ $(DEV_LDFLAGS)

run: $(HOST)
	./$(HOST)

clean:
	rm -f $(HOST)

.PHONY: device run clean
