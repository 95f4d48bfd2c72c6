// libFuzzer target: nvbench JSON. Sample-time files are looked up in a directory that does not
// exist, so the target reads nothing but its input.

#include "core/parsers/nvbench_json.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = culprit::fuzz::as_text(data, size);
  culprit::parsers::NvbenchOptions options;
  options.base_dir = "/nonexistent/culprit-fuzz";
  culprit::fuzz::check_result(culprit::parsers::parse_nvbench_json(text, options));
  return 0;
}
