#include "studies/calibrate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "runtime/arch_config.h"
#include "runtime/error.h"
#include "runtime/text.h"
#include "runtime/user_files.h"
#include "sim/report/run_report.h"

namespace spyre::studies {

namespace {

namespace fs = std::filesystem;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// --- parameters -------------------------------------------------------------

std::string number_text(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.9g", v);
  return text;
}

CalibratedParam parse_param(const std::string& spec, const ArchConfig& arch,
                            const std::map<std::string, std::string>& sources) {
  const auto eq = spec.find('=');
  CalibratedParam p;
  p.path = spec.substr(0, eq);
  const ArchParam* a = find_arch_param(p.path);
  if (a == nullptr) fail("--param", p.path, "unknown arch parameter (`spyre-sim arch` lists them)");
  p.start = a->get(arch);
  p.integer = a->integer;
  p.unit = a->unit;
  p.source = sources.at(p.path);
  if (eq == std::string::npos) {
    if (p.start <= 0) fail("--param", spec, "its value is " + number_text(p.start) + ": give a range, path=lo:hi");
    p.lo = std::max(a->min, p.start / 2);
    p.hi = std::min(a->max, p.start * 2);
  } else {
    const std::string range = spec.substr(eq + 1);
    const auto colon = range.find(':');
    char* end = nullptr;
    if (colon == std::string::npos) fail("--param", spec, "expected path=lo:hi");
    const std::string lo = range.substr(0, colon), hi = range.substr(colon + 1);
    p.lo = std::strtod(lo.c_str(), &end);
    if (lo.empty() || *end != '\0') fail("--param", spec, "'" + lo + "' is not a number");
    p.hi = std::strtod(hi.c_str(), &end);
    if (hi.empty() || *end != '\0') fail("--param", spec, "'" + hi + "' is not a number");
    if (!(p.lo < p.hi)) fail("--param", spec, "the range must have lo < hi");
    if (p.lo < a->min || p.hi > a->max) {
      fail("--param", spec,
           "outside the parameter's range " + Json(a->min).dump() + ".." + Json(a->max).dump() + " " + a->unit);
    }
    if (p.start < p.lo || p.start > p.hi) {
      fail("--param", spec, "the range must hold the parameter's value " + number_text(p.start));
    }
  }
  p.log_scale = p.lo > 0;
  return p;
}

// A parameter's search coordinate: log of its value on a positive range.
double to_u(const CalibratedParam& p, double v) { return p.log_scale ? std::log(v) : v; }
double from_u(const CalibratedParam& p, double u) {
  const double v = p.log_scale ? std::exp(u) : u;
  return p.integer ? std::round(v) : v;
}

// --- rows and points --------------------------------------------------------

struct FitRow {
  size_t source = 0;
  std::string key;    // source:table:line, the cache's name for it
  std::string group;  // shape and LX setting: the rows a source ranks together
  const RowJob* job = nullptr;
  bool sampled = false;  // in the fit's sample
};

using Point = std::vector<double>;  // a value per parameter

std::vector<std::string> point_overrides(const std::vector<CalibratedParam>& params, const Point& point) {
  std::vector<std::string> out;
  for (size_t i = 0; i < params.size(); ++i) out.push_back(params[i].path + "=" + number_text(point[i]));
  return out;
}

std::string point_key(const std::vector<CalibratedParam>& params, const Point& point) {
  return join(point_overrides(params, point), ",");
}

// Rows spread over a source's shapes: one of each shape in turn, each shape's
// rows taken evenly, until `count` (all when count is 0 or more than it has).
std::vector<size_t> sample_rows(const std::vector<size_t>& rows, const std::vector<FitRow>& all, size_t count) {
  if (count == 0 || count >= rows.size()) return rows;
  std::vector<std::string> order;
  std::map<std::string, std::vector<size_t>> by_group;
  for (size_t r : rows) {
    if (!by_group.count(all[r].group)) order.push_back(all[r].group);
    by_group[all[r].group].push_back(r);
  }
  // Each group's rows in an order that spreads them: middle, ends, quarters...
  std::map<std::string, std::vector<size_t>> spread;
  for (auto& [g, members] : by_group) {
    std::vector<size_t> out;
    std::vector<bool> taken(members.size(), false);
    for (size_t denominator = 1; out.size() < members.size(); denominator *= 2) {
      for (size_t k = 0; k <= denominator && out.size() < members.size(); ++k) {
        const size_t i = std::min(members.size() - 1, (k * (members.size() - 1) + denominator / 2) / denominator);
        if (!taken[i]) {
          taken[i] = true;
          out.push_back(members[i]);
        }
      }
      if (denominator > 2 * members.size()) {
        for (size_t i = 0; i < members.size(); ++i) {
          if (!taken[i]) out.push_back(members[i]);
        }
        break;
      }
    }
    spread[g] = out;
  }
  std::vector<size_t> out;
  for (size_t pass = 0; out.size() < count; ++pass) {
    for (const auto& g : order) {
      if (pass < spread[g].size() && out.size() < count) out.push_back(spread[g][pass]);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// --- the evaluation cache ---------------------------------------------------

// Simulated times by point and row; every new one appended to
// evaluations.jsonl, whose first line names what they were run with.
class EvaluationCache {
 public:
  EvaluationCache(const std::string& path, const Json& config) : path_(path) {
    std::error_code ec;
    if (fs::exists(path, ec)) {
      std::ifstream in(path);
      std::string line;
      int n = 0;
      while (std::getline(in, line)) {
        ++n;
        if (line.empty()) continue;
        Json j;
        try {
          j = Json::parse(line);
        } catch (const std::exception&) {
          if (in.peek() == EOF) break;  // a line cut short when a run was stopped
          fail(path, "line " + std::to_string(n), "not a JSON line; remove the file to start over");
        }
        if (n == 1) {
          if (j.value("config", Json()) != config) {
            fail(path, "line 1",
                 "written for other sources or options; remove it or choose another output folder to start over");
          }
          continue;
        }
        const Json& us = j.at("us");
        times_[j.at("point").get<std::string>()][j.at("row").get<std::string>()] =
            us.is_null() ? kNaN : us.get<double>();
      }
      out_.open(path, std::ios::app);
    } else {
      out_.open(path);
      out_ << Json{{"calibrate_evaluations", 1}, {"config", config}}.dump() << "\n";
    }
    if (!out_) fail(path, "", "cannot write the evaluations file");
  }

  const double* find(const std::string& point, const std::string& row) const {
    const auto p = times_.find(point);
    if (p == times_.end()) return nullptr;
    const auto r = p->second.find(row);
    return r == p->second.end() ? nullptr : &r->second;
  }

  void add(const std::string& point, const std::string& row, double us) {
    times_[point][row] = us;
    out_ << Json{{"point", point}, {"row", row}, {"us", std::isnan(us) ? Json(nullptr) : Json(us)}}.dump() << "\n";
    out_.flush();
  }

 private:
  std::string path_;
  std::map<std::string, std::map<std::string, double>> times_;
  std::ofstream out_;
};

// What a cached run is only valid for: the arch, its options, the tables'
// bytes, the protocol.
Json cache_config(const CalibrateOptions& options, const std::vector<MeasurementSource>& sources) {
  Json tables = Json::array();
  for (const auto& s : sources) {
    for (const auto& t : s.tables) {
      tables.push_back({{"source", s.name},
                        {"table", t},
                        {"bytes_hash", number_text(static_cast<double>(std::hash<std::string>{}(read_input_file(t)) %
                                                                       1000000007ULL))}});
    }
  }
  const ValidateOptions& v = options.validate;
  return {
      {"arch", v.arch_path.empty() ? "built-in" : v.arch_path},
      {"arch_overrides", v.arch_overrides},
      {"arch_text_hash",
       number_text(static_cast<double>(
           std::hash<std::string>{}(v.arch_path.empty() ? builtin_arch_json() : read_input_file(v.arch_path)) %
           1000000007ULL))},
      {"warmup", v.warmup},
      {"between_runs", v.between_runs ? Json(sim::to_string(*v.between_runs)) : Json("per row")},
      {"forced_splits", v.forced_splits ? Json(*v.forced_splits == ForcedSplits::kAsEmitted ? "as-emitted" : "as-given")
                                        : Json("per source")},
      {"where", v.where},
      {"tables", tables}};
}

// --- the calibration --------------------------------------------------------

class Calibrator {
 public:
  Calibrator(const CalibrateOptions& options, std::vector<MeasurementSource> sources)
      : options_(options), sources_(std::move(sources)) {}

  Calibration run();

 private:
  void read_rows();
  // Simulates every (point, row) not yet known, in one pool.
  void evaluate(const std::vector<Point>& points, const std::vector<size_t>& rows, const std::string& what);
  double time_of(const Point& point, size_t row) const;
  // A source's objective over `rows` with times from `log_time(row)`.
  double source_objective(size_t source, const std::vector<size_t>& rows,
                          const std::function<double(size_t)>& log_time) const;
  SourceScore score(size_t source, const Point& point) const;

  const CalibrateOptions& options_;
  std::vector<MeasurementSource> sources_;
  std::vector<SourceEntries> entries_;
  std::vector<CalibratedParam> params_;
  std::vector<FitRow> rows_;
  std::vector<std::vector<size_t>> source_rows_, source_sample_;
  std::unique_ptr<EvaluationCache> cache_;
  size_t simulations_ = 0, cached_ = 0;
};

void Calibrator::read_rows() {
  entries_ = read_sources(sources_, options_.validate);
  source_rows_.resize(entries_.size());
  source_sample_.resize(entries_.size());
  for (size_t s = 0; s < entries_.size(); ++s) {
    for (const auto& [table, entry] : entries_[s].entries) {
      if (!entry.job) continue;
      FitRow row;
      row.source = s;
      row.key =
          sources_[s].name + ":" + fs::path(table).filename().string() + ":" + std::to_string(entry.job->row.line);
      row.group = entry.job->row.shape + " | " + entry.job->row.lx;
      row.job = &*entry.job;
      source_rows_[s].push_back(rows_.size());
      rows_.push_back(row);
    }
    if (source_rows_[s].empty())
      fail(sources_[s].tables.front(), "", "no row of source '" + sources_[s].name + "' can run");
  }
}

void Calibrator::evaluate(const std::vector<Point>& points, const std::vector<size_t>& rows, const std::string& what) {
  std::vector<SimulationJob> jobs;
  std::vector<std::pair<std::string, size_t>> job_of;  // point key, row
  for (const auto& point : points) {
    const std::string key = point_key(params_, point);
    const auto overrides = point_overrides(params_, point);
    for (size_t r : rows) {
      if (cache_->find(key, rows_[r].key)) {
        ++cached_;
        continue;
      }
      jobs.push_back({rows_[r].job, overrides});
      job_of.emplace_back(key, r);
    }
  }
  if (jobs.empty()) return;
  const auto started = std::chrono::steady_clock::now();
  auto last = started;
  size_t done = 0;
  std::optional<std::string> error;
  simulate_jobs(jobs, options_.validate, [&](size_t j, const Json& result) {
    ++done;
    ++simulations_;
    const size_t r = job_of[j].second;
    if (result.contains("error")) {
      if (!error) error = rows_[r].key + ": " + result.at("error").get<std::string>();
    } else {
      cache_->add(job_of[j].first, rows_[r].key,
                  result.contains("simulated_us") ? result.at("simulated_us").get<double>() : kNaN);
    }
    // A line every 10 s and one at the end: enough to follow, little to scroll.
    const auto now = std::chrono::steady_clock::now();
    if (options_.progress && (done == jobs.size() || now - last >= std::chrono::seconds(10))) {
      last = now;
      const double s = std::chrono::duration<double>(now - started).count();
      char line[240];
      std::snprintf(line, sizeof line, "calibrate: %s: %zu/%zu runs (%.0f%%), %.0f s, ~%.0f s left\n", what.c_str(),
                    done, jobs.size(), 100.0 * done / jobs.size(), s, s / done * (jobs.size() - done));
      *options_.progress << line << std::flush;
    }
  });
  if (error) throw SpyreError("calibrate: " + *error);
}

double Calibrator::time_of(const Point& point, size_t row) const {
  const double* us = cache_->find(point_key(params_, point), rows_[row].key);
  return us ? *us : kNaN;
}

double Calibrator::source_objective(size_t source, const std::vector<size_t>& rows,
                                    const std::function<double(size_t)>& log_time) const {
  double sum = 0;
  size_t n = 0;
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> groups;
  for (size_t r : rows) {
    const double y = log_time(r);
    if (std::isnan(y)) continue;
    const double measured = rows_[r].job->row.measured_us;
    sum += std::fabs(y - std::log(measured));
    ++n;
    if (options_.rank_weight > 0) {
      groups[rows_[r].group].first.push_back(y);
      groups[rows_[r].group].second.push_back(measured);
    }
  }
  if (n == 0) return 0;
  double objective = sum / static_cast<double>(n);
  if (options_.rank_weight > 0) {
    double rho = 0;
    size_t ranked = 0;
    for (const auto& [g, v] : groups) {
      const double r = spearman(v.first, v.second);
      if (std::isfinite(r)) {
        rho += r;
        ++ranked;
      }
    }
    if (ranked > 0) objective += options_.rank_weight * (1 - rho / static_cast<double>(ranked));
  }
  (void)source;
  return objective;
}

SourceScore Calibrator::score(size_t source, const Point& point) const {
  Validation v;
  v.options = options_.validate;
  v.name = sources_[source].name;
  v.tables = sources_[source].tables;
  for (size_t r : source_rows_[source]) {
    const double us = time_of(point, r);
    if (std::isnan(us)) continue;
    ValidateRow row = rows_[r].job->row;
    row.simulated_us = us;
    v.rows.push_back(row);
  }
  SourceScore s;
  s.rows = v.rows.size();
  if (v.rows.empty()) {
    s.median_abs_error = s.median_error = s.within_20 = s.spearman = s.picks_over_best = kNaN;
    return s;
  }
  summarize_validation(v);
  s.median_abs_error = v.summary.median_abs_error;
  s.median_error = v.summary.median_error;
  s.within_20 = static_cast<double>(v.summary.within_20) / static_cast<double>(v.summary.rows);
  s.spearman = v.summary.median_spearman;
  s.picks_over_best = v.summary.picks_over_best;
  return s;
}

Calibration Calibrator::run() {
  const ValidateOptions& v = options_.validate;
  const ArchConfig arch = load_arch(v.arch_path, v.arch_overrides);
  const auto sources = arch_sources(v.arch_path, v.arch_overrides);
  std::set<std::string> seen;
  for (const auto& spec : options_.params) {
    params_.push_back(parse_param(spec, arch, sources));
    if (!seen.insert(params_.back().path).second) fail("--param", params_.back().path, "given twice");
  }
  if (params_.empty()) fail("calibrate", "--param", "name at least one arch parameter to fit");
  if (options_.steps < 1) fail("calibrate", "--steps", "must be at least 1");
  fs::create_directories(options_.output_dir);
  cache_ = std::make_unique<EvaluationCache>((fs::path(options_.output_dir) / "evaluations.jsonl").string(),
                                             cache_config(options_, sources_));
  read_rows();
  std::vector<size_t> sample;
  for (size_t s = 0; s < sources_.size(); ++s) {
    source_sample_[s] = sample_rows(source_rows_[s], rows_, static_cast<size_t>(options_.rows_per_source));
    sample.insert(sample.end(), source_sample_[s].begin(), source_sample_[s].end());
  }

  // 1. The design: each parameter alone at `steps` samples each side.
  const size_t P = params_.size();
  Point start(P);
  for (size_t i = 0; i < P; ++i) start[i] = params_[i].start;
  std::vector<std::vector<double>> samples_u(P);  // per parameter, ascending, the start among them
  std::vector<Point> design{start};
  for (size_t i = 0; i < P; ++i) {
    const CalibratedParam& p = params_[i];
    const double u0 = to_u(p, p.start), ulo = to_u(p, p.lo), uhi = to_u(p, p.hi);
    std::set<double> us{u0};
    for (int k = 1; k <= options_.steps; ++k) {
      for (double u : {u0 - (u0 - ulo) * k / options_.steps, u0 + (uhi - u0) * k / options_.steps}) {
        if (std::fabs(u - u0) < 1e-12) continue;
        Point point = start;
        point[i] = from_u(p, u);
        if (point[i] == p.start) continue;  // an integer parameter's sample that rounds back to its value
        us.insert(to_u(p, point[i]));
        design.push_back(point);
      }
    }
    samples_u[i].assign(us.begin(), us.end());
  }
  evaluate(design, sample,
           "the design (" + std::to_string(design.size()) + " points x " + std::to_string(sample.size()) + " rows)");

  // 2. The separable model: log time at the start plus each parameter's
  // piecewise-linear change along its samples.
  std::vector<double> y0(rows_.size(), kNaN);
  std::vector<std::vector<std::vector<double>>> along(rows_.size(), std::vector<std::vector<double>>(P));
  std::vector<bool> usable(rows_.size(), false);
  for (size_t r : sample) {
    const double t0 = time_of(start, r);
    if (std::isnan(t0)) continue;
    y0[r] = std::log(t0);
    bool ok = true;
    for (size_t i = 0; i < P && ok; ++i) {
      for (double u : samples_u[i]) {
        Point point = start;
        point[i] = from_u(params_[i], u);
        const double t = time_of(point, r);
        if (std::isnan(t)) ok = false;
        along[r][i].push_back(std::isnan(t) ? 0 : std::log(t) - y0[r]);
      }
    }
    usable[r] = ok;
  }
  auto change = [&](size_t r, size_t i, double u) {
    const auto& xs = samples_u[i];
    const auto& ys = along[r][i];
    if (u <= xs.front()) return ys.front();
    if (u >= xs.back()) return ys.back();
    const size_t k = static_cast<size_t>(std::upper_bound(xs.begin(), xs.end(), u) - xs.begin());
    const double f = (u - xs[k - 1]) / (xs[k] - xs[k - 1]);
    return ys[k - 1] + f * (ys[k] - ys[k - 1]);
  };
  auto modelled = [&](const std::vector<double>& u, const std::vector<size_t>& fit_sources) {
    double sum = 0;
    for (size_t s : fit_sources) {
      sum += source_objective(s, source_sample_[s], [&](size_t r) {
        if (!usable[r]) return kNaN;
        double y = y0[r];
        for (size_t i = 0; i < P; ++i) y += change(r, i, u[i]);
        return y;
      });
    }
    return sum / static_cast<double>(fit_sources.size());
  };

  // 3. Each fit by coordinate search on the model.
  auto fit = [&](const std::string& name, const std::string& left_out) {
    std::vector<size_t> fit_sources;
    for (size_t s = 0; s < sources_.size(); ++s) {
      if (sources_[s].name != left_out) fit_sources.push_back(s);
    }
    std::vector<double> u(P);
    for (size_t i = 0; i < P; ++i) u[i] = to_u(params_[i], params_[i].start);
    CalibrationFit f;
    f.name = name;
    f.left_out = left_out;
    f.modelled_start = modelled(u, fit_sources);
    double best = f.modelled_start;
    constexpr int kGrid = 48;
    for (int sweep = 0; sweep < 30; ++sweep) {
      bool moved = false;
      for (size_t i = 0; i < P; ++i) {
        const double lo = samples_u[i].front(), hi = samples_u[i].back();
        for (int k = 0; k <= kGrid; ++k) {
          std::vector<double> trial = u;
          trial[i] = to_u(params_[i], from_u(params_[i], lo + (hi - lo) * k / kGrid));
          const double j = modelled(trial, fit_sources);
          if (j < best - 1e-12) {
            best = j;
            u = trial;
            moved = true;
          }
        }
      }
      if (!moved) break;
    }
    f.modelled_objective = best;
    for (size_t i = 0; i < P; ++i) f.values.push_back(from_u(params_[i], u[i]));
    return f;
  };
  Calibration c;
  c.params = params_;
  c.fits.push_back(fit("all sources", ""));
  if (options_.leave_out && sources_.size() > 1) {
    for (const auto& s : sources_) c.fits.push_back(fit("without " + s.name, s.name));
  }

  // 4. Real runs on every row: the start, the fit, each left-out source.
  std::vector<size_t> every(rows_.size());
  for (size_t r = 0; r < rows_.size(); ++r) every[r] = r;
  evaluate({start, c.fits[0].values}, every, "the start and the fit on every row");
  for (size_t f = 1; f < c.fits.size(); ++f) {
    size_t s = 0;
    while (sources_[s].name != c.fits[f].left_out) ++s;
    evaluate({c.fits[f].values}, source_rows_[s], "the fit " + c.fits[f].name + " on " + sources_[s].name);
  }
  for (size_t s = 0; s < sources_.size(); ++s) {
    CalibrationSource cs;
    cs.name = sources_[s].name;
    cs.rows = source_rows_[s].size();
    cs.fit_rows = source_sample_[s].size();
    cs.before = score(s, start);
    cs.in_fit = score(s, c.fits[0].values);
    cs.left_out = score(s, c.fits[0].values);
    for (const auto& f : c.fits) {
      if (f.left_out == cs.name) cs.left_out = score(s, f.values);
    }
    if (c.fits.size() == 1) cs.left_out = SourceScore{0, kNaN, kNaN, kNaN, kNaN, kNaN};
    c.sources.push_back(cs);
  }
  c.simulations = simulations_;
  c.cached = cached_;
  return c;
}

// --- reports ----------------------------------------------------------------

Json score_json(const SourceScore& s) {
  auto num = [](double v, int d) { return std::isfinite(v) ? Json(sim::rounded(v, d)) : Json(nullptr); };
  return {{"rows", s.rows},
          {"median_abs_error_pct", num(100 * s.median_abs_error, 2)},
          {"median_error_pct", num(100 * s.median_error, 2)},
          {"within_20_pct", num(100 * s.within_20, 1)},
          {"median_spearman", num(s.spearman, 3)},
          {"picks_over_best_pct", num(100 * s.picks_over_best, 2)}};
}

std::string fitted_source(const CalibrateOptions& o, const Calibration& c, const CalibratedParam& p) {
  std::vector<std::string> names;
  for (const auto& s : c.sources) names.push_back(s.name);
  std::vector<std::string> fitted;
  for (const auto& q : c.params) fitted.push_back(q.path);
  std::ostringstream text;
  text << "calibrated by spyre-sim calibrate: " << join(fitted, ", ") << " fitted together to " << join(names, ", ")
       << " (mean |log error| per source"
       << (o.rank_weight > 0 ? " + " + number_text(o.rank_weight) + " x (1 - Spearman)" : std::string()) << ", "
       << (o.rows_per_source > 0 ? std::to_string(o.rows_per_source) + " rows per source" : std::string("every row"))
       << "); was " << number_text(p.start) << " (" << p.source << ")";
  return text.str();
}

}  // namespace

Calibration run_calibrate(const CalibrateOptions& options) {
  if (options.output_dir.empty()) fail("calibrate", "-o", "give an output folder");
  check_output_dir(options.output_dir, "-o");
  Calibrator calibrator(options, load_measurement_sources(options.validate.tables));
  Calibration c = calibrator.run();
  std::map<std::string, std::pair<double, std::string>> replaced;
  for (size_t i = 0; i < c.params.size(); ++i)
    replaced[c.params[i].path] = {c.fits[0].values[i], fitted_source(options, c, c.params[i])};
  c.arch_json = arch_file_json(options.validate.arch_path, options.validate.arch_overrides, replaced,
                               "The card fitted by spyre-sim calibrate (calibration.json beside it says to what). "
                               "Every value is {value, unit, _source}.");
  Json params = Json::array(), fits = Json::array(), sources = Json::array();
  for (const auto& p : c.params) {
    params.push_back({{"path", p.path},
                      {"start", p.start},
                      {"lo", p.lo},
                      {"hi", p.hi},
                      {"unit", p.unit},
                      {"scale", p.log_scale ? "log" : "linear"},
                      {"source", p.source}});
  }
  for (const auto& f : c.fits) {
    Json values = Json::object();
    for (size_t i = 0; i < c.params.size(); ++i) values[c.params[i].path] = f.values[i];
    fits.push_back({{"fit", f.name},
                    {"left_out", f.left_out.empty() ? Json(nullptr) : Json(f.left_out)},
                    {"values", values},
                    {"modelled_objective", sim::rounded(f.modelled_objective, 5)},
                    {"modelled_objective_at_start", sim::rounded(f.modelled_start, 5)}});
  }
  for (const auto& s : c.sources) {
    sources.push_back({{"source", s.name},
                       {"rows", s.rows},
                       {"fit_rows", s.fit_rows},
                       {"before", score_json(s.before)},
                       {"in_fit", score_json(s.in_fit)},
                       {"left_out", score_json(s.left_out)}});
  }
  c.report = {{"calibrate", options.validate.tables},
              {"arch", options.validate.arch_path.empty() ? "built-in" : options.validate.arch_path},
              {"arch_overrides", options.validate.arch_overrides},
              {"rank_weight", options.rank_weight},
              {"rows_per_source", options.rows_per_source},
              {"steps", options.steps},
              {"simulations", c.simulations},
              {"cached", c.cached},
              {"params", params},
              {"fits", fits},
              {"sources", sources}};
  const fs::path out(options.output_dir);
  write_json_file((out / "calibration.json").string(), c.report);
  std::ofstream arch((out / "arch.json").string());
  arch << c.arch_json;
  if (!arch) fail((out / "arch.json").string(), "", "cannot write the fitted arch");
  std::ofstream md((out / "calibration.md").string());
  md << calibration_markdown(c);
  if (!md) fail((out / "calibration.md").string(), "", "cannot write the table");
  return c;
}

namespace {

std::string pct(double v) {
  if (!std::isfinite(v)) return "-";
  char t[32];
  std::snprintf(t, sizeof t, "%.1f%%", 100 * v);
  return t;
}

std::string signed_pct(double v) {
  if (!std::isfinite(v)) return "-";
  char t[32];
  std::snprintf(t, sizeof t, "%+.1f%%", 100 * v);
  return t;
}

std::string rho_text(double v) {
  if (!std::isfinite(v)) return "-";
  char t[32];
  std::snprintf(t, sizeof t, "%+.2f", v);
  return t;
}

}  // namespace

std::string calibration_table(const Calibration& c) {
  std::ostringstream out;
  char line[400];
  out << "\nper source: median |error| (within 20%; picks over device-best) before, with the source in the fit, and "
         "left out of it\n";
  std::snprintf(line, sizeof line, "  %-20s %5s %5s  %-22s %-22s %-22s\n", "source", "rows", "fit", "before", "in fit",
                "left out");
  out << line;
  auto cell = [](const SourceScore& s) {
    std::string text = pct(s.median_abs_error) + " (" + pct(s.within_20);
    if (std::isfinite(s.picks_over_best)) text += "; " + signed_pct(s.picks_over_best);
    return text + ")";
  };
  for (const auto& s : c.sources) {
    std::snprintf(line, sizeof line, "  %-20s %5zu %5zu  %-22s %-22s %-22s\n", s.name.c_str(), s.rows, s.fit_rows,
                  cell(s.before).c_str(), cell(s.in_fit).c_str(), cell(s.left_out).c_str());
    out << line;
  }
  out << "\nfitted values\n";
  std::snprintf(line, sizeof line, "  %-24s %12s", "parameter", "start");
  out << line;
  for (const auto& f : c.fits) {
    std::snprintf(line, sizeof line, " %14s", f.left_out.empty() ? "all" : ("w/o " + f.left_out).substr(0, 14).c_str());
    out << line;
  }
  out << "\n";
  for (size_t i = 0; i < c.params.size(); ++i) {
    std::snprintf(line, sizeof line, "  %-24s %12.5g", c.params[i].path.c_str(), c.params[i].start);
    out << line;
    for (const auto& f : c.fits) {
      std::snprintf(line, sizeof line, " %14.5g", f.values[i]);
      out << line;
    }
    out << "\n";
  }
  std::snprintf(line, sizeof line, "\n%zu runs, %zu taken from evaluations.jsonl\n", c.simulations, c.cached);
  out << line;
  return out.str();
}

std::string calibration_markdown(const Calibration& c) {
  std::ostringstream out;
  out << "| source | rows | fit rows | before | in the fit | left out |\n|---|---|---|---|---|---|\n";
  auto cell = [](const SourceScore& s) {
    std::string text = pct(s.median_abs_error) + " (" + pct(s.within_20) + " within 20%";
    if (std::isfinite(s.spearman)) text += ", Spearman " + rho_text(s.spearman);
    if (std::isfinite(s.picks_over_best)) text += ", picks " + signed_pct(s.picks_over_best);
    return text + ")";
  };
  for (const auto& s : c.sources) {
    out << "| " << s.name << " | " << s.rows << " | " << s.fit_rows << " | " << cell(s.before) << " | "
        << cell(s.in_fit) << " | " << cell(s.left_out) << " |\n";
  }
  out << "\n| parameter | start |";
  for (const auto& f : c.fits) out << " " << (f.left_out.empty() ? "all sources" : "without " + f.left_out) << " |";
  out << "\n|---|---|";
  for (size_t f = 0; f < c.fits.size(); ++f) out << "---|";
  out << "\n";
  for (size_t i = 0; i < c.params.size(); ++i) {
    auto short_text = [](double v) {
      char t[32];
      std::snprintf(t, sizeof t, "%.4g", v);
      return std::string(t);
    };
    out << "| `" << c.params[i].path << "` | " << short_text(c.params[i].start) << " |";
    for (const auto& f : c.fits) out << " " << short_text(f.values[i]) << " |";
    out << "\n";
  }
  return out.str();
}

}  // namespace spyre::studies
