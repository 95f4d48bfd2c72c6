#pragma once
// Where the roofline's peaks come from, for one measurement. In order:
//   1. the recipe or the flags ([roofline] peak_gflops, peak_gbps, peak_tensor_gflops), when they
//      give every peak the cases need;
//   2. a GPU: the measurement ran on one (its output named a CUDA device, its metric is a GPU
//      time, or [roofline] device names one): from the GPU's own properties when the output
//      carried them (SM count x FP32 lanes per SM x 2 x SM clock; memory clock x 2 x bus width),
//      else from the datasheet table by name (the output's, [roofline] device's, or nvidia-smi's);
//   3. the CPU: measured once per host (an FMA loop and a streaming copy,
//   core/roofline/roofline.hpp),
//      pinned to the recipe's cpus when it has them, and kept in the store under the host id;
//      `culprit env --peaks` measures again.
// Peaks the recipe gives replace the device's one by one. Each source is said in words.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/parsers/metric.hpp"
#include "core/recipe/recipe.hpp"
#include "core/roofline/roofline.hpp"
#include "core/store/store.hpp"
#include "core/util/error.hpp"

namespace culprit::roofline {

// The FP32 lanes of one SM of a compute capability (NVIDIA's CUDA C++ Programming Guide,
// "Arithmetic Instructions"), or none for one the table does not know.
std::optional<int> fp32_lanes_per_sm(int major, int minor);

// A GPU's peaks from its properties; the tensor-core peak from the datasheet when the name is
// in it. None when the compute capability is unknown.
std::optional<Peaks> gpu_peaks_from_properties(const std::string& name,
                                               const parsers::GpuProperties& properties);

// The store scope of the CPU's measured peaks: "cpu", "cpu:0,2" when pinned, "cpu/1" on one
// thread ([roofline] threads).
std::string cpu_peak_scope(const std::vector<int>& cpus, std::optional<int> threads = {});

// Measures the CPU (pinned to `cpus` when given, on `threads` threads when given) and keeps the
// peaks in the store for the host.
using CpuMeasure = std::function<Result<Peaks>(const CpuPeakOptions&)>;
Result<Peaks> measure_and_keep_cpu_peaks(store::Store& store, const std::string& host_id,
                                         const std::vector<int>& cpus, std::optional<int> threads,
                                         const CpuMeasure& measure = measure_cpu_peaks);

struct PeakSetup {
  recipe::RooflineRecipe recipe;
  std::string host_id;
  std::vector<int> cpus;              // the runs' pinning
  std::vector<std::string> gpu_names; // what nvidia-smi names on this host
  // Whether host_id is this machine, whose CPU may be measured now; another host's peaks come
  // only from the store (measured there) or the configuration.
  bool this_host = true;
};

// Peaks, or why there are none ("the GPU's peaks are unknown: ...").
struct PeakAnswer {
  std::optional<Peaks> peaks;
  std::string reason;
  ComputeUnit unit = ComputeUnit::vector;
};

class PeakResolver {
public:
  PeakResolver(store::Store& store, PeakSetup setup, CpuMeasure measure = measure_cpu_peaks)
      : m_store(store), m_setup(std::move(setup)), m_measure(std::move(measure)) {}

  // The peaks for a measurement of `metric` that ran on `device` (none when its output named no
  // device). The CPU is measured at most once per resolver, and only when asked for.
  Result<PeakAnswer> peaks_for(const std::optional<parsers::DeviceInfo>& device,
                               std::string_view metric);

private:
  Result<PeakAnswer> device_peaks(const std::optional<parsers::DeviceInfo>& device,
                                  std::string_view metric);
  Result<Peaks> cpu_peaks();

  store::Store& m_store;
  PeakSetup m_setup;
  CpuMeasure m_measure;
  std::optional<Peaks> m_cpu;
  std::map<std::string, PeakAnswer> m_answers; // by device key
};

} // namespace culprit::roofline
