#pragma once
// The roofline model (Williams, Waterman and Patterson, "Roofline: An Insightful Visual
// Performance Model for Multicore Architectures", CACM 52(4), 2009): a kernel that does F
// floating-point operations and moves B bytes cannot take less than max(F / peak FLOP/s,
// B / peak bandwidth). From a case's FLOPs and bytes (the harness's case records) and its
// measured time, it says how close the case came to that bound and which resource bounds it.
//
// Peaks come from a GPU's properties or a datasheet table for common data-centre GPUs, from a
// short measurement on the host's CPU (kept in the store), or from the configuration
// (PeakOverrides); core/roofline/peaks.hpp chooses.

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/parsers/metric.hpp"
#include "core/util/error.hpp"

namespace culprit::roofline {

struct Peaks {
  std::string device;          // what the figures describe, e.g. "NVIDIA H100 SXM5 80GB"
  double flops_per_second = 0; // dense FP32 on the vector units (CUDA cores, SIMD FMA)
  std::optional<double> tensor_flops_per_second; // dense FP32-input (TF32) tensor-core peak
  double bytes_per_second = 0;                   // memory bandwidth (HBM, or host DRAM)
  std::string source;                            // where the figures come from
};

// Peaks the configuration sets. Suggested culprit.toml keys, in a [roofline] table:
//   peak_gflops = 19500.0         -> flops_per_second (x 1e9)
//   peak_tensor_gflops = 156000.0 -> tensor_flops_per_second (x 1e9)
//   peak_gbps = 2039.0            -> bytes_per_second (x 1e9)
//   device = "NVIDIA A100-SXM4-80GB"  (which datasheet entry to start from; default: the GPU
//                                      nvidia-smi names, else the host CPU, measured)
struct PeakOverrides {
  std::optional<double> flops_per_second;
  std::optional<double> tensor_flops_per_second;
  std::optional<double> bytes_per_second;
};

// `peaks` with every override that is set; source notes the override. A value that is not a
// positive finite number is a usage error naming it.
Result<Peaks> apply_overrides(Peaks peaks, const PeakOverrides& overrides);

// One datasheet row: `match` are the words that must all appear (case-insensitively) in the name
// nvidia-smi prints (empty words match anything); the first row that matches wins, so specific
// rows come first.
struct GpuDatasheet {
  std::array<std::string_view, 3> match;
  std::string_view device;
  double fp32_tflops;
  double tf32_tensor_tflops; // dense (the datasheets print it with 2:4 sparsity, twice this)
  double memory_tbps;        // TB/s = 1e12 bytes/s
  std::string_view citation;
};

std::span<const GpuDatasheet> gpu_datasheets();

// The peaks of a GPU from the name nvidia-smi prints ("NVIDIA H100 80GB HBM3"), or nullopt
// for a GPU not in the table (then the configuration must give its peaks).
std::optional<Peaks> gpu_peaks(std::string_view nvidia_smi_name);

struct CpuPeakOptions {
  unsigned threads = 0;                  // 0: one per CPU of `cpus`, else every hardware thread
  std::chrono::milliseconds budget{800}; // roughly, for both measurements together
  std::size_t copy_bytes = 0;            // per array; 0: 2 x LLC within [32, 128] MiB
  std::vector<int> cpus;                 // pin thread t to cpus[t % size]; empty: no pinning
};

// Measures the host CPU: FP32 FMA throughput (independent vector FMA chains in every thread, at
// the widest vector width the CPU supports) and copy bandwidth (a STREAM-like copy between two
// arrays, counted as read + write). Each is the best of several short trials, as STREAM reports
// its best repetition: on a shared machine the slow stretches of other guests fall in some trials
// and not in others, and the peak is what the hardware does when they do not.
Result<Peaks> measure_cpu_peaks(const CpuPeakOptions& options);

enum class ComputeUnit : std::uint8_t { vector, tensor };
enum class Limiter : std::uint8_t { compute, memory };

std::string_view to_string(Limiter limiter);

struct RooflinePoint {
  double flops = 0;
  double bytes = 0;
  double seconds = 0;              // measured time of one call
  double arithmetic_intensity = 0; // flops per byte; infinity when bytes is 0
  double achieved_flops_per_second = 0;
  double achieved_bytes_per_second = 0;
  double bound_seconds = 0;          // max(flops / peak FLOP/s, bytes / peak bandwidth)
  double bound_flops_per_second = 0; // min(peak FLOP/s, intensity x peak bandwidth)
  Limiter limiter = Limiter::memory; // the resource that sets bound_seconds
  double fraction_of_bound = 0;      // bound_seconds / seconds: 1 is the roofline
};

// The roofline point of one call. Usage error when flops or bytes is negative or both are zero,
// when seconds is not positive, or when a needed peak is missing or not positive; each message
// says which value is wrong.
Result<RooflinePoint> roofline_point(double flops, double bytes, double seconds, const Peaks& peaks,
                                     ComputeUnit unit = ComputeUnit::vector);

struct CaseRoofline {
  std::string case_name;
  RooflinePoint point;
};

// A roofline point per case of `output` that has FLOPs or bytes and samples of `metric` (whose
// unit must be a time in seconds); the time is the median of those samples. Cases without work
// or samples are left out.
Result<std::vector<CaseRoofline>> roofline_cases(const parsers::ParsedOutput& output,
                                                 std::string_view metric, const Peaks& peaks,
                                                 ComputeUnit unit = ComputeUnit::vector);

} // namespace culprit::roofline
