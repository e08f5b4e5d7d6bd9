#!/usr/bin/env bash
# test_interrupt.sh — an interrupted run keeps its results:
#   1. SIGINT during a long run: the simulation stops at the next event, every file of
#      output.formats is written (no temp file left), summary.json says sim.interrupted: true and
#      hit_stop_at: false, the text summary says INTERRUPTED, and the process dies of SIGINT
#      (exit status 130) so the shell sees the interruption;
#   2. SIGTERM, the same with --json on stdout (exit status 143);
#   3. two SIGTERMs in a row: exits at once, leaving either nothing or a complete, marked folder —
#      never a partial one.
# Each run is a 64 GB permutation (a minute of simulation in a Release build, far more with
# sanitizers): it can only end this fast by the signal. The signal is sent once the run is
# simulating (it has flushed captured frames to its capture temp file), not after a fixed sleep:
# a sleep both waits for nothing and, on a fast build, can outlast a run.
# $1 = wirerate binary, $2 = source dir.
set -u
W=$1
case $W in /*) ;; *) W=$PWD/$W ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/wr-int.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

cat > long.yaml <<'EOF'
name: long
fabric: {preset: leaf-spine, servers: 2, gpus_per_server: 8, leaf_radix: 16}
workload: [{name: perm, kind: traffic, pattern: permutation, size: 64GB}]
output: {formats: [json, csv, prom, trace, pcap]}
EOF

# start NAME ARGS...: run in the background; PID in $pid
start() { local n=$1; shift; "$W" run long.yaml -o "out-$n" "$@" > "$n.out" 2> "$n.err" & pid=$!; }
# simulating PID: wait (at most ~30 s) until the run is simulating: it holds the capture's temp
# file (unlinked at once, so seen through /proc/PID/fd) and stdio has flushed a first buffer of
# captured frames to it. The signal handlers are installed before the scenario is loaded.
simulating() {
    local i fd
    for i in $(seq 3000); do
        for fd in /proc/"$1"/fd/*; do
            case $(readlink "$fd" 2> /dev/null) in
            *.wirerate-capture-*)
                [ "$(stat -L -c %s "$fd" 2> /dev/null || echo 0)" -gt 0 ] && return 0 ;;
            esac
        done
        kill -0 "$1" 2> /dev/null || break
        sleep 0.01
    done
    bad "the run did not start simulating"
    return 1
}
# finish PID: wait at most 60 s for it; its exit status in $rc
finish() {
    local i
    for i in $(seq 600); do kill -0 "$1" 2> /dev/null || break; sleep 0.1; done
    if kill -0 "$1" 2> /dev/null; then kill -9 "$1"; bad "run did not end after the signal"; fi
    wait "$1"; rc=$?
}
complete() { # complete DIR: every file of the formats, no temp file
    local f
    for f in summary.json flows.csv ports.csv queues.csv nics.csv metrics.prom trace.json \
             capture.pcap; do
        [ -s "$1/$f" ] || { echo "  missing $1/$f"; return 1; }
    done
    ! ls -A "$1" | grep -q '^\.' || { echo "  temp files left in $1"; return 1; }
    ! ls -A . | grep -q '^\.wirerate' || { echo "  capture temp file left"; return 1; }
}

echo "== SIGINT"
start int
simulating $pid
kill -INT $pid
finish $pid
if [ "$rc" = 130 ]; then ok "died of SIGINT after writing (status 130)"; else
    bad "exit status $rc, want 130"; sed 's/^/     | /' int.err; fi
if complete out-int; then ok "every output file written"; else bad "incomplete output"; fi
if grep -q '"interrupted": true' out-int/summary.json 2> /dev/null &&
   grep -q '"hit_stop_at": false' out-int/summary.json; then
    ok "summary.json: sim.interrupted true, hit_stop_at false"
else bad "summary.json not marked"; fi
if grep -q "INTERRUPTED" int.out; then ok "text summary says INTERRUPTED"; else
    bad "text summary not marked"; fi
if python3 -c 'import json,sys; json.load(open("out-int/summary.json")); json.load(open("out-int/trace.json"))' 2> /dev/null
then ok "summary.json and trace.json parse"; else bad "JSON does not parse"; fi
end_ps=$(sed -n 's/.*"end_ps": \([0-9]*\).*/\1/p' out-int/summary.json | head -1)
if [ -n "$end_ps" ] && [ "$end_ps" -gt 0 ]; then ok "simulated time so far: $end_ps ps"; else
    bad "end_ps missing or 0"; fi

echo "== SIGTERM with --json"
start term --json --quiet
simulating $pid
kill -TERM $pid
finish $pid
if [ "$rc" = 143 ]; then ok "died of SIGTERM after writing (status 143)"; else
    bad "exit status $rc, want 143"; fi
if python3 -c 'import json; d=json.load(open("term.out")); assert d["sim"]["interrupted"] is True' \
    2> /dev/null; then ok "--json: stdout is the marked summary"; else bad "--json output"; fi
if complete out-term; then ok "every output file written"; else bad "incomplete output"; fi

echo "== two SIGTERMs"
start twice --quiet
simulating $pid
kill -TERM $pid
kill -TERM $pid
finish $pid
if [ "$rc" = 143 ]; then ok "exit status 143"; else bad "exit status $rc, want 143"; fi
if [ ! -e out-twice ]; then ok "quit at once: no output folder"
elif complete out-twice && grep -q '"interrupted": true' out-twice/summary.json; then
    ok "quit after a complete, marked write"
else bad "a partial output folder was left"; fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
