#!/usr/bin/env bash
# test_faults_cli.sh — every fault shows in summary.json (what it did: local fast reroute vs
# remote detect + converge, frames corrupted, speed), in the fault timeline, in trace.json (a
# "faults" process with a row per fault and instants) and in report.html; a restarted training
# job carries its lost work; the goodput section is written. $1 = wirerate binary.
set -u
W=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/s.yaml" <<'YAML'
name: faults-cli
fabric: {preset: leaf-spine, servers: 16, gpus_per_server: 1, leaf_radix: 8,
         host_link: 100Gbps, fabric_link: 100Gbps}
loadbalance: {mode: spray}
nic: {retransmit: selective, rto: 200us}
workload: [{name: a2a, kind: traffic, pattern: all-to-all, size: 256KB}]
faults:
  - {at: 20us, kind: link-down, link: leaf0-spine0, detect: 50us, converge: 50us}
  - {at: 10us, kind: link-ber, link: leaf1-spine1, ber: 1e-6}
  - {at: 10us, kind: link-degraded, link: leaf2-spine1, fraction: 0.75}
  - {at: 30us, kind: link-flap, link: leaf3-spine2, period: 40us, duration: 100us, detect: 5us,
     converge: 5us}
  - {at: 50us, kind: switch-drain, switch: spine3, converge: 10us, wait: 10us, duration: 50us}
  - {at: 5s, kind: switch-down, switch: spine2}
output: {formats: [json, trace, html]}
YAML
"$W" run "$tmp/s.yaml" -o "$tmp/out" > "$tmp/text" || { echo "FAIL run"; exit 1; }
fail=0
for want in "local fast reroute at 20.000 us; remote detect 50.000 us + converge 50.000 us" \
            "did not fire (the jobs ended first)" "100 -> 75 Gb/s" "frames corrupted" \
            "6 transitions" "drained (graceful shutdown)"; do
  grep -qF "$want" "$tmp/text" || { echo "FAIL text lacks: $want"; fail=1; }
done
python3 - "$tmp/out" <<'PY' || fail=1
import json, sys
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
f = s["faults"]
kinds = [x["kind"] for x in f]
assert kinds == ["link-down", "link-ber", "link-degraded", "link-flap", "switch-drain",
                 "switch-down"], kinds
assert f[0]["local_reroute_ps"] == 20000000 and f[0]["converged_ps"] == 120000000, f[0]
assert f[1]["corrupted_frames"] > 0 and f[1]["ber_at"] == "post-fec"
assert f[2]["rate_bps"] == 75000000000 and f[2]["orig_rate_bps"] == 100000000000
assert f[3]["transitions"] == 6
assert f[5]["fired"] is False and f[5]["end_ps"] is None
tl = s["fault_timeline"]
assert len(tl) == s["fault_timeline_total"] and len(tl) >= 12, len(tl)
assert all(tl[i]["t_ps"] <= tl[i + 1]["t_ps"] for i in range(len(tl) - 1))
assert s["fabric"]["drops"]["bit_error"] == f[1]["corrupted_frames"]
rules = [x["rule"] for x in s["diagnosis"]]
assert "link_fault" in rules and "bit_errors" in rules and "ecmp_collision" not in rules, rules
t = json.load(open(d + "/trace.json"))
ev = t["traceEvents"]
procs = {e["pid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "process_name"}
fp = [p for p, n in procs.items() if n == "faults"]
assert len(fp) == 1, procs
rows = {e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "thread_name" and e["pid"] == fp[0]}
assert "link-down leaf0-spine0" in rows and "switch-drain spine3" in rows, rows
inst = [e for e in ev if e.get("pid") == fp[0] and e.get("ph") in ("i", "I")]
assert len(inst) == len(tl), (len(inst), len(tl))
h = open(d + "/report.html").read()
assert "<h2>Faults</h2>" in h and "Fault timeline" in h and "local fast reroute" in h
PY
cat > "$tmp/g.yaml" <<'YAML'
name: goodput-cli
fabric: {preset: single-switch, servers: 1, gpus_per_server: 8}
workload:
  - {name: train, kind: training, parallelism: {tp: 8}, global_batch: 2, iterations: 4,
     model: {params: 1e9, layers: 4, hidden: 1024, seq_len: 512},
     checkpoint: {interval: 2, write_time: 100us, restart_time: 1ms}}
faults: [{at: 5ms, kind: gpu-fail, gpu: 3}]
goodput: {iterations: 100000, samples: 100}
output: {formats: [json, html]}
YAML
"$W" run "$tmp/g.yaml" -o "$tmp/g" > "$tmp/gtext" || { echo "FAIL goodput run"; exit 1; }
grep -q "^goodput    job train" "$tmp/gtext" || { echo "FAIL goodput text"; fail=1; }
grep -q "restart: lost work" "$tmp/gtext" || { echo "FAIL restart text"; cat "$tmp/gtext"; fail=1; }
python3 - "$tmp/g" <<'PY' || fail=1
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
j = s["jobs"][0]
assert j["completed"] and j["restarts"] == 1 and j["lost_work_ps"] > 0, j
assert j["restart_ps"] == 1000000000
g = s["goodput"]
assert g["ok"] and g["footprint"]["gpus"] == 8 and g["best_interval"] >= 1, g
assert g["at_interval"]["wall_p50_s"] <= g["at_interval"]["wall_p90_s"]
assert "gpu_failure" in [x["rule"] for x in s["diagnosis"]]
assert "Goodput of a long run" in open(sys.argv[1] + "/report.html").read()
PY
[ $fail = 0 ] && echo "ok faults in summary, timeline, trace, report; goodput"
exit $fail
