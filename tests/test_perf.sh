#!/usr/bin/env bash
# test_perf.sh — `wirerate perf`: nccl-tests' table layout, one row per size, busbw consistent
# with time and the op's factor, errors as usage errors. $1 = wirerate binary, $2 = source dir.
set -u
W=$1
SRC=$2
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

fab=$(mktemp --suffix=.yaml)
trap 'rm -f "$fab" "$out"' EXIT
cat > "$fab" <<'YAML'
name: perf-fabric
fabric: {preset: rail-optimized, servers: 2, gpus_per_server: 4, leaf_radix: 16}
YAML
out=$(mktemp)
"$W" perf all_reduce -b 64K -e 1M -f 4 -n 2 --fabric "$fab" > "$out"
rc=$?
check "perf exits 0" '[ $rc = 0 ]'
check "three data rows (64K, 256K, 1M)" '[ "$(grep -vc "^#" "$out")" = 3 ]'
check "nccl-tests header" 'grep -q "^#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong" "$out"'
check "avg bus bandwidth footer" 'grep -q "^# Avg bus bandwidth    : " "$out"'
# each row: size count float sum -1 time algbw busbw N/A (twice); busbw = algbw * 2(n-1)/n, n = 8
check "rows parse and busbw = algbw x 2(n-1)/n" 'awk "!/^#/ { if (\$3 != \"float\" || \$4 != \"sum\" || \$5 != -1 || \$9 != \"N/A\") exit 1; a = \$7; b = \$8; if (a <= 0 || b < a * 1.75 * 0.99 - 0.01 || b > a * 1.75 * 1.01 + 0.01) exit 1; if (\$1 != \$2 * 4) exit 1 }" "$out"'
check "sizes 65536 262144 1048576" '[ "$(grep -v "^#" "$out" | awk "{print \$1}" | tr "\n" " ")" = "65536 262144 1048576 " ]'
check "time grows with size" 'grep -v "^#" "$out" | awk "{ if (NR > 1 && \$6 + 0 <= prev) exit 1; prev = \$6 + 0 }"'

"$W" perf all_gather -b 1M -e 1M -n 1 --fabric "$fab" > "$out"
check "all_gather: count per rank = size/(4n), busbw factor (n-1)/n" 'awk "!/^#/ { if (\$1 != 1048576 || \$2 != 32768 || \$4 != \"none\") exit 1; if (\$8 < \$7 * 0.875 * 0.99 - 0.01 || \$8 > \$7 * 0.875 * 1.01 + 0.01) exit 1 }" "$out"'

"$W" perf bogus_op > /dev/null 2>&1
check "unknown op is a usage error (2)" '[ $? = 2 ]'
"$W" perf all_reduce -b 8M -e 1M > /dev/null 2>&1
check "-b > -e is a usage error (2)" '[ $? = 2 ]'
"$W" perf all_reduce --fabric /nonexistent.yaml > /dev/null 2>&1
check "missing fabric file is an I/O error (4)" '[ $? = 4 ]'
"$W" perf reduce_scatter -b 1M -e 1M --algo halving-doubling --ranks 6 --fabric "$fab" > /dev/null 2>&1
check "halving-doubling reduce_scatter on 6 ranks is an invalid scenario (3)" '[ $? = 3 ]'
exit $fail
