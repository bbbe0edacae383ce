# coduin/epiphany-bsp (Epiphany BSP 1.0), sourced by run.sh: its host
# library and programs built with the system compiler (-m32) against the
# 32-bit libe-hal, its device library and programs with e-gcc and e-lib,
# by its own Makefiles (with their cross-compiler prefixes pointed at
# ours); its test suite run by its own test/test.py, its examples as
# ebsp.tsv says.
run_ebsp() {
    local bsp=$WORK/src/epiphany-bsp st name rule note t v
    local vars=(ARM_PLATFORM_PREFIX="$ESDK/bin/host32-" E_PLATFORM_PREFIX=e-)
    export_env 32
    if ((BUILD)); then
        rm -rf "$bsp"
        mkdir -p "$bsp"
        cp -r "$EBSP/." "$bsp/"
        for t in lib test examples; do
            st=0
            if [[ $t == lib ]]; then
                (cd "$bsp" && "${NICE[@]}" make "${vars[@]}") >"$LOGS/ebsp.$t.build.log" 2>&1 </dev/null || st=$?
            else
                (cd "$bsp/$t" && "${NICE[@]}" make -k "${vars[@]}") >"$LOGS/ebsp.$t.build.log" 2>&1 </dev/null || st=$?
            fi
            ((st == 0)) || echo "   ebsp: make in $t failed (see $LOGS/ebsp.$t.build.log)" >&2
        done
    fi
    # The test suite: one row per test, from test.py's own verdicts.
    local mode log tests
    tests=$(sed -n 's/^tests: //p' "$bsp/test/Makefile")
    for t in $tests; do
        NAMES+=("ebsp/test/$t")
        if [[ -x $bsp/test/bin/host_$t && -f $bsp/test/bin/e_$t.elf ]]; then BUILT[ebsp/test/$t]=yes; else BUILT[ebsp/test/$t]=no; fi
    done
    for mode in "${MODES[@]}"; do
        log=$LOGS/ebsp.test.$mode.log
        st=0
        (cd "$bsp/test" && EPSIM_MODE=$mode timeout -k 5 $((TIMEOUT * 20)) "${NICE[@]}" python3 ./test.py) >"$log" 2>&1 </dev/null || st=$?
        for t in $tests; do
            if [[ ${BUILT[ebsp/test/$t]} == no ]]; then v="-"
            elif ! grep -q "^Testing $t\.\.\.$" "$log"; then v="FAIL (test.py did not get to it: exit $st)"
            elif grep -q "^WARNING: Unit test \"$t\" failed" "$log"; then
                if awk -v t="$t" '$0 == "WARNING: Unit test \"" t "\" failed with output:" { f = 1; next } f && /^(Testing |WARNING)/ { exit } f && /A timeout occurred/ { found = 1 } END { exit !found }' "$log"; then
                    v="FAIL (timeout: test.py allows 10 s)"
                else v="FAIL (output differs)"; fi
            else v=PASS; fi
            RES[ebsp/test/$t.$mode]=$v
            printf '   %-40s %-14s %s\n' "ebsp/test/$t" "$mode" "$v" >&2
        done
    done
    REASON[ebsp/test/${tests%% *}]="test.py: its 'expect' comments; log $LOGS/ebsp.test.MODE.log"
    # The examples, each from its bin/ directory (where its device ELF is).
    while IFS=$'\t' read -r name rule note; do
        [[ -z $name || $name == \#* ]] && continue
        [[ -z $ONLY ]] || [[ ebsp/$name =~ $ONLY ]] || continue
        NAMES+=("ebsp/$name")
        REASON[ebsp/$name]=$note
        if [[ -x $bsp/examples/bin/$name/host_$name ]]; then
            BUILT[ebsp/$name]=yes
            run_one "ebsp/$name" "$bsp/examples/bin/$name" "-c ./host_$name" "$rule"
        else
            BUILT[ebsp/$name]=no
        fi
    done <"$HERE/ebsp.tsv"
}
