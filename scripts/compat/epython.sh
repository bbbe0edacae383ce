# mesham/epython (ePython v2.0) in native mode, sourced by run.sh: the
# host interpreter built with the system compiler (-m32) against the
# 32-bit libe-hal, unmodified; the device interpreter with e-gcc and
# e-lib; each example of epython.tsv run with the ePython's own
# epython.sh from its directory.
run_epython() {
    local ep=$WORK/src/epython st name rule note
    export_env 32
    if ((BUILD)); then
        rm -rf "$ep"
        mkdir -p "$ep"
        cp -r "$EPYTHON/." "$ep/"
        st=0
        (cd "$ep" && "${NICE[@]}" make clean && "${NICE[@]}" make host-build CC="$ESDK/bin/host32-gcc" &&
            "${NICE[@]}" make device-build) >"$LOGS/epython.build.log" 2>&1 </dev/null || st=$?
        if ((st != 0)); then
            NAMES+=(epython)
            BUILT[epython]=no
            REASON[epython]="build: $(grep -Em1 'error|undefined|No such|not found' "$LOGS/epython.build.log" | cut -c1-100 || true)"
            return
        fi
    fi
    export EPYTHONPATH=$ep/modules
    while IFS=$'\t' read -r name rule note; do
        [[ -z $name || $name == \#* ]] && continue
        [[ -z $ONLY ]] || [[ epython/$name =~ $ONLY ]] || continue
        NAMES+=("epython/$name")
        BUILT[epython/$name]=yes
        REASON[epython/$name]=$note
        run_one "epython/$name" "$ep" "epython.sh examples/$name" "$rule"
    done <"$HERE/epython.tsv"
}
