#pragma once
// Running a benchmark program: choose the cases (defaults or a suite, filtered by --case),
// measure each, and write culprit JSON lines (format version 1, see culprit-harness(7)) to stdout:
// a header record, then for each case a case record followed by its sample records, or a skip
// record for a case the device cannot run.

#include <exception>
#include <functional>
#include <iostream>
#include <new>
#include <ostream>
#include <string>
#include <vector>

#include "culprit/harness/benchmark.hpp"
#include "culprit/harness/host.hpp"
#include "culprit/harness/json.hpp"
#include "culprit/harness/options.hpp"
#include "culprit/harness/state.hpp"
#include "culprit/harness/suite.hpp"

namespace culprit::harness {

constexpr const char* k_harness_version = "culprit-harness 0.4.0";
constexpr int k_format_version = 1;

// What a GPU's properties say about its peaks, written in the header so that culprit can place
// each case against the device's roofline: SMs x FP32 lanes per SM x 2 x the SM clock, and the
// memory clock x 2 x the bus width.
struct GpuProperties {
  int sm_count = 0;
  double sm_clock_mhz = 0;
  double memory_clock_mhz = 0;
  int memory_bus_bits = 0;
  int compute_major = 0;
  int compute_minor = 0;
};

// Where cases run. `device` (and `gpu`, when set) are asked only when cases are measured, so that
// --list and --help work on a machine without the device.
struct Backend {
  std::string name;
  std::function<std::string()> device;
  std::function<GpuProperties()> gpu = {};
};

inline Backend cpu_backend() {
  return Backend{"cpu", cpu_model_name};
}

inline std::string header_record(const std::string& backend, const std::string& device,
                                 const GpuProperties* gpu = nullptr) {
  JsonObject header;
  header.string_field("type", "header")
      .string_field("format", "culprit-jsonl")
      .integer_field("version", k_format_version)
      .string_field("harness", k_harness_version)
      .string_field("backend", backend)
      .string_field("device", device);
  if (gpu != nullptr)
    header.object_field("gpu", JsonObject()
                                   .integer_field("sm_count", gpu->sm_count)
                                   .number_field("sm_clock_mhz", gpu->sm_clock_mhz)
                                   .number_field("memory_clock_mhz", gpu->memory_clock_mhz)
                                   .integer_field("memory_bus_bits", gpu->memory_bus_bits)
                                   .integer_field("compute_major", gpu->compute_major)
                                   .integer_field("compute_minor", gpu->compute_minor));
  return header.line();
}

// flops and bytes are left out when negative (not given by the benchmark). A GPU case's record
// says how its samples were checked against the SM clock ("sm_clock": checked, default_mhz,
// threshold), how many it took ("samples_taken") and, when the clock was read, how many it
// dropped ("dropped": {"throttled": N}).
inline std::string case_record(const Case& measured, double flops, double bytes,
                               const ClockCheck* clock = nullptr) {
  JsonObject record;
  record.string_field("type", "case").string_field("case", measured.name);
  record.string_map_field("axes", measured.axes);
  if (flops >= 0)
    record.number_field("flops", flops);
  if (bytes >= 0)
    record.number_field("bytes", bytes);
  if (clock != nullptr) {
    record.object_field("sm_clock", JsonObject()
                                        .bool_field("checked", clock->checked)
                                        .number_field("default_mhz", clock->default_mhz)
                                        .number_field("threshold", clock->threshold));
    record.integer_field("samples_taken", clock->taken);
    if (clock->checked)
      record.object_field("dropped", JsonObject().integer_field("throttled", clock->throttled));
  }
  return record.line();
}

// A batch sample carries "batch": the launches it timed together.
inline std::string sample_record(const std::string& case_name, const Sample& sample) {
  JsonObject record;
  record.string_field("type", "sample")
      .string_field("case", case_name)
      .string_field("metric", sample.metric)
      .string_field("unit", sample.unit)
      .string_field("direction", to_string(sample.direction))
      .number_field("value", sample.value)
      .integer_field("index", sample.index)
      .bool_field("cold", sample.cold);
  if (sample.batch > 0)
    record.integer_field("batch", sample.batch);
  return record.line();
}

// A case the device cannot run (State::skip).
inline std::string skip_record(const std::string& case_name, const std::string& reason) {
  return JsonObject()
      .string_field("type", "skip")
      .string_field("case", case_name)
      .string_field("reason", reason)
      .line();
}

// The cases to run: the suite's or the default ones, kept when a --case glob matches the case
// name or its benchmark's name. Throws UsageError when the globs match nothing.
inline std::vector<Case> select_cases(const Registry& registry, const Options& options) {
  registry.validate();
  std::vector<Case> all =
      options.suite.empty() ? registry.default_cases() : load_suite(registry, options.suite);
  if (options.case_globs.empty())
    return all;
  std::vector<Case> chosen;
  for (auto& one : all) {
    for (const auto& glob : options.case_globs) {
      if (glob_match(glob, one.name) || glob_match(glob, one.benchmark->name())) {
        chosen.push_back(std::move(one));
        break;
      }
    }
  }
  if (chosen.empty()) {
    std::string globs;
    for (const auto& glob : options.case_globs)
      globs += (globs.empty() ? "'" : ", '") + glob + "'";
    throw UsageError("--case " + globs + " matches none of the " + std::to_string(all.size()) +
                     " cases; see --list");
  }
  return chosen;
}

namespace detail {

// Measures one case and writes its records; returns false (after saying why on `err`) when the
// case failed, in which case nothing of it is written. A skipped case writes its skip record and
// one line on `err`, and is not a failure.
inline bool run_case(const Case& measured, const RunSettings& settings, HostCacheFlusher& flusher,
                     std::ostream& out, std::ostream& err, const std::string& program) {
  std::string failure;
  try {
    State state(measured, settings, flusher);
    measured.benchmark->run(state);
    if (state.samples().empty())
      throw CaseError("it recorded no samples: the benchmark function must call exec()");
    std::string records = case_record(measured, state.flops(), state.bytes(), state.clock_check());
    for (const auto& sample : state.samples())
      records += sample_record(measured.name, sample);
    out << records << std::flush;
    return true;
  } catch (const CaseSkipped& skipped) {
    out << skip_record(measured.name, skipped.what()) << std::flush;
    err << program << ": case " << measured.name << " skipped: " << skipped.what() << "\n";
    return true;
  } catch (const std::bad_alloc&) {
    failure = "out of memory while preparing or running it; choose smaller sizes";
  } catch (const std::exception& error) {
    failure = error.what();
  }
  err << program << ": case " << measured.name << ": " << failure << "\n";
  return false;
}

} // namespace detail

// Runs the selected cases. Returns the exit status: 0 when every case ran or was skipped, 1 when
// some case failed (the others still run), 2 for a usage error; errors go to `err`, one line each.
inline int run(const Registry& registry, const Options& options, const Backend& backend,
               std::ostream& out, std::ostream& err, const std::string& program) {
  if (options.help) {
    out << "Usage: " << program << " [options]\n" << usage_text();
    return 0;
  }
  std::vector<Case> cases;
  try {
    cases = select_cases(registry, options);
  } catch (const UsageError& error) {
    err << program << ": " << error.what() << "\n";
    return 2;
  }
  if (options.list) {
    for (const auto& one : cases)
      out << one.name << "\n";
    return 0;
  }
  try {
    // The device first: it says in words when there is none.
    const auto device = backend.device();
    if (backend.gpu) {
      const GpuProperties gpu = backend.gpu();
      out << header_record(backend.name, device, &gpu) << std::flush;
    } else {
      out << header_record(backend.name, device) << std::flush;
    }
  } catch (const std::exception& error) {
    err << program << ": " << error.what() << "\n";
    return 1;
  }
  HostCacheFlusher flusher(options.flush_bytes != 0 ? options.flush_bytes : default_flush_bytes());
  bool failed = false;
  for (const auto& one : cases)
    failed = !detail::run_case(one, options.settings, flusher, out, err, program) || failed;
  return failed ? 1 : 0;
}

// The whole of a benchmark program's main():
//   int main(int argc, char** argv) { return culprit::harness::main(argc, argv); }
inline int main(int argc, char** argv, const Backend& backend = cpu_backend(),
                const Registry& registry = default_registry()) {
  std::string program = argc > 0 ? argv[0] : "benchmark";
  program = program.substr(program.find_last_of('/') + 1);
  Options options;
  try {
    options = parse_options(argc, argv);
  } catch (const UsageError& error) {
    std::cerr << program << ": " << error.what() << "\n";
    return 2;
  }
  return run(registry, options, backend, std::cout, std::cerr, program);
}

} // namespace culprit::harness
