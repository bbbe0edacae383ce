#!/bin/bash
# host-expected.sh NAME -- regenerate tests/NAME.expected (and NAME.stderr)
# from a host build of tests/NAME.c.
#
# Run from firmware/ (the Makefile does).  Builds the program with the host
# compiler at each level in $OPTS (default "O0 O2", as the Epiphany ELFs),
# runs each in build/host/run/ (so files the program
# creates land there) with stdin from the manifest's stdin file or /dev/null
# and the arguments in the manifest's args file (one per line), and:
#   - requires every build to print the same stdout and stderr;
#   - requires the exit status to be the one in tests/manifest.txt, where a
#     host death by SIGABRT counts as status 1 (what newlib's abort() passes
#     to _exit on the Epiphany);
#   - writes stdout to tests/NAME.expected, and stderr to tests/NAME.stderr
#     when there is any (the file is removed when there is none).
set -euo pipefail
ulimit -c 0

name=$1
HOSTCC=${HOSTCC:-gcc}
HOST_CFLAGS=${HOST_CFLAGS:--std=gnu11 -Wall -Wextra -ffp-contract=off}
read -r -a opts <<<"${OPTS:-O0 O2}"
manifest=tests/manifest.txt

line=$(awk -v n="$name" '$1 == n' "$manifest")
if [ -z "$line" ]; then
    echo "host-expected: $name is not in $manifest" >&2
    exit 1
fi
read -r _ _ want_status stdin_file args_file _ <<<"$line"

stdin=/dev/null
if [ "${stdin_file:--}" != "-" ]; then
    stdin=tests/$stdin_file
fi
args=()
if [ "${args_file:--}" != "-" ]; then
    mapfile -t args <"tests/$args_file"
fi

bindir=build/host
rundir=$bindir/run
mkdir -p "$rundir"

outs=()
for opt in "${opts[@]}"; do
    exe=$bindir/$name-$opt
    # shellcheck disable=SC2086
    $HOSTCC -$opt $HOST_CFLAGS "tests/$name.c" -o "$exe" -lm
    set +e
    (cd "$rundir" && exec "../${name}-$opt" ${args[@]+"${args[@]}"}) <"$stdin" >"$bindir/$name-$opt.out" 2>"$bindir/$name-$opt.err"
    status=$?
    set -e
    if [ "$status" -eq $((128 + 6)) ]; then
        status=1 # SIGABRT on the host; newlib's abort() ends with _exit(1)
    fi
    if [ "$status" != "$want_status" ]; then
        echo "host-expected: $name-$opt exited with $status, manifest says $want_status" >&2
        exit 1
    fi
    outs+=("$bindir/$name-$opt")
done

for ext in out err; do
    for o in "${outs[@]:1}"; do
        if ! cmp -s "${outs[0]}.$ext" "$o.$ext"; then
            echo "host-expected: $name: ${outs[0]} and $o differ on std$ext" >&2
            diff "${outs[0]}.$ext" "$o.$ext" >&2 || true
            exit 1
        fi
    done
done

cp "${outs[0]}.out" "tests/$name.expected"
if [ -s "${outs[0]}.err" ]; then
    cp "${outs[0]}.err" "tests/$name.stderr"
else
    rm -f "tests/$name.stderr"
fi
echo "host-expected: $name ok (status $want_status)"
