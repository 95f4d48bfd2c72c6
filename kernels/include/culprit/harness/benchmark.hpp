#pragma once
// Registering benchmarks. A benchmark is a name, a function that measures one case, and axes
// (sizes, data types) whose values make its cases, as in nvbench: by default the cartesian
// product of every axis's values, or the values taken side by side when the axes are zipped.

#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace culprit::harness {

// What the user asked for is wrong (a flag, a suite file, a case filter): exit status 2.
class UsageError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// One case could not be measured (too big for the host, a CUDA error, a wrong result): exit
// status 1 once every other case has run.
class CaseError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// The device cannot run this case (too little memory, an architecture it lacks): State::skip
// throws it, and the case is reported as skipped, which is not a failure.
class CaseSkipped : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// The largest value an integer axis takes unless it says otherwise: sizes multiply into byte
// counts, and 2^40 keeps a product of two sizes far from overflowing 64 bits.
constexpr std::int64_t k_max_axis_value = std::int64_t{1} << 40;

// Names of benchmarks and axes, and values of string axes: letters, digits, '_', '.', '-', '+'.
// Nothing that would make "name/axis=value,axis=value" ambiguous.
inline bool is_plain_name(const std::string& text) {
  if (text.empty())
    return false;
  for (const char c : text) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '_' || c == '.' || c == '-' || c == '+';
    if (!plain)
      return false;
  }
  return true;
}

// Reads a whole decimal integer of at most 18 digits; false for anything else (signs other than
// '-', spaces, "1e3", "4K").
inline bool parse_integer(const std::string& text, std::int64_t& value) {
  const std::size_t i_first = !text.empty() && text[0] == '-' ? 1 : 0;
  if (text.size() == i_first || text.size() - i_first > 18)
    return false;
  std::size_t i = i_first;
  std::int64_t magnitude = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9')
      return false;
    magnitude = magnitude * 10 + (text[i] - '0');
  }
  value = text[0] == '-' ? -magnitude : magnitude;
  return true;
}

// Reads a whole finite decimal number ("0.5", "-2", "1e-3") in the C locale; false for anything
// else (spaces, "nan", "inf", a decimal comma).
inline bool parse_float(const std::string& text, double& value) {
  const char* const end = text.data() + text.size();
  double number = 0;
  const auto result = std::from_chars(text.data(), end, number);
  if (text.empty() || result.ec != std::errc() || result.ptr != end || !std::isfinite(number))
    return false;
  value = number;
  return true;
}

// The shortest text that reads back as `value` ("0.5", "1", "1e-05"): how a float axis names
// its values in case names, whether they come from add_float_axis or a suite file.
inline std::string format_float(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

// The name a type takes in a type axis (Benchmark::add_type_axis, with_type in types.hpp);
// types without one do not compile there.
template <class T> constexpr const char* type_name() {
  if constexpr (std::is_same_v<T, float>)
    return "f32";
  else if constexpr (std::is_same_v<T, double>)
    return "f64";
  else if constexpr (std::is_same_v<T, std::int8_t>)
    return "i8";
  else if constexpr (std::is_same_v<T, std::int16_t>)
    return "i16";
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return "i32";
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return "i64";
  else if constexpr (std::is_same_v<T, std::uint8_t>)
    return "u8";
  else if constexpr (std::is_same_v<T, std::uint16_t>)
    return "u16";
  else if constexpr (std::is_same_v<T, std::uint32_t>)
    return "u32";
  else if constexpr (std::is_same_v<T, std::uint64_t>)
    return "u64";
  else
    static_assert(sizeof(T) == 0, "a type axis takes f32, f64, i8..i64 and u8..u64");
}

enum class AxisKind { integer, floating, string };

struct Axis {
  std::string name;
  AxisKind kind = AxisKind::integer;
  std::vector<std::string> values; // the defaults; for a string axis also every allowed value
  std::int64_t min = 1;
  std::int64_t max = k_max_axis_value;

  // Throws UsageError, naming the axis and what it takes, when `value` is not one of its values.
  void validate(const std::string& value) const {
    if (kind == AxisKind::string) {
      for (const auto& allowed : values) {
        if (allowed == value)
          return;
      }
      std::string list;
      for (const auto& allowed : values)
        list += (list.empty() ? "" : ", ") + allowed;
      throw UsageError("axis " + name + " takes one of " + list + ", not '" + value + "'");
    }
    if (kind == AxisKind::floating) {
      double number = 0;
      if (!parse_float(value, number))
        throw UsageError("axis " + name + "=" + value + " is not a finite decimal number");
      return;
    }
    std::int64_t number = 0;
    if (!parse_integer(value, number) || number < min || number > max) {
      throw UsageError("axis " + name + "=" + value + " is not a possible size: it takes whole " +
                       "numbers from " + std::to_string(min) + " to " + std::to_string(max));
    }
  }
};

class Benchmark;

// One point of a benchmark's axes: (axis, value) pairs in the benchmark's axis order.
struct Case {
  const Benchmark* benchmark = nullptr;
  std::vector<std::pair<std::string, std::string>> axes;
  std::string name; // "sgemm/M=512,N=512,K=512"; a benchmark without axes has its own name
};

class State;
using BenchmarkFunction = std::function<void(State&)>;

class Benchmark {
public:
  // Definitions run during static initialisation, where throwing would end the program before
  // main; they are only recorded here, and checked by definition_error() when the benchmarks are
  // listed or run. That also keeps the checking code out of the sources that define benchmarks,
  // which compile faster for it.
  Benchmark(std::string name, BenchmarkFunction function)
      : m_name(std::move(name)), m_function(std::move(function)) {}

  // An axis of whole numbers (a size) with default values and the range a suite may ask for.
  Benchmark& add_int_axis(const std::string& name, const std::vector<std::int64_t>& defaults,
                          std::int64_t min = 1, std::int64_t max = k_max_axis_value) {
    Axis axis{name, AxisKind::integer, {}, min, max};
    for (const auto value : defaults)
      axis.values.push_back(std::to_string(value));
    return add_axis(std::move(axis));
  }

  // An axis of finite real numbers (a scale, a ratio); a suite may ask for any finite value.
  Benchmark& add_float_axis(const std::string& name, const std::vector<double>& defaults) {
    Axis axis{name, AxisKind::floating, {}, 0, 0};
    for (const auto value : defaults)
      axis.values.push_back(std::isfinite(value) ? format_float(value) : "not-finite");
    return add_axis(std::move(axis));
  }

  // An axis of names, e.g. data types {"f32", "f64"}; a suite may only pick among them.
  Benchmark& add_string_axis(const std::string& name, const std::vector<std::string>& values) {
    return add_axis(Axis{name, AxisKind::string, values, 0, 0});
  }

  // A string axis of type names, one per type: add_type_axis<float, double>("T") takes f32 and
  // f64. The benchmark function dispatches on it with with_type<float, double>(state, "T", ...).
  template <class... Types> Benchmark& add_type_axis(const std::string& name) {
    return add_string_axis(name, {type_name<Types>()...});
  }

  // Default cases take the axes' values side by side (the i-th case takes every axis's i-th
  // value) instead of their cartesian product; every axis must have as many values.
  Benchmark& zip_axes() {
    m_zipped = true;
    return *this;
  }

  const std::string& name() const { return m_name; }
  const std::vector<Axis>& axes() const { return m_axes; }
  const Axis* find_axis(const std::string& name) const {
    for (const auto& axis : m_axes) {
      if (axis.name == name)
        return &axis;
    }
    return nullptr;
  }
  void run(State& state) const { m_function(state); }

  // Why this benchmark is defined wrongly (the first mistake, in the order of its definition),
  // or empty when it is fine.
  std::string definition_error() const {
    const std::string where = "benchmark " + m_name + ": ";
    if (!is_plain_name(m_name))
      return where + "its name must be letters, digits, '_', '.', '-' or '+'";
    for (std::size_t i = 0; i < m_axes.size(); ++i) {
      const Axis& axis = m_axes[i];
      if (axis.kind == AxisKind::string) {
        for (const auto& value : axis.values) {
          if (!is_plain_name(value))
            return where + "value '" + value + "' of axis " + axis.name + " is not a plain name";
        }
      }
      if (!is_plain_name(axis.name))
        return where + "axis name '" + axis.name + "' is not a plain name";
      for (std::size_t j = 0; j < i; ++j) {
        if (m_axes[j].name == axis.name)
          return where + "axis " + axis.name + " is declared twice";
      }
      if (axis.values.empty())
        return where + "axis " + axis.name + " has no values";
      for (const auto& value : axis.values) {
        try {
          axis.validate(value);
        } catch (const UsageError& error) {
          return where + error.what();
        }
      }
    }
    for (const auto& axis : m_axes) {
      if (m_zipped && axis.values.size() != m_axes.front().values.size())
        return where + "zipped axes need the same number of values";
    }
    return {};
  }

  std::vector<Case> default_cases() const {
    if (!m_zipped) {
      std::vector<std::vector<std::string>> lists;
      for (const auto& axis : m_axes)
        lists.push_back(axis.values);
      return product(lists);
    }
    std::vector<Case> cases;
    const std::size_t count = m_axes.empty() ? 1 : m_axes.front().values.size();
    for (std::size_t i = 0; i < count; ++i) {
      std::vector<std::pair<std::string, std::string>> point;
      for (const auto& axis : m_axes)
        point.emplace_back(axis.name, axis.values.at(i));
      cases.push_back(make_case(std::move(point)));
    }
    return cases;
  }

  // The cartesian product of the given values (axis name -> values) with the default values of
  // the axes not given. Throws UsageError for an axis this benchmark lacks or a value it refuses.
  std::vector<Case>
  cases_from(const std::vector<std::pair<std::string, std::vector<std::string>>>& given) const {
    for (const auto& entry : given) {
      const Axis* axis = find_axis(entry.first);
      if (axis == nullptr) {
        std::string names;
        for (const auto& known : m_axes)
          names += (names.empty() ? "" : ", ") + known.name;
        throw UsageError(m_name + " has no axis '" + entry.first +
                         "' (its axes: " + (names.empty() ? "none" : names) + ")");
      }
      for (const auto& value : entry.second)
        axis->validate(value);
    }
    std::vector<std::vector<std::string>> lists;
    for (const auto& axis : m_axes) {
      lists.push_back(axis.values);
      for (const auto& entry : given) {
        if (entry.first == axis.name)
          lists.back() = entry.second;
      }
      if (axis.kind == AxisKind::floating) {
        // "0.50" and "0.5" are one case, named as add_float_axis names it.
        for (auto& value : lists.back()) {
          double number = 0;
          if (parse_float(value, number))
            value = format_float(number);
        }
      }
    }
    return product(lists);
  }

private:
  Benchmark& add_axis(Axis axis) {
    m_axes.push_back(std::move(axis));
    return *this;
  }

  Case make_case(std::vector<std::pair<std::string, std::string>> point) const {
    Case result{this, std::move(point), m_name};
    for (std::size_t i = 0; i < result.axes.size(); ++i)
      result.name += (i == 0 ? "/" : ",") + result.axes[i].first + "=" + result.axes[i].second;
    return result;
  }

  std::vector<Case> product(const std::vector<std::vector<std::string>>& lists) const {
    std::vector<std::vector<std::pair<std::string, std::string>>> points(1);
    for (std::size_t a = 0; a < lists.size(); ++a) {
      std::vector<std::vector<std::pair<std::string, std::string>>> next;
      for (const auto& point : points) {
        for (const auto& value : lists[a]) {
          next.push_back(point);
          next.back().emplace_back(m_axes[a].name, value);
        }
      }
      points = std::move(next);
    }
    std::vector<Case> cases;
    for (auto& point : points)
      cases.push_back(make_case(std::move(point)));
    return cases;
  }

  std::string m_name;
  BenchmarkFunction m_function;
  std::vector<Axis> m_axes;
  bool m_zipped = false;
};

// Every benchmark of a program, in registration order.
class Registry {
public:
  Benchmark& add(const std::string& name, BenchmarkFunction function) {
    m_benchmarks.push_back(std::make_unique<Benchmark>(name, std::move(function)));
    return *m_benchmarks.back();
  }

  const std::vector<std::unique_ptr<Benchmark>>& benchmarks() const { return m_benchmarks; }

  const Benchmark* find(const std::string& name) const {
    for (const auto& benchmark : m_benchmarks) {
      if (benchmark->name() == name)
        return benchmark.get();
    }
    return nullptr;
  }

  // Throws UsageError for the first benchmark defined wrongly or registered twice.
  void validate() const {
    for (std::size_t i = 0; i < m_benchmarks.size(); ++i) {
      const std::string error = m_benchmarks[i]->definition_error();
      if (!error.empty())
        throw UsageError(error);
      for (std::size_t j = 0; j < i; ++j) {
        if (m_benchmarks[j]->name() == m_benchmarks[i]->name())
          throw UsageError("benchmark " + m_benchmarks[i]->name() + " is registered twice");
      }
    }
  }

  std::vector<Case> default_cases() const {
    std::vector<Case> cases;
    for (const auto& benchmark : m_benchmarks) {
      for (auto& one : benchmark->default_cases())
        cases.push_back(std::move(one));
    }
    return cases;
  }

private:
  std::vector<std::unique_ptr<Benchmark>> m_benchmarks;
};

// The registry that CULPRIT_BENCHMARK adds to.
inline Registry& default_registry() {
  static Registry registry;
  return registry;
}

} // namespace culprit::harness
