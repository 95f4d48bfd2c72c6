#pragma once
// Where the fake nvidia-smi scenarios of tests/fixtures/host/nvidia-smi live.

#include <filesystem>
#include <string>

namespace culprit::host::testing {

inline std::filesystem::path fake_nvidia_smi_dir(const std::string& scenario) {
  return std::filesystem::path(CULPRIT_SOURCE_DIR) / "tests/fixtures/host/nvidia-smi" / scenario;
}

inline std::string fake_nvidia_smi(const std::string& scenario) {
  return (fake_nvidia_smi_dir(scenario) / "nvidia-smi").string();
}

} // namespace culprit::host::testing
