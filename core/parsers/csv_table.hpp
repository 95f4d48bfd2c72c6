#pragma once
// CSV with a header row (cutlass_profiler's --output files, spreadsheets of results, ...).
//
// The header is the first line that names every column asked for; lines before it (a banner,
// "CSV Results:") are ignored. Every row after it is one sample: the case is the value of the
// first case column, followed by "/name=value,..." for further case columns
// ("cutlass_simt_sgemm_128x128_8x2_nn_align1/m=4096,n=4096,k=4096"); the value column must hold
// a number (a row with it empty is skipped with a warning). Quoting is RFC 4180's: fields in
// double quotes may hold the delimiter, newlines and doubled quotes; blanks around unquoted
// fields are dropped; a repeated header row (files concatenated) is skipped.

#include <string>
#include <string_view>
#include <vector>

#include "core/parsers/metric.hpp"
#include "core/util/error.hpp"

namespace culprit::parsers {

struct CsvOptions {
  std::vector<std::string> case_columns; // at least one
  std::string value_column;
  std::string metric; // empty: the value column's name
  std::string unit;   // s, ms, us, ns are stored in seconds
  Direction direction = Direction::lower_is_better;
  char delimiter = ',';
};

// Errors: options that name no column (ExitCode::usage); no header line with those columns, a
// row with another number of fields, malformed quoting or a value that is not a number, each
// with its line (and the column's name or the byte column).
[[nodiscard]] Result<ParsedOutput> parse_csv_table(std::string_view text,
                                                   const CsvOptions& options);

} // namespace culprit::parsers
