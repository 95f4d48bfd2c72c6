#pragma once
// The command line of a benchmark program built with the harness.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "culprit/harness/benchmark.hpp"
#include "culprit/harness/state.hpp"

namespace culprit::harness {

// The most launches --batch N may ask one batch sample for.
constexpr std::int64_t k_max_batch_launches = 1000000;

struct Options {
  std::vector<std::string> case_globs; // empty: every case
  std::string suite;                   // empty: the benchmarks' default cases
  RunSettings settings;
  std::size_t flush_bytes = 0; // 0: default_flush_bytes()
  bool list = false;
  bool help = false;
};

inline const char* usage_text() {
  return "Options:\n"
         "  --case GLOB        run the cases whose name (or benchmark name) matches GLOB;\n"
         "                     '*' matches any text, '?' one character; repeatable\n"
         "  --suite FILE       take the cases from a workload suite file\n"
         "  --samples N        timed samples per case (default 10)\n"
         "  --warmup N         untimed calls before the samples (default 1)\n"
         "  --cold             flush the caches before every sample\n"
         "  --flush-bytes N    size of the host cache sweep of --cold (default: 1.5 x LLC)\n"
         "  --seed N           seed of the random inputs (default 1)\n"
         "  --batch N|auto|off GPU only: also take batch samples of N back-to-back launches\n"
         "                     (metric batch_gpu_time); auto (default): for kernels whose\n"
         "                     launch is shorter than 10 us\n"
         "  --list             print the selected case names, one per line, and exit\n"
         "  --help             print this help\n"
         "Output: culprit JSON lines on stdout (see culprit-harness(7)); errors on stderr.\n"
         "Exit status: 0 success, 1 a case failed, 2 usage error.\n";
}

// Whether `text` matches the glob `pattern` ('*' any run of characters, '/' included; '?' one).
inline bool glob_match(const std::string& pattern, const std::string& text) {
  std::size_t p = 0;
  std::size_t t = 0;
  std::size_t star = std::string::npos;
  std::size_t star_text = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_text = t;
    } else if (star != std::string::npos) {
      p = star + 1;
      t = ++star_text;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*')
    ++p;
  return p == pattern.size();
}

namespace detail {

// A whole number from `min` to `max`; counts default to at most 10^9, which fits in an int.
inline std::int64_t parse_count(const std::string& flag, const std::string& text, std::int64_t min,
                                std::int64_t max = 1000000000) {
  std::int64_t value = 0;
  if (!parse_integer(text, value) || value < min || value > max) {
    throw UsageError(flag + " takes a whole number from " + std::to_string(min) + " to " +
                     std::to_string(max) + ", not '" + text + "'");
  }
  return value;
}

} // namespace detail

// Parses argv; throws UsageError for an unknown flag, a missing value or a bad number.
// Flags take their value as the next argument or after '=' ("--samples=20").
inline Options parse_options(int argc, const char* const* argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    std::string value;
    bool has_value = false;
    const std::size_t equals = flag.find('=');
    if (flag.compare(0, 2, "--") == 0 && equals != std::string::npos) {
      value = flag.substr(equals + 1);
      flag.erase(equals);
      has_value = true;
    }
    const auto take_value = [&]() -> std::string {
      if (has_value)
        return value;
      if (i + 1 >= argc)
        throw UsageError(flag + " needs a value");
      return argv[++i];
    };
    const auto no_value = [&]() {
      if (has_value)
        throw UsageError(flag + " takes no value");
    };
    if (flag == "--case") {
      options.case_globs.push_back(take_value());
    } else if (flag == "--suite") {
      options.suite = take_value();
    } else if (flag == "--samples") {
      options.settings.samples = static_cast<int>(detail::parse_count(flag, take_value(), 1));
    } else if (flag == "--warmup") {
      options.settings.warmup = static_cast<int>(detail::parse_count(flag, take_value(), 0));
    } else if (flag == "--cold") {
      no_value();
      options.settings.cold = true;
    } else if (flag == "--flush-bytes") {
      options.flush_bytes =
          static_cast<std::size_t>(detail::parse_count(flag, take_value(), 1, k_max_axis_value));
    } else if (flag == "--seed") {
      options.settings.seed =
          static_cast<std::uint64_t>(detail::parse_count(flag, take_value(), 0, k_max_axis_value));
    } else if (flag == "--batch") {
      const std::string mode = take_value();
      options.settings.batch_launches = 0;
      if (mode == "auto") {
        options.settings.batch = BatchMode::automatic;
      } else if (mode == "off") {
        options.settings.batch = BatchMode::off;
      } else {
        std::int64_t launches = 0;
        if (!parse_integer(mode, launches) || launches < 1 || launches > k_max_batch_launches)
          throw UsageError("--batch takes auto, off or a launch count from 1 to " +
                           std::to_string(k_max_batch_launches) + ", not '" + mode + "'");
        options.settings.batch = BatchMode::fixed;
        options.settings.batch_launches = static_cast<int>(launches);
      }
    } else if (flag == "--list") {
      no_value();
      options.list = true;
    } else if (flag == "--help" || flag == "-h") {
      options.help = true;
    } else {
      throw UsageError("unknown option '" + flag + "' (see --help)");
    }
  }
  return options;
}

} // namespace culprit::harness
