#pragma once
// Reading a GPU's current SM clock through NVML, loaded at run time with dlopen: a benchmark
// program needs no NVML at link time, and runs (without the throttle check) where the driver's
// libnvidia-ml.so.1 is missing. No CUDA here: the GPU is named by its PCI bus id
// (cudaDeviceGetPCIBusId), so the tests can drive it with fake functions.

#include <optional>
#include <string>

#include <dlfcn.h>

namespace culprit::harness::nvml {

// The few declarations of nvml.h the harness needs, with the values NVML defines.
using Return = int; // nvmlReturn_t
constexpr Return k_success = 0;
struct DeviceHandle; // nvmlDevice_st
using Device = DeviceHandle*;
using ClockType = int; // nvmlClockType_t
constexpr ClockType k_clock_sm = 1;

extern "C" {
using InitFunction = Return (*)();
using ShutdownFunction = Return (*)();
using DeviceByPciBusIdFunction = Return (*)(const char* pci_bus_id, Device* device);
using ClockInfoFunction = Return (*)(Device device, ClockType type, unsigned int* mhz);
}

// nvmlInit_v2, nvmlShutdown, nvmlDeviceGetHandleByPciBusId_v2, nvmlDeviceGetClockInfo.
struct Functions {
  InitFunction init = nullptr;
  ShutdownFunction shutdown = nullptr;
  DeviceByPciBusIdFunction device_by_pci_bus_id = nullptr;
  ClockInfoFunction clock_info = nullptr;

  bool complete() const {
    return init != nullptr && shutdown != nullptr && device_by_pci_bus_id != nullptr &&
           clock_info != nullptr;
  }
};

// The NVML library opened with dlopen, closed with its object. functions() are complete only
// when the library and every function were found.
class Library {
public:
  explicit Library(const char* path = "libnvidia-ml.so.1")
      : m_handle(dlopen(path, RTLD_NOW | RTLD_LOCAL)) {
    if (m_handle == nullptr)
      return;
    m_functions.init = symbol<InitFunction>("nvmlInit_v2");
    m_functions.shutdown = symbol<ShutdownFunction>("nvmlShutdown");
    m_functions.device_by_pci_bus_id =
        symbol<DeviceByPciBusIdFunction>("nvmlDeviceGetHandleByPciBusId_v2");
    m_functions.clock_info = symbol<ClockInfoFunction>("nvmlDeviceGetClockInfo");
  }
  ~Library() {
    if (m_handle != nullptr)
      dlclose(m_handle);
  }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  const Functions& functions() const { return m_functions; }

private:
  template <class Function> Function symbol(const char* name) const {
    // POSIX guarantees that a function's address from dlsym converts to a function pointer.
    return reinterpret_cast<Function>(dlsym(m_handle, name));
  }

  void* m_handle;
  Functions m_functions;
};

// The SM clock of one GPU. Initialises NVML and finds the GPU when built, and shuts NVML down
// when destroyed; usable() is false when any of that failed, and then mhz() says nothing.
class SmClock {
public:
  SmClock(const Functions& functions, const std::string& pci_bus_id) : m_functions(functions) {
    if (!m_functions.complete() || m_functions.init() != k_success)
      return;
    m_initialised = true;
    m_usable = m_functions.device_by_pci_bus_id(pci_bus_id.c_str(), &m_device) == k_success;
  }
  ~SmClock() {
    if (m_initialised)
      (void)m_functions.shutdown();
  }
  SmClock(const SmClock&) = delete;
  SmClock& operator=(const SmClock&) = delete;

  bool usable() const { return m_usable; }

  // The current SM clock in MHz, or nothing when it cannot be read.
  std::optional<double> mhz() const {
    unsigned int mhz = 0;
    if (!m_usable || m_functions.clock_info(m_device, k_clock_sm, &mhz) != k_success)
      return std::nullopt;
    return static_cast<double>(mhz);
  }

private:
  Functions m_functions;
  Device m_device = nullptr;
  bool m_initialised = false;
  bool m_usable = false;
};

} // namespace culprit::harness::nvml
