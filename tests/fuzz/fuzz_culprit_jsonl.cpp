// libFuzzer target: the culprit JSON-lines reader and its format detection.

#include "core/parsers/culprit_jsonl.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = culprit::fuzz::as_text(data, size);
  (void)culprit::parsers::looks_like_culprit_jsonl(text);
  culprit::fuzz::check_result(culprit::parsers::parse_culprit_jsonl(text));
  return 0;
}
