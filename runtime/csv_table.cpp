#include "runtime/csv_table.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/error.h"
#include "runtime/text.h"
#include "runtime/user_files.h"

namespace spyre {

namespace {

// Splits one record starting at `pos`; a quoted cell may span lines.
// Returns false at the end of the text.
bool next_record(const std::string& text, size_t& pos, int& line, std::vector<std::string>& cells,
                 const std::string& path) {
  cells.clear();
  if (pos >= text.size()) return false;
  std::string cell;
  bool quoted = false, was_quoted = false;
  const int first_line = line;
  while (pos < text.size()) {
    const char c = text[pos++];
    if (quoted) {
      if (c == '"') {
        if (pos < text.size() && text[pos] == '"') {
          cell += '"';
          ++pos;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        cell += c;
      }
    } else if (c == '"' && cell.empty() && !was_quoted) {
      quoted = was_quoted = true;
    } else if (c == ',') {
      cells.push_back(cell);
      cell.clear();
      was_quoted = false;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && pos < text.size() && text[pos] == '\n') ++pos;
      ++line;
      cells.push_back(cell);
      return true;
    } else {
      cell += c;
    }
  }
  if (quoted) fail(path, "line " + std::to_string(first_line), "a quoted cell is never closed");
  cells.push_back(cell);
  ++line;
  return true;
}

std::string trimmed(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

}  // namespace

CsvTable CsvTable::read(const std::string& path) {
  const std::string text = read_input_file(path);
  CsvTable t;
  t.path_ = path;
  size_t pos = 0;
  int line = 1;
  std::vector<std::string> cells;
  if (!next_record(text, pos, line, cells, path) || (cells.size() == 1 && trimmed(cells[0]).empty()))
    fail(path, "line 1", "empty file: expected a header row naming the columns");
  for (size_t i = 0; i < cells.size(); ++i) {
    const std::string name = trimmed(cells[i]);
    if (name.empty()) fail(path, "line 1", "column " + std::to_string(i + 1) + " has no name");
    if (!t.index_.emplace(name, i).second) fail(path, "line 1", "column '" + name + "' appears twice");
  }
  const size_t width = cells.size();
  for (int row_line = line; next_record(text, pos, line, cells, path); row_line = line) {
    if (cells.size() == 1 && trimmed(cells[0]).empty()) continue;  // blank line
    if (cells.size() != width) {
      fail(path, "line " + std::to_string(row_line),
           std::to_string(cells.size()) + " cells, the header has " + std::to_string(width));
    }
    for (auto& c : cells) c = trimmed(c);
    t.cells_.push_back(cells);
    t.lines_.push_back(row_line);
  }
  return t;
}

std::string CsvTable::text(size_t row, const std::string& column) const {
  auto it = index_.find(column);
  return it == index_.end() ? "" : cells_.at(row).at(it->second);
}

void CsvTable::fail_cell(size_t row, const std::string& column, const std::string& reason) const {
  fail(path_, "line " + std::to_string(lines_.at(row)) + ", column " + column, reason);
}

double CsvTable::number(size_t row, const std::string& column) const {
  if (!has(column)) fail(path_, "line 1", "no column '" + column + "'");
  const std::string cell = text(row, column);
  try {
    size_t used = 0;
    const double v = std::stod(cell, &used);
    if (used == cell.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  fail_cell(row, column, "'" + cell + "' is not a number");
}

int64_t CsvTable::integer(size_t row, const std::string& column, int64_t min_value) const {
  if (!has(column)) fail(path_, "line 1", "no column '" + column + "'");
  const std::string cell = text(row, column);
  try {
    size_t used = 0;
    const long long v = std::stoll(cell, &used);
    if (used == cell.size() && v >= min_value) return v;
  } catch (const std::exception&) {
  }
  fail_cell(row, column, "'" + cell + "' is not an integer >= " + std::to_string(min_value));
}

void CsvTable::require(const std::vector<std::string>& columns) const {
  for (const auto& c : columns) {
    if (!has(c)) fail(path_, "line 1", "no column '" + c + "' (required: " + join(columns, ", ") + ")");
  }
}

}  // namespace spyre
