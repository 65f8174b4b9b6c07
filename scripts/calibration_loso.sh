#!/usr/bin/env bash
# Refreshes docs/calibration.md's leave-one-source-out table: `spyre-sim
# calibrate` of the built-in arch's six most-fitted parameters over every
# built-in source, each source also left out of the fit, written between the
# markers `<!-- loso:begin -->` and `<!-- loso:end -->`. The fitted arch and
# the full report go to docs/studies/calibration/ (arch.json,
# calibration.json). ~15-25 minutes on 2 cores (scripts/bench_calibrate.sh
# holds it to 30). Extra arguments go to calibrate.
source "$(dirname "$0")/bench_common.sh"

params=(--param pt.efficiency --param pt.output_stick_ns --param cache.gbps
        --param dma.run_ns --param lpddr5.latency_ns --param launch.barrier_ns)
"$bin" calibrate models/calibration -o "$out/fit" "${params[@]}" "$@"
mkdir -p docs/studies/calibration
cp "$out/fit/arch.json" "$out/fit/calibration.json" docs/studies/calibration/
python3 - "$out/fit/calibration.md" docs/calibration.md <<'PY'
import sys
table = open(sys.argv[1]).read().rstrip("\n")
doc_path = sys.argv[2]
doc = open(doc_path).read()
begin, end = "<!-- loso:begin -->", "<!-- loso:end -->"
if begin not in doc or end not in doc:
    sys.exit(doc_path + ": no " + begin + " ... " + end + " markers")
head, rest = doc.split(begin, 1)
_, tail = rest.split(end, 1)
open(doc_path, "w").write(head + begin + "\n" + table + "\n" + end + tail)
PY
echo "docs/calibration.md: leave-one-source-out table refreshed"
