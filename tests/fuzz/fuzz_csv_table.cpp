// libFuzzer target: the CSV reader, with the columns of cutlass_profiler's output. The first
// byte picks the delimiter, so that tab- and semicolon-separated tables are explored too.

#include "core/parsers/csv_table.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0)
    return 0;
  constexpr char k_delimiters[] = {',', ',', ';', '\t'};
  culprit::parsers::CsvOptions options;
  options.case_columns = {"Operation", "m", "n", "k"};
  options.value_column = "Runtime";
  options.unit = "ms";
  options.delimiter = k_delimiters[data[0] % sizeof k_delimiters];
  culprit::fuzz::check_result(
      culprit::parsers::parse_csv_table(culprit::fuzz::as_text(data + 1, size - 1), options));
  return 0;
}
