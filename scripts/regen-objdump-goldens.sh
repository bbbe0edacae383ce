#!/usr/bin/env bash
# Regenerates the objdump golden files of the decoder/disassembler tests:
#
#     PATH=/opt/epiphany/bin:$PATH scripts/regen-objdump-goldens.sh
#
# Needs cargo and epiphany-elf-objdump (binutils 2.40 was used); writes
# isa/tests/golden/objdump16.txt and objdump32.txt, which are committed so the
# tests (isa/tests/decode_golden.rs) need no toolchain. The word lists are
# seeded, so rerunning with the same objdump reproduces the files exactly.
#
# Steps: (1) an ignored test writes the words as raw little-endian binaries,
# one word per 4 bytes; (2) objdump disassembles them as raw Epiphany code;
# (3) another ignored test joins words and objdump's text into the goldens,
# checking objdump consumed the expected number of bytes at every word.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
objdump=${OBJDUMP:-epiphany-elf-objdump}
command -v "$objdump" >/dev/null || {
    echo "error: $objdump not found (try PATH=/opt/epiphany/bin:\$PATH)" >&2
    exit 1
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export EPSIM_GOLDEN_WORK=$work

run_step() {
    (cd "$root" && cargo test -q -p epsim-isa --test decode_golden -- \
        --ignored --exact "$1" --test-threads 1)
}

run_step regen_step1_write_inputs
"$objdump" --version | head -n1 > "$work/objdump.version"
for name in objdump16 objdump32; do
    "$objdump" -D -z -b binary -m epiphany -EL "$work/$name.bin" > "$work/$name.dis"
done
mkdir -p "$root/isa/tests/golden"
run_step regen_step2_import_objdump
ls -l "$root/isa/tests/golden"

# The `epsim disasm` listing goldens (sim/tests/disasm.rs).
OBJDUMP=$objdump "$root/scripts/regen-disasm-goldens.sh"
