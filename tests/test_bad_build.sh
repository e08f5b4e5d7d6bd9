#!/usr/bin/env bash
# test_bad_build.sh — scenarios that parse but cannot be built or run (a radix too small for the
# hosts, rails that do not divide, an algorithm that cannot do the op, a fault on a NIC that does
# not exist, a feature not simulated yet ...): `wirerate run` must exit 3, print the expected
# first line (FILE:LINE:COL: error: MESSAGE, kept beside each tests/bad/build_*.yaml as .err)
# with the source line and a caret, and create no output folder.
# $1 = wirerate binary, $2 = source dir.
set -u
W=$1
SRC=$2
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$SRC/tests/bad" || exit 1
for y in build_*.yaml; do
    b=${y%.yaml}
    out="$tmp/out-$b"
    # A "# args: ..." line gives extra command-line options (e.g. --max-memory, so that a
    # memory refusal does not depend on the machine's memory).
    args=$(sed -n 's/^# args: //p' "$y")
    # shellcheck disable=SC2086
    "$W" run "$y" -o "$out" $args > "$tmp/stdout" 2> "$tmp/stderr"
    rc=$?
    first=$(head -1 "$tmp/stderr" | sed 's/^wirerate: //')
    want=$(cat "$b.err")
    if [ $rc -ne 3 ]; then
        echo "FAIL $b: exit $rc, want 3"; fail=$((fail + 1)); continue
    fi
    if [ "$first" != "$want" ]; then
        printf 'FAIL %s:\n  got:  %s\n  want: %s\n' "$b" "$first" "$want"; fail=$((fail + 1)); continue
    fi
    if ! grep -q '\^' "$tmp/stderr"; then
        echo "FAIL $b: no caret under the source line"; fail=$((fail + 1)); continue
    fi
    if [ -e "$out" ] || [ -s "$tmp/stdout" ]; then
        echo "FAIL $b: wrote output"; fail=$((fail + 1)); continue
    fi
    pass=$((pass + 1))
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
