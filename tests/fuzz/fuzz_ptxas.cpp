// libFuzzer target: ptxas -v logs, the demangler behind kernel names, and the resource diff.

#include "core/build/ptxas.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto kernels = culprit::build::parse_ptxas_log(culprit::fuzz::as_text(data, size));
  const std::vector<culprit::build::PtxasKernel> none;
  for (const auto& row : culprit::build::diff_ptxas(kernels, none))
    (void)culprit::build::describe_change(row);
  for (const auto& row : culprit::build::diff_ptxas(none, kernels))
    (void)culprit::build::describe_change(row);
  return 0;
}
