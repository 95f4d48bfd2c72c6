#pragma once
// The host fingerprint: what machine this is and in what state, recorded with every run and
// shown by `culprit env`. Facts come from /proc and /sys under an injectable root (tests feed
// fixture trees), from systemd-detect-virt when present, and from nvidia-smi for GPUs. A fact
// that cannot be read stays empty: probing never fails.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/host/gpu.hpp"

namespace culprit::host {

struct CpuFacts {
  std::string model;
  int logical_cores = 0;
  std::optional<int> physical_cores;  // distinct (physical id, core id) pairs, when listed
  std::vector<std::string> governors; // distinct cpufreq scaling governors, sorted
  std::optional<bool> turbo;          // turbo/boost on, when the kernel says
  std::string turbo_control;          // the file that says so, relative to the root
  std::optional<double> frequency_mhz;
  bool hypervisor_flag = false; // "hypervisor" among the CPU flags
};

struct MemoryFacts {
  std::optional<std::uint64_t> total_bytes;
  std::optional<std::uint64_t> available_bytes;
};

struct LoadAverage {
  double one = 0.0;
  double five = 0.0;
  double fifteen = 0.0;
};

struct Virtualization {
  std::optional<std::string> container; // "docker", "podman", "kubernetes", ...
  std::optional<std::string> vm;        // "kvm", "vmware", "hypervisor", ...
  std::vector<std::string> evidence;    // what said so, e.g. "/.dockerenv exists"
};

struct HostFingerprint {
  std::string hostname;
  std::string kernel; // the release, e.g. "6.1.0-18-amd64"
  CpuFacts cpu;
  MemoryFacts memory;
  std::optional<LoadAverage> load;
  Virtualization virtualization;
  GpuSnapshot gpu;
};

struct HostProbeOptions {
  std::filesystem::path root = "/"; // where proc/ and sys/ are read
  // Runs systemd-detect-virt when it is on PATH; only when root is "/", since it looks at the
  // real machine.
  bool detect_virt = true;
  bool query_gpus = true;
  GpuProbeOptions gpu;
};

HostFingerprint probe_host(const HostProbeOptions& options = {});

// The host id: a hash of the fingerprint's stable part, the facts that say which machine ran a
// benchmark rather than what state it was in: hostname, CPU model and core counts, memory total
// (rounded to GiB, since it moves by a few pages between boots), kernel release, and each GPU's
// name, UUID and driver version. The kernel and the GPU driver are in it because an upgrade of
// either changes timings (mitigations, scheduler, cpufreq, JIT and clock policies) by as much as
// the differences culprit looks for, so runs made before and after one must not be pooled; the
// price is measuring again after such an upgrade. Load, clocks, governor and temperatures are
// state, not identity, and are left out.
std::string host_id(const HostFingerprint& host);

// The fingerprint as JSON: host_id, hostname, os, kernel, cpu (the model), cores (logical),
// physical_cores, governors, turbo, turbo_control, frequency_mhz, memory_total_bytes,
// memory_available_bytes, load_average ([1, 5, 15] minutes), container, vm,
// virtualization_evidence, gpus, gpu_problem. Unknown facts are null. The keys cpu, cores, os and
// gpus are those of the evidence document's "host".
nlohmann::json to_json(const HostFingerprint& host);

} // namespace culprit::host
