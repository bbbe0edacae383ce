#!/usr/bin/env bash
# Host instructions (valgrind's cachegrind "I refs") that epsim spends on
# the programs issue 16's goals name, in timed and functional mode: a
# count that, unlike CPU time, is the same on a busy machine as on a quiet
# one, so two builds can be compared one program at a time.
#
# Usage: scripts/bench/host-instructions.sh [PROGRAM...]
#
# PROGRAM is one of the names below (default: all). For each it prints
# the host instructions of `epsim run -q` in timed mode, in functional
# mode, their ratio, and the simulated cycles of the timed run (--stats);
# poll16's functional run is left out (see below).
#
#   fib-dram vla-dram strcmp-dram   one core, code in DRAM (firmware/bench)
#   dma_stream_long                 16 cores DMA-ing from DRAM (--group 4x4)
#   poll16                          16 cores polling each other's SRAM
#   mutex_scan pypipe matmul        16-core lock, pipeline and DMA programs
#
# Environment: EPSIM (default target/release/epsim of this checkout),
# EPSIM2 (optional second build: its timed count and the change in %).
# Needs valgrind. A 16-core program takes up to a few minutes under it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
epsim=${EPSIM:-$root/target/release/epsim}
epsim2=${EPSIM2:-}
command -v valgrind >/dev/null || { echo "$0: valgrind not found" >&2; exit 2; }
[[ -x $epsim ]] || { echo "$0: $epsim: not built (cargo build --release)" >&2; exit 2; }

all=(fib-dram vla-dram strcmp-dram dma_stream_long poll16 mutex_scan pypipe matmul)
(($# > 0)) || set -- "${all[@]}"

# The arguments of `epsim run` for a program name.
args_of() {
    case $1 in
    fib-dram | vla-dram | strcmp-dram) echo "$root/firmware/bench/$1.elf" ;;
    dma_stream_long | poll16 | mutex_scan | pypipe | matmul)
        echo "--group 4x4 $root/firmware/multi/$1.elf" ;;
    *) return 1 ;;
    esac
}

# Host instructions of one run: BIN ARGS...
irefs() {
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
        "$1" run -q "${@:2}" 2>&1 >/dev/null | awk '/I *refs/ {gsub(",", "", $NF); print $NF}'
}

for p in "$@"; do
    args_of "$p" >/dev/null || { echo "$0: unknown program '$p' (one of: ${all[*]})" >&2; exit 2; }
done
printf '%-16s %15s %15s %8s %12s' program timed functional ratio cycles
[[ -n $epsim2 ]] && printf ' %15s %8s' timed2 change
printf '\n'
for p in "$@"; do
    a=$(args_of "$p")
    # shellcheck disable=SC2086 # (a is a list of words)
    cycles=$("$epsim" run -q --stats $a 2>&1 >/dev/null | awk '/simulated cycles:/ {print $4}')
    # shellcheck disable=SC2086
    t=$(irefs "$epsim" $a)
    if [[ $p == poll16 ]]; then
        # (Functional mode runs its polling loops' 1.8 G instructions one
        # by one: 20 times timed mode's time, and no goal compares them.)
        f=- ratio=-
    else
        # shellcheck disable=SC2086
        f=$(irefs "$epsim" --mode functional $a)
        ratio=$(awk -v t="$t" -v f="$f" 'BEGIN {printf "%.2f", t / f}')
    fi
    printf '%-16s %15s %15s %8s %12s' "$p" "$t" "$f" "$ratio" "$cycles"
    if [[ -n $epsim2 ]]; then
        # shellcheck disable=SC2086
        t2=$(irefs "$epsim2" $a)
        printf ' %15s %+7.2f%%' "$t2" "$(awk -v a="$t" -v b="$t2" 'BEGIN {print (b - a) * 100 / a}')"
    fi
    printf '\n'
done
