#!/usr/bin/env bash
# The bad-input contract on the fuzzing reproducers (tests/robustness/, one
# folder per finding): each command must exit 1 with one line on stderr,
# within 2 s and 500 MB, and `plan --solver best` must give byte-identical
# reports run to run. Prints one row per reproducer; exits non-zero if any
# breaks the contract. (tests/e2e/robustness_test.cpp checks the messages.)
# Usage: scripts/check_robustness.sh
source "$(dirname "$0")/bench_common.sh"
sim=$PWD/$bin
ex=$PWD/models/bundles
status=0

# check NAME FOLDER [LINK] -- ARGS...: runs spyre-sim ARGS inside a copy of FOLDER
check() {
  local name=$1 folder=$2 link=$3
  shift 3
  local dir="$out/$name"
  mkdir -p "$dir"
  [ -z "$folder" ] || cp -a "tests/robustness/$folder/." "$dir/"
  if [ -n "$link" ]; then rm -f "$dir/${link%%->*}"; ln -s "${link#*->}" "$dir/${link%%->*}"; fi
  local start end rc
  start=$(date +%s%N)
  set +e
  (cd "$dir" && ulimit -v 512000 && timeout 2 "$sim" "$@") >"$dir/.stdout" 2>"$dir/.stderr"
  rc=$?
  set -e
  end=$(date +%s%N)
  local lines verdict=ok
  lines=$(wc -l <"$dir/.stderr")
  [ "$rc" = 1 ] && [ "$lines" = 1 ] || { verdict=BROKEN; status=1; }
  printf '%-34s %-6s rc=%-3s %6.2f s  %s\n' "$name" "$verdict" "$rc" "$(((end - start) / 1000000))e-3" \
    "$(head -c 110 "$dir/.stderr" | tr '\n' ' ')"
}

check deep-nest-arch-crash deep-nest-arch-crash "" run "$ex/seed-abs" --arch arch.json
check npy-huge-shape-alloc npy-huge-shape-alloc "" run prog --inputs in
check npy-overflow-shape npy-overflow-shape "" run prog --inputs in
check npy-negative-shape npy-negative-shape "" run prog --inputs in
check csv-size-overflow csv-size-overflow "" plan big.1048576.csv
check pattern-size-overflow pattern-size-overflow "" plan pat.json --solver exact
check csv-capacity-overflow csv-capacity-overflow "" plan x.99999999999999999999999.csv
check graph-attr-type-internal graph-attr-type-internal "" compile graph.json -o out
check json-number-overflow-internal json-number-overflow-internal "" compile graph.json -o out
check pattern-bool-type-internal pattern-bool-type-internal "" plan buf.json
check program-bad-stick-accepted program-bad-stick-accepted "" run prog --fill 1
check bundle-gap-silent bundle-gap-silent "" run bundle
check dev-zero-hang/sdsc dev-zero-hang "bundle/sdsc_0.json->/dev/zero" run bundle
check dev-zero-hang/mlir dev-zero-hang "bundle/bundle.mlir->/dev/zero" run bundle
check symlink-loop symlink-loop "bundle/sdsc_0.json->sdsc_0.json" run bundle
check outputs-not-a-dir "" "" run "$ex/seed-abs" --fill 1 --outputs /dev/null
check cores-not-an-integer "" "" compile --workload add --cores 2.5 -o out
check decisions-unwritable "" "" compile --workload add -o out --decisions /nonexistent/d.json

# Deterministic output: three runs of the two-thread exact search.
dir="$out/deterministic"
mkdir -p "$dir"
for i in 1 2 3; do
  "$sim" plan tests/robustness/plan-best-nondeterministic/J.1048576.csv --solver best --quiet --report "$dir/r$i.json"
done
if cmp -s "$dir/r1.json" "$dir/r2.json" && cmp -s "$dir/r2.json" "$dir/r3.json"; then
  printf '%-34s %-6s three reports byte-identical\n' plan-best-nondeterministic ok
else
  printf '%-34s %-6s reports differ\n' plan-best-nondeterministic BROKEN
  status=1
fi
exit $status
