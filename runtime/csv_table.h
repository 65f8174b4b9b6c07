#pragma once
// A CSV file with a header row, read into named columns: measured-time tables
// (`spyre-sim validate`) and anything else users hand us as a spreadsheet
// export. RFC 4180 quoting ("a,b", "say ""hi""") is understood; every error
// names the file, the line and the column.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace spyre {

class CsvTable {
 public:
  // Throws SpyreError: unreadable file, no header, a row with more or fewer
  // cells than the header, an unterminated quote, a repeated column name.
  static CsvTable read(const std::string& path);

  const std::string& path() const { return path_; }
  size_t rows() const { return cells_.size(); }
  bool has(const std::string& column) const { return index_.count(column) > 0; }
  // Line of the row in the file (1 is the header), for messages.
  int line(size_t row) const { return lines_.at(row); }

  // The cell as text ("" when the column is absent).
  std::string text(size_t row, const std::string& column) const;
  // The cell as a number; bad text or an absent required column fails with
  // "FILE: line L, column C: reason".
  double number(size_t row, const std::string& column) const;
  int64_t integer(size_t row, const std::string& column, int64_t min_value) const;
  // Fails unless every column is present, naming the first that is not.
  void require(const std::vector<std::string>& columns) const;

  [[noreturn]] void fail_cell(size_t row, const std::string& column, const std::string& reason) const;

 private:
  std::string path_;
  std::map<std::string, size_t> index_;
  std::vector<std::vector<std::string>> cells_;
  std::vector<int> lines_;
};

}  // namespace spyre
