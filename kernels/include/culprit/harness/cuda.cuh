#pragma once
// The CUDA side of the harness (compile with nvcc): RAII for streams, events and device memory,
// a CUDA-event timer, the L2 flush of cold samples, the SM clock through NVML, and exec() for
// kernels: the timing loop of gpu_timing.hpp on the CUDA device. A CUDA benchmark program passes
// culprit::harness::cuda::backend() to culprit::harness::main.

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_runtime.h>

#include "culprit/harness.hpp"
#include "culprit/harness/gpu_timing.hpp"
#include "culprit/harness/nvml.hpp"

namespace culprit::harness::cuda {

// Throws CaseError "WHAT failed: cudaErrorX: description" unless `status` is cudaSuccess; when the
// program holds no code for this GPU's architecture, the error says which one to build for.
inline void check(cudaError_t status, const std::string& what) {
  if (status == cudaSuccess)
    return;
  (void)cudaGetLastError(); // clear a non-sticky error so that the next case starts clean
  std::string message =
      what + " failed: " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status);
  int device = 0;
  int major = 0;
  int minor = 0;
  if ((status == cudaErrorNoKernelImageForDevice || status == cudaErrorUnsupportedPtxVersion) &&
      cudaGetDevice(&device) == cudaSuccess &&
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) == cudaSuccess)
    message += "; " + gpu::missing_architecture_hint(major, minor);
  throw CaseError(message);
}

struct EventDeleter {
  void operator()(cudaEvent_t event) const { (void)cudaEventDestroy(event); }
};
using Event = std::unique_ptr<CUevent_st, EventDeleter>;

inline Event make_event() {
  cudaEvent_t event = nullptr;
  check(cudaEventCreate(&event), "cudaEventCreate");
  return Event(event);
}

struct StreamDeleter {
  void operator()(cudaStream_t stream) const { (void)cudaStreamDestroy(stream); }
};
using Stream = std::unique_ptr<CUstream_st, StreamDeleter>;

inline Stream make_stream() {
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  return Stream(stream);
}

// GPU time between two events recorded on a stream: start(stream) before the work, stop(stream)
// after it; seconds() waits for the stop event.
class EventTimer {
public:
  EventTimer() : m_start(make_event()), m_stop(make_event()) {}
  void start(cudaStream_t stream) {
    check(cudaEventRecord(m_start.get(), stream), "cudaEventRecord");
  }
  void stop(cudaStream_t stream) {
    check(cudaEventRecord(m_stop.get(), stream), "cudaEventRecord");
  }
  double seconds() const {
    check(cudaEventSynchronize(m_stop.get()), "the timed work");
    float milliseconds = 0;
    check(cudaEventElapsedTime(&milliseconds, m_start.get(), m_stop.get()), "cudaEventElapsedTime");
    return milliseconds / 1000.0;
  }

private:
  Event m_start;
  Event m_stop;
};

// `count` elements of device memory. Allocation failure is a CaseError that names the size.
template <class T> class DeviceBuffer {
public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : m_count(count) {
    void* memory = nullptr;
    const cudaError_t status = cudaMalloc(&memory, count * sizeof(T));
    if (status != cudaSuccess) {
      (void)cudaGetLastError();
      throw CaseError("cannot allocate " + format_bytes(static_cast<double>(count * sizeof(T))) +
                      " of device memory (" + cudaGetErrorString(status) +
                      "); choose smaller sizes");
    }
    m_memory.reset(static_cast<T*>(memory));
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) {
    check(cudaMemcpy(data(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice),
          "cudaMemcpy to the device");
  }

  T* data() const { return m_memory.get(); }
  std::size_t size() const { return m_count; }

  std::vector<T> to_host() const {
    std::vector<T> host(m_count);
    check(cudaMemcpy(host.data(), data(), m_count * sizeof(T), cudaMemcpyDeviceToHost),
          "cudaMemcpy to the host");
    return host;
  }

private:
  struct Free {
    void operator()(T* memory) const { (void)cudaFree(memory); }
  };
  std::size_t m_count = 0;
  std::unique_ptr<T, Free> m_memory;
};

// Evicts the GPU's L2 cache by writing a buffer twice its size (every global write goes
// through L2), on the stream of the sample that follows.
class L2Flusher {
public:
  L2Flusher() {
    int device = 0;
    int l2_bytes = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device),
          "cudaDeviceGetAttribute(L2 cache size)");
    if (l2_bytes > 0)
      m_buffer = DeviceBuffer<unsigned char>(2 * static_cast<std::size_t>(l2_bytes));
  }

  void flush(cudaStream_t stream) {
    if (m_buffer.size() > 0)
      check(cudaMemsetAsync(m_buffer.data(), 0, m_buffer.size(), stream), "the L2 flush");
  }

private:
  DeviceBuffer<unsigned char> m_buffer;
};

inline L2Flusher& l2_flusher() {
  static L2Flusher flusher;
  return flusher;
}

inline int current_device() {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  return device;
}

// The SM clock of the current device through NVML, opened once per process; unusable where the
// driver's NVML library is missing.
inline const nvml::SmClock& sm_clock() {
  static const nvml::Library library;
  static const nvml::SmClock clock = [] {
    char bus_id[32] = {};
    if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, current_device()) != cudaSuccess) {
      (void)cudaGetLastError();
      return nvml::SmClock(nvml::Functions{}, "");
    }
    return nvml::SmClock(library.functions(), bus_id);
  }();
  return clock;
}

// The device of gpu::KernelTiming: the current CUDA device, working on one stream.
class StreamDevice {
public:
  explicit StreamDevice(cudaStream_t stream) : m_stream(stream) {}

  void reset_persisting_l2() {
    check(cudaCtxResetPersistingL2Cache(), "cudaCtxResetPersistingL2Cache");
  }
  void flush_l2() { l2_flusher().flush(m_stream); }
  void synchronize() { check(cudaStreamSynchronize(m_stream), "waiting for the stream"); }
  void record_start() { m_timer.start(m_stream); }
  void record_stop() { m_timer.stop(m_stream); }
  void check_launch() { check(cudaGetLastError(), "the kernel launch"); }
  double elapsed_seconds() { return m_timer.seconds(); }
  double default_sm_clock_mhz() {
    int khz = 0;
    check(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, current_device()),
          "cudaDeviceGetAttribute(SM clock)");
    return khz / 1e3;
  }
  std::optional<double> sm_clock_mhz() { return sm_clock().mhz(); }

private:
  cudaStream_t m_stream;
  EventTimer m_timer;
};

// Measures `launch(stream)` (which enqueues the kernels of one call on `stream`) with the timing
// loop of gpu_timing.hpp: warm-up, "gpu_time" and "time" samples (cold ones flush L2 first,
// outside both timers), "batch_gpu_time" batch samples for short kernels, and throttled samples
// dropped.
template <class Launch> void exec(State& state, cudaStream_t stream, Launch&& launch) {
  StreamDevice device(stream);
  gpu::measure(state, device, [&] { launch(stream); });
}

// exec() on a stream that the harness makes for the case: `launch(stream)` enqueues on the stream
// it is given, as State::exec's function runs on the CPU.
template <class Launch, class = std::enable_if_t<std::is_invocable_v<Launch&, cudaStream_t>>>
void exec(State& state, Launch&& launch) {
  const Stream stream = make_stream();
  exec(state, stream.get(), launch);
}

// Skips the case (State::skip) when its device buffers, `bytes` in all, exceed the free memory
// of the current device.
inline void skip_unless_device_memory(State& state, double bytes) {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  if (bytes > static_cast<double>(free_bytes)) {
    state.skip("needs " + format_bytes(bytes) + " of device memory but only " +
               format_bytes(static_cast<double>(free_bytes)) + " of " +
               format_bytes(static_cast<double>(total_bytes)) + " is free");
  }
}

// The properties of the current CUDA device that give its peaks (cudaDeviceGetAttribute: the
// fields of cudaDeviceProp that held the clocks are gone from CUDA 13).
inline GpuProperties gpu_properties() {
  const int device = current_device();
  const auto attribute = [device](cudaDeviceAttr which, const char* what) {
    int value = 0;
    check(cudaDeviceGetAttribute(&value, which, device), what);
    return value;
  };
  GpuProperties gpu;
  gpu.sm_count = attribute(cudaDevAttrMultiProcessorCount, "cudaDeviceGetAttribute(SM count)");
  gpu.sm_clock_mhz = attribute(cudaDevAttrClockRate, "cudaDeviceGetAttribute(SM clock)") / 1e3;
  gpu.memory_clock_mhz =
      attribute(cudaDevAttrMemoryClockRate, "cudaDeviceGetAttribute(memory clock)") / 1e3;
  gpu.memory_bus_bits =
      attribute(cudaDevAttrGlobalMemoryBusWidth, "cudaDeviceGetAttribute(memory bus width)");
  gpu.compute_major =
      attribute(cudaDevAttrComputeCapabilityMajor, "cudaDeviceGetAttribute(compute capability)");
  gpu.compute_minor =
      attribute(cudaDevAttrComputeCapabilityMinor, "cudaDeviceGetAttribute(compute capability)");
  return gpu;
}

// The CUDA backend: the device is the current CUDA device, named as cudaGetDeviceProperties
// names it (the name nvidia-smi prints), with the properties that give its peaks.
inline Backend backend() {
  return Backend{"cuda",
                 [] {
                   int device = 0;
                   cudaDeviceProp properties{};
                   const cudaError_t status = cudaGetDevice(&device);
                   if (status != cudaSuccess) {
                     throw CaseError(std::string("no usable CUDA device (") +
                                     cudaGetErrorString(status) +
                                     "): run on a machine with an NVIDIA GPU and its driver");
                   }
                   check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
                   return std::string(properties.name);
                 },
                 gpu_properties};
}

} // namespace culprit::harness::cuda
