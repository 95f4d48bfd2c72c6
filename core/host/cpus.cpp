#include "core/host/cpus.hpp"

#include <sched.h>

#include <array>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace culprit::host {
namespace {

std::optional<int> read_number(const std::filesystem::path& file) {
  std::ifstream in(file);
  int value = 0;
  if (in >> value)
    return value;
  return std::nullopt;
}

// (package, core) of a CPU; unknown parts read as -1 and the CPU's own number stands for its core.
std::pair<int, int> core_of(int cpu, const std::filesystem::path& root) {
  const auto topology = root / "sys/devices/system/cpu" / fmt::format("cpu{}", cpu) / "topology";
  return {read_number(topology / "physical_package_id").value_or(-1),
          read_number(topology / "core_id").value_or(-1 - cpu)};
}

} // namespace

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0)
    return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set))
      cpus.push_back(cpu);
  return cpus;
}

Result<std::array<std::vector<int>, 2>> duet_cpus(const std::vector<int>& recipe_cpus,
                                                  const std::vector<int>& allowed,
                                                  const std::filesystem::path& root) {
  if (!recipe_cpus.empty()) {
    if (recipe_cpus.size() < 2)
      return usage_error("a duet runs two revisions at once, one per CPU, and the CPUs to pin to "
                         "(--cpus, [run] cpus) are one, {}: list at least two, or turn duets off "
                         "(--no-duet)",
                         recipe_cpus.front());
    const auto half = static_cast<std::ptrdiff_t>(recipe_cpus.size() / 2);
    return std::array<std::vector<int>, 2>{
        std::vector<int>(recipe_cpus.begin(), recipe_cpus.begin() + half),
        std::vector<int>(recipe_cpus.begin() + half, recipe_cpus.begin() + (2 * half))};
  }
  if (allowed.size() < 2)
    return usage_error("a duet runs two revisions at once, one per CPU, and culprit may use {} "
                       "CPU{} here; turn duets off (--no-duet)",
                       allowed.size(), allowed.size() == 1 ? "" : "s");
  const int first = allowed.front();
  const auto first_core = core_of(first, root);
  for (std::size_t i = 1; i < allowed.size(); ++i)
    if (core_of(allowed[i], root) != first_core)
      return std::array<std::vector<int>, 2>{std::vector<int>{first}, std::vector<int>{allowed[i]}};
  return std::array<std::vector<int>, 2>{std::vector<int>{first}, std::vector<int>{allowed[1]}};
}

} // namespace culprit::host
