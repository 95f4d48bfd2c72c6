// libFuzzer target: evidence JSON read back (what `culprit report` loads), checked (the invariants
// of check_evidence), written again and rendered: evidence that is accepted renders as text and
// as its command's summary with nothing in it that drives a terminal.

#include "core/evidence/evidence.hpp"
#include "core/report/report.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto json = nlohmann::json::parse(culprit::fuzz::as_text(data, size), nullptr, false);
  if (json.is_discarded())
    return 0;
  auto evidence = culprit::evidence::evidence_from_json(json);
  culprit::fuzz::check_result(evidence);
  if (evidence) {
    // What culprit writes, it reads back: what passed the checks passes them again.
    const auto again = culprit::evidence::evidence_from_json(culprit::evidence::to_json(*evidence));
    if (!again)
      std::abort();
    const auto text = culprit::report::render(*evidence, culprit::report::ReportFormat::text, {});
    culprit::fuzz::check_inert_on_a_terminal(text, "\n");
    // The summary a command printed, with the executor object as the document has it.
    const auto summary =
        culprit::report::render(*evidence, culprit::report::ReportFormat::summary, {});
    culprit::fuzz::check_inert_on_a_terminal(summary, "\n");
  }
  return 0;
}
