#!/usr/bin/env bash
# test_determinism.sh — same scenario + same seed => byte-identical results (DESIGN.md
# "Determinism"); a different seed must change what the seed drives (the permutation).
# Compared: summary.json without the wall-clock fields (wall_s, events_per_s, peak_rss_bytes,
# which measure the machine, not the model) and flows.csv / ports.csv / requests.csv as they are.
# Usage: test_determinism.sh WIRERATE_BINARY SOURCE_DIR
set -u
WR=${1:?usage: test_determinism.sh WIRERATE SOURCE_DIR}
SRC=${2:?usage: test_determinism.sh WIRERATE SOURCE_DIR}
case $WR in /*) ;; *) WR=$PWD/$WR ;; esac
case $SRC in /*) ;; *) SRC=$PWD/$SRC ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/wr-det.XXXXXX")
trap 'rm -rf "$T"' EXIT

fails=0
ok()   { echo "ok   $1"; }
fail() { fails=$((fails + 1)); echo "FAIL $1"; }
strip_wall() { grep -Ev '"(wall_s|events_per_s|peak_rss_bytes|setup_s)":' "$1"; }

# run NAME SCENARIO OUTDIR [ARGS...]
run() {
    local name=$1 sc=$2 out=$3; shift 3
    "$WR" run "$sc" --quiet -o "$out" "$@" > "$out.stdout" 2> "$out.stderr"
    local rc=$?
    if [ "$rc" != 0 ]; then
        fail "$name: wirerate exited $rc"; sed 's/^/     | /' "$out.stderr"; return 1
    fi
    strip_wall "$out/summary.json" > "$out.det.json"
}

for ex in default incast background mice inference uet-incast infiniband; do
    sc=$SRC/examples/$ex.yaml
    echo "== $ex: two runs, same seed"
    run "$ex run 1" "$sc" "$T/$ex-a" || continue
    run "$ex run 2" "$sc" "$T/$ex-b" || continue
    if cmp -s "$T/$ex-a.det.json" "$T/$ex-b.det.json"; then ok "$ex: summary.json identical"
    else fail "$ex: summary.json differs:"; diff "$T/$ex-a.det.json" "$T/$ex-b.det.json" | head -20; fi
    for csv in flows.csv ports.csv requests.csv; do
        [ -e "$T/$ex-a/$csv" ] || continue
        if cmp -s "$T/$ex-a/$csv" "$T/$ex-b/$csv"; then ok "$ex: $csv identical"
        else fail "$ex: $csv differs"; fi
    done
    if grep -q '"events": 0,' "$T/$ex-a.det.json"; then fail "$ex: no events simulated"
    else ok "$ex: events were simulated"; fi
done

# flow level (docs/fidelity.md): the same files, byte for byte, for the same seed (ECMP
# collisions, a training job, spray's path split, adaptive's load-dependent choice)
for fx in "fidelity/permutation" "fidelity/training" "fidelity/linkdown" "lb-collisions"; do
    for lb in ecmp spray adaptive; do
        [ "$fx" = "fidelity/permutation" ] || [ "$lb" = ecmp ] || continue
        n="flow ${fx#fidelity/} $lb"
        echo "== $n: two runs, same seed"
        d="$T/flow-${fx#fidelity/}-$lb"
        run "$n run 1" "$SRC/examples/$fx.yaml" "$d-a" --fidelity flow \
            --set loadbalance.mode=$lb || continue
        run "$n run 2" "$SRC/examples/$fx.yaml" "$d-b" --fidelity flow \
            --set loadbalance.mode=$lb || continue
        if cmp -s "$d-a.det.json" "$d-b.det.json"; then ok "$n: summary.json identical"
        else fail "$n: summary.json differs:"; diff "$d-a.det.json" "$d-b.det.json" | head; fi
        for csv in flows.csv ports.csv transfers.csv; do
            [ -e "$d-a/$csv" ] || continue
            if cmp -s "$d-a/$csv" "$d-b/$csv"; then ok "$n: $csv identical"
            else fail "$n: $csv differs"; fi
        done
        if grep -q '"fidelity": "flow"' "$d-a.det.json"; then ok "$n: ran flow-level"
        else fail "$n: summary.json does not say sim.fidelity flow"; fi
    done
done

echo "== incast under nic.cc hpcc (INT-driven windows): two runs, same seed"
if run "hpcc run 1" "$SRC/examples/incast.yaml" "$T/hpcc-a" --set nic.cc=hpcc &&
   run "hpcc run 2" "$SRC/examples/incast.yaml" "$T/hpcc-b" --set nic.cc=hpcc; then
    if cmp -s "$T/hpcc-a.det.json" "$T/hpcc-b.det.json"; then ok "hpcc: summary.json identical"
    else fail "hpcc: summary.json differs:"; diff "$T/hpcc-a.det.json" "$T/hpcc-b.det.json" | head -20; fi
    for csv in flows.csv ports.csv; do
        [ -e "$T/hpcc-a/$csv" ] || continue
        if cmp -s "$T/hpcc-a/$csv" "$T/hpcc-b/$csv"; then ok "hpcc: $csv identical"
        else fail "hpcc: $csv differs"; fi
    done
fi

echo "== default: a different seed draws a different permutation"
if run "default --seed 2" "$SRC/examples/default.yaml" "$T/default-s2" --seed 2; then
    pairs() { cut -d, -f2,3 "$1" | sort; }
    if [ -e "$T/default-a/flows.csv" ] && [ -e "$T/default-s2/flows.csv" ]; then
        if [ "$(pairs "$T/default-a/flows.csv")" != "$(pairs "$T/default-s2/flows.csv")" ]; then
            ok "seed 1 and seed 2 permutations differ"
        else
            fail "seed 1 and seed 2 produced the same source/destination pairs"
        fi
    else
        fail "flows.csv missing (examples/default.yaml should list csv in output.formats)"
    fi
    if grep -q '^  "seed": 2,$' "$T/default-s2.det.json"; then ok "seed field is 2"
    else fail "seed field is not 2"; fi
fi

echo "$fails failed"
[ "$fails" = 0 ]
