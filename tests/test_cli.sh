#!/usr/bin/env bash
# test_cli.sh — the command-line contract of spec/scenario.md "CLI": exit codes, error format
# with source line and caret, nothing written on failure, --json, -o, --seed, --set.
# Usage: test_cli.sh WIRERATE_BINARY SOURCE_DIR
set -u
WR=${1:?usage: test_cli.sh WIRERATE SOURCE_DIR}
SRC=${2:?usage: test_cli.sh WIRERATE SOURCE_DIR}
case $WR in /*) ;; *) WR=$PWD/$WR ;; esac
case $SRC in /*) ;; *) SRC=$PWD/$SRC ;; esac

T=$(mktemp -d "${TMPDIR:-/tmp}/wr-cli.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1   # runs without -o would write out/<name> here, never into the source tree

fails=0
checks=0
ok()   { checks=$((checks + 1)); echo "ok   $1"; }
fail() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL $1"; }
# expect_rc NAME WANT GOT
expect_rc() { if [ "$3" = "$2" ]; then ok "$1 (exit $3)"; else fail "$1: exit $3, want $2"; fi; }
# expect_grep NAME FILE REGEX
expect_grep() {
    if grep -Eq -- "$3" "$2"; then ok "$1"; else
        fail "$1: /$3/ not found in:"; sed 's/^/     | /' "$2"; fi
}
expect_no_path() { if [ -e "$2" ]; then fail "$1: $2 exists"; else ok "$1"; fi; }

# A small valid scenario: one switch, four hosts, a permutation of 64 KB flows.
cat > small.yaml <<'EOF'
name: small
fabric:
  preset: single-switch
  servers: 4
  gpus_per_server: 1
workload:
  - name: perm
    kind: traffic
    pattern: permutation
    size: 64KB
EOF
# The same with a unit error on line 6, column 14 (the value "400").
cat > bad.yaml <<'EOF'
name: bad
fabric:
  preset: single-switch
  servers: 4
  gpus_per_server: 1
  host_link: 400
workload:
  - { name: perm, kind: traffic, pattern: permutation, size: 64KB }
EOF

echo "== version and help"
"$WR" --version > v.out 2> v.err; expect_rc "--version" 0 $?
expect_grep "--version prints 'wirerate 0.1.0'" v.out '^wirerate 0\.1\.0$'
"$WR" --help > h.out 2> h.err; expect_rc "--help" 0 $?
expect_grep "--help shows the synopsis" h.out 'usage: wirerate run SCENARIO\.yaml'
"$WR" run --help > rh.out 2> rh.err; expect_rc "run --help" 0 $?
expect_grep "run --help lists --set" rh.out '--set KEY=VALUE'
"$WR" > /dev/null 2> n.err; expect_rc "no arguments" 2 $?

echo "== usage errors"
"$WR" frobnicate > /dev/null 2> u.err; expect_rc "unknown command" 2 $?
expect_grep "unknown command named" u.err "unknown command 'frobnicate'"
"$WR" run small.yaml --bogus > /dev/null 2> u2.err; expect_rc "unknown run option" 2 $?
"$WR" run > /dev/null 2> u3.err; expect_rc "run without scenario" 2 $?
"$WR" run small.yaml --seed abc > /dev/null 2> u4.err; expect_rc "--seed abc" 2 $?
"$WR" run small.yaml --set nokey > /dev/null 2> u5.err; expect_rc "--set without '='" 2 $?
echo "== missing scenario file -> I/O error"
"$WR" run does-not-exist.yaml -o out-missing > m.out 2> m.err; expect_rc "missing file" 4 $?
expect_grep "missing file: message names it" m.err '^wirerate: does-not-exist\.yaml.*error:'
expect_no_path "missing file: no output dir" out-missing

echo "== invalid scenario -> exit 3, file:line:col, source line, caret, nothing written"
"$WR" run bad.yaml -o out-bad > b.out 2> b.err; expect_rc "bad scenario" 3 $?
expect_grep "error header file:line:col" b.err '^wirerate: bad\.yaml:6:[0-9]+: error: .*host_link'
expect_grep "source line shown" b.err '^ +6 \|   host_link: 400$'
expect_grep "caret line shown" b.err '^ +\| +\^$'
expect_no_path "bad scenario: no output dir" out-bad
expect_no_path "bad scenario: no default output dir" out
[ -s b.out ] && fail "bad scenario printed on stdout" || ok "bad scenario: stdout empty"

echo "== --set error -> exit 3, the override shown with a caret"
"$WR" run small.yaml -o out-set --set fabric.host_link=400 > s.out 2> s.err
expect_rc "bad --set" 3 $?
expect_grep "--set error header" s.err '^wirerate: --set:1:[0-9]+: error: .*host_link'
expect_grep "--set override text shown" s.err '\| fabric\.host_link=400$'
expect_grep "--set caret" s.err '^ +\| +\^$'
expect_no_path "bad --set: no output dir" out-set

echo "== unwritable output dir -> exit 4 before anything is written"
: > plainfile
"$WR" run small.yaml --quiet -o plainfile/sub > w.out 2> w.err; expect_rc "output under a file" 4 $?
expect_grep "I/O error names the path" w.err 'plainfile.*error'

echo "== a good run: -o DIR, summary.json, no temp files, --quiet keeps stderr clean"
"$WR" run small.yaml --quiet -o out-good > g.out 2> g.err; expect_rc "good run" 0 $?
if [ -s out-good/summary.json ]; then ok "summary.json written in -o DIR"; else fail "no out-good/summary.json"; fi
if ls -A out-good | grep -q '\.tmp-'; then fail "temp files left in out-good"; else ok "no temp files left"; fi
[ -s g.err ] && { fail "--quiet run wrote to stderr:"; cat g.err; } || ok "--quiet: stderr empty"
expect_grep "human summary names the scenario" g.out 'scenario "small"'
expect_grep "human summary lists the output" g.out 'out-good/summary\.json'
"$WR" run small.yaml --quiet > /dev/null 2>&1; expect_rc "run without -o" 0 $?
if [ -s out/small/summary.json ]; then ok "default output dir out/<name>"; else fail "no out/small/summary.json"; fi

echo "== --json: only JSON on stdout"
"$WR" run small.yaml --quiet --json -o out-json > j.out 2> j.err; expect_rc "--json run" 0 $?
if command -v python3 > /dev/null; then
    if python3 -m json.tool j.out > /dev/null 2> jt.err; then ok "--json stdout is valid JSON"
    else fail "--json stdout is not valid JSON:"; cat jt.err; fi
    if python3 -m json.tool out-json/summary.json > /dev/null; then ok "summary.json is valid JSON"
    else fail "summary.json is not valid JSON"; fi
    keys=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(d))' j.out)
    want="tool version scenario seed sim jobs flows fabric nics"
    case "$keys" in "$want"*) ok "top-level keys in spec order";;
        *) fail "top-level keys: '$keys', want prefix '$want'";; esac
else
    echo "skip JSON validation: python3 not found"
fi
if cmp -s j.out out-json/summary.json; then ok "--json stdout = summary.json"
else fail "--json stdout differs from summary.json"; fi

echo "== --seed and --set reach the scenario"
"$WR" run small.yaml --quiet --json --seed 7 -o out-seed > seed.out 2>/dev/null
expect_rc "--seed 7" 0 $?
expect_grep "--seed 7 sets the seed" seed.out '^  "seed": 7,$'
"$WR" run small.yaml --quiet --json --set seed=9 -o out-seed > seed9.out 2>/dev/null
expect_grep "--set seed=9 sets the seed" seed9.out '^  "seed": 9,$'
"$WR" run small.yaml --quiet --json --set name=renamed -o out-seed > nm.out 2>/dev/null
expect_grep "--set name=renamed" nm.out '^  "scenario": "renamed",$'

echo "== check: design checks, exit 0 when they pass, 5 when one fails"
"$WR" check small.yaml > c.out 2> c.err; expect_rc "check small.yaml" 0 $?
expect_grep "check lists non_blocking" c.out 'pass +non_blocking'
"$WR" check small.yaml --json > cj.out 2> cj.err; expect_rc "check --json" 0 $?
if command -v python3 > /dev/null; then
    keys=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(d))' cj.out)
    if [ "$keys" = "topology checks findings passed" ]; then ok "check --json keys"
    else fail "check --json keys: '$keys'"; fi
fi
cat > oversub.yaml <<'EOF2'
name: oversub
fabric: { preset: leaf-spine, servers: 4, gpus_per_server: 8, leaf_radix: 16, oversubscription: 3:1 }
EOF2
"$WR" check oversub.yaml > co.out 2> co.err; expect_rc "check of a 3:1 fabric fails" 5 $?
expect_grep "non_blocking fails" co.out 'fail +non_blocking'
"$WR" check bad.yaml > /dev/null 2> cb.err; expect_rc "check of an invalid scenario" 3 $?
expect_grep "check error has the caret" cb.err '^ +\| +\^$'
"$WR" check --bogus > /dev/null 2>&1; expect_rc "check with an unknown option" 2 $?

echo "== plan: the build sheet, one folder replaced whole"
"$WR" plan oversub.yaml -o plan.d > p.out 2> p.err; expect_rc "plan oversub.yaml" 0 $?
for f in plan.md plan.html bom.csv racks.csv addressing.csv cabling.csv sonic/leaf0/config_db.json \
         nics/server0.sh k8s/rail0.yaml k8s/pod-annotations.yaml manifest.json; do
    if [ -f "plan.d/$f" ]; then ok "plan wrote $f"; else fail "plan did not write $f"; fi
done
expect_grep "manifest lists the switch configs" plan.d/manifest.json '"sonic/leaf0/config_db.json"'
"$WR" plan oversub.yaml -o plan.d > /dev/null 2>&1; expect_rc "plan replaces its own folder" 0 $?
"$WR" plan bad.yaml -o plan.bad > /dev/null 2> pb.err; expect_rc "plan of an invalid scenario" 3 $?
expect_no_path "plan writes nothing for an invalid scenario" plan.bad
"$WR" check oversub.yaml --config-db plan.d/sonic > cdb.out 2>&1
expect_rc "check --config-db of plan's own files (3:1 fails non_blocking only)" 5 $?
expect_grep "config_db item passes" cdb.out 'pass +config_db +0 finding'
sed -i '0,/"mtu": "9216"/s//"mtu": "1500"/' plan.d/sonic/spine0/config_db.json
"$WR" check oversub.yaml --config-db plan.d/sonic > cdb2.out 2>&1; expect_rc "planted mismatch" 5 $?
expect_grep "planted mismatch named" cdb2.out 'spine0  PORT\|Ethernet0.mtu = 1500'
expect_grep "planted mismatch fix" cdb2.out 'fix: set PORT\|Ethernet0 mtu to 9216'
"$WR" check oversub.yaml --config-db no-such-dir > /dev/null 2>&1; expect_rc "--config-db of a missing folder" 4 $?
# InfiniBand: plan writes the subnet manager's settings, not SONiC; check --config-db refuses
cat > ib.yaml <<'EOFIB'
fabric: {preset: leaf-spine, servers: 4, gpus_per_server: 2, link_layer: infiniband}
EOFIB
"$WR" plan ib.yaml -o plan.ib > /dev/null 2>&1; expect_rc "plan of an InfiniBand fabric" 0 $?
expect_no_path "no SONiC files on InfiniBand" plan.ib/sonic
expect_grep "opensm.conf written" plan.ib/subnet/opensm.conf '^routing_engine updn$'
"$WR" check ib.yaml --config-db plan.ib > ibc.err 2>&1; expect_rc "check --config-db on InfiniBand" 2 $?
expect_grep "the refusal says why" ibc.err 'InfiniBand fabric .* has no SONiC switches'
touch plan.d/sonic/notes.txt
"$WR" plan oversub.yaml -o plan.d > /dev/null 2> pf.err; expect_rc "plan refuses a foreign file" 4 $?
expect_grep "plan names the foreign file" pf.err "'sonic/notes.txt' was not written by wirerate"
"$WR" plan oversub.yaml --set plan.rack_power=5kW -o plan.e > /dev/null 2> pe.err
expect_rc "plan with a server above the rack budget" 3 $?
expect_grep "plan budget error names the key" pe.err 'plan.rack_power|does not fit a 5.0 kW rack'

# A host link down for good: the run ends, exit 0, the job FAILED with its reason (README "Exit
# codes": a failed job is a result, not a failed run).
cat > cut.yaml <<'EOF3'
name: cut
fabric: { preset: leaf-spine, servers: 4, gpus_per_server: 1, leaf_radix: 4 }
nic: { rto: 100us }
workload: [{ name: cut, kind: traffic, pattern: incast, hosts: [0, 1], size: 4MB }]
faults: [{ at: 10us, kind: link-down, link: leaf0-h0 }]
EOF3
timeout 60 "$WR" run cut.yaml -o cut.d > cut.out 2> cut.err; expect_rc "run with a failed job" 0 $?
expect_grep "text summary marks the job FAILED" cut.out 'FAILED: QP h1->h0 exceeded retry_count 7'
expect_grep "summary.json end_reason" cut.d/summary.json '"end_reason": "jobs_failed"'
expect_grep "summary.json jobs[].failed" cut.d/summary.json '"failed": true'
expect_grep "summary.json nics.qps_failed" cut.d/summary.json '"qps_failed": 1'

echo "$checks checks, $fails failed"
[ "$fails" = 0 ]
