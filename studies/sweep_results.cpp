#include "studies/sweep_results.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "runtime/arch_config.h"
#include "runtime/error.h"

namespace fs = std::filesystem;

namespace spyre::studies {

namespace {

void read_journal(const std::string& path, std::map<std::string, SweepRow>& rows) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    SweepRow row;
    try {
      row = sweep_row_from_json(Json::parse(line));
    } catch (const std::exception&) {
      continue;  // an incomplete last line: that point runs again
    }
    const auto it = rows.find(row.hash);
    if (it == rows.end() || it->second.status != "ok" || row.status == "ok") rows[row.hash] = std::move(row);
  }
}

// A number as the CSV shows it: integers without a decimal point.
std::string number_text(double v) {
  char text[32];
  if (v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(text, sizeof text, "%.0f", v);
  else
    std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

std::string csv_cell(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Units for the plot axes: arch parameters from the parameter table, metrics
// from their names.
Json column_units(const SweepSpec& spec, const std::vector<std::string>& metrics) {
  Json units = Json::object();
  for (const auto& key : spec.axis_keys) {
    const ArchParam* param = find_arch_param(key);
    units[key] = param != nullptr         ? param->unit
                 : key == "compile.cores" ? "cores"
                 : key == "compile.cards" ? "cards"
                                          : "";
  }
  for (const auto& m : metrics) {
    const auto ends = [&](const std::string& suffix) {
      return m.size() > suffix.size() && m.compare(m.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    units[m] = ends("_us") ? "us" : ends("_bytes") ? "bytes" : ends("_pct") ? "% busy" : m;
  }
  return units;
}

}  // namespace

Json sweep_row_to_json(const SweepRow& row) {
  Json values = Json::object(), metrics = Json::object();
  for (const auto& [key, value] : row.values) values[key] = value;
  for (const auto& [key, value] : row.metrics) metrics[key] = value;
  return {{"point", row.point},   {"hash", row.hash},   {"run", row.run},     {"values", values},
          {"status", row.status}, {"error", row.error}, {"metrics", metrics}, {"wall_s", row.wall_s}};
}

SweepRow sweep_row_from_json(const Json& j) {
  SweepRow row;
  row.point = j.at("point").get<size_t>();
  row.hash = j.at("hash").get<std::string>();
  row.run = j.at("run").get<std::string>();
  for (auto it = j.at("values").begin(); it != j.at("values").end(); ++it)
    row.values.emplace_back(it.key(), it.value().get<std::string>());
  row.status = j.at("status").get<std::string>();
  row.error = j.at("error").get<std::string>();
  for (auto it = j.at("metrics").begin(); it != j.at("metrics").end(); ++it)
    row.metrics[it.key()] = it.value().get<double>();
  row.wall_s = j.at("wall_s").get<double>();
  return row;
}

std::string sweep_row_line(const SweepRow& row) {
  // Messages may quote bytes of a bad input file that are not UTF-8: replaced, never a throw.
  return sweep_row_to_json(row).dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::ofstream open_sweep_journal(const std::string& path) {
  // A line cut short by a kill is skipped when read; the next row starts on a line of its own.
  bool cut = false;
  {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (in && in.tellg() > 0) {
      in.seekg(-1, std::ios::end);
      cut = in.get() != '\n';
    }
  }
  std::ofstream journal(path, std::ios::app);
  if (!journal) fail(path, "", "cannot append to the sweep's journal");
  if (cut) journal << "\n";
  return journal;
}

void append_sweep_row(std::ofstream& journal, const SweepRow& row, const std::string& path) {
  journal << sweep_row_line(row) << "\n" << std::flush;
  if (!journal) fail(path, "", "cannot append to the sweep's journal (disk full?)");
}

std::string sweep_slurm_dir(const std::string& prefix) { return prefix + ".slurm"; }

std::map<std::string, SweepRow> read_sweep_results(const std::string& prefix) {
  std::map<std::string, SweepRow> rows;
  read_journal(prefix + ".jsonl", rows);
  std::error_code ec;
  std::vector<std::string> shards;
  for (const auto& entry : fs::directory_iterator(sweep_slurm_dir(prefix), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("shard-", 0) == 0 && entry.path().extension() == ".jsonl") shards.push_back(entry.path().string());
  }
  std::sort(shards.begin(), shards.end());  // the same rows whatever order the folder lists them in
  for (const auto& shard : shards) read_journal(shard, rows);
  return rows;
}

std::string describe_sweep_row(const SweepRow& row) {
  std::string text = "point " + std::to_string(row.point) + " (" + row.run;
  for (const auto& [key, value] : row.values) text += ", " + key + "=" + value;
  return text + ")";
}

SweepRow sweep_row_of(const SweepSpec& spec, const SweepPoint& point) {
  SweepRow row;
  row.point = point.index;
  row.hash = point.hash;
  row.run = spec.runs[point.run].name;
  row.values = point.values;
  return row;
}

std::vector<SweepRow> write_sweep_results(const SweepSpec& spec, const std::map<std::string, SweepRow>& results,
                                          const std::string& prefix) {
  std::vector<SweepRow> rows;
  for (const auto& p : spec.points) {
    const auto it = results.find(p.hash);
    SweepRow row = sweep_row_of(spec, p);
    if (it == results.end()) {
      row.status = "missing";
      row.error = "no result yet";
    } else {
      row.status = it->second.status;
      row.error = it->second.error;
      row.metrics = it->second.metrics;
      row.wall_s = it->second.wall_s;
    }
    rows.push_back(std::move(row));
  }

  const std::vector<std::string>& metrics = spec.keep.empty() ? sweep_metric_names() : spec.keep;
  std::ostringstream csv;
  csv << "point,run";
  for (const auto& key : spec.axis_keys) csv << "," << csv_cell(key);
  csv << ",status";
  for (const auto& m : metrics) csv << "," << m;
  csv << ",error\n";
  Json json_rows = Json::array();
  for (const auto& row : rows) {
    csv << row.point << "," << csv_cell(row.run);
    for (const auto& [key, value] : row.values) csv << "," << csv_cell(value);
    csv << "," << row.status;
    for (const auto& m : metrics) csv << "," << (row.metrics.count(m) ? number_text(row.metrics.at(m)) : "");
    csv << "," << csv_cell(row.error) << "\n";
    Json j = sweep_row_to_json(row);
    Json kept = Json::object();
    for (const auto& m : metrics) {
      if (row.metrics.count(m)) kept[m] = row.metrics.at(m);
    }
    j["metrics"] = kept;
    json_rows.push_back(j);
  }
  std::ofstream(prefix + ".csv") << csv.str();
  write_json_file(prefix + ".json", Json{{"sweep", spec.name},
                                         {"spec", spec.file},
                                         {"axes", spec.axis_keys},
                                         {"units", column_units(spec, metrics)},
                                         {"rows", json_rows}});
  return rows;
}

}  // namespace spyre::studies
