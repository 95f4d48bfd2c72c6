// libFuzzer target: evidence JSON read back (what `culprit report` loads), and written again.

#include "core/evidence.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto json = nlohmann::json::parse(culprit::fuzz::as_text(data, size), nullptr, false);
  if (json.is_discarded())
    return 0;
  auto evidence = culprit::evidence_from_json(json);
  culprit::fuzz::check_result(evidence);
  if (evidence) {
    // What culprit writes, it reads back.
    const auto again = culprit::evidence_from_json(culprit::to_json(*evidence));
    if (!again)
      std::abort();
  }
  return 0;
}
