// The benchmark programs as processes: their output checked line by line against the culprit
// JSON-lines format of culprit-harness(7), and their exits on bad input.

#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/source_tree.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

struct Process {
  int status = -1;
  std::string out;
  std::string err;
};

// Runs `command` under /bin/sh; stdout and stderr are kept apart.
Process run(const std::string& command) {
  const culprit::testing::TempDir dir("culprit-kernels-test");
  const std::string err_file = (dir / "stderr").string();
  Process result;
  FILE* pipe = popen((command + " 2>" + err_file).c_str(), "r");
  if (pipe == nullptr)
    return result;
  char buffer[4096];
  std::size_t count = 0;
  while ((count = std::fread(buffer, 1, sizeof buffer, pipe)) > 0)
    result.out.append(buffer, count);
  const int status = pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err(err_file);
  std::stringstream text;
  text << err.rdbuf();
  result.err = text.str();
  return result;
}

const std::string k_cpu_bench = CULPRIT_KERNELS_BENCH_CPU;

// Checks one record against culprit-harness(7), "THE CULPRIT JSON-LINES FORMAT", as the harness
// writes it: exactly the documented keys, each of its documented type. Returns what is wrong, or
// "".
std::string format_violation(const nlohmann::json& record) {
  if (!record.is_object() || !record.contains("type") || !record["type"].is_string())
    return "a record is an object with a string key type";
  const std::string type = record["type"];
  const auto non_empty_string = [&](const char* key) {
    return record.contains(key) && record[key].is_string() &&
           !record[key].get<std::string>().empty();
  };
  std::set<std::string> allowed;
  if (type == "header") {
    allowed = {"type", "format", "version", "harness", "backend", "device"};
    if (record.value("format", "") != "culprit-jsonl")
      return "header: format must be culprit-jsonl";
    if (!record["version"].is_number_integer() || record["version"] != 1)
      return "header: version must be the integer 1";
    for (const char* key : {"harness", "backend", "device"}) {
      if (!non_empty_string(key))
        return std::string("header: ") + key + " must be a non-empty string";
    }
  } else if (type == "sample") {
    allowed = {"type", "case", "metric", "unit", "direction", "value", "index", "cold"};
    if (!non_empty_string("case") || !non_empty_string("metric"))
      return "sample: case and metric must be non-empty strings";
    static const std::set<std::string> k_time_units = {"s", "ms", "us", "ns"};
    if (!record["unit"].is_string() || !k_time_units.contains(record["unit"]))
      return "sample: the harness's metrics are times, in s, ms, us or ns";
    if (record["direction"] != "lower" && record["direction"] != "higher")
      return "sample: direction must be lower or higher";
    if (!record["value"].is_number() || !std::isfinite(record["value"].get<double>()))
      return "sample: value must be a finite number";
    if (record.contains("index") && !record["index"].is_number_unsigned())
      return "sample: index must be a non-negative integer";
    if (record.contains("cold") && !record["cold"].is_boolean())
      return "sample: cold must be a boolean";
  } else if (type == "case") {
    allowed = {"type", "case", "axes", "flops", "bytes"};
    if (!non_empty_string("case"))
      return "case: case must be a non-empty string";
    for (const char* key : {"flops", "bytes"}) {
      if (record.contains(key) && (!record[key].is_number() || record[key].get<double>() < 0))
        return std::string("case: ") + key + " must be a non-negative number";
    }
    if (record.contains("axes")) {
      if (!record["axes"].is_object())
        return "case: axes must be an object";
      for (const auto& [axis, value] : record["axes"].items()) {
        if (!value.is_string())
          return "case: axis " + axis + " must be a string";
      }
    }
  } else {
    return "unknown record type " + type;
  }
  for (const auto& [key, value] : record.items()) {
    if (!allowed.contains(key))
      return type + ": undocumented key " + key;
  }
  return "";
}

// Validates a whole run's output; returns the records.
std::vector<nlohmann::json> validate_output(const std::string& out) {
  std::vector<nlohmann::json> records;
  std::set<std::string> cases_seen;
  std::istringstream lines(out);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    const auto record = nlohmann::json::parse(line, nullptr, false);
    EXPECT_FALSE(record.is_discarded()) << "line " << number << " is not JSON: " << line;
    if (record.is_discarded())
      continue;
    EXPECT_EQ(format_violation(record), "") << "line " << number << ": " << line;
    EXPECT_EQ(record["type"] == "header", number == 1) << "the header is the first record";
    if (record["type"] == "case") {
      EXPECT_TRUE(cases_seen.insert(record["case"]).second) << "one case record per case";
    }
    if (record["type"] == "sample") {
      EXPECT_TRUE(cases_seen.contains(record["case"])) << "a case record precedes its samples";
    }
    records.push_back(record);
  }
  return records;
}

TEST(BenchPrograms, CpuOutputFollowsTheDocumentedFormat) {
  const auto result =
      run(k_cpu_bench + " --case 'sgemm/M=128*' --case 'softmax/*cols=128' --case reduce "
                        "--samples 3 --warmup 1");
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.err, "");
  const auto records = validate_output(result.out);
  std::map<std::string, int> samples;
  for (const auto& record : records) {
    if (record["type"] == "sample")
      ++samples[record["case"]];
    if (record["type"] == "case") {
      EXPECT_GT(record["flops"].get<double>(), 0) << record;
      EXPECT_GT(record["bytes"].get<double>(), 0) << record;
    }
  }
  EXPECT_EQ(samples, (std::map<std::string, int>{{"sgemm/M=128,N=128,K=128", 3},
                                                 {"softmax/rows=256,cols=128", 3},
                                                 {"reduce/N=65536", 3},
                                                 {"reduce/N=1048576", 3}}));
  EXPECT_EQ(records.front()["backend"], "cpu");
}

TEST(BenchPrograms, ColdRunsAndTheSmokeSuiteFollowTheFormat) {
  const auto result = run(k_cpu_bench + " --suite " + culprit::testing::source_dir().string() +
                          "/examples/suites/smoke.suite --samples 2 --cold --flush-bytes 1048576");
  ASSERT_EQ(result.status, 0) << result.err;
  const auto records = validate_output(result.out);
  int cases = 0;
  for (const auto& record : records) {
    cases += record["type"] == "case" ? 1 : 0;
    if (record["type"] == "sample") {
      EXPECT_EQ(record["cold"], true);
    }
  }
  EXPECT_EQ(cases, 2 + 3 + 2 + 1 + 3 + 2); // every line of the smoke suite, each list expanded
}

TEST(BenchPrograms, AFilterMatchingNothingExitsWithUsageError) {
  const auto result = run(k_cpu_bench + " --case 'nothing*'");
  EXPECT_EQ(result.status, 2);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err,
            "kernels_bench_cpu: --case 'nothing*' matches none of the 10 cases; see --list\n");
}

TEST(BenchPrograms, ABadSuiteExitsWithUsageError) {
  const culprit::testing::TempDir dir;
  std::ofstream(dir / "bad.suite") << "sgemm M=64 N=64 K=64 dtype=f16\n";
  const auto result = run(k_cpu_bench + " --suite " + (dir / "bad.suite").string());
  EXPECT_EQ(result.status, 2);
  EXPECT_EQ(result.out, "");
  EXPECT_NE(result.err.find("bad.suite:1: sgemm has no axis 'dtype' (its axes: M, N, K)"),
            std::string::npos)
      << result.err;
}

TEST(BenchPrograms, AShapeTooBigForTheHostFailsCleanly) {
  const culprit::testing::TempDir dir;
  std::ofstream(dir / "huge.suite") << "sgemm M=1048576 N=1048576 K=1048576\nsaxpy N=1000\n";
  const auto result = run(k_cpu_bench + " --samples 1 --suite " + (dir / "huge.suite").string());
  EXPECT_EQ(result.status, 1);
  EXPECT_NE(result.err.find("kernels_bench_cpu: case sgemm/M=1048576,N=1048576,K=1048576: needs "
                            "12.0 TiB of host memory"),
            std::string::npos)
      << result.err;
  // The other case still ran, and nothing of the failed one was written.
  const auto records = validate_output(result.out);
  ASSERT_EQ(records.size(), 3U);
  EXPECT_EQ(records[1]["case"], "saxpy/N=1000");
}

TEST(BenchPrograms, ListAndHelpNeedNoMeasurement) {
  const auto list = run(k_cpu_bench + " --list --case 'sgemm*'");
  EXPECT_EQ(list.status, 0);
  EXPECT_EQ(list.out, "sgemm/M=128,N=128,K=128\nsgemm/M=256,N=256,K=256\n");
  const auto help = run(k_cpu_bench + " --help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--suite FILE"), std::string::npos);
  const auto bad = run(k_cpu_bench + " --samples=0");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--samples takes a whole number"), std::string::npos);
}

#ifdef CULPRIT_KERNELS_BENCH_CUDA
// There is no GPU where the tests run: the CUDA program is checked for what needs none.
TEST(BenchPrograms, TheCudaProgramHasTheSameCasesAsTheCpuOne) {
  const std::string cuda = CULPRIT_KERNELS_BENCH_CUDA;
  const auto suite = std::string(" --suite ") + culprit::testing::source_dir().string() +
                     "/examples/suites/llama3-8b.suite";
  const auto cpu_list = run(k_cpu_bench + " --list" + suite);
  const auto cuda_list = run(cuda + " --list" + suite);
  EXPECT_EQ(cuda_list.status, 0) << cuda_list.err;
  EXPECT_EQ(cuda_list.out, cpu_list.out);
  EXPECT_EQ(run(cuda + " --list").out, run(k_cpu_bench + " --list").out);
}

TEST(BenchPrograms, TheCudaProgramWithoutAGpuSaysSo) {
  const auto result = run(std::string(CULPRIT_KERNELS_BENCH_CUDA) + " --case saxpy");
  if (result.status == 0)
    GTEST_SKIP() << "a CUDA device is present";
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(result.out, "");
  EXPECT_NE(result.err.find("kernels_bench_cuda: no usable CUDA device"), std::string::npos)
      << result.err;
}
#endif

} // namespace
