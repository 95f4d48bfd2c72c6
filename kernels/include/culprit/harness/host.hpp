#pragma once
// Facts about the host the harness needs: the CPU's name, the size of its last-level cache, the
// memory a case may use; and the sweep that makes a sample start with cold caches.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <unistd.h>

#include "culprit/harness/benchmark.hpp"

namespace culprit::harness {

// "1.5 GiB", for messages.
inline std::string format_bytes(double bytes) {
  static const char* const k_units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  std::size_t unit = 0;
  while (bytes >= 1024.0 && unit + 1 < sizeof k_units / sizeof k_units[0]) {
    bytes /= 1024.0;
    ++unit;
  }
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, k_units[unit]);
  return buffer;
}

namespace detail {

// A FILE* that closes itself. The harness reads /proc and /sys with stdio: <fstream> would add
// a quarter of a second to the compile time of every benchmark source.
class InputFile {
public:
  explicit InputFile(const std::string& path) : m_file(std::fopen(path.c_str(), "r")) {}
  ~InputFile() {
    if (m_file != nullptr)
      std::fclose(m_file);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  bool is_open() const { return m_file != nullptr; }

  // The next line without its newline; false at the end of the file or when it did not open.
  bool read_line(std::string& line) {
    line.clear();
    if (m_file == nullptr)
      return false;
    char buffer[256];
    while (std::fgets(buffer, sizeof buffer, m_file) != nullptr) {
      line += buffer;
      if (!line.empty() && line.back() == '\n') {
        line.pop_back();
        return true;
      }
    }
    return !line.empty();
  }

private:
  std::FILE* m_file;
};

// The first line of a small file (a sysfs attribute), or "" when it cannot be read.
inline std::string first_line(const std::string& path) {
  InputFile file(path);
  std::string line;
  file.read_line(line);
  return line;
}

} // namespace detail

// The "model name" of the first processor in /proc/cpuinfo, or "unknown CPU".
inline std::string cpu_model_name() {
  detail::InputFile cpuinfo("/proc/cpuinfo");
  std::string line;
  while (cpuinfo.read_line(line)) {
    if (line.compare(0, 10, "model name") != 0)
      continue;
    const std::size_t colon = line.find(':');
    if (colon != std::string::npos && colon + 2 <= line.size())
      return line.substr(colon + 2);
  }
  return "unknown CPU";
}

// Size in bytes of the largest data or unified cache of CPU 0, from sysfs; 0 when unknown.
inline std::size_t last_level_cache_bytes() {
  std::size_t largest = 0;
  for (int index = 0; index < 16; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    const std::string type = detail::first_line(dir + "/type");
    std::string size = detail::first_line(dir + "/size");
    if (type.empty() || size.empty())
      break;
    if (type == "Instruction")
      continue;
    std::int64_t number = 0;
    std::size_t multiplier = 1;
    if (!size.empty() && (size.back() == 'K' || size.back() == 'M')) {
      multiplier = size.back() == 'K' ? 1024 : 1024 * 1024;
      size.pop_back();
    }
    if (parse_integer(size, number) && number > 0 &&
        static_cast<std::size_t>(number) * multiplier > largest)
      largest = static_cast<std::size_t>(number) * multiplier;
  }
  return largest;
}

// The default size of the cold-cache sweep: one and a half times the last-level cache, or
// 64 MiB when the cache size is unknown.
inline std::size_t default_flush_bytes() {
  const std::size_t cache = last_level_cache_bytes();
  return cache == 0 ? std::size_t{64} << 20U : cache + cache / 2;
}

// Memory a case may still use: MemAvailable from /proc/meminfo, else the physical memory.
inline double available_host_memory_bytes() {
  detail::InputFile meminfo("/proc/meminfo");
  std::string line;
  while (meminfo.read_line(line)) {
    double kib = 0;
    if (std::sscanf(line.c_str(), "MemAvailable: %lf kB", &kib) == 1)
      return kib * 1024.0;
  }
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page_size > 0 ? static_cast<double>(pages) * static_cast<double>(page_size)
                                    : 0.0;
}

// Throws CaseError when `bytes` (a double, so that huge shapes cannot overflow the count) is
// more than the host can give. Checking before allocating turns a huge shape into a clear
// message instead of an out-of-memory kill halfway through filling the buffers.
inline void require_host_memory(double bytes) {
  const double available = available_host_memory_bytes();
  if (available > 0 && bytes > available) {
    throw CaseError("needs " + format_bytes(bytes) + " of host memory but only " +
                    format_bytes(available) + " is available; choose smaller sizes");
  }
}

// Evicts the host's caches by sweeping a buffer larger than the last-level cache: each cache
// line is read and written, so dirty lines of the kernel's data are written back and replaced.
// A plain memset would not do: glibc uses non-temporal stores for large sizes, which bypass the
// cache. The buffer is allocated on the first flush.
class HostCacheFlusher {
public:
  explicit HostCacheFlusher(std::size_t bytes) : m_bytes(bytes) {}

  void flush() {
    if (m_buffer.empty()) {
      require_host_memory(static_cast<double>(m_bytes));
      m_buffer.assign(m_bytes, 1);
    }
    constexpr std::size_t k_line = 64;
    unsigned char sum = 0;
    for (std::size_t i = 0; i < m_buffer.size(); i += k_line) {
      sum = static_cast<unsigned char>(sum + m_buffer[i]);
      m_buffer[i] = sum;
    }
    m_sink = sum;
  }

  std::size_t bytes() const { return m_bytes; }

private:
  std::size_t m_bytes;
  std::vector<unsigned char> m_buffer;
  volatile unsigned char m_sink = 0;
};

} // namespace culprit::harness
