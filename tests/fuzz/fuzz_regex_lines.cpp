// libFuzzer target: the regex format with a fixed pattern (a case group and a value group).

#include "core/parsers/regex_lines.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  culprit::parsers::RegexOptions options;
  options.pattern = R"((?P<case>\S+): (?P<value>[0-9.e+-]+) ms)";
  options.unit = "ms";
  culprit::fuzz::check_result(
      culprit::parsers::parse_regex_lines(culprit::fuzz::as_text(data, size), options));
  return 0;
}
