#!/usr/bin/env bash
# Build and run unmodified Parallella software on epsim, as a user would,
# and print a table of what passes its own checks.
#
#   scripts/compat/run.sh --elib DIR --examples DIR [--ebsp DIR] [--epython DIR]
#                         [--mode free|deterministic|both] [--work DIR]
#                         [--timeout SECONDS] [--only REGEX] [--host32]
#                         [--ehal PREFIX] [--ehal32 PREFIX] [--gcc-b DIR] [--no-build]
#
# --elib      a checkout of adapteva/epiphany-libs (e-lib and the ESDK's
#             bsps/current: fast.ldf, internal.ldf, legacy.ldf, platform.hdf)
# --examples  a checkout of adapteva/epiphany-examples
# --ebsp      a checkout of coduin/epiphany-bsp (its examples and test suite)
# --epython   a checkout of mesham/epython (native mode; 32-bit host)
# --mode      which run modes (EPSIM_MODE) to run; default both
# --work      where everything is built (default ${TMPDIR:-/tmp}/epsim-compat);
#             the checkouts are copied there and never changed
# --timeout   seconds per run (default 60) and per build (10 times that)
# --only      run only the programs whose name matches REGEX (grep -E)
# --host32    build the examples' host programs with gcc -m32 against the
#             32-bit libe-hal (ePython and Epiphany BSP always use it)
# --ehal      use a libe-hal installed at PREFIX (lib/, include/) instead of
#             `make -C host install` into the work directory
# --ehal32    the same for the 32-bit libe-hal (instead of
#             `make -C host install ARCH=i686`)
# --gcc-b     a directory with a cc1 that has firmware/sysroot's GCC patches
#             (scripts/build-toolchain.sh builds one): the prebuilt GCC 12.2
#             dies with an internal compiler error on most -O0 code, and
#             many examples build their device side at -O0
# --no-build  reuse the builds of a previous run in --work (rerun only);
#             libe-hal is still installed afresh (from --ehal/--ehal32, or
#             built from this tree)
#
# Needs: the epiphany-elf toolchain on PATH (or in /opt/epiphany/bin), cargo
# and a C compiler; for the 32-bit host, the i686-unknown-linux-gnu rustup
# target and gcc-multilib. Nothing of the checkouts enters this repository:
# run.sh copies them into --work and builds there.
#
# How it builds: an ESDK-shaped EPIPHANY_HOME in WORK/esdk with
# tools/host/{lib,include} (epsim's libe-hal), bsps/current (the ESDK's
# linker scripts and platform.hdf, from --elib), bin/e-gcc, e-objcopy, ...
# (scripts/compat/e-tool, first in PATH) and sysroot/ (e-lib built from
# --elib), epsim's newlib from firmware/sysroot/lib, and the toolchain's
# crt0 with its reset vector section renamed from IVT to the ESDK's
# IVT_RESET). Each
# example's own build.sh runs with EPIPHANY_HOME=WORK/esdk and
# CROSS_COMPILE set to the host compiler.
#
# How it decides: scripts/compat/examples.tsv says, per example, which
# script runs it and how its result is read (see the top of that file).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/scripts/compat

usage() { sed -n '2,/^set -euo/p' "$0" | sed -n 's/^# \{0,1\}//p' | sed '/^set -euo/d' >&2; exit 2; }
die() { echo "run.sh: $*" >&2; exit 2; }

ELIB= EXAMPLES= EBSP= EPYTHON= MODE=both WORK=${TMPDIR:-/tmp}/epsim-compat
TIMEOUT=60 ONLY= HOST32=0 EHAL= EHAL32= BUILD=1 GCCB=
while (($#)); do
    case $1 in
    --elib) ELIB=$2; shift ;;
    --examples) EXAMPLES=$2; shift ;;
    --ebsp) EBSP=$2; shift ;;
    --epython) EPYTHON=$2; shift ;;
    --mode) MODE=$2; shift ;;
    --work) WORK=$2; shift ;;
    --timeout) TIMEOUT=$2; shift ;;
    --only) ONLY=$2; shift ;;
    --host32) HOST32=1 ;;
    --ehal) EHAL=$2; shift ;;
    --ehal32) EHAL32=$2; shift ;;
    --no-build) BUILD=0 ;;
    --gcc-b) GCCB=$2; shift ;;
    -h | --help) usage ;;
    *) die "unknown argument '$1' (--help lists them)" ;;
    esac
    shift
done
[[ -n $ELIB ]] || die "--elib DIR (a checkout of adapteva/epiphany-libs) is required"
[[ -f $ELIB/e-lib/Makefile.am ]] || die "--elib $ELIB: no e-lib/Makefile.am there (not an epiphany-libs checkout)"
[[ -z $EXAMPLES || -d $EXAMPLES/apps ]] || die "--examples $EXAMPLES: no apps/ there (not an epiphany-examples checkout)"
[[ -z $EBSP || -f $EBSP/include/host_bsp.h ]] || die "--ebsp $EBSP: no include/host_bsp.h there (not an epiphany-bsp checkout)"
[[ -z $EPYTHON || -f $EPYTHON/shared.h ]] || die "--epython $EPYTHON: no shared.h there (not an epython checkout)"
case $MODE in
free) MODES=(free) ;;
deterministic) MODES=(deterministic) ;;
both) MODES=(free deterministic) ;;
*) die "--mode must be free, deterministic or both, not '$MODE'" ;;
esac
[[ $TIMEOUT =~ ^[0-9]+$ ]] || die "--timeout must be a number of seconds, not '$TIMEOUT'"
case $WORK in "$ROOT" | "$ROOT"/*) die "--work $WORK is inside the repository: their code must stay out of it" ;; esac

command -v epiphany-elf-gcc >/dev/null || PATH=/opt/epiphany/bin:$PATH
command -v epiphany-elf-gcc >/dev/null || die "epiphany-elf-gcc not found (put the cross toolchain's bin on PATH)"
ESDK_REAL=$(dirname "$(command -v epiphany-elf-gcc)")
export ESDK_REAL
if [[ -n $GCCB ]]; then
    [[ -x $GCCB/cc1 ]] || die "--gcc-b $GCCB: no cc1 there"
    export ESDK_GCC_B=$(cd "$GCCB" && pwd)
fi
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
ELIB=$(cd "$ELIB" && pwd)
[[ -z $EXAMPLES ]] || EXAMPLES=$(cd "$EXAMPLES" && pwd)
[[ -z $EBSP ]] || EBSP=$(cd "$EBSP" && pwd)
[[ -z $EPYTHON ]] || EPYTHON=$(cd "$EPYTHON" && pwd)
ESDK=$WORK/esdk
ESDK32=$WORK/esdk32
SYSROOT=$ESDK/sysroot
LOGS=$WORK/logs
mkdir -p "$LOGS"
NICE=(nice -n 19)
need32=$HOST32
[[ -z $EBSP && -z $EPYTHON ]] || need32=1

step() { printf '== %s\n' "$*" >&2; }

# --- the ESDK-shaped EPIPHANY_HOME ---------------------------------------
install_ehal() { # $1 = prefix, $2 = ARCH for host/Makefile ("" or i686)
    local given=$EHAL
    [[ -z $2 ]] || given=$EHAL32
    if [[ -n $given ]]; then
        local e f
        e=$(cd "$given" && pwd)
        mkdir -p "$1/lib" "$1/include"
        for f in "$e"/lib/* "$e"/include/*; do ln -sf "$f" "$1/${f#"$e"/}"; done
    else
        "${NICE[@]}" make -s -C "$ROOT/host" install PREFIX="$1" ${2:+ARCH=$2} >"$LOGS/ehal${2:+-$2}.log" 2>&1 ||
            die "make -C host install${2:+ ARCH=$2} failed: see $LOGS/ehal${2:+-$2}.log"
    fi
    # The ESDK installs e-trace's host headers beside e-hal's (some
    # examples include them and use nothing from them).
    local h
    for h in a_trace.h e-trace.h; do
        [[ -f $ELIB/e-trace/include/$h && ! -e $1/include/$h ]] && cp "$ELIB/e-trace/include/$h" "$1/include/"
    done
    true
}

build_esdk() {
    step "EPIPHANY_HOME in $ESDK"
    rm -rf "$ESDK"
    mkdir -p "$ESDK/bin" "$ESDK/bsps" "$SYSROOT/lib" "$SYSROOT/include" "$ESDK/tools"
    install_ehal "$ESDK/tools/host" ""
    # The same EPIPHANY_HOME with the 32-bit libe-hal in tools/host.
    rm -rf "$ESDK32"
    if ((need32)); then
        mkdir -p "$ESDK32/tools"
        ln -s "$ESDK/bin" "$ESDK/bsps" "$ESDK/sysroot" "$ESDK32/"
        install_ehal "$ESDK32/tools/host" i686
    fi
    cp -rL "$ELIB/bsps/." "$ESDK/bsps/"
    for t in "$ESDK_REAL"/epiphany-elf-*; do
        ln -s "$HERE/e-tool" "$ESDK/bin/e-${t##*/epiphany-elf-}"
        ln -s "$HERE/e-tool" "$ESDK/bin/${t##*/}"
    done
    # The ESDK's own places for e-lib (some Makefiles name them).
    mkdir -p "$ESDK/tools/e-gnu/epiphany-elf"
    ln -s ../../../sysroot/include "$ESDK/tools/e-gnu/epiphany-elf/sys-include"
    ln -s ../../../sysroot/include "$ESDK/tools/e-gnu/epiphany-elf/include"
    ln -s ../../../sysroot/lib "$ESDK/tools/e-gnu/epiphany-elf/lib"
    ln -s ../../bin "$ESDK/tools/e-gnu/bin"
    # Host-compiler prefixes for build.sh's ${CROSS_COMPILE}gcc (and g++).
    local c bits
    for bits in 64 32; do
        for c in gcc:"${CC:-gcc}" g++:"${CXX:-g++}"; do
            # -fcommon: GCC 10 and later default to -fno-common, and
            # ESDK-era host sources define the same global in two files.
            printf '#!/bin/sh\nexec %s %s-fcommon "$@"\n' "${c#*:}" "$([[ $bits == 32 ]] && echo '-m32 ')" >"$ESDK/bin/host$bits-${c%%:*}"
            chmod +x "$ESDK/bin/host$bits-${c%%:*}"
        done
        for c in ar ranlib strip; do ln -s "$(command -v "$c")" "$ESDK/bin/host$bits-$c"; done
    done

    # newlib: ours (firmware/sysroot/lib, "Known toolchain problems"); the
    # toolchain's crt0 (ours asks the host for argc/argv, which ESDK
    # programs never had), its vector table in the section the ESDK's
    # linker scripts place at address 0.
    cp "$ROOT"/firmware/sysroot/lib/*.a "$SYSROOT/lib/"
    local crt0
    crt0=$("$ESDK_REAL"/epiphany-elf-gcc -print-file-name=crt0.o)
    "$ESDK_REAL"/epiphany-elf-objcopy --rename-section IVT=IVT_RESET "$crt0" "$SYSROOT/lib/crt0.o"

    step "e-lib from $ELIB"
    local src=$WORK/src/e-lib obj=$WORK/build/e-lib f o
    rm -rf "$src" "$obj"
    mkdir -p "$src" "$obj"
    cp -r "$ELIB/e-lib/." "$src/"
    [[ -d $ELIB/e-trace/include ]] && cp -r "$ELIB/e-trace/include" "$src/e-trace-include"
    # libe_lib_a_SOURCES of e-lib/Makefile.am, compiled as its configure
    # does by default (-g -O2, NDEBUG).
    local sources
    sources=$(sed -n '/^libe_lib_a_SOURCES/,/^$/p' "$src/Makefile.am" | grep -o 'src/[A-Za-z0-9_]*\.[cs]')
    [[ -n $sources ]] || die "no libe_lib_a_SOURCES in $ELIB/e-lib/Makefile.am"
    for f in $sources; do
        o=$obj/$(basename "$f").o
        PATH=$ESDK/bin:$PATH ESDK_SYSROOT=$SYSROOT "${NICE[@]}" e-gcc -g -O2 -DNDEBUG \
            -I"$src/include" -I"$src/e-trace-include" -c "$src/$f" -o "$o" >>"$LOGS/e-lib.log" 2>&1 ||
            die "e-lib: $f does not compile: see $LOGS/e-lib.log"
    done
    "$ESDK_REAL"/epiphany-elf-ar rcs "$SYSROOT/lib/libe-lib.a" "$obj"/*.o
    cp "$src"/include/*.h "$SYSROOT/include/"
    [[ -d $src/e-trace-include ]] && cp "$src"/e-trace-include/*.h "$SYSROOT/include/"
    true
}

# --- results ---------------------------------------------------------------
RESULTS=$WORK/results.tsv # name, builds, mode..., reason
declare -A RES BUILT REASON
NAMES=()

# The rule of an example: examples.tsv's line, else status for test.sh and
# marker for run.sh.
rule_of() { # $1 = example path
    awk -F'\t' -v p="$1" '$1 == p { print $2 "\t" $3 "\t" $4 "\t" $5; exit }' "$HERE/examples.tsv"
}

# limit_of RULE: the seconds a run may take: --timeout, or more if the
# rule begins with within:SECONDS (a program that runs for billions of
# cycles; its speed is the performance issue's, not a compatibility
# failure).
limit_of() {
    local t=$TIMEOUT w
    if [[ $1 == within:* ]]; then
        w=${1#within:}
        w=${w%% *}
        ((w > t)) && t=$w
    fi
    echo "$t"
}

# verdict LOG STATUS RULE -> PASS | FAIL (why) | ran (...). RULE may join
# several output rules with " && " (all must hold).
verdict() {
    local log=$1 st=$2 rule=$3
    if ((st == 124 || st == 137)); then
        if [[ $rule == endless ]]; then echo "ran (until stopped)"; else echo "FAIL (timeout $(limit_of "$rule") s)"; fi
        return
    fi
    case $rule in
    within:*) rule=${rule#within:*&& } ;;
    esac
    case $rule in
    status)
        if ((st == 0)); then echo PASS; else echo "FAIL (exit $st)"; fi
        return ;;
    none | endless)
        if ((st == 0)); then echo "ran (no check)"; else echo "FAIL (exit $st)"; fi
        return ;;
    nofail)
        if grep -Eiq 'fail' "$log"; then echo "FAIL (prints FAIL)"
        elif ((st != 0)); then echo "FAIL (exit $st)"
        else echo PASS; fi
        return ;;
    marker)
        if grep -Eiq 'fail' "$log"; then echo "FAIL (prints FAIL)"
        elif ((st != 0)); then echo "FAIL (exit $st)"
        elif grep -Eiq 'pass' "$log"; then echo PASS
        else echo "FAIL (no PASS)"; fi
        return ;;
    esac
    if ((st != 0)); then echo "FAIL (exit $st)"; return; fi
    local r rest=$rule n re got a b
    while [[ -n $rest ]]; do
        r=${rest%% && *}
        if [[ $r == "$rest" ]]; then rest=; else rest=${rest#* && }; fi
        case $r in
        expect:*) # a line matches
            grep -Eq -- "${r#expect:}" "$log" || { echo "FAIL (no /${r#expect:}/)"; return; } ;;
        count:*) # count:N:RE: N lines match
            n=${r#count:} re=${r#count:*:}
            n=${n%%:*}
            got=$(grep -Ec -- "$re" "$log" || true)
            ((got == n)) || { echo "FAIL ($got of $n lines /$re/)"; return; } ;;
        distinct:*) # distinct:N:RE: N different matches
            n=${r#distinct:} re=${r#distinct:*:}
            n=${n%%:*}
            got=$(grep -Eo -- "$re" "$log" | sort -u | wc -l)
            ((got == n)) || { echo "FAIL ($got different /$re/, not $n)"; return; } ;;
        before:*) # before:RE1:RE2: every RE1 line comes before every RE2 line
            a=${r#before:}
            b=${a#*:}
            a=${a%%:*}
            got=$(awk -v a="$a" -v b="$b" '$0 ~ b && !seen { seen = 1 } $0 ~ a && seen { bad = 1 } END { print bad + 0 }' "$log")
            ((got == 0)) || { echo "FAIL (/$a/ after /$b/)"; return; } ;;
        *) echo "FAIL (bad rule '$r')"; return ;;
        esac
    done
    echo PASS
}

# run_one NAME DIR SCRIPT RULE [VAR=VALUE]: runs DIR/SCRIPT from DIR in
# every mode (@ESDK@ in VALUE is EPIPHANY_HOME).
run_one() {
    local name=$1 dir=$2 script=$3 rule=$4 env=${5:-} mode log st
    local envs=() cmd limit
    [[ -z $env ]] || envs=("${env//@ESDK@/$EPIPHANY_HOME}")
    limit=$(limit_of "$rule")
    read -ra cmd <<<"$script" # a script and its arguments
    for mode in "${MODES[@]}"; do
        log=$LOGS/${name//\//_}.$mode.log
        st=0
        (cd "$dir" && env "${envs[@]}" EPSIM_MODE="$mode" timeout -k 5 "$limit" "${NICE[@]}" bash "${cmd[@]}") >"$log" 2>&1 </dev/null || st=$?
        echo "$st" >"$log.status"
        RES[$name.$mode]=$(verdict "$log" "$st" "$rule")
        printf '   %-40s %-14s %s\n' "$name" "$mode" "${RES[$name.$mode]}" >&2
    done
}

export_env() { # $1 = 64|32: which EPIPHANY_HOME (esdk or esdk32)
    local home=$ESDK
    [[ $1 == 32 ]] && home=$ESDK32
    export EPIPHANY_HOME=$home EPIPHANY_HDF=$home/bsps/current/platform.hdf
    export ESDK_SYSROOT=$SYSROOT PATH=$ESDK/bin:$PATH
    export CROSS_COMPILE=$ESDK/bin/host$1-
    export LD_LIBRARY_PATH=$home/tools/host/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
}

# --- adapteva/epiphany-examples --------------------------------------------
run_examples() {
    local ex=$WORK/src/epiphany-examples d name rule script note env st dirs=()
    if ((BUILD)); then
        rm -rf "$ex"
        mkdir -p "$ex"
        cp -r "$EXAMPLES/." "$ex/"
    fi
    export_env $((HOST32 ? 32 : 64))
    while read -r d; do
        name=${d#"$ex"/}
        [[ -z $ONLY ]] || [[ $name =~ $ONLY ]] || continue
        dirs+=("$d")
    done < <(find "$ex" -name build.sh -not -path "$ex/archive/*" -printf '%h\n' | sort)
    # Every build first: some tests run another example's host program
    # (test/e-loopback-test, e-mesh-test and e-matmul-test run test/e-test's).
    for d in "${dirs[@]}"; do
        name=${d#"$ex"/}
        NAMES+=("$name")
        if ((BUILD)); then
            st=0
            (cd "$d" && timeout -k 5 $((TIMEOUT * 10)) "${NICE[@]}" bash ./build.sh) >"$LOGS/${name//\//_}.build.log" 2>&1 </dev/null || st=$?
            if ((st == 0)); then BUILT[$name]=yes; else BUILT[$name]=no; fi
            echo "${BUILT[$name]}" >"$LOGS/${name//\//_}.built"
            printf '   %-40s %-14s %s\n' "$name" build "${BUILT[$name]}" >&2
        else
            BUILT[$name]=$(cat "$LOGS/${name//\//_}.built" 2>/dev/null || echo no)
        fi
    done
    for d in "${dirs[@]}"; do
        name=${d#"$ex"/}
        script= rule= note= env=
        IFS=$'\t' read -r script rule note env <<<"$(rule_of "$name")" || true
        if [[ -z $script ]]; then
            if [[ -f $d/test.sh ]]; then script=test.sh rule=status; else script=run.sh rule=marker; fi
        fi
        REASON[$name]=$note
        if [[ ${BUILT[$name]} == no ]]; then
            for m in "${MODES[@]}"; do RES[$name.$m]="-"; done
            REASON[$name]="build: $(grep -Em1 'error|ERROR|undefined|No such|not found' "$LOGS/${name//\//_}.build.log" | cut -c1-100 || true)"
            continue
        fi
        if [[ $rule == board || $rule == skip ]]; then
            for m in "${MODES[@]}"; do
                if [[ $rule == board ]]; then RES[$name.$m]="needs the board"; else RES[$name.$m]="not run"; fi
            done
            continue
        fi
        if [[ $script == - || ! -f $d/$script ]]; then
            for m in "${MODES[@]}"; do RES[$name.$m]="no script"; done
            continue
        fi
        run_one "$name" "$d" "$script" "$rule" "$env"
    done
}

# --- the table ------------------------------------------------------------
print_table() {
    local name m line
    {
        printf '| example | builds? |'
        for m in "${MODES[@]}"; do printf ' %s |' "$m"; done
        printf ' reason |\n|---|---|'
        for m in "${MODES[@]}"; do printf -- '---|'; done
        printf -- '---|\n'
        for name in "${NAMES[@]}"; do
            line="| $name | ${BUILT[$name]:-yes} |"
            for m in "${MODES[@]}"; do line+=" ${RES[$name.$m]:--} |"; done
            line+=" ${REASON[$name]:-} |"
            echo "$line"
        done
        local pass total built
        total=${#NAMES[@]}
        built=0
        for name in "${NAMES[@]}"; do [[ ${BUILT[$name]:-yes} == yes ]] && built=$((built + 1)); done
        echo
        printf '%d programs, %d build' "$total" "$built"
        for m in "${MODES[@]}"; do
            pass=0
            for name in "${NAMES[@]}"; do [[ ${RES[$name.$m]:-} == PASS ]] && pass=$((pass + 1)); done
            printf '; %s: %d pass' "$m" "$pass"
        done
        echo
    } | tee "$WORK/table.md"
}

# The library under test is installed afresh even when the programs' builds
# are reused (--no-build): a rerun measures the libe-hal given (or this
# tree's), not the one the first run installed.
reinstall_ehal() {
    step "libe-hal installed afresh in $ESDK/tools/host (and esdk32 if there)"
    rm -rf "$ESDK/tools/host"
    install_ehal "$ESDK/tools/host" ""
    if [[ -d $ESDK32/tools ]]; then
        rm -rf "$ESDK32/tools/host"
        install_ehal "$ESDK32/tools/host" i686
    fi
}

if ((BUILD)); then build_esdk; else reinstall_ehal; fi
if [[ -n $EXAMPLES ]]; then
    step "adapteva/epiphany-examples from $EXAMPLES"
    run_examples
fi
if [[ -n $EBSP ]]; then
    # shellcheck source=ebsp.sh
    source "$HERE/ebsp.sh"
    step "Epiphany BSP from $EBSP"
    run_ebsp
fi
if [[ -n $EPYTHON ]]; then
    # shellcheck source=epython.sh
    source "$HERE/epython.sh"
    step "ePython from $EPYTHON"
    run_epython
fi
print_table
echo "logs: $LOGS" >&2
