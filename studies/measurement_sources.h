#pragma once
// Sources of measurements: each a name and the tables of one provenance
// (one sweep, one paper, one profiler export), so `validate` summarises each
// and `calibrate` can leave each out of a fit. A source list comes from:
// - a CSV: one source named after the file (run as a manifest above it lists it);
// - a folder: its sources.json if it has one, else one source of all its
//   CSVs, named after the folder;
// - a manifest (a .json file): {"sources": [{"name": ..., "tables": [paths
//   relative to the manifest], "about": "...", "forced_splits": "as-emitted"}]}
//   (models/calibration/sources.json lists the built-in card's sources).

#include <optional>
#include <string>
#include <vector>

#include "studies/measurement_rows.h"

namespace spyre::studies {

struct MeasurementSource {
  std::string name;
  std::vector<std::string> tables;
  std::string about;  // provenance, for reports
  // How its compiled split rows ran (measurement_rows.h); unset: as given.
  std::optional<ForcedSplits> forced_splits;
};

// A CSV given alone: a source of its own, named after the file, that runs as
// the manifest listing it says (its forced_splits and about) when a
// sources.json in its folder or up to three folders above lists it.
MeasurementSource table_source(const std::string& csv);

// The sources of each path in turn. Throws SpyreError naming the file and the
// field for a missing path, a malformed manifest, a repeated source name.
std::vector<MeasurementSource> load_measurement_sources(const std::vector<std::string>& paths);

}  // namespace spyre::studies
