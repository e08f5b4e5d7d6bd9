#!/usr/bin/env bash
# test_pin.sh — the results pin: each scenario of tests/pin/ (ECMP + PFC/DCQCN, spray, UET with
# trimming, PFC incast with DWRR, HPCC's INT, a ring all_reduce, a training job, InfiniBand
# credits, VXLAN with flowlets and link faults, the same faults with the default features) is run
# and the SHA-256 of every result file is compared with tests/pin/pins.sha256: summary.json
# without the fields that measure the machine (wall_s, events_per_s, peak_rss_bytes, setup_s)
# and the tool's version, and every CSV as written. A change to the engine that is meant to be
# invisible (a faster event queue, a struct laid out for the cache) must leave every line as it
# is; it proves "byte-identical results before and after" file by file, in Debug and Release
# alike. Each scenario runs three ways:
# as it comes, with the prefetch hook forced on, and with the hook on and the general frame
# path forced (WR_FAST_PATH=0): the scenarios with the default features otherwise take the copy
# of the frame path compiled for them (port.c, net.fast), so both copies are pinned.
# After an intended change in the model, regenerate, say why in the commit, and commit:
#     WR_UPDATE_PIN=1 bash tests/test_pin.sh build/wirerate .
# Usage: test_pin.sh WIRERATE_BINARY SOURCE_DIR
set -u
WR=${1:?usage: test_pin.sh WIRERATE SOURCE_DIR}
SRC=${2:?usage: test_pin.sh WIRERATE SOURCE_DIR}
case $WR in /*) ;; *) WR=$PWD/$WR ;; esac
case $SRC in /*) ;; *) SRC=$PWD/$SRC ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/wr-pin.XXXXXX")
trap 'rm -rf "$T"' EXIT
PINS=$SRC/tests/pin/pins.sha256
update=${WR_UPDATE_PIN:-0}

fails=0
n=0
shopt -s nullglob
# run_all MODE: every pinned scenario, its result sums in $T/got.MODE. MODE "auto" leaves
# WR_PREFETCH unset (these small fabrics then run without the prefetch hook, topo.c
# net_prefetch_pays), 1 forces the hook on, so its ECMP guess is checked against the pins too,
# "general" forces the hook on and the general frame path (WR_FAST_PATH=0).
run_all() {
    local mode=$1 got=$T/got.$1
    : > "$got"
    for sc in "$SRC"/tests/pin/*.yaml; do
        name=$(basename "$sc" .yaml)
        n=$((n + 1))
        out=$T/out.$mode/$name
        if ! case $mode in
             auto) env -u WR_PREFETCH -u WR_FAST_PATH "$WR" run "$sc" --quiet -o "$out" ;;
             general) WR_PREFETCH=1 WR_FAST_PATH=0 "$WR" run "$sc" --quiet -o "$out" ;;
             *) env -u WR_FAST_PATH WR_PREFETCH="$mode" "$WR" run "$sc" --quiet -o "$out" ;;
             esac \
                > "$T/$name.stdout" 2> "$T/$name.stderr"; then
            fails=$((fails + 1)); echo "FAIL $name ($mode): wirerate exited non-zero"
            sed 's/^/     | /' "$T/$name.stderr"; continue
        fi
        grep -Ev '"(wall_s|events_per_s|peak_rss_bytes|setup_s|version)":' "$out/summary.json" \
            > "$out/summary.det"
        if ! grep -q '"end_reason": "completed"' "$out/summary.det"; then
            fails=$((fails + 1)); echo "FAIL $name ($mode): the run did not complete"
        fi
        (cd "$T/out.$mode" &&
            for f in "$name"/summary.det "$name"/*.csv; do sha256sum "$f"; done) >> "$got"
    done
}
run_all auto
if [ "$n" = 0 ]; then echo "FAIL no scenarios in $SRC/tests/pin"; exit 1; fi
if [ "$update" = 1 ]; then
    cp "$T/got.auto" "$PINS"; echo "updated $PINS ($(wc -l < "$PINS") files)"; exit 0
fi
if [ ! -e "$PINS" ]; then
    echo "FAIL no $PINS (create it with WR_UPDATE_PIN=1)"; exit 1
fi
run_all 1
run_all general
# file by file: a missing, extra or changed file is named
for mode in auto 1 general; do
    got=$T/got.$mode
    while read -r sum file; do
        want=$(awk -v f="$file" '$2 == f { print $1 }' "$PINS")
        if [ -z "$want" ]; then
            fails=$((fails + 1)); echo "FAIL $file ($mode): not pinned (new output file?)"
        elif [ "$want" != "$sum" ]; then
            fails=$((fails + 1)); echo "FAIL $file ($mode): differs from its pin"
        else echo "ok   $file ($mode)"; fi
    done < "$got"
    while read -r sum file; do
        grep -q " $file\$" "$got" ||
            { fails=$((fails + 1)); echo "FAIL $file ($mode): pinned but not written"; }
    done < "$PINS"
done
echo "$n pinned runs (each scenario as it comes, with the prefetch hook, with the hook and the" \
    "general frame path)," \
    "$(cat "$T"/got.* | wc -l) files, $fails failed"
[ "$fails" = 0 ]
