#!/usr/bin/env bash
# Fuzzes spyre-sim's readers with libFuzzer under AddressSanitizer + UBSan.
#   scripts/fuzz.sh [SECONDS] [TARGET...]   (default: 60 s each, every target)
# Targets: sdsc bundle_mlir graph npy lx_inputs arch_config (tests/fuzz).
# Builds build-fuzz/ with clang (installing clang and libFuzzer from Debian if
# missing), seeds each target from the shipped examples (tests/fuzz/seeds.txt)
# and its regression corpus (tests/fuzz/regressions/TARGET), and keeps what it
# finds: new coverage in build-fuzz/corpus/TARGET (reused by the next run),
# crashes, leaks and timeouts in tests/fuzz/regressions/TARGET (fix the reader,
# then commit the input: ctest replays it on the normal build). Prints one row
# per target; exits 1 when any target found something.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(sdsc bundle_mlir graph npy lx_inputs arch_config measurements)
case "$seconds" in '' | *[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number, got '$seconds'" >&2; exit 1 ;; esac

missing=""
for p in clang libclang-rt-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ] && ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "installing:$missing"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
fi
./scripts/install-deps.sh

cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DSPYRE_FUZZ=ON \
  >/dev/null
cmake --build build-fuzz -j"$(nproc)"

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
printf "%-12s %8s %12s %9s %8s %8s %7s  %s\n" target seconds executions exec/s edges features corpus findings
for t in "${targets[@]}"; do
  binary=build-fuzz/tests/fuzz/fuzz_$t
  [ -x "$binary" ] || { echo "fuzz.sh: no target '$t'" >&2; exit 1; }
  corpus=build-fuzz/corpus/$t
  seeds=build-fuzz/seeds/$t
  findings=build-fuzz/findings/$t
  rm -rf "$seeds" "$findings"
  mkdir -p "$corpus" "$seeds" "$findings"
  cp tests/fuzz/regressions/"$t"/* "$seeds"/
  while read -r kind dir regex; do
    [ "$kind" = "$t" ] || continue
    find "$dir" -type f -regextype posix-extended -regex ".*/$regex" | while read -r f; do
      cp "$f" "$seeds/$(echo "$f" | tr '/' '_')"
    done
  done < <(grep -v '^#' tests/fuzz/seeds.txt)
  log=build-fuzz/$t.log
  # -timeout: one input taking longer is a hang; -rss_limit_mb: a memory blow-up.
  if "$binary" "$corpus" "$seeds" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$findings/" -print_final_stats=1 >"$log" 2>&1; then
    found="none"
  else
    found=$(ls "$findings" | tr '\n' ' ')
    [ -z "$found" ] && found="failed, see $log"
    cp "$findings"/* tests/fuzz/regressions/"$t"/ 2>/dev/null || true
    status=1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  edges=$(echo "$last" | grep -o 'cov: [0-9]*' | grep -o '[0-9]*' || echo 0)
  features=$(echo "$last" | grep -o 'ft: [0-9]*' | grep -o '[0-9]*' || echo 0)
  files=$(ls "$corpus" | wc -l)
  printf "%-12s %8s %12s %9s %8s %8s %7s  %s\n" "$t" "$seconds" "$runs" "$rate" "$edges" "$features" "$files" "$found"
done
exit $status
