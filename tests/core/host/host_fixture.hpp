#pragma once
// Fingerprints of the fixture machines in tests/fixtures/host/roots, without GPUs unless a fake
// nvidia-smi scenario is named.

#include <string>

#include "core/host/fingerprint.hpp"
#include "tests/core/host/fake_gpu.hpp"
#include "tests/support/source_tree.hpp"

namespace culprit::host::testing {

inline HostFingerprint fixture_host(const std::string& root, const std::string& gpu_scenario = "") {
  HostProbeOptions options;
  options.root = culprit::testing::source_dir() / "tests/fixtures/host/roots" / root;
  options.detect_virt = false;
  options.query_gpus = !gpu_scenario.empty();
  if (options.query_gpus)
    options.gpu.program = fake_nvidia_smi(gpu_scenario);
  return probe_host(options);
}

} // namespace culprit::host::testing
