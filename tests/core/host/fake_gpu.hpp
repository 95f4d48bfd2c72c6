#pragma once
// Where the fake nvidia-smi scenarios of tests/fixtures/host/nvidia-smi live.

#include "tests/support/source_tree.hpp"
#include <filesystem>
#include <string>

namespace culprit::host::testing {

inline std::filesystem::path fake_nvidia_smi_dir(const std::string& scenario) {
  return culprit::testing::source_dir() / "tests/fixtures/host/nvidia-smi" / scenario;
}

inline std::string fake_nvidia_smi(const std::string& scenario) {
  return (fake_nvidia_smi_dir(scenario) / "nvidia-smi").string();
}

} // namespace culprit::host::testing
