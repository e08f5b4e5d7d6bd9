#!/usr/bin/env bash
# test_sweep_cli.sh — `wirerate sweep` end to end (docs/sweep.md):
#   1. the 2 x 3 x 2-seed sweep of examples/sweep/lb-cc.yaml gives 12 ok rows, the same database
#      content with -j 1 and -j 2 (wall-clock columns aside), and every run's rows equal those of
#      the single `wirerate run` with the same overrides and output.formats [sqlite]; its JCT and
#      p99 FCT equal the single run's summary.json;
#   2. a sweep killed (SIGKILL) half-way resumes and ends with the same database; SIGTERM stops
#      it with status 143 and records no run as failed;
#   3. a run the fabric refuses is recorded as invalid at the sweep file's line, a worker killed
#      by a signal is recorded as failed, the others complete, the exit status is 1, and
#      a resume skips them while --retry-failed runs them again;
#   4. a database of another sweep is refused (exit 4); bad sweep files exit 3 with a caret and
#      create no database;
#   4b. editing a file the base scenario reads (a size_cdf CSV, a Chakra trace) makes it
#      another sweep (exit 4) instead of skipping runs as done; restored, the sweep resumes;
#   5. `wirerate report results.db`: the best configuration (checked against SQL), charts per
#      axis and figure, the configurations ranked, failed runs listed; other files refused.
# (MPI: test_sweep_mpi.sh.)
# $1 = wirerate binary, $2 = source dir.
set -u
W=$1
SRC=$2
case $W in /*) ;; *) W=$PWD/$W ;; esac
case $SRC in /*) ;; *) SRC=$PWD/$SRC ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/wr-sweep.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }
cp "$SRC/examples/sweep/perm.yaml" "$SRC/examples/sweep/lb-cc.yaml" .

# dump DB [RUN_ID]: every table's rows in key order, without the wall-clock columns (and, for
# one run, without run_id and the axis columns, so it compares with a single run's database).
cat > dump.py <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
one = int(sys.argv[2]) if len(sys.argv) > 2 else None
wall = {"wall_s", "events_per_s", "peak_rss_bytes"}
axes = {r[0] for r in db.execute("SELECT key FROM axes")}
for t, key in [("runs", "run_id"), ("jobs", "run_id, job"),
               ("iterations", "run_id, job, iteration"), ("flows", "run_id, job"),
               ("ports", "run_id, port_id")]:
    cols = [r[1] for r in db.execute(f"PRAGMA table_info({t})")]
    keep = [c for c in cols if c not in wall and (one is None or (c != "run_id" and c not in axes))]
    sel = ", ".join('"%s"' % c for c in keep)
    where = f" WHERE run_id = {one}" if one is not None else ""
    for row in db.execute(f"SELECT {sel} FROM {t}{where} ORDER BY {key}"):
        print(t, row)
EOF
dump() { python3 dump.py "$@"; }
count() { sqlite3 -cmd '.timeout 5000' "$1" "SELECT count(*) FROM runs${2:+ WHERE $2}" 2> /dev/null || echo 0; }

echo "== 2 x 3 x 2 seeds: 12 rows, -j 1 = -j 2"
"$W" sweep lb-cc.yaml -j 2 -o full.db > full.out 2> full.err
check "sweep -j 2 exits 0" "[ $? = 0 ]"
check "12 runs, all ok" "[ \"\$(count full.db \"status = 'ok'\")\" = 12 ]"
check "summary says 12 ok" "grep -q '12 ok, 0 invalid, 0 failed' full.out"
check "no progress bar when stderr is not a terminal" "[ ! -s full.err ]"
"$W" sweep lb-cc.yaml -j 1 -o j1.db -q > /dev/null 2>&1
check "sweep -j 1 exits 0" "[ $? = 0 ]"
dump full.db > full.dump
dump j1.db > j1.dump
check "same content with -j 1 and -j 2" "cmp -s full.dump j1.dump"
check "content is not empty (12 runs rows, 12 x 96 ports rows)" \
    "[ \$(grep -c '^runs ' full.dump) = 12 ] && [ \$(grep -c '^ports ' full.dump) = 1152 ]"
check "axis values typed as written, seeds as integers" \
    "[ \"\$(sqlite3 full.db \"SELECT \\\"loadbalance.mode\\\", \\\"workload.0.size\\\", seed FROM runs WHERE run_id = 7\")\" = 'spray|256KB|2' ]"

echo "== every run equals the single run with the same overrides"
same=0
sqlite3 -separator ' ' full.db 'SELECT run_id, "loadbalance.mode", "workload.0.size", seed FROM runs ORDER BY run_id' > runs.txt
while read -r id lb size seed; do
    "$W" run perm.yaml -o "one$id" --quiet --set "loadbalance.mode=$lb" --set "workload.0.size=$size" \
        --seed "$seed" --set 'output.formats=[json, sqlite]' > /dev/null 2>&1 || { bad "single run $id"; continue; }
    dump "one$id/results.db" 0 > one.dump
    dump full.db "$id" > swept.dump
    jct=$(python3 -c "import json; print(json.load(open('one$id/summary.json'))['jobs'][0]['jct_ps'])")
    p99=$(python3 -c "import json; print(json.load(open('one$id/summary.json'))['flows']['fct_ps']['p99'])")
    got=$(sqlite3 full.db "SELECT jct_ps || ' ' || fct_p99_ps FROM runs WHERE run_id = $id")
    if cmp -s one.dump swept.dump && [ "$got" = "$jct $p99" ] && [ -s one.dump ]; then
        same=$((same + 1))
    else
        echo "  run $id: rows or figures differ ($got vs $jct $p99)"
    fi
done < runs.txt
check "12 of 12 runs equal their single runs (every table, JCT and p99 FCT of summary.json)" "[ $same = 12 ]"

echo "== killed half-way: resume ends with the same database"
# A kill must find the sweep still running: lb-cc's 12 runs take 0.1 s in all, less than a busy
# CI machine may take to notice a row, so these sweeps' runs are 64 MB permutations (about 0.25 s
# each, 6 of them).
cat > term.yaml <<'EOF'
base: perm.yaml
axes:
  workload.0.size: [64MB]
seeds: [1, 2, 3, 4, 5, 6]
EOF
"$W" sweep term.yaml -j 2 -o term-full.db -q > /dev/null 2>&1
dump term-full.db > term-full.dump
"$W" sweep term.yaml -j 1 -o killed.db -q > /dev/null 2>&1 &
pid=$!
for i in $(seq 3000); do
    [ "$(count killed.db)" -ge 2 ] 2> /dev/null && break
    kill -0 $pid 2> /dev/null || break
    sleep 0.01
done
kill -9 $pid 2> /dev/null
wait $pid 2> /dev/null
n=$(count killed.db)
check "killed with some runs done ($n of 6)" "[ $n -ge 2 ] && [ $n -lt 6 ]"
"$W" sweep term.yaml -j 2 -o killed.db > resume.out 2>&1
check "resume exits 0" "[ $? = 0 ]"
check "resume says which runs were there" "grep -q 'were already in the database' resume.out"
dump killed.db > killed.dump
check "resumed database equals the uninterrupted one" "cmp -s term-full.dump killed.dump && [ -s killed.dump ]"

"$W" sweep term.yaml -j 2 -o term.db -q > /dev/null 2>&1 &
pid=$!
for i in $(seq 3000); do
    [ "$(count term.db)" -ge 1 ] 2> /dev/null && break
    kill -0 $pid 2> /dev/null || break
    sleep 0.01
done
kill -TERM $pid
wait $pid
rc=$?
n=$(count term.db)
check "SIGTERM: status 143 ($rc) with $n of 6 runs" "[ $rc = 143 ] && [ $n -lt 6 ]"
check "SIGTERM: no run recorded as failed" "[ \"\$(count term.db \"status != 'ok'\")\" = 0 ]"
"$W" sweep term.yaml -j 2 -o term.db -q > /dev/null 2>&1
dump term.db > term.dump
check "SIGTERM then resume: same database" "cmp -s term-full.dump term.dump && [ -s term.dump ]"

echo "== failures are recorded, the others go on"
cat > hosts.yaml <<'EOF'
base: perm.yaml
axes:
  workload.0.hosts: ["0-15", "0-19", "0-7"]
EOF
"$W" sweep hosts.yaml -j 2 -o hosts.db > hosts.out 2>&1
rc=$?
check "a refused combination: exit 1" "[ $rc = 1 ]"
check "2 ok, 1 invalid" "[ \"\$(count hosts.db \"status = 'ok'\")\" = 2 ] && [ \"\$(count hosts.db \"status = 'invalid'\")\" = 1 ]"
check "the error points at the value in the sweep file" \
    "sqlite3 hosts.db \"SELECT error FROM runs WHERE run_id = 1\" | grep -q '^hosts.yaml:3:30: workload\[0\].hosts: host 16 does not exist'"
check "the summary lists it" "grep -q 'run 1 (workload.0.hosts=\"0-19\") invalid' hosts.out"

cat > crash.yaml <<'EOF'
base: perm.yaml
axes:
  workload.0.size: [1MB, 2GB]
EOF
# once the 1 MB run is in the database, the worker still running is the 2 GB run's (seconds to
# minutes of simulation): kill it
"$W" sweep crash.yaml -j 2 -o crash.db -q > crash.out 2>&1 &
pid=$!
victim=
for i in $(seq 3000); do
    if [ "$(count crash.db)" -ge 1 ] 2> /dev/null; then
        victim=$(pgrep -P $pid | head -1)
        break
    fi
    kill -0 $pid 2> /dev/null || break
    sleep 0.01
done
[ -n "$victim" ] && kill -KILL "$victim"
wait $pid
rc=$?
check "a worker killed by SIGKILL (as the OOM killer does): sweep exits 1 ($rc)" "[ $rc = 1 ]"
check "1 failed (the 2 GB run), 1 ok" "[ \"\$(count crash.db \"status = 'failed' AND \\\"workload.0.size\\\" = '2GB'\")\" = 1 ] && [ \"\$(count crash.db \"status = 'ok'\")\" = 1 ]"
check "the error names the signal" \
    "sqlite3 crash.db \"SELECT error FROM runs WHERE status = 'failed'\" | grep -q 'killed by signal 9 (SIGKILL)'"
"$W" sweep crash.yaml -j 2 -o crash.db > resume2.out 2>&1
check "a plain resume skips the failed run (exit 1, nothing run)" "[ $? = 1 ] && grep -q 'ran 0 now' resume2.out"
"$W" sweep hosts.yaml -j 2 -o hosts.db --retry-failed > retry.out 2>&1
check "--retry-failed runs the invalid run again (still invalid: exit 1)" \
    "[ $? = 1 ] && grep -q 'ran 1 now' retry.out && grep -q '2 ok, 1 invalid, 0 failed' retry.out"

echo "== refusals"
"$W" sweep hosts.yaml -o full.db > other.out 2> other.err
check "a database of another sweep: exit 4" "[ $? = 4 ]"
check "  and says so" "grep -q 'different sweep' other.err"
check "  and is left as it was" "dump full.db | cmp -s - full.dump"
cat > badv.yaml <<'EOF'
base: perm.yaml
axes:
  fabric.host_link: [400Gbps, 400]
EOF
"$W" sweep badv.yaml -o badv.db > badv.out 2> badv.err
check "a bad axis value: exit 3" "[ $? = 3 ]"
check "  at the sweep file's line and column" \
    "head -1 badv.err | grep -q '^wirerate: badv.yaml:3:31: error: fabric.host_link: expected a rate'"
check "  with the source line and a caret" "grep -q '^    3 |' badv.err && grep -q '\^' badv.err"
check "  and no database" "[ ! -e badv.db ]"
"$W" sweep > /dev/null 2>&1
check "no sweep file: exit 2" "[ $? = 2 ]"
"$W" sweep lb-cc.yaml -j 0 > /dev/null 2>&1
check "-j 0: exit 2" "[ $? = 2 ]"

echo "== files the base scenario reads are part of the sweep's definition"
# editing a size_cdf CSV or a Chakra trace changes what the runs compute: the database of the
# earlier sweep is then another sweep's (exit 4), not a set of runs to skip; restored, it resumes
printf '1KB,0\n64KB,1\n' > cdf.csv
cat > cdfbase.yaml <<'EOF'
name: cdfbase
fabric: {preset: single-switch, servers: 4, gpus_per_server: 1}
workload:
  - {kind: traffic, pattern: uniform, load: 0.2, size_cdf: cdf.csv, count: 8}
EOF
cat > cdfsweep.yaml <<'EOF'
base: cdfbase.yaml
axes:
  workload.0.load: [0.1, 0.2]
EOF
"$W" sweep cdfsweep.yaml -o cdf.db > cdf1.out 2>&1
check "a sweep over a size_cdf scenario: exit 0" "[ $? = 0 ]"
cp cdf.csv cdf.orig
printf '1KB,0\n128KB,1\n' > cdf.csv
"$W" sweep cdfsweep.yaml -o cdf.db > cdf2.out 2> cdf2.err
check "  the CSV edited: the database is another sweep's (exit 4), no run skipped" \
    "[ $? = 4 ] && grep -q 'different sweep' cdf2.err"
cp cdf.orig cdf.csv
"$W" sweep cdfsweep.yaml -o cdf.db > cdf3.out 2>&1
check "  the CSV restored: every run already in the database" \
    "[ $? = 0 ] && grep -q 'ran 0 now' cdf3.out"
if "$W" import chakra "$SRC/examples/chakra/pipeline.0.et" "$SRC/examples/chakra/pipeline.1.et" \
    > /dev/null 2>&1; then
    cp "$SRC/examples/chakra/pipeline.0.et" "$SRC/examples/chakra/pipeline.1.et" .
    cat > ckbase.yaml <<'EOF'
name: ckbase
fabric: {preset: single-switch, servers: 2, gpus_per_server: 1}
workload:
  - {kind: chakra, trace: pipeline}
EOF
    cat > cksweep.yaml <<'EOF'
base: ckbase.yaml
axes:
  fabric.host_link: [200Gbps, 400Gbps]
EOF
    "$W" sweep cksweep.yaml -o ck.db > ck1.out 2>&1
    check "a sweep over a Chakra trace: exit 0" "[ $? = 0 ]"
    printf '\0' >> pipeline.1.et
    "$W" sweep cksweep.yaml -o ck.db > ck2.out 2> ck2.err
    check "  a trace file changed: another sweep (exit 4)" \
        "[ $? = 4 ] && grep -q 'different sweep' ck2.err"
else
    echo "skip the Chakra sweep: this build has no protobuf-c"
fi

echo "== wirerate report results.db"
"$W" report full.db > rep.out 2> rep.err
check "report full.db exits 0 and writes full.html" "[ $? = 0 ] && [ -s full.html ] && head -1 rep.out | grep -q 'full.html$'"
# the best configuration, computed independently with SQL: lowest mean JCT over the seeds
best=$(sqlite3 full.db "SELECT 'loadbalance.mode=' || \"loadbalance.mode\" || ', workload.0.size=' || \"workload.0.size\" FROM runs GROUP BY 1 ORDER BY avg(jct_ps) LIMIT 1")
check "the page names the best configuration by mean JCT ($best)" \
    "grep -o '<p id=\"best-jct\">[^<]*<b>[^<]*</b>: [^<]*' full.html | grep -qF \"$best —\""
check "the CLI names it too" "grep -qF \"best configuration by mean JCT: $best\" rep.out"
check "a chart per axis and figure (JCT, p99 FCT; no busbw without collectives)" \
    "grep -q 'id=\"chart-0-jct\"' full.html && grep -q 'id=\"chart-1-p99\"' full.html && ! grep -q 'chart-0-busbw' full.html"
mean=$(sqlite3 full.db "SELECT CAST(round(avg(jct_ps)) AS INTEGER) FROM runs WHERE \"loadbalance.mode\" = 'spray'")
check "per axis value: the mean JCT of spray over sizes and seeds ($mean ps)" \
    "python3 -c \"import sys; v=$mean/1e6; sys.exit(0 if ('%.3f us' % v) in open('full.html').read() else 1)\""
check "every configuration ranked (6 rows)" "[ \$(grep -c '<td>[0-9] / [0-9]</td>' full.html) = 6 ]"
"$W" report hosts.db -o hosts-page.html > /dev/null 2>&1
check "report -o PAGE; the invalid run is listed with its error" \
    "grep -q 'id=\"problems\"' hosts-page.html && grep -q 'host 16 does not exist' hosts-page.html"
sqlite3 other.sqlite 'CREATE TABLE t (x)'
"$W" report other.sqlite > /dev/null 2> rep2.err
check "a database wirerate did not write: exit 3" "[ $? = 3 ] && grep -q 'not a wirerate results database' rep2.err"
check "  and no page" "[ ! -e other.html ]"
echo "not sqlite" > notdb.db
"$W" report notdb.db > /dev/null 2>&1
check "a file that is not a database: exit 3" "[ $? = 3 ]"

echo "$pass passed, $fail failed"
[ $fail = 0 ]
