#!/bin/sh
# Rebuilds the loader's sample ELFs from their sources. The ELFs are
# committed, so tests (and CI) do not need the Epiphany toolchain; run this
# after changing a source, then review the snapshots (`cargo insta review`).
# The build is reproducible: the same toolchain gives the same bytes.
#
#   local.elf     code (r-x) and data + .bss (rw-) in core-local SRAM
#   external.elf  code in SRAM; a function (r-x) and data + .bss (rw-) in
#                 external DRAM at 0x8e000000
#   onchip.elf    code in SRAM; a mailbox (rw-, with zero fill) at the
#                 on-chip global address 0x80904000, core (32,9)
#
# Broken files for the error tests are made in the tests by patching these.
#
# Needs epiphany-elf-gcc on PATH (default: /opt/epiphany/bin).
set -eu
cd "$(dirname "$0")"
PATH=/opt/epiphany/bin:$PATH
CC=epiphany-elf-gcc
CFLAGS="-O2 -ffreestanding -fno-common"
# -nostdlib: no crt0, newlib or libgcc; start.S is the whole run-time.
# A small page size keeps the files small (no 32 KB alignment padding).
LDFLAGS="-nostdlib -nostartfiles -Wl,-z,max-page-size=8 -Wl,-z,common-page-size=8"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$CC $CFLAGS -c -o "$tmp/start.o" start.S
for name in local external onchip; do
	$CC $CFLAGS -c -o "$tmp/$name.o" "$name.c"
	$CC $LDFLAGS -T "$name.ld" -o "$name.elf" "$tmp/start.o" "$tmp/$name.o"
	echo "built $name.elf"
done
