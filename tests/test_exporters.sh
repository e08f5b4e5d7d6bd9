#!/usr/bin/env bash
# test_exporters.sh — every exporter checked by its real consumer:
#   metrics.prom   promtool check metrics (Debian: prometheus)
#   capture.pcap   tshark decodes RoCEv2 (BTH opcodes, PSNs, ECN CE, IPv4 checksum good, no
#                  malformed frame) and PFC (MAC control 0x0101, class 3, quanta 65535)
#                  (Debian: tshark)
#   trace.json     python3 -m json.tool parses it; the events are what Perfetto needs
#   report.html    headless Chromium renders it; the DOM has the charts (Debian: chromium);
#                  a collective + training run gets job tiles, not flow counts
# A missing tool is a failure with the package to install (CI installs them with `make deps`).
# Usage: test_exporters.sh WIRERATE_BINARY SOURCE_DIR
set -u
WR=${1:?usage: test_exporters.sh WIRERATE SOURCE_DIR}
SRC=${2:?usage: test_exporters.sh WIRERATE SOURCE_DIR}
case $WR in /*) ;; *) WR=$PWD/$WR ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/wr-exp.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1

fails=0
checks=0
ok()   { checks=$((checks + 1)); echo "ok   $1"; }
fail() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL $1"; }
need() { # need TOOL PACKAGE
    if command -v "$1" > /dev/null 2>&1; then return 0; fi
    fail "$1 not found: install the Debian package '$2' (make deps does, as root)"
    return 1
}
# expect NAME COMMAND... : the command succeeds
expect() { local n=$1; shift; if "$@" > cmd.out 2>&1; then ok "$n"; else
    fail "$n"; sed 's/^/     | /' cmd.out | head -20; fi; }

# An incast on a leaf-spine with PFC (default class 3), aggressive ECN so that CE marks and CNPs
# appear, every output format on.
cat > exp.yaml <<'EOF'
name: exporters
fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 2, host_link: 100Gbps,
         fabric_link: 100Gbps, leaf_radix: 4}
switch: {buffer: 1MiB, ecn: {kmin: 20KB, kmax: 100KB, pmax: 0.5}}
workload:
  - {name: incast, kind: traffic, pattern: incast, size: 300KB}
  - {name: perm, kind: traffic, pattern: permutation, size: 200KB, start: 10us}
telemetry: {sample_interval: 2us, pcap: {max_packets: 5000}}
output: {formats: [json, csv, prom, trace, pcap, html]}
EOF
"$WR" run exp.yaml -o out --quiet > run.out 2> run.err
rc=$?
if [ $rc = 0 ]; then ok "run with every format"; else
    fail "run with every format (exit $rc)"; sed 's/^/     | /' run.err; fi
for f in summary.json flows.csv ports.csv timeseries.csv metrics.prom trace.json capture.pcap \
         report.html; do
    if [ -s "out/$f" ]; then ok "wrote $f"; else fail "missing or empty out/$f"; fi
done
if grep -q "timeseries.csv" run.out && grep -q "report.html" run.out; then
    ok "the summary lists the files"; else fail "the summary does not list the files"; fi

echo "== Prometheus"
if need promtool prometheus; then
    expect "promtool check metrics" sh -c 'promtool check metrics < out/metrics.prom'
    expect "SAI-style names with labels" grep -Eq \
        '^wirerate_port_tx_bytes_total\{switch="leaf0",port="leaf0->spine0",peer="spine0"\} [0-9]+$' \
        out/metrics.prom
    expect "PFC counters carry the lossless class" grep -Eq \
        '^wirerate_port_pfc_tx_pause_frames_total\{switch="[a-z0-9]+",port="[^"]+",peer="[^"]+",priority="3"\} [1-9]' \
        out/metrics.prom
    expect "drops by reason" grep -q 'reason="buffer_full"' out/metrics.prom
    expect "NIC counters" grep -Eq '^wirerate_nic_cnp_sent_total [1-9]' out/metrics.prom
fi

echo "== pcap"
if need tshark tshark; then
    # RoCEv2 is decoded on UDP 4791 by default; -d makes it explicit for older versions.
    TS="tshark -n -r out/capture.pcap -d udp.port==4791,infiniband -o ip.check_checksum:TRUE"
    $TS -T fields -e frame.number -e eth.type -e ip.dsfield.ecn -e ip.checksum.status \
        -e infiniband.bth.opcode -e infiniband.bth.psn -e infiniband.aeth.syndrome \
        -e macc.opcode -e macc.cbfc.enbv -e macc.cbfc.pause_time.c3 -e _ws.malformed \
        > fields.txt 2> tshark.err
    n=$(wc -l < fields.txt)
    if [ "$n" -ge 100 ]; then ok "tshark read $n frames"; else
        fail "tshark read $n frames"; sed 's/^/     | /' tshark.err | head; fi
    awk -F'\t' '$2=="0x0800"' fields.txt > ip.txt
    awk -F'\t' '$2=="0x8808"' fields.txt > pfc.txt
    check_awk() { if awk -F'\t' "$2" "$3"; then ok "$1"; else fail "$1"; fi; }
    check_awk "every IPv4 frame is RoCE with a BTH opcode" \
        'BEGIN{bad=0} $5=="" {bad++} END{exit bad>0}' ip.txt
    check_awk "IPv4 header checksums are good" \
        'BEGIN{bad=0} $4!="1" {bad++} END{exit bad>0}' ip.txt
    check_awk "no malformed frame" 'BEGIN{bad=0} $11!="" {bad++} END{exit bad>0}' fields.txt
    check_awk "RDMA WRITE First/Middle/Last present" \
        '$5==6{f=1} $5==7{m=1} $5==8{l=1} END{exit !(f&&m&&l)}' ip.txt
    check_awk "PSNs count up within a QP's first packets" \
        '$5==6 && $6!=0 {bad++} END{exit bad>0}' ip.txt
    check_awk "ACKs (opcode 17) with AETH" '$5==17 && $7!="" {a++} END{exit !a}' ip.txt
    check_awk "CNPs (opcode 129)" '$5==129 {c++} END{exit !c}' ip.txt
    check_awk "CE-marked data (ECN 3) next to ECT(0)" \
        '$5>=6 && $5<=10 && $3==3 {ce++} $5>=6 && $5<=10 && $3==2 {ect++} END{exit !(ce&&ect)}' ip.txt
    check_awk "PFC frames: CBFC opcode 0x0101 on class 3" \
        '$8=="0x0101" && $9=="0x0008" {p++} END{exit !p}' pfc.txt
    check_awk "PFC XOFF quanta 65535 and XON 0 on class 3" \
        '$10==65535 {x++} $10==0 {o++} END{exit !(x&&o)}' pfc.txt
fi

echo "== pcap of a larger run: headers only, within its byte budget"
# 32 NICs each sending 4 MB: ~64k data frames per hop, far more than a 2 MiB budget holds.
cat > big.yaml <<'EOF'
name: bigcap
fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 8, leaf_radix: 16}
workload: [{name: perm, kind: traffic, pattern: permutation, size: 4MB}]
telemetry: {pcap: {max_bytes: 2MiB}}
output: {formats: [json, pcap]}
EOF
"$WR" run big.yaml -o big --quiet > big.out 2> big.err
rc=$?
if [ $rc = 0 ]; then ok "larger run with a capture"; else
    fail "larger run with a capture (exit $rc)"; sed 's/^/     | /' big.err; fi
sz=$(stat -c %s big/capture.pcap 2> /dev/null || echo 0)
if [ "$sz" -gt 2000000 ] && [ "$sz" -le 2097152 ]; then ok "capture.pcap within max_bytes ($sz B)"
else fail "capture.pcap is $sz B, budget 2097152"; fi
expect "the budget stop is reported" grep -q "stopped at telemetry.pcap.max_bytes" big.err
if need python3 python3; then
    # Independent check of the synthesized frames: snaplen 128 in the header, orig_len = IPv4
    # total length + 14, and the ICRC (zlib's CRC-32 over the masked invariant fields) on every
    # frame stored whole.
    cat > icrc.py <<'EOF'
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
magic, _, _, _, _, snap, link = struct.unpack("<IHHiIII", d[:24])
assert magic == 0xa1b23c4d and snap == 128 and link == 1, (hex(magic), snap, link)
off, n, whole, cut = 24, 0, 0, 0
while off < len(d):
    _, _, incl, orig = struct.unpack("<IIII", d[off:off + 16])
    f = d[off + 16:off + 16 + incl]
    off += 16 + incl
    n += 1
    assert incl == min(orig, 128), (n, incl, orig)
    if f[12:14] != b"\x08\x00":
        continue
    assert struct.unpack(">H", f[16:18])[0] + 14 == orig, n
    if incl < orig:
        cut += 1
        continue
    whole += 1
    h = bytearray(f[14:orig - 4])
    h[1] = h[8] = h[10] = h[11] = 0xFF       # TOS, TTL, IP checksum
    h[26] = h[27] = 0xFF                      # UDP checksum
    h[32] = 0xFF                              # BTH FECN/BECN/reserved
    icrc = zlib.crc32(b"\xff" * 8 + bytes(h)) & 0xFFFFFFFF
    assert f[orig - 4:orig] == struct.pack("<I", icrc), (n, f[orig - 4:orig].hex(), hex(icrc))
assert off == len(d) and whole > 0 and cut > 0, (off, len(d), whole, cut)
print(n)
EOF
    expect "records: snaplen 128, orig_len = real length, ICRC right on whole frames" \
        python3 icrc.py big/capture.pcap
fi
if need tshark tshark; then
    tshark -n -r big/capture.pcap -d udp.port==4791,infiniband -T fields -e frame.number \
        -e infiniband.bth.opcode -e infiniband.reth.dmalen -e _ws.malformed \
        > big.txt 2> big.tserr
    nrec=$(python3 icrc.py big/capture.pcap 2> /dev/null || echo -1)
    if [ "$(wc -l < big.txt)" = "$nrec" ]; then ok "tshark reads every record ($nrec)"
    else fail "tshark read $(wc -l < big.txt) of $nrec records"; head -3 big.tserr; fi
    check_awk2() { if awk -F'\t' "$2" "$3"; then ok "$1"; else fail "$1"; fi; }
    check_awk2 "headers decode: no malformed field" '$4!="" {bad++} END{exit bad>0}' big.txt
    check_awk2 "RETH DMA length is the whole 4 MB message" \
        '$2==6 && $3!=4000000 {bad++} $2==6 {f++} END{exit !(f && !bad)}' big.txt
fi

echo "== trace.json"
if need python3 python3; then
    expect "python3 -m json.tool parses trace.json" python3 -m json.tool out/trace.json
    cat > tr.py <<'EOF'
import json, sys
t = json.load(open("out/trace.json"))
ev = t["traceEvents"]
flows = sum(1 for l in open("out/flows.csv")) - 1
x = [e for e in ev if e["ph"] == "X"]
c = [e for e in ev if e["ph"] == "C"]
names = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
assert len(x) == flows, (len(x), flows)
assert all(e["dur"] > 0 and e["ts"] >= 0 and "pid" in e and "tid" in e for e in x)
assert {"incast", "perm", "fabric queues"} <= names, names
assert c and all("value" in e["args"] for e in c)
assert t["displayTimeUnit"] == "ns"
EOF
    expect "trace events: a slice per flow, job processes, queue counters" python3 tr.py
fi

echo "== report.html"
"$WR" report out > rep.out 2> rep.err; rc=$?
if [ $rc = 0 ]; then ok "wirerate report DIR"; else fail "report exit $rc"; cat rep.err; fi
"$WR" report nosuchdir > /dev/null 2> rep2.err; rc=$?
if [ $rc = 4 ]; then ok "report of a missing folder: exit 4"; else fail "missing folder: exit $rc"; fi
mkdir -p bad && echo '{"sim": {' > bad/summary.json
"$WR" report bad > /dev/null 2> rep3.err; rc=$?
if [ $rc = 3 ] && grep -q "summary.json" rep3.err; then ok "malformed summary.json: exit 3"
else fail "malformed summary.json: exit $rc"; cat rep3.err; fi
if grep -Eq '<script[^>]* src=|<link[^>]* href=|https?://[^"]*\.(js|css)' out/report.html; then
    fail "report.html loads something from outside"; else ok "report.html is self-contained"; fi
CHROME=""
for c in chromium chromium-browser google-chrome; do
    command -v "$c" > /dev/null 2>&1 && { CHROME=$c; break; }
done
if [ -z "$CHROME" ]; then
    fail "chromium not found: install the Debian package 'chromium' (make deps does, as root)"
else
    flags=(--headless --no-sandbox --disable-gpu --disable-background-networking
           --disable-component-update --disable-sync --no-first-run --user-data-dir="$T/chrome")
    timeout 120 "$CHROME" "${flags[@]}" --dump-dom "file://$T/out/report.html" > dom.html 2> chrome.err
    for id in chart-jct chart-heat-0 chart-queue chart-pfc chart-fct chart-dcqcn top-ports \
              diagnosis; do
        if grep -q "id=\"$id\"" dom.html; then ok "DOM has #$id"; else fail "DOM lacks #$id"; fi
    done
    if grep -q '<svg id="chart-heat-0"' dom.html && grep -c '<rect' dom.html | grep -qv '^0$'; then
        ok "charts are SVG with shapes"; else fail "no SVG shapes in the DOM"; fi
    timeout 120 "$CHROME" "${flags[@]}" --hide-scrollbars --window-size=960,2400 \
        --screenshot="$T/shot.png" "file://$T/out/report.html" > /dev/null 2>&1
    if [ -s shot.png ]; then ok "screenshot rendered"; else fail "no screenshot"; fi
fi

echo "== report.html for collective and training runs"
# No traffic flows here: the headline must be JCT / busbw / iteration tiles, the training job
# gets its breakdown bar, and 64 host links per tier pair are aggregated by switch.
cat > jobs.yaml <<'EOF2'
name: jobs
fabric: {preset: leaf-spine, servers: 64, gpus_per_server: 1, host_link: 100Gbps,
         fabric_link: 100Gbps, leaf_radix: 16}
workload:
  - {name: ar, kind: collective, op: all_reduce, size: 1MiB, iterations: 2, ranks: "0-63"}
  - name: train
    kind: training
    model: {params: 1e7, layers: 2, hidden: 256, seq_len: 128, vocab: 1000}
    parallelism: {tp: 1, pp: 2, dp: 2}
    global_batch: 4
    ranks: "0-3"
telemetry: {sample_interval: 5us}
output: {formats: [json, csv, html]}
EOF2
"$WR" run jobs.yaml -o jobs --quiet > /dev/null 2> jobs.err; rc=$?
if [ $rc = 0 ]; then ok "collective + training run with html"; else
    fail "collective + training run (exit $rc)"; sed 's/^/     | /' jobs.err; fi
expect "no '0 / 0 flows completed' tile" sh -c '! grep -q "flows completed" jobs/report.html'
expect "JCT tile per job" grep -q "JCT[^<]* · ar" jobs/report.html
expect "busbw tile" grep -q "busbw (algbw [0-9.]* GB/s) · ar" jobs/report.html
expect "mean iteration tile" grep -q "mean iteration (2 done) · ar" jobs/report.html
expect "jobs table lists both jobs" sh -c 'grep -q "id=\"jobs\"" jobs/report.html &&
    grep -q "all_reduce ring, 64 ranks" jobs/report.html && grep -q "training tp 1 pp 2 dp 2" jobs/report.html'
expect "training breakdown chart" grep -q 'id="chart-breakdown"' jobs/report.html
expect "heat map rows aggregated by switch" grep -q "ports in [0-9]* rows (each row: the mean" jobs/report.html
expect "DCQCN chart from dcqcn_rates.csv" grep -q 'id="chart-dcqcn" class="chart"' jobs/report.html
expect "manifest.json lists report.html" grep -q '"report.html"' jobs/manifest.json
if [ -n "$CHROME" ]; then
    timeout 120 "$CHROME" "${flags[@]}" --dump-dom "file://$T/jobs/report.html" > dom2.html 2> /dev/null
    if grep -q 'id="chart-breakdown"' dom2.html; then ok "Chromium renders the jobs report"
    else fail "Chromium did not render the jobs report"; fi
fi

echo "$checks checks, $fails failed"
[ "$fails" = 0 ]
