#include "studies/measurement_sources.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "runtime/error.h"
#include "runtime/json_node.h"
#include "runtime/user_files.h"

namespace spyre::studies {

namespace {

namespace fs = std::filesystem;

std::vector<MeasurementSource> read_manifest(const std::string& path) {
  const Json json = read_json_file(path);
  const JsonNode root(json, path, "$");
  if (!root.is_object()) root.error("expected an object with \"sources\"");
  for (const auto& [key, value] : root.members()) {
    if (key != "sources" && key != "about") value.error("unknown field (expected sources, about)");
  }
  const JsonNode list = root.at("sources");
  if (!list.is_array() || list.size() == 0) list.error("expected a non-empty list of sources");
  std::vector<MeasurementSource> out;
  const fs::path base = fs::path(path).parent_path();
  for (size_t i = 0; i < list.size(); ++i) {
    const JsonNode s = list.element(i);
    if (!s.is_object()) s.error("expected an object with name and tables");
    for (const auto& [key, value] : s.members()) {
      if (key != "name" && key != "tables" && key != "about" && key != "forced_splits")
        value.error("unknown field (expected name, tables, about, forced_splits)");
    }
    MeasurementSource source;
    source.name = s.at("name").as_string();
    if (source.name.empty()) s.at("name").error("a source needs a name");
    if (const auto about = s.find("about")) source.about = about->as_string();
    if (const auto f = s.find("forced_splits")) {
      const std::string text = f->as_string();
      if (text != "as-emitted" && text != "as-given") f->error("expected as-emitted or as-given");
      source.forced_splits = parse_forced_splits(text);
    }
    const JsonNode tables = s.at("tables");
    for (size_t t = 0; t < tables.size(); ++t) {
      const std::string table = tables.element(t).as_string();
      const fs::path p = fs::path(table).is_absolute() ? fs::path(table) : base / table;
      std::error_code ec;
      if (!fs::is_regular_file(p, ec)) tables.element(t).error("no table '" + p.string() + "'");
      source.tables.push_back(p.string());
    }
    if (source.tables.empty()) tables.error("a source needs at least one table");
    out.push_back(std::move(source));
  }
  return out;
}

// A folder without a manifest: one source of its CSVs, in name order.
MeasurementSource folder_source(const std::string& dir) {
  MeasurementSource source;
  source.name = fs::path(without_trailing_slash(dir)).filename().string();
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".csv") source.tables.push_back(entry.path().string());
  }
  std::sort(source.tables.begin(), source.tables.end());
  if (source.tables.empty()) fail(dir, "", "no sources.json and no .csv table in the folder");
  return source;
}

}  // namespace

MeasurementSource table_source(const std::string& csv) {
  require_regular_file(csv);
  MeasurementSource source{fs::path(csv).stem().string(), {csv}, "", std::nullopt};
  std::error_code ec;
  const fs::path table = fs::weakly_canonical(fs::absolute(csv), ec);
  fs::path dir = table.parent_path();
  for (int up = 0; up < 4 && !dir.empty(); ++up, dir = dir.parent_path()) {
    const fs::path manifest = dir / "sources.json";
    if (!fs::is_regular_file(manifest, ec)) continue;
    std::vector<MeasurementSource> listed;
    try {
      listed = read_manifest(manifest.string());
    } catch (const SpyreError&) {
      continue;  // a broken manifest the user did not name says nothing about this table
    }
    for (const auto& s : listed) {
      for (const auto& t : s.tables) {
        if (fs::weakly_canonical(t, ec) != table) continue;
        source.forced_splits = s.forced_splits;
        source.about = s.about;
        return source;
      }
    }
    if (dir == dir.root_path()) break;
  }
  return source;
}

std::vector<MeasurementSource> load_measurement_sources(const std::vector<std::string>& paths) {
  std::vector<MeasurementSource> out;
  std::vector<bool> from_csv;
  for (const auto& path : paths) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      const fs::path manifest = fs::path(path) / "sources.json";
      if (fs::is_regular_file(manifest, ec)) {
        for (auto& s : read_manifest(manifest.string())) out.push_back(std::move(s));
      } else {
        out.push_back(folder_source(path));
      }
    } else if (fs::path(path).extension() == ".json") {
      for (auto& s : read_manifest(path)) out.push_back(std::move(s));
    } else {
      out.push_back(table_source(path));
    }
    from_csv.resize(out.size(), false);
    if (!fs::is_directory(path, ec) && fs::path(path).extension() != ".json") from_csv.back() = true;
  }
  if (out.empty()) fail("", "validate", "no measurement table given");
  // Tables given alone are named after their file; two of one name (two
  // folders' splits.csv) take their folder's name in front.
  std::map<std::string, int> stems;
  for (const auto& s : out) stems[s.name]++;
  for (size_t i = 0; i < out.size(); ++i) {
    if (!from_csv[i] || stems[out[i].name] < 2) continue;
    const fs::path table(out[i].tables.front());
    out[i].name = table.parent_path().filename().string() + "/" + out[i].name;
  }
  std::set<std::string> names;
  for (const auto& s : out) {
    if (!names.insert(s.name).second)
      fail(s.tables.front(), "", "a second source named '" + s.name + "' (each source needs its own name)");
  }
  return out;
}

}  // namespace spyre::studies
