#!/usr/bin/env bash
# test_import.sh — `wirerate import chakra` and `import astra-sim` (docs/import.md). Chakra: the shipped example traces read
# back with their node and dependency counts, ranks ordered by PREFIX.N.et whatever the argument
# order; `-o S.yaml` writes a scenario that runs the traces (kind: chakra), byte-identically
# twice; a truncated trace exits 3 naming the file; a missing file 4; usage errors 2 (skipped, and
# says so, in a build without protobuf-c, where the command must say it cannot read traces).
# ASTRA-sim: examples/astra-sim/h100x4.{yml,json} become a scenario that runs, with each figure
# where the mapping puts it; three dimensions (ASTRA-sim's Ring_FullyConnected_Switch, a rail-
# optimized [FullyConnected, Switch, Switch]) import and run; what cannot be mapped is refused
# at its file:line:col.
# htsim: examples/htsim/{fat_tree_16.topo,perm_chain_16.cm} become a scenario with the fat tree's
# switches and links and the matrix's flows, sizes, start times and trigger chains (counts and spot
# checks); run, each chained flow starts exactly when the last flow it waits for completes;
# malformed files are refused at their file:line:col, leaving no scenario.
# $1 = wirerate binary, $2 = source dir.
set -u
W=$1
SRC=$2
case $W in /*) ;; *) W=$PWD/$W ;; esac
case $SRC in /*) ;; *) SRC=$PWD/$SRC ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/wr-import.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }
EX=$SRC/examples/chakra

"$W" import chakra "$EX/pipeline.0.et" > probe.out 2> probe.err
if [ $? = 2 ] && grep -q 'built without protobuf-c' probe.err; then
    echo "skip chakra: this build has no protobuf-c (and says so)"
else

"$W" import chakra "$EX/dp_allreduce.3.et" "$EX/dp_allreduce.1.et" "$EX/dp_allreduce.0.et" \
    "$EX/dp_allreduce.2.et" > dp.out 2> dp.err
check "the 4-rank example: exit 0" "[ $? = 0 ]"
check "  4 ranks, 16 nodes, 12 dependencies" "grep -q '^chakra trace: 4 ranks, 16 nodes, 12 dependencies' dp.out"
check "  ranks in file-name order" "awk '\$1 ~ /^[0-3]\$/ {print \$1, \$2}' dp.out | tr '\n' ' ' | grep -q '^0 dp_allreduce.0.et 1 dp_allreduce.1.et 2 dp_allreduce.2.et 3 dp_allreduce.3.et'"
check "  rank 0: 3 compute, 1 collective, 3 dependencies, 390 us of compute" \
    "grep -qE '^  0 +dp_allreduce.0.et +4 +3 +1 +0 +0 +0 +3 +390.000 us' dp.out"
check "  the all_reduce of 64 MiB on every rank" "grep -q 'all_reduce x 4 over the ranks, 268.44 MB in total' dp.out"
check "  says how to run it" "grep -q 'to run it: wirerate import chakra TRACE.et... -o S.yaml' dp.out"
mkdir sub
"$W" import chakra "$EX/dp_allreduce.0.et" "$EX/dp_allreduce.1.et" "$EX/dp_allreduce.2.et" \
    "$EX/dp_allreduce.3.et" -o sub/dp.yaml > dpo.out 2> dpo.err
check "import chakra -o: exit 0, joins the ranks, prints the scenario's path" \
    "[ $? = 0 ] && grep -q 'joined across ranks: 13 operations (12 compute, 1 collectives, 0 messages), 12 dependencies' dpo.out && tail -1 dpo.out | grep -q 'sub/dp.yaml$'"
check "  a chakra job referencing the 4 traces, one GPU per rank" \
    "grep -q 'kind: chakra' sub/dp.yaml && [ \$(grep -c 'dp_allreduce.[0-3].et\"   # rank' sub/dp.yaml) = 4 ] && grep -q 'servers: 4' sub/dp.yaml"
"$W" run sub/dp.yaml --quiet -o run1 > run1.out 2> run1.err
check "  it runs: the job completes" "[ $? = 0 ] && grep -q '\"kind\": \"chakra\"' run1/summary.json && grep -q '\"completed\": true' run1/summary.json"
check "  with per-rank figures and the critical path" \
    "grep -q '\"per_rank\"' run1/summary.json && grep -q '\"last_op\": \"optimizer\"' run1/summary.json"
"$W" run sub/dp.yaml --quiet -o run2 > /dev/null 2>&1
strip_wall() { grep -Ev '"(wall_s|events_per_s|peak_rss_bytes|setup_s)":' "$1"; }
check "  a rerun: summary.json identical (wall-clock fields aside)" \
    "strip_wall run1/summary.json > a.json && strip_wall run2/summary.json > b.json && cmp -s a.json b.json"
"$W" run "$SRC/examples/chakra/pipeline.yaml" --quiet -o runpp > /dev/null 2> runpp.err
check "the shipped pipeline scenario runs" "[ $? = 0 ] && grep -q '\"completed\": true' runpp/summary.json"
"$W" import chakra "$EX/pipeline.0.et" "$EX/pipeline.1.et" -o /nonexistent-dir/x.yaml > /dev/null 2> nodir.err
check "import chakra -o into a missing folder: exit 4, nothing written" "[ $? = 4 ]"
"$W" import chakra "$EX/pipeline.0.et" "$EX/pipeline.1.et" > pp.out 2>&1
check "the pipeline example: a send and its receive" "[ $? = 0 ] && grep -q 'every send has its receive' pp.out"
"$W" import chakra "$EX/pipeline.0.et" > half.out 2> half.err
check "a send to a rank outside the trace: exit 3" "[ $? = 3 ] && grep -q 'comm_dst is not a rank of the trace' half.err"
"$W" import chakra "$EX/pipeline.0.et" "$EX/dp_allreduce.1.et" > nomatch.out 2> nomatch.err
check "a send without its receive: exit 3 naming both sides" \
    "[ $? = 3 ] && grep -q 'rank 0 sends 8388608 bytes with tag 7 to rank 1 1 times; rank 1 receives such a message 0 times' nomatch.err"
head -c 150 "$EX/dp_allreduce.0.et" > cut.0.et
"$W" import chakra cut.0.et > cut.out 2> cut.err
check "a truncated trace: exit 3 naming the file and byte" "[ $? = 3 ] && grep -q '^wirerate: cut.0.et: error: byte [0-9]*: a message of' cut.err"
"$W" import chakra nope.et > /dev/null 2> nope.err
check "a missing file: exit 4" "[ $? = 4 ]"
"$W" import > /dev/null 2>&1
check "no format: exit 2" "[ $? = 2 ]"
"$W" import ns3 x > /dev/null 2>&1
check "an unknown format: exit 2" "[ $? = 2 ]"
fi

echo "== astra-sim network YAML + system JSON"
AS=$SRC/examples/astra-sim
"$W" import astra-sim --network "$AS/h100x4.yml" --system "$AS/h100x4.json" --size 4MiB \
    -o as.yaml > as.out 2> as.err
check "import astra-sim: exit 0, prints the scenario's path" "[ $? = 0 ] && grep -q 'as.yaml$' as.out"
check "  4 servers of 8 GPUs on one switch" \
    "grep -q '^  preset: single-switch' as.yaml && grep -q '^  servers: 4$' as.yaml && grep -q '^  gpus_per_server: 8$' as.yaml"
check "  NIC at dimension 1's 50 GB/s and 500 ns per link" \
    "grep -q '^  host_link: 50GBps' as.yaml && grep -q '^  link_latency: 500ns' as.yaml"
check "  scale-up at dimension 0's 370 GB/s and 1000 ns, as given" \
    "grep -q 'scale_up: {bandwidth: 370GBps, latency: 1000ns, efficiency: 1}' as.yaml"
check "  ring per dimension -> hierarchical, 2 active chunks -> 2 channels" \
    "grep -q 'algorithm: hierarchical' as.yaml && grep -q 'channels: 2' as.yaml"
check "  the system keys it does not use are listed" "grep -q 'not used): scheduling-policy, endpoint-delay' as.yaml"
"$W" run as.yaml -o as-out --json > as.json 2> as-run.err
check "  the scenario runs: 32 ranks, an all_reduce of 4 MiB completed" \
    "python3 -c \"import json,sys; j=json.load(open('as.json'))['jobs'][0]; sys.exit(0 if j['ranks']==32 and j['size_bytes']==4194304 and j['completed'] else 1)\""
echo "== astra-sim: three dimensions"
# ASTRA-sim's own 3-D example (astra-network-analytical input/Ring_FullyConnected_Switch.yml):
# Ring 2 x FullyConnected 8 inside a node, a Switch across 4 nodes
printf 'topology: [ Ring, FullyConnected, Switch ]\nnpus_count: [ 2, 8, 4 ]\nbandwidth: [ 200.0, 100.0, 50.0 ]\nlatency: [ 50.0, 500.0, 2000.0 ]\n' > rfs.yml
"$W" import astra-sim --network rfs.yml -o rfs.yaml > /dev/null 2> rfs.err
check "[Ring, FullyConnected, Switch]: exit 0" "[ $? = 0 ]"
check "  4 servers of 2 x 8 = 16 GPUs on one switch at dimension 2's 50 GB/s, 2000 ns per link" \
    "grep -q '^  preset: single-switch' rfs.yaml && grep -q '^  servers: 4$' rfs.yaml && grep -q '^  gpus_per_server: 16$' rfs.yaml && grep -q '^  host_link: 50GBps' rfs.yaml && grep -q '^  link_latency: 2000ns' rfs.yaml"
check "  one scale-up domain at the smaller bandwidth (100 GB/s) and larger latency (500 ns)" \
    "grep -q 'scale_up: {bandwidth: 100GBps, latency: 500ns, efficiency: 1}' rfs.yaml"
"$W" run rfs.yaml --set workload.0.size=1MiB -o rfs-out --json > rfs.json 2> rfs-run.err
check "  it runs: 64 ranks, completed" \
    "python3 -c \"import json,sys; j=json.load(open('rfs.json'))['jobs'][0]; sys.exit(0 if j['ranks']==64 and j['completed'] else 1)\""
printf 'topology: [ FullyConnected, Switch, Switch ]\nnpus_count: [ 8, 4, 2 ]\nbandwidth: [ 370, 50, 25 ]\nlatency: [ 1000, 500, 800 ]\n' > fss.yml
"$W" import astra-sim --network fss.yml -o fss.yaml > /dev/null 2> fss.err
check "[FullyConnected, Switch, Switch]: exit 0, rail-optimized" "[ $? = 0 ] && grep -q '^  preset: rail-optimized' fss.yaml"
check "  8 servers of 8 GPUs; a leaf per rail and 4-server group: 4 host ports + 4 uplinks" \
    "grep -q '^  servers: 8$' fss.yaml && grep -q '^  gpus_per_server: 8$' fss.yaml && grep -q '^  leaf_radix: 8 ' fss.yaml && grep -q '^  rails_per_leaf: 1$' fss.yaml"
check "  NICs at dimension 1's 50 GB/s, uplinks at dimension 2's 25 GB/s per GPU (2:1)" \
    "grep -q '^  host_link: 50GBps' fss.yaml && grep -q '^  fabric_link: 25GBps' fss.yaml && grep -q '^  oversubscription: \"50:25\"' fss.yaml && grep -q '^  link_latency: 500ns' fss.yaml"
"$W" run fss.yaml --set workload.0.size=1MiB -o fss-out --json > fss.json 2> fss-run.err
check "  it runs: 64 ranks, completed" \
    "python3 -c \"import json,sys; j=json.load(open('fss.json'))['jobs'][0]; sys.exit(0 if j['ranks']==64 and j['completed'] else 1)\""
"$W" check fss.yaml > fss-check.out 2>&1
check "  wirerate check: 16 leaves (8 rails x 2 groups), 4 spines, leaves 2:1" \
    "grep -q 'switches   leaf 16, spine 4, super-spine 0' fss-check.out && grep -q 'leaf 2.00:1' fss-check.out"
printf 'topology: [ FullyConnected, Switch, Switch ]\nnpus_count: [ 8, 4, 2 ]\nbandwidth: [ 370, 50, 30 ]\nlatency: [ 1000, 500, 800 ]\n' > odd.yml
"$W" import astra-sim --network odd.yml -o odd.yaml > /dev/null 2>&1 && "$W" check odd.yaml > odd-check.out 2>&1
check "  bandwidths in no whole ratio (50:30 GB/s): the same 4 + 4 ports per leaf, 1.67:1" \
    "grep -q 'switches   leaf 16, spine 4' odd-check.out && grep -q 'leaf 1.67:1' odd-check.out"
printf 'topology: [ Switch, Switch, Switch ]\nnpus_count: [ 8, 4, 2 ]\nbandwidth: [ 400, 50, 50 ]\nlatency: [ 100, 500, 500 ]\n' > three.yml
"$W" import astra-sim --network three.yml -o three.yaml > /dev/null 2> three.err
check "[Switch, Switch, Switch]: the first Switch is the servers' NVSwitch" \
    "[ $? = 0 ] && grep -q '^  preset: rail-optimized' three.yaml && grep -q 'scale_up: {bandwidth: 400GBps, latency: 100ns' three.yaml && grep -q '^  oversubscription: \"50:50\"' three.yaml"
printf 'topology: [ FullyConnected, Switch, Switch, Switch ]\nnpus_count: [ 8, 4, 2, 2 ]\nbandwidth: [ 400, 50, 50, 25 ]\nlatency: [ 100, 500, 500, 500 ]\n' > four.yml
"$W" import astra-sim --network four.yml -o four.yaml > /dev/null 2> four.err
check "a third switched dimension: exit 3 at topology[3]" "[ $? = 3 ] && head -1 four.err | grep -q '^wirerate: four.yml:1:45: error: topology\[3\]: a third switched dimension'"
check "  and no scenario written" "[ ! -e four.yaml ]"
printf 'topology: [ Switch, Ring ]\nnpus_count: [ 8, 4 ]\nbandwidth: [ 400, 50 ]\nlatency: [ 100, 500 ]\n' > ring.yml
"$W" import astra-sim --network ring.yml -o ring.yaml > /dev/null 2> ring.err
check "a Ring between servers: exit 3 with the reason" "[ $? = 3 ] && grep -q 'ring.yml:1:21: error: topology\[1\]: a Ring between servers' ring.err"
printf 'topology: [ Torus ]\nnpus_count: [ 8 ]\nbandwidth: [ 400 ]\nlatency: [ 100 ]\n' > torus.yml
"$W" import astra-sim --network torus.yml -o torus.yaml > /dev/null 2> torus.err
check "an unknown topology: exit 3 at it" "[ $? = 3 ] && grep -q 'torus.yml:1:13: error: topology\[0\]: expected one of Ring | FullyConnected | Switch, got \"Torus\"' torus.err"
printf 'topology: [ Switch ]\nnpus_count: [ 8 ]\nbandwidth: [ 400 ]\n' > nolat.yml
"$W" import astra-sim --network nolat.yml -o x.yaml > /dev/null 2> nolat.err
check "a missing key: exit 3 naming it" "[ $? = 3 ] && grep -q 'latency: missing' nolat.err"
"$W" import astra-sim -o x.yaml > /dev/null 2>&1
check "no --network: exit 2" "[ $? = 2 ]"

echo "== htsim topology + connection matrix"
HT=$SRC/examples/htsim
"$W" import htsim --topo "$HT/fat_tree_16.topo" --cm "$HT/perm_chain_16.cm" -o ht.yaml > ht.out 2> ht.err
check "import htsim: exit 0, prints the scenario's path and the counts" \
    "[ $? = 0 ] && grep -q 'ht.yaml$' ht.out && grep -q '16 hosts, 20 switches, 48 links; 20 flows, 3 of them started' ht.err"
# the fat tree: 4 pods x 2 ToRs, 4 pods x 2 aggregation switches, 4 cores; 16 host links,
# 8 ToRs x 2 aggs, 8 aggs x 2 cores
check "  8 ToRs, 8 aggregation and 4 core switches, 16 hosts" \
    "[ \$(grep -c '{name: tor' ht.yaml) = 8 ] && [ \$(grep -c '{name: agg' ht.yaml) = 8 ] && [ \$(grep -c '{name: core' ht.yaml) = 4 ] && [ \$(grep -c '{name: h[0-9]*}' ht.yaml) = 16 ]"
check "  48 links at 400G and 500 ns, switch latency 500 ns" \
    "[ \$(grep -c 'speed: 400Gbps, latency: 500ns}' ht.yaml) = 48 ] && grep -q '^  switch_latency: 500ns' ht.yaml"
check "  host 5 on ToR 2, ToR 3 on pod 1's aggregation switches 2 and 3" \
    "grep -q '{a: h5, b: tor2,' ht.yaml && grep -q '{a: tor3, b: agg2,' ht.yaml && grep -q '{a: tor3, b: agg3,' ht.yaml && ! grep -q '{a: tor3, b: agg0,' ht.yaml"
check "  aggregation switch 5 (pod position 1) on cores 1 and 3" \
    "grep -q '{a: agg5, b: core1,' ht.yaml && grep -q '{a: agg5, b: core3,' ht.yaml && [ \$(grep -c '{a: agg5, b: core' ht.yaml) = 2 ]"
check "  20 flows; 0->7 of 1000000 B at 0, 12->2 of 64000 B at 12.5 us" \
    "[ \$(grep -c '{id: [0-9]*, src:' ht.yaml) = 20 ] && grep -q '{id: 1, src: 0, dst: 7, size: 1000000, start: 0us}' ht.yaml && grep -q '{id: 20, src: 12, dst: 2, size: 64000, start: 12.5us}' ht.yaml"
check "  the barrier of count 2 waits for both flows, the oneshots for one each" \
    "grep -q '{id: 17, src: 0, dst: 5, size: 500000, after: \[1, 2\]}' ht.yaml && grep -q '{id: 18, src: 3, dst: 9, size: 250000, after: \[4\]}' ht.yaml && grep -q '{id: 19, src: 9, dst: 3, size: 250000, after: \[18\]}' ht.yaml"
"$W" run ht.yaml -o ht-out --set 'output.formats=[json, csv]' > /dev/null 2> ht-run.err
check "  the scenario runs: 20 flows, all delivered" \
    "[ $? = 0 ] && [ \$(tail -n +2 ht-out/flows.csv | awk -F, '\$4 == \$5' | wc -l) = 20 ]"
# flows.csv in the order flows were added: timed ones by start, then the waiting ones
check "  each chained flow starts exactly when the last flow it waits for ends" \
    "python3 - <<'PY'
import csv, sys
r = list(csv.DictReader(open('ht-out/flows.csv')))
by = {(int(x['src_host']), int(x['dst_host'])): x for x in r}
def end(s, d): return int(by[(s, d)]['end_ps'])
def start(s, d): return int(by[(s, d)]['start_ps'])
ok = start(0, 5) == max(end(0, 7), end(1, 12)) and start(3, 9) == end(3, 14) \
     and start(9, 3) == end(3, 9) and start(12, 2) == 12500000 and start(0, 7) == 0
sys.exit(0 if ok else 1)
PY"
printf 'Nodes 16\nConnections 1\nTriggers 1\n0->1 id 1 trigger 5 size 100\ntrigger id 5 multishot\n' > ms.cm
"$W" import htsim --topo "$HT/fat_tree_16.topo" --cm ms.cm -o ms.yaml > /dev/null 2> ms.err
check "a multishot trigger: exit 3 at it, no scenario" \
    "[ $? = 3 ] && grep -q '^wirerate: ms.cm:5:14: error: multishot triggers are not imported' ms.err && [ ! -e ms.yaml ]"
printf 'Nodes 16\nConnections 2\n0->1 id 1 start 0 size 100\n0->16 id 2 start 0 size 100\n' > far.cm
"$W" import htsim --topo "$HT/fat_tree_16.topo" --cm far.cm -o far.yaml > /dev/null 2> far.err
check "a node the topology does not have: exit 3 at its line" \
    "[ $? = 3 ] && grep -q '^wirerate: far.cm:4:1: error: node 16 does not exist' far.err"
printf 'Nodes 16\nConnections 3\n0->1 id 1 start 0 size 100\n' > count.cm
"$W" import htsim --topo "$HT/fat_tree_16.topo" --cm count.cm -o count.yaml > /dev/null 2> count.err
check "a Connections count that does not match: exit 3" \
    "[ $? = 3 ] && grep -q 'count.cm:2:13: error: Connections says 3, the file has 1 flows' count.err"
printf 'Nodes 16\nConnections 2\nTriggers 1\n0->1 id 1 start 0 size 100 send_done_trigger 4\n2->3 id 2 start 0 size 100 send_done_trigger 4\ntrigger id 4 oneshot\n' > two.cm
"$W" import htsim --topo "$HT/fat_tree_16.topo" --cm two.cm -o two.yaml > /dev/null 2> two.err
check "a oneshot two flows activate: exit 3 (htsim fires it once)" \
    "[ $? = 3 ] && grep -q 'two.cm:6:1: error: trigger 4 fires after 1 activation but 2 flows activate it' two.err"
sed 's/^Radix_Up 2$/Radix_Up 3/' "$HT/fat_tree_16.topo" > bad.topo
"$W" import htsim --topo bad.topo --cm "$HT/perm_chain_16.cm" -o bad.yaml > /dev/null 2> bad.err
check "a radix htsim refuses: exit 3 at its tier" \
    "[ $? = 3 ] && grep -q '^wirerate: bad.topo:[0-9]*:1: error: Tier 0: Radix_Down 2 / Radix_Up 3 does not match Oversubscribed 1' bad.err"
"$W" import htsim --topo nope.topo --cm "$HT/perm_chain_16.cm" -o x.yaml > /dev/null 2>&1
check "a missing file: exit 4" "[ $? = 4 ]"
"$W" import htsim --topo "$HT/fat_tree_16.topo" -o x.yaml > /dev/null 2>&1
check "no --cm: exit 2" "[ $? = 2 ]"

echo "$pass passed, $fail failed"
[ $fail = 0 ]
