#!/usr/bin/env bash
# Regenerates the expected `epsim disasm` listings (sim/tests/disasm.rs):
#
#     PATH=/opt/epiphany/bin:$PATH scripts/regen-disasm-goldens.sh
#
# Writes `epiphany-elf-objdump -d PATH` (binutils 2.40) of every ELF of the
# tree to sim/tests/objdump/DIR.objdump.xz, one file per directory (DIR is
# the directory with `/` as `_`), the outputs in path order. The ELFs are
# git's tracked ones and the untracked ones not ignored, so run it after
# adding or rebuilding ELFs and commit both together: the test lists every
# tracked ELF and wants its listing. Needs git, xz and the toolchain; CI
# needs none of them (the test decompresses in Rust).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
objdump=${OBJDUMP:-epiphany-elf-objdump}
command -v "$objdump" >/dev/null || {
    echo "error: $objdump not found (try PATH=/opt/epiphany/bin:\$PATH)" >&2
    exit 1
}
version=$("$objdump" --version | head -n1)
case $version in
*" 2.40"*) ;;
*) echo "warning: the goldens were made with binutils 2.40, this is: $version" >&2 ;;
esac

cd "$root"
out=sim/tests/objdump
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git ls-files --cached --others --exclude-standard -- '*.elf' | LC_ALL=C sort -u |
    while read -r f; do
        [ -f "$f" ] || continue
        key=$(dirname "$f" | tr / _)
        "$objdump" -d "$f" >>"$work/$key.objdump"
    done
rm -f "$out"/*.objdump.xz
for w in "$work"/*.objdump; do
    xz -9e -c "$w" >"$out/$(basename "$w").xz"
done
ls -l "$out"/*.objdump.xz | awk '{ s += $5 } END { print NR " files, " s " bytes" }'
