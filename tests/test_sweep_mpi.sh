#!/usr/bin/env bash
# test_sweep_mpi.sh — the sweep over MPI ranks (docs/sweep.md "Over MPI"): `mpirun -np 2
# wirerate sweep` (rank 0 writes the database, rank 1 runs the runs with a pool of 2) gives the
# same database content as the local pool, wall-clock columns aside; a rerun under MPI resumes
# (nothing left to run). Skipped (and says so) when the binary has no MPI or mpirun is missing:
# `make deps-test` installs Open MPI, so CI runs it. As root, Open MPI needs --allow-run-as-root.
# $1 = wirerate binary, $2 = source dir.
set -u
W=$1
SRC=$2
case $W in /*) ;; *) W=$PWD/$W ;; esac
case $SRC in /*) ;; *) SRC=$PWD/$SRC ;; esac
if ! command -v mpirun > /dev/null || ! ldd "$W" 2> /dev/null | grep -q libmpi; then
    echo "skip: this build has no MPI, or mpirun is missing (sudo apt-get install libopenmpi-dev openmpi-bin)"
    exit 0
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/wr-mpi.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }
cp "$SRC/examples/sweep/perm.yaml" "$SRC/examples/sweep/lb-cc.yaml" .
cat > dump.py <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
wall = {"wall_s", "events_per_s", "peak_rss_bytes"}
for t, key in [("runs", "run_id"), ("jobs", "run_id, job"), ("iterations", "run_id, job, iteration"),
               ("flows", "run_id, job"), ("ports", "run_id, port_id")]:
    cols = [r[1] for r in db.execute(f"PRAGMA table_info({t})") if r[1] not in wall]
    for row in db.execute("SELECT %s FROM %s ORDER BY %s" % (", ".join('"%s"' % c for c in cols), t, key)):
        print(t, row)
PY
root=
[ "$(id -u)" = 0 ] && root=--allow-run-as-root
mpi() {
    # ASan's leak check would report Open MPI's own allocations at exit; 2 ranks may exceed
    # the cores a container grants
    ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0 OMPI_MCA_rmaps_base_oversubscribe=1 \
        mpirun $root -np 2 "$W" "$@"
}

"$W" sweep lb-cc.yaml -j 2 -o pool.db -q > pool.out 2>&1
check "pool sweep exits 0" "[ $? = 0 ]"
mpi sweep lb-cc.yaml -j 2 -o mpi.db -q > mpi.out 2> mpi.err
rc=$?
check "mpirun -np 2 wirerate sweep exits 0 ($rc)" "[ $rc = 0 ]"
[ $rc = 0 ] || cat mpi.err
check "one summary (rank 0's): 12 ok with ranks 1" \
    "[ \$(grep -c '^wirerate sweep' mpi.out) = 1 ] && grep -q '12 ok, 0 invalid, 0 failed' mpi.out && grep -q 'with ranks 1' mpi.out"
python3 dump.py pool.db > pool.dump
python3 dump.py mpi.db > mpi.dump
check "the MPI sweep's database equals the pool's" "cmp -s pool.dump mpi.dump && [ -s pool.dump ]"
mpi sweep lb-cc.yaml -j 2 -o mpi.db -q > mpi2.out 2>&1
check "a rerun under MPI resumes: nothing left to run" "[ $? = 0 ] && grep -q 'ran 0 now' mpi2.out"

echo "$pass passed, $fail failed"
[ $fail = 0 ]
