#!/usr/bin/env bash
# Side-by-side speed of epsim and the reference simulator (the CGEN
# `epiphany-elf-run` of adapteva/epiphany-binutils-gdb, functional only; how
# to build it: README.md, "Against the reference simulator").
#
# Usage: scripts/bench/side-by-side.sh [-n N] ELF...
#
# Runs each ELF N times (default 3), alternating the reference, `epsim run
# --mode functional` and `epsim run` (timed), and prints for each program the
# instructions retired (epsim --stats), the best user CPU time of each
# simulator (/usr/bin/time), simulated instructions per CPU second, and the
# CPU-time ratios reference/functional and reference/timed (how many times
# faster than the reference epsim is). Every run's stdout and exit status
# must agree with epsim functional's; a disagreement is reported and the
# script exits 1.
#
# Environment:
#   REFSIM       the reference simulator (default: epiphany-elf-run on PATH)
#   REFSIM_ARGS  its options (default: one core 0x808 of a 1x1 group with
#                32 KB of SRAM, 32 MB of DRAM at 0x8e000000, instruction
#                fetch from DRAM allowed)
#   EPSIM        epsim (default: target/release/epsim of this checkout)
#   EPSIM2       optional second epsim build, measured as extra columns
set -euo pipefail

n=3
if [[ ${1-} == -n ]]; then
    n=${2:?"-n needs a number"}
    shift 2
fi
if [[ $# -eq 0 ]]; then
    echo "usage: $0 [-n N] ELF..." >&2
    exit 2
fi
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "$0: -n $n: not a positive number" >&2; exit 2; }

root=$(cd "$(dirname "$0")/../.." && pwd)
refsim=${REFSIM:-epiphany-elf-run}
if ! command -v "$refsim" >/dev/null 2>&1; then
    echo "$0: reference simulator '$refsim' not found; build it (README.md," \
        "\"Against the reference simulator\") and set REFSIM=/path/to/epiphany-elf-run" >&2
    exit 2
fi
read -r -a refargs <<<"${REFSIM_ARGS:---e-external-fetch --e-coreid 0x808 --e-first-core 0x808 --e-rows 1 --e-cols 1 --e-core-mem 32KB}"
epsim=${EPSIM:-$root/target/release/epsim}
[[ -x $epsim ]] || { echo "$0: epsim '$epsim' not found or not executable (cargo build --release -p epsim-sim)" >&2; exit 2; }
epsim2=${EPSIM2-}
if [[ -n $epsim2 && ! -x $epsim2 ]]; then
    echo "$0: EPSIM2 '$epsim2' not found or not executable" >&2
    exit 2
fi
[[ -x /usr/bin/time ]] || { echo "$0: /usr/bin/time is needed (apt-get install time)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run NAME CMD...: runs CMD, its stdout to $tmp/NAME.out, its user CPU
# seconds to $tmp/NAME.cpu, its exit status to $tmp/NAME.rc.
run() {
    local name=$1
    shift
    local rc=0
    /usr/bin/time -f "%U" -o "$tmp/$name.cpu" "$@" </dev/null >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
    echo "$rc" >"$tmp/$name.rc"
}

# best A B: the smaller of two numbers (empty A: B).
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }'; }

sims=(ref func timed)
[[ -n $epsim2 ]] && sims+=(func2 timed2)
status=0
rows=()
for elf in "$@"; do
    [[ -f $elf ]] || { echo "$0: $elf: no such file" >&2; exit 2; }
    declare -A bestcpu=()
    instret=
    for ((i = 0; i < n; i++)); do
        run ref "$refsim" "${refargs[@]}" "$elf"
        run func "$epsim" run -q --stats --mode functional "$elf"
        run timed "$epsim" run -q "$elf"
        if [[ -n $epsim2 ]]; then
            run func2 "$epsim2" run -q --mode functional "$elf"
            run timed2 "$epsim2" run -q "$elf"
        fi
        for s in "${sims[@]}"; do
            if ! cmp -s "$tmp/$s.out" "$tmp/func.out" || ! cmp -s "$tmp/$s.rc" "$tmp/func.rc"; then
                echo "$0: $elf: $s gives stdout '$(head -c 200 "$tmp/$s.out")' status $(cat "$tmp/$s.rc")," \
                    "epsim functional gives '$(head -c 200 "$tmp/func.out")' status $(cat "$tmp/func.rc")" >&2
                [[ $s == ref ]] && sed 's/^/  reference stderr: /' "$tmp/ref.err" | head -5 >&2
                status=1
            fi
            bestcpu[$s]=$(best "${bestcpu[$s]-}" "$(tail -n 1 "$tmp/$s.cpu")")
        done
        # --stats prints "epsim: instructions retired: N" on stderr
        instret=$(sed -n 's/^epsim: instructions retired: *\([0-9][0-9]*\).*/\1/p' "$tmp/func.err" | head -n 1)
        [[ -n $instret ]] || { echo "$0: $elf: no instruction count in epsim --stats output:" >&2; cat "$tmp/func.err" >&2; exit 1; }
    done
    row="$(basename "$elf") $instret"
    for s in "${sims[@]}"; do row+=" ${bestcpu[$s]}"; done
    rows+=("$row")
    unset bestcpu
done

echo "best user CPU seconds of $n runs each; M/s = simulated instructions per CPU second; x = reference CPU time / epsim CPU time"
printf '%s\n' "${rows[@]}" | awk -v two="$([[ -n $epsim2 ]] && echo 1)" '
function rate(t) { return t > 0 ? sprintf("%.1f", insns / t / 1e6) : "-" }
function ratio(t) { return t > 0 ? sprintf("%.2f", ref / t) : "-" }
BEGIN {
    h = "| program | instructions | reference s (M/s) | functional s (M/s) | timed s (M/s) | functional x | timed x |"
    s = "|---|---|---|---|---|---|---|"
    if (two) {
        h = h " EPSIM2 functional s (M/s) | EPSIM2 timed s (M/s) | EPSIM2 functional x | EPSIM2 timed x |"
        s = s "---|---|---|---|"
    }
    print h; print s
}
{
    insns = $2; ref = $3
    line = sprintf("| %s | %d | %s (%s) | %s (%s) | %s (%s) | %s | %s |", $1, insns, $3, rate($3), $4, rate($4), $5, rate($5), ratio($4), ratio($5))
    if (two) line = line sprintf(" %s (%s) | %s (%s) | %s | %s |", $6, rate($6), $7, rate($7), ratio($6), ratio($7))
    print line
}'
exit $status
