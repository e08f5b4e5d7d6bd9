#!/usr/bin/env bash
# test_import.sh — `wirerate import chakra` (docs/import.md): the shipped example traces read
# back with their node and dependency counts, ranks ordered by PREFIX.N.et whatever the argument
# order; a truncated trace exits 3 naming the file; a missing file 4; usage errors 2. Skipped
# (and says so) in a build without protobuf-c, where the command must say it cannot read traces.
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
    echo "skip: this build has no protobuf-c (and says so)"
    exit 0
fi

"$W" import chakra "$EX/dp_allreduce.3.et" "$EX/dp_allreduce.1.et" "$EX/dp_allreduce.0.et" \
    "$EX/dp_allreduce.2.et" > dp.out 2> dp.err
check "the 4-rank example: exit 0" "[ $? = 0 ]"
check "  4 ranks, 16 nodes, 12 dependencies" "grep -q '^chakra trace: 4 ranks, 16 nodes, 12 dependencies' dp.out"
check "  ranks in file-name order" "awk '\$1 ~ /^[0-3]\$/ {print \$1, \$2}' dp.out | tr '\n' ' ' | grep -q '^0 dp_allreduce.0.et 1 dp_allreduce.1.et 2 dp_allreduce.2.et 3 dp_allreduce.3.et'"
check "  rank 0: 3 compute, 1 collective, 3 dependencies, 390 us of compute" \
    "grep -qE '^  0 +dp_allreduce.0.et +4 +3 +1 +0 +0 +0 +3 +390.000 us' dp.out"
check "  the all_reduce of 64 MiB on every rank" "grep -q 'all_reduce x 4 over the ranks, 268.44 MB in total' dp.out"
check "  says it does not run traces yet" "grep -q 'not available yet' dp.out"
"$W" import chakra "$EX/pipeline.0.et" "$EX/pipeline.1.et" > pp.out 2>&1
check "the pipeline example: a send and its receive" "[ $? = 0 ] && grep -q 'every send has its receive' pp.out"
"$W" import chakra "$EX/pipeline.0.et" > half.out 2> half.err
check "a send whose receiver is missing: exit 3" "[ $? = 3 ]"
head -c 150 "$EX/dp_allreduce.0.et" > cut.0.et
"$W" import chakra cut.0.et > cut.out 2> cut.err
check "a truncated trace: exit 3 naming the file and byte" "[ $? = 3 ] && grep -q '^wirerate: cut.0.et: error: byte [0-9]*: a message of' cut.err"
"$W" import chakra nope.et > /dev/null 2> nope.err
check "a missing file: exit 4" "[ $? = 4 ]"
"$W" import > /dev/null 2>&1
check "no format: exit 2" "[ $? = 2 ]"
"$W" import htsim x > /dev/null 2>&1
check "an unknown format: exit 2" "[ $? = 2 ]"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
