// libFuzzer target: --format auto, which detects the format of a run's output and parses it.

#include "core/parsers/output_format.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = culprit::fuzz::as_text(data, size);
  culprit::parsers::ParseOptions options;
  options.nvbench.base_dir = "/nonexistent/culprit-fuzz";
  culprit::fuzz::check_result(culprit::parsers::detect_output_format(text));
  culprit::fuzz::check_result(culprit::parsers::parse_output_text(text, options));
  return 0;
}
