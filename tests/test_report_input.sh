#!/usr/bin/env bash
# test_report_input.sh — `wirerate report` on hostile folders: each bad file is refused with
# exit 3 and a message naming file:line and what was wrong (never a crash, never a page drawn
# from garbage); quoted fields (a job name with a comma, a quote and a line break) keep every
# row in place. $1 = wirerate binary, $2 = source dir.
set -u
W=$1
case $W in /*) ;; *) W=$PWD/$W ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/wr-repin.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fails=0
ok() { echo "ok   $1"; }
fail() { fails=$((fails + 1)); echo "FAIL $1"; }

cat > s.yaml <<'YAML'
name: repin
fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 1, host_link: 100Gbps,
         fabric_link: 100Gbps, leaf_radix: 4}
workload:
  - {name: incast, kind: traffic, pattern: incast, size: 100KB}
telemetry: {sample_interval: 5us}
output: {formats: [json, csv]}
YAML
"$W" run s.yaml -o base --quiet > /dev/null 2>&1 || { echo "FAIL run"; exit 1; }
rm base/manifest.json # hand-edited folders below: values are checked, not hashes

# case NAME FILE CONTENT EXPECTED-MESSAGE
case_bad() {
    local name=$1 file=$2 content=$3 want=$4
    rm -rf d && cp -r base d
    printf '%b' "$content" > "d/$file"
    "$W" report d > /dev/null 2> err.txt
    local rc=$?
    if [ $rc = 3 ] && grep -qF -- "$want" err.txt; then ok "$name"
    else fail "$name (exit $rc)"; sed 's/^/     | /' err.txt; fi
}
H='job,src_host,dst_host,size_bytes,delivered_bytes,start_ps,end_ps,fct_ps\n'
case_bad "flows: end before start" flows.csv "${H}incast,1,0,10,10,500,20,\n" \
    "flows.csv:2: end_ps 20 is before start_ps 500"
case_bad "flows: huge number" flows.csv "${H}incast,1,0,10,10,99999999999999999999,20,\n" \
    "flows.csv:2: column 'start_ps': 99999999999999999999 does not fit in 64 bits"
case_bad "flows: negative" flows.csv "${H}incast,1,0,-5,10,0,20,\n" \
    "column 'size_bytes': expected a non-negative integer, got \"-5\""
case_bad "flows: missing columns" flows.csv "job,src_host\nincast,1\n" \
    "flows.csv:1: expected start_ps and end_ps columns"
case_bad "flows: short row" flows.csv "${H}incast,1,0\n" "flows.csv:2: column 'size_bytes' missing"
case_bad "flows: empty file" flows.csv "" "flows.csv: empty file (expected a header row)"
case_bad "flows: binary junk" flows.csv "${H}\x01\x00\xff,\x00\n" "NUL byte"
case_bad "flows: unterminated quote" flows.csv "${H}\"incast,1,0,10,10,0,20,\n" \
    "unterminated quoted field"
case_bad "ports: NaN utilization" ports.csv "port,utilization\nleaf0->h0,nan\n" \
    "ports.csv:2: column 'utilization': expected a finite number"
case_bad "ports: infinite utilization" ports.csv "port,utilization\nleaf0->h0,1e999\n" \
    "column 'utilization'"
case_bad "timeseries: time goes backwards" timeseries.csv \
    "time_ps,port,queue_bytes,utilization,pfc_paused_mask\n10,a,0,0,0\n5,a,0,0,0\n" \
    "timeseries.csv:3: time_ps goes backwards"
case_bad "timeseries: sparse grid" timeseries.csv \
    "time_ps,port,queue_bytes,utilization,pfc_paused_mask\n$(for i in $(seq 1 400); do printf '%d,p%d,0,0,0\\n' $i $i; done)" \
    "not the port × time grid"
case_bad "summary: not JSON" summary.json "{\"sim\": [" "summary.json"

# quoted fields: a job name with a comma, a doubled quote and a line break stays one field,
# and the next row is read in place
rm -rf q && cp -r base q
printf '%b' "${H}\"in,\"\"cast\"\"\nx\",1,0,10,10,0,20,20\nincast,2,0,10,10,0,40,40\n" > q/flows.csv
"$W" report q > /dev/null 2> err.txt; rc=$?
if [ $rc = 0 ] && grep -q "2 of 2 flows completed" q/report.html; then
    ok "quoted job name with comma, quote and line break"
else fail "quoted fields (exit $rc)"; cat err.txt; fi

# summary.json fields other parts of wirerate add: rendered when present (absent: see above)
rm -rf n && cp -r base n
python3 - <<'PY'
import json
d = json.load(open("n/summary.json"))
j = d["jobs"][0]
j.update(ideal_jct_ps=1360000000, ideal_basis="line rate of h0's link", jct_over_ideal=5.58)
d["jobs"].append(dict(j, name="broken", failed=True, reason="QP h3->h0 retry limit exceeded",
                      completed=False, jct_ps=0, end_ps=0))
d["diagnosis"] = [{"rule": "dcqcn_collapse", "text": "senders held at 0.8 Gbps", "cost_ps": 7000000000}]
json.dump(d, open("n/summary.json", "w"))
PY
"$W" report n > /dev/null 2> err.txt; rc=$?
grep -q "JCT = 5.58 × the 1.360 ms ideal" n/report.html && grep -q "line rate of h0" n/report.html &&
  grep -q "FAILED" n/report.html && grep -q "retry limit exceeded" n/report.html &&
  grep -q "dcqcn_collapse</b>: senders held at 0.8 Gbps" n/report.html &&
  grep -q "(cost 7.000 ms)" n/report.html && [ $rc = 0 ] &&
  ok "ideal, failed/reason and summary.json diagnosis rendered" ||
  { fail "new summary.json fields (exit $rc)"; cat err.txt; }

[ "$fails" = 0 ] && echo "all passed" || echo "$fails failed"
[ "$fails" = 0 ]
