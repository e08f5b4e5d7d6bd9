#!/usr/bin/env bash
# test_golden.sh — whole-scenario regression test: for each tests/golden/NAME.yaml, the run's
# summary.json (wall-clock fields removed: wall_s, events_per_s, peak_rss_bytes) must equal
# tests/golden/NAME.json byte for byte.
# After an intended change in the model, regenerate, review the diff, and commit:
#     WR_UPDATE_GOLDEN=1 bash tests/test_golden.sh build/wirerate .
# Usage: test_golden.sh WIRERATE_BINARY SOURCE_DIR
set -u
WR=${1:?usage: test_golden.sh WIRERATE SOURCE_DIR}
SRC=${2:?usage: test_golden.sh WIRERATE SOURCE_DIR}
case $WR in /*) ;; *) WR=$PWD/$WR ;; esac
case $SRC in /*) ;; *) SRC=$PWD/$SRC ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/wr-golden.XXXXXX")
trap 'rm -rf "$T"' EXIT
update=${WR_UPDATE_GOLDEN:-0}

fails=0
n=0
shopt -s nullglob
for sc in "$SRC"/tests/golden/*.yaml; do
    name=$(basename "$sc" .yaml)
    want=${sc%.yaml}.json
    n=$((n + 1))
    if ! "$WR" run "$sc" --quiet -o "$T/$name" > "$T/$name.stdout" 2> "$T/$name.stderr"; then
        fails=$((fails + 1)); echo "FAIL $name: wirerate exited non-zero"
        sed 's/^/     | /' "$T/$name.stderr"; continue
    fi
    grep -Ev '"(wall_s|events_per_s|peak_rss_bytes|setup_s)":' "$T/$name/summary.json" > "$T/$name.json"
    if [ "$update" = 1 ]; then
        cp "$T/$name.json" "$want"; echo "updated $want"; continue
    fi
    if [ ! -e "$want" ]; then
        fails=$((fails + 1))
        echo "FAIL $name: no $want (create it with WR_UPDATE_GOLDEN=1)"; continue
    fi
    if cmp -s "$want" "$T/$name.json"; then
        echo "ok   $name"
    else
        fails=$((fails + 1)); echo "FAIL $name: summary differs from the golden file:"
        diff -u "$want" "$T/$name.json" | head -40
    fi
done
if [ "$n" = 0 ]; then echo "FAIL no golden scenarios in $SRC/tests/golden"; exit 1; fi
echo "$n golden scenarios, $fails failed"
[ "$fails" = 0 ]
