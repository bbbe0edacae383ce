#!/bin/bash
# check-layout.sh MANIFEST ELF... -- sanity-check the segment layout of the
# firmware ELFs with readelf (run by `make -C firmware check`).
#
# For every ELF: entry point 0; a LOAD segment of exactly 0x28 bytes at 0x0
# (the crt0 vectors); nothing loaded into 0x28-0xff (the e-hal config area);
# every other LOAD segment either in SRAM 0x100-0x7fef or in the DRAM window
# 0x8e000000-0x8effffff; ___stack = 0x7ff0; .bss 8-aligned; and a heap with
# ___heap_start < ___heap_end.  Then, by linker script (from the manifest,
# or from the name for bench/*.elf):
#   internal  nothing in DRAM, heap in SRAM
#   fast      code in SRAM (main) and in DRAM (the C library), heap in DRAM
#   dram      only the vectors and crt0 stubs (< 0x400) in SRAM, heap in DRAM
set -euo pipefail

READELF=${READELF:-epiphany-elf-readelf}
manifest=$1
shift

fail=0
bad() {
    echo "check-layout: $1: $2" >&2
    fail=1
}

sym() { # sym ELF NAME -> hex value or empty
    "$READELF" -sW "$1" | awk -v n="$2" '$8 == n && !done {print $2; done = 1}'
}

for elf in "$@"; do
    base=$(basename "$elf" .elf)
    case $elf in
    bench/*)
        case $base in
        fib) script=fast ;;
        *) script=internal ;;
        esac
        ;;
    *)
        name=${base%-*}
        script=$(awk -v n="$name" '$1 == n {print $2}' "$manifest")
        ;;
    esac
    if [ -z "$script" ]; then
        bad "$elf" "no linker script known"
        continue
    fi

    entry=$("$READELF" -hW "$elf" | awk '/Entry point address/ {print $4}')
    [ "$((entry))" -eq 0 ] || bad "$elf" "entry point $entry, not 0"

    vectors=0 sram=0 dram=0
    while read -r vaddr memsz; do
        memsz=$((memsz))
        lo=$((vaddr))
        hi=$((lo + memsz))
        if [ "$lo" -eq 0 ]; then
            [ "$memsz" -eq $((0x28)) ] || bad "$elf" "vector segment is $memsz bytes, not 0x28"
            vectors=1
        elif [ "$lo" -lt $((0x100)) ]; then
            bad "$elf" "segment at $vaddr overlaps the config area 0x28-0xff"
        elif [ "$hi" -le $((0x7ff0)) ]; then
            sram=$((sram + 1))
            if [ "$script" = dram ] && [ "$hi" -gt $((0x400)) ]; then
                bad "$elf" "dram.ld program has SRAM data up to $hi"
            fi
        elif [ "$lo" -ge $((0x8e000000)) ] && [ "$hi" -le $((0x8f000000)) ]; then
            dram=$((dram + 1))
        else
            bad "$elf" "segment $vaddr+$memsz is neither in SRAM nor in DRAM"
        fi
    done < <("$READELF" -lW "$elf" | awk '$1 == "LOAD" {print $3, $6}')
    [ "$vectors" -eq 1 ] || bad "$elf" "no vector segment at 0x0"

    stack=$(sym "$elf" ___stack)
    hs=$(sym "$elf" ___heap_start)
    he=$(sym "$elf" ___heap_end)
    bss=$(sym "$elf" ___bss_start)
    end=$(sym "$elf" _end)
    [ "$((0x${stack:-0}))" -eq $((0x7ff0)) ] || bad "$elf" "___stack is ${stack:-missing}"
    [ -n "$hs" ] && [ -n "$he" ] && [ "$((0x$hs))" -lt "$((0x$he))" ] || bad "$elf" "bad heap $hs..$he"
    [ $((0x${bss:-1} % 8)) -eq 0 ] && [ $((0x${end:-1} % 8)) -eq 0 ] &&
        [ "$((0x$bss))" -lt "$((0x$end))" ] || bad "$elf" "bad .bss range $bss..$end"

    case $script in
    internal)
        [ "$dram" -eq 0 ] || bad "$elf" "internal.ld program has DRAM segments"
        [ "$((0x$he))" -le $((0x7ff0)) ] || bad "$elf" "heap not in SRAM"
        ;;
    fast)
        [ "$sram" -ge 1 ] && [ "$dram" -ge 1 ] || bad "$elf" "fast.ld program needs SRAM and DRAM segments"
        [ "$((0x$hs))" -ge $((0x8e000000)) ] || bad "$elf" "heap not in DRAM"
        ;;
    dram)
        [ "$dram" -ge 1 ] || bad "$elf" "dram.ld program has no DRAM segments"
        [ "$((0x$hs))" -ge $((0x8e000000)) ] || bad "$elf" "heap not in DRAM"
        ;;
    esac
done

if [ "$fail" -ne 0 ]; then
    exit 1
fi
echo "check-layout: $# ELFs ok"
