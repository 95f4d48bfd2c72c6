// libFuzzer target: Google Benchmark JSON, with the NaN/Infinity repair in front of it.

#include "core/parsers/gbench_json.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = culprit::fuzz::as_text(data, size);
  (void)culprit::parsers::replace_non_finite_literals(text);
  culprit::fuzz::check_result(culprit::parsers::parse_gbench_json(text));
  return 0;
}
