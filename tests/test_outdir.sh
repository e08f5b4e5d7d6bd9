#!/usr/bin/env bash
# test_outdir.sh — one run, one folder (outdir.h): a rerun with fewer formats leaves no stale
# file; a folder holding someone else's file is refused before the run and left untouched;
# `report` ignores a CSV the manifest does not list and refuses one that changed since the run;
# a run killed while writing leaves the previous complete folder. $1 = wirerate, $2 = source.
set -u
W=$1
case $W in /*) ;; *) W=$PWD/$W ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/wr-outdir.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fails=0
ok() { echo "ok   $1"; }
fail() { fails=$((fails + 1)); echo "FAIL $1"; }
check() { local n=$1; shift; if "$@"; then ok "$n"; else fail "$n"; fi; }

cat > s.yaml <<'YAML'
name: outdir
fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 1, host_link: 100Gbps,
         fabric_link: 100Gbps, leaf_radix: 4}
workload:
  - {name: incast, kind: traffic, pattern: incast, size: 100KB}
telemetry: {sample_interval: 5us}
output: {formats: [json, csv, prom, html]}
YAML
"$W" run s.yaml -o out --quiet > /dev/null 2> err.txt
check "first run writes the folder" test -s out/summary.json -a -s out/metrics.prom -a -s out/report.html
check "manifest.json lists the files" python3 -c "
import json; m = json.load(open('out/manifest.json'))
names = {f['name'] for f in m['files']}
assert {'summary.json', 'flows.csv', 'metrics.prom', 'report.html'} <= names, names
assert len(m['run_id']) == 16"
check "no staging folder left" sh -c '! ls -a | grep -q "wr-new"'

# rerun with fewer formats: nothing of the first run survives
"$W" run s.yaml -o out --quiet --set 'output.formats=[json]' > /dev/null 2>> err.txt
check "rerun with fewer formats: only its files" \
    sh -c 'test "$(ls out | tr "\n" " ")" = "manifest.json summary.json "'

# a folder with a file wirerate did not write is refused, untouched
mkdir -p mine && echo "my notes" > mine/notes.txt
"$W" run s.yaml -o mine --quiet > /dev/null 2> refuse.txt; rc=$?
check "foreign folder refused with exit 4" test "$rc" = 4
check "the refusal names the file" grep -q "notes.txt" refuse.txt
check "the foreign folder is untouched" sh -c 'test "$(ls mine)" = notes.txt'

# a folder from a release without manifests (only names a run writes) is replaced
mkdir -p legacy && echo '{}' > legacy/summary.json && echo 'x' > legacy/capture.pcap
"$W" run s.yaml -o legacy --quiet --set 'output.formats=[json]' > /dev/null 2>> err.txt
check "a manifest-less wirerate folder is replaced whole" \
    sh -c 'test "$(ls legacy | tr "\n" " ")" = "manifest.json summary.json "'

# report: a stale CSV the manifest does not list is ignored; a changed listed file refuses
"$W" run s.yaml -o r --quiet > /dev/null 2>> err.txt
printf 'job,src_host,dst_host,size_bytes,delivered_bytes,start_ps,end_ps,fct_ps\n' > stale.csv
printf 'old,0,1,5,5,10,20,10\n' >> stale.csv
python3 - <<'PY'
import json
m = json.load(open("r/manifest.json"))
m["files"] = [f for f in m["files"] if f["name"] != "flows.csv"]
json.dump(m, open("r/manifest.json", "w"))
PY
cp stale.csv r/flows.csv
"$W" report r > /dev/null 2> rep.txt; rc=$?
check "report ignores an unlisted CSV (exit 0)" test "$rc" = 0
check "the page says the CSV was ignored" grep -q "flows.csv is not listed in manifest.json" r/report.html
check "the stale flow is not drawn" sh -c '! grep -q "1 of 1 flows completed" r/report.html'
echo "extra" >> r/ports.csv
"$W" report r > /dev/null 2> rep2.txt; rc=$?
check "report refuses a changed listed file (exit 3)" test "$rc" = 3
check "the refusal names it" grep -q "ports.csv: does not match manifest.json" rep2.txt

# a run killed while writing leaves the previous complete folder
"$W" run s.yaml -o k --quiet --set 'output.formats=[json]' > /dev/null 2>> err.txt
cp k/summary.json before.json
cat > big.yaml <<'YAML'
name: big
fabric: {preset: leaf-spine, servers: 8, gpus_per_server: 1, host_link: 100Gbps,
         fabric_link: 100Gbps, leaf_radix: 4}
workload:
  - {name: a2a, kind: traffic, pattern: all-to-all, size: 2MB}
telemetry: {sample_interval: 1us}
output: {formats: [json, csv, trace, prom]}
YAML
# The file-size limit kills the process (SIGXFSZ) in the middle of writing its files: an
# interruption at a known point, without racing a timer.
(ulimit -f 256; exec "$W" run big.yaml -o k --quiet > /dev/null 2> killed.txt); rc=$?
check "the run was killed while writing (exit $rc)" test "$rc" -gt 128
check "it had started writing a staging folder" sh -c 'ls -a | grep -q "^\.k\.wr-new"'
check "killed run: the previous folder is complete" cmp -s before.json k/summary.json
check "killed run: no file of the killed run in the folder" \
    sh -c 'test "$(ls k | tr "\n" " ")" = "manifest.json summary.json "'
rm -rf .k.wr-new-*

[ "$fails" = 0 ] && echo "all passed" || echo "$fails failed"
[ "$fails" = 0 ]
