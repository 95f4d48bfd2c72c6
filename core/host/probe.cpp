// Reading the fingerprint's facts from /proc, /sys and helper programs.
#include <sys/utsname.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include <fmt/core.h>

#include "core/host/capture.hpp"
#include "core/host/fingerprint.hpp"
#include "core/host/gpu.hpp"
#include "core/util/text.hpp"

namespace culprit::host {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> read_text(const fs::path& file) {
  const std::ifstream in(file);
  if (!in)
    return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<std::string> read_line(const fs::path& file) {
  auto text = read_text(file);
  if (!text)
    return std::nullopt;
  const auto line = trim(std::string_view(*text).substr(0, text->find('\n')));
  if (line.empty())
    return std::nullopt;
  return std::string(line);
}

template <class T> std::optional<T> parse_number(std::string_view text) {
  const auto trimmed = trim(text);
  T value{};
  const auto [end, error] = std::from_chars(trimmed.data(), trimmed.data() + trimmed.size(), value);
  if (error != std::errc{} || end == trimmed.data())
    return std::nullopt;
  return value;
}

// "key<tabs>: value" lines of /proc/cpuinfo and /proc/meminfo.
std::pair<std::string, std::string> split_key_value(std::string_view line) {
  const auto colon = line.find(':');
  if (colon == std::string_view::npos)
    return {std::string(trim(line)), ""};
  return {std::string(trim(line.substr(0, colon))), std::string(trim(line.substr(colon + 1)))};
}

void read_cpuinfo(const fs::path& root, CpuFacts& cpu) {
  const auto text = read_text(root / "proc/cpuinfo");
  if (!text)
    return;
  std::istringstream lines(*text);
  std::set<std::pair<std::string, std::string>> cores;
  std::string physical_id;
  std::string fallback_model;
  for (std::string line; std::getline(lines, line);) {
    const auto [key, value] = split_key_value(line);
    if (key == "processor")
      ++cpu.logical_cores;
    else if (key == "model name" && cpu.model.empty())
      cpu.model = value;
    else if ((key == "Hardware" || key == "Model" || key == "cpu model") && fallback_model.empty())
      fallback_model = value;
    else if (key == "physical id")
      physical_id = value;
    else if (key == "core id")
      cores.emplace(physical_id, value);
    else if (key == "cpu MHz" && !cpu.frequency_mhz)
      cpu.frequency_mhz = parse_number<double>(value);
    else if ((key == "flags" || key == "Features") && (" " + value + " ").contains(" hypervisor "))
      cpu.hypervisor_flag = true;
  }
  if (cpu.model.empty())
    cpu.model = fallback_model.empty() ? "unknown CPU" : fallback_model;
  if (!cores.empty())
    cpu.physical_cores = static_cast<int>(cores.size());
}

void read_cpufreq(const fs::path& root, CpuFacts& cpu) {
  const auto cpus = root / "sys/devices/system/cpu";
  std::set<std::string> governors;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(cpus, error)) {
    const auto name = entry.path().filename().string();
    if (!name.starts_with("cpu") || name.size() == 3 ||
        !std::all_of(name.begin() + 3, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    if (auto governor = read_line(entry.path() / "cpufreq/scaling_governor"))
      governors.insert(*governor);
  }
  cpu.governors.assign(governors.begin(), governors.end());
  if (auto khz = read_line(cpus / "cpu0/cpufreq/scaling_cur_freq"))
    if (auto value = parse_number<double>(*khz))
      cpu.frequency_mhz = *value / 1000.0;

  // intel_pstate says "no_turbo"; acpi-cpufreq and amd-pstate say "boost".
  const std::array<std::pair<const char*, bool>, 3> controls = {{
      {"sys/devices/system/cpu/intel_pstate/no_turbo", true},
      {"sys/devices/system/cpu/cpufreq/boost", false},
      {"sys/devices/system/cpu/cpufreq/policy0/boost", false},
  }};
  for (const auto& [file, inverted] : controls) {
    const auto value = read_line(root / file);
    if (!value || (*value != "0" && *value != "1"))
      continue;
    cpu.turbo = (*value == "1") != inverted;
    cpu.turbo_control = std::string("/") + file;
    return;
  }
}

void read_meminfo(const fs::path& root, MemoryFacts& memory) {
  const auto text = read_text(root / "proc/meminfo");
  if (!text)
    return;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    const auto [key, value] = split_key_value(line);
    const auto kib = parse_number<std::uint64_t>(value);
    if (!kib)
      continue;
    if (key == "MemTotal")
      memory.total_bytes = *kib * 1024;
    else if (key == "MemAvailable")
      memory.available_bytes = *kib * 1024;
  }
}

std::optional<LoadAverage> read_loadavg(const fs::path& root) {
  const auto line = read_line(root / "proc/loadavg");
  if (!line)
    return std::nullopt;
  std::istringstream fields(*line);
  LoadAverage load;
  if (!(fields >> load.one >> load.five >> load.fifteen))
    return std::nullopt;
  return load;
}

void detect_container(const fs::path& root, Virtualization& virt) {
  std::error_code error;
  const auto note = [&virt](std::string kind, std::string evidence) {
    if (!virt.container)
      virt.container = std::move(kind);
    virt.evidence.push_back(std::move(evidence));
  };
  if (fs::exists(root / ".dockerenv", error))
    note("docker", "/.dockerenv exists");
  if (fs::exists(root / "run/.containerenv", error))
    note("podman", "/run/.containerenv exists");
  if (const auto cgroup = read_text(root / "proc/1/cgroup")) {
    const std::array<std::pair<const char*, const char*>, 5> markers = {
        {{"kubepods", "kubernetes"},
         {"docker", "docker"},
         {"libpod", "podman"},
         {"containerd", "containerd"},
         {"lxc", "lxc"}}};
    for (const auto& [marker, kind] : markers)
      if (cgroup->contains(marker)) {
        note(kind, fmt::format("/proc/1/cgroup mentions {}", marker));
        break;
      }
  }
}

void detect_vm(const fs::path& root, const CpuFacts& cpu, Virtualization& virt) {
  if (cpu.hypervisor_flag) {
    virt.vm = "hypervisor";
    virt.evidence.emplace_back("the hypervisor flag is set in /proc/cpuinfo");
  }
  const std::array<std::pair<const char*, const char*>, 8> vendors = {
      {{"QEMU", "qemu"},
       {"KVM", "kvm"},
       {"VMware", "vmware"},
       {"VirtualBox", "oracle"},
       {"Xen", "xen"},
       {"Virtual Machine", "microsoft"},
       {"Amazon EC2", "amazon"},
       {"Google Compute Engine", "google"}}};
  for (const char* file : {"sys/class/dmi/id/product_name", "sys/class/dmi/id/sys_vendor"}) {
    const auto value = read_line(root / file);
    if (!value)
      continue;
    for (const auto& [marker, kind] : vendors)
      if (value->contains(marker)) {
        virt.vm = kind;
        virt.evidence.push_back(fmt::format("/{} is '{}'", file, *value));
        return;
      }
  }
}

// systemd-detect-virt knows more hypervisors and containers than the files above.
void ask_systemd_detect_virt(Virtualization& virt) {
  const auto program = find_on_path("systemd-detect-virt");
  if (!program)
    return;
  CaptureOptions options;
  options.timeout = std::chrono::seconds(3);
  for (const auto* flag : {"--vm", "--container"}) {
    const auto captured = capture_program({program->string(), flag}, options);
    if (!captured || captured->timed_out)
      continue;
    const auto answer = trim(captured->out);
    if (answer.empty() || answer == "none")
      continue;
    (std::string_view(flag) == "--vm" ? virt.vm : virt.container) = answer;
    virt.evidence.push_back(fmt::format("systemd-detect-virt {} says {}", flag, answer));
  }
}

// The kernel's own answer, for when /proc/sys is not mounted.
std::string fallback_uname(bool release) {
  utsname names{};
  if (uname(&names) != 0)
    return {};
  return release ? names.release : names.nodename;
}

} // namespace

HostFingerprint probe_host(const HostProbeOptions& options) {
  HostFingerprint host;
  const auto& root = options.root;
  const bool real_root = fs::path(root).lexically_normal() == "/";
  host.hostname =
      read_line(root / "proc/sys/kernel/hostname").value_or(real_root ? fallback_uname(false) : "");
  host.kernel =
      read_line(root / "proc/sys/kernel/osrelease").value_or(real_root ? fallback_uname(true) : "");
  read_cpuinfo(root, host.cpu);
  read_cpufreq(root, host.cpu);
  read_meminfo(root, host.memory);
  host.load = read_loadavg(root);
  detect_container(root, host.virtualization);
  detect_vm(root, host.cpu, host.virtualization);
  if (options.detect_virt && real_root)
    ask_systemd_detect_virt(host.virtualization);
  if (options.query_gpus)
    host.gpu = GpuProbe(options.gpu).snapshot();
  return host;
}

} // namespace culprit::host
