#!/usr/bin/env bash
# test_trace_jobs.sh — trace.json carries the jobs: a row per rank, collective iterations as
# slices, training compute / TP / PP / DP tasks as slices on their ranks' rows; Perfetto's JSON
# format (checked with python3's json module). $1 = wirerate binary, $2 = source dir.
set -u
W=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/s.yaml" <<'YAML'
name: trace-jobs
fabric: {preset: rail-optimized, servers: 2, gpus_per_server: 8, leaf_radix: 16}
workload:
  - {name: ar, kind: collective, op: all_reduce, size: 4MiB, iterations: 2, ranks: "0-15"}
  - name: train
    kind: training
    model: {params: 1e8, layers: 4, hidden: 1024, seq_len: 512, vocab: 32000}
    parallelism: {tp: 8, pp: 2, dp: 1}
    global_batch: 4
    start: 50us
output: {formats: [json, trace]}
YAML
"$W" run "$tmp/s.yaml" -o "$tmp/out" --quiet > /dev/null || { echo "FAIL run"; exit 1; }
python3 - "$tmp/out/trace.json" <<'PY'
import json, sys, collections
t = json.load(open(sys.argv[1]))
ev = t["traceEvents"]
procs = {e["pid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "process_name"}
threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "thread_name"}
inv = {v: k for k, v in procs.items()}
fail = 0
def check(name, cond):
    global fail
    print(("ok   " if cond else "FAIL ") + name)
    fail += not cond
check("a process per job", "ar" in inv and "train" in inv)
ar_rows = [n for (p, _), n in threads.items() if p == inv.get("ar")]
check("16 rank rows for the collective", len(ar_rows) == 16 and "rank 0 (GPU 0)" in ar_rows)
ar_slices = [e for e in ev if e.get("ph") == "X" and e["pid"] == inv.get("ar")]
check("2 iterations x 16 ranks of all_reduce slices", len(ar_slices) == 32 and all(e["name"].startswith("all_reduce ring #") for e in ar_slices))
tr = [e for e in ev if e.get("ph") == "X" and e["pid"] == inv.get("train")]
cats = collections.Counter(e["cat"] for e in tr)
check("training: compute, tp and pp slices", cats["compute"] > 0 and cats["tp"] > 0 and cats["pp"] > 0)
check("slices have non-negative durations", all(e["dur"] >= 0 for e in tr + ar_slices))
# every rank computes: 16 rows with compute slices; forward and backward per micro-batch
rows = {e["tid"] for e in tr if e["cat"] == "compute"}
check("every training rank computes", len(rows) == 16)
names = {e["name"].split(" mb")[0] for e in tr if e["cat"] == "compute"}
check("forward and backward", names == {"forward", "backward"})
sys.exit(1 if fail else 0)
PY
