#include "core/parsers/nvbench_json.hpp"

#include <cstring>
#include <fstream>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/core/parsers/parser_test_support.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit::parsers {
namespace {

using ::testing::ElementsAre;
using testing::find_case;
using testing::find_samples;
using ::testing::HasSubstr;

std::string reference_text() {
  return testing::read_file(testing::parser_fixture("nvbench/axes_ref.json"));
}

TEST(NvbenchJson, ReadsEveryStateThatRanOfARealRun) {
  const auto parsed = parse_nvbench_json(reference_text());
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->cases.size(), 88U); // 126 states, 38 of them skipped
  const auto* gpu = find_samples(*parsed, "simple/Device=0", "gpu_time");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->unit, "s");
  EXPECT_EQ(gpu->direction, Direction::lower_is_better);
  EXPECT_THAT(gpu->values, ElementsAre(0.0010034715849794225));
  EXPECT_THAT(find_samples(*parsed, "simple/Device=0", "cpu_time")->values,
              ElementsAre(0.0010094458717434867));
  EXPECT_THAT(find_samples(*parsed, "simple/Device=0", "batch_gpu_time")->values,
              ElementsAre(0.001001475909284053));
  EXPECT_EQ(find_samples(*parsed, "simple/Device=0", "sample_size"), nullptr);
}

TEST(NvbenchJson, NamesCasesByTheirAxesAsNvbenchDisplaysThem) {
  const auto parsed = parse_nvbench_json(reference_text());
  ASSERT_TRUE(parsed);
  EXPECT_NE(find_samples(*parsed, "copy_sweep_grid_shape/Device=1,BlockSize=2^10,NumBlocks=2^6",
                         "gpu_time"),
            nullptr);
  EXPECT_NE(find_samples(*parsed, "single_float64_axis/Device=0,Duration=0.0003", "gpu_time"),
            nullptr);
  const auto* info = find_case(*parsed, "copy_type_sweep/Device=0,T=F32");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->axes.at("T"), "F32");
  EXPECT_EQ(info->axes.at("Device"), "0");
}

TEST(NvbenchJson, KeepsBandwidthAndBytes) {
  const auto parsed = parse_nvbench_json(reference_text());
  ASSERT_TRUE(parsed);
  const auto* bandwidth =
      find_samples(*parsed, "copy_type_sweep/Device=0,T=F32", "bytes_per_second");
  ASSERT_NE(bandwidth, nullptr);
  EXPECT_EQ(bandwidth->direction, Direction::higher_is_better);
  EXPECT_EQ(bandwidth->unit, "B/s");
  EXPECT_THAT(bandwidth->values, ElementsAre(502838175854.2552));
  EXPECT_EQ(find_samples(*parsed, "copy_type_sweep/Device=0,T=F32", "items_per_second")->direction,
            Direction::higher_is_better);
  EXPECT_THAT(
      find_samples(*parsed, "copy_type_sweep/Device=0,T=F32", "bandwidth_utilization")->values,
      ElementsAre(0.5777093013031425));
  const auto* info = find_case(*parsed, "copy_type_conversion_sweep/Device=0,In=I8,Out=I16");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->bytes, 67108864.0 + 134217728.0);
}

TEST(NvbenchJson, CountsSkippedStatesInAWarning) {
  const auto parsed = parse_nvbench_json(reference_text());
  ASSERT_TRUE(parsed);
  ASSERT_EQ(parsed->warnings.size(), 1U);
  EXPECT_THAT(parsed->warnings[0], HasSubstr("38 of 72 states of copy_type_conversion_sweep were "
                                             "skipped (first: Not a conversion"));
}

TEST(NvbenchJson, LeavesTheDeviceOutOfNamesOnOneDevice) {
  auto document = Json::parse(reference_text());
  for (auto& benchmark : document["benchmarks"]) {
    auto& states = benchmark["states"];
    Json kept = Json::array();
    for (auto& state : states) {
      if (state["device"] == 1)
        kept.push_back(state);
    }
    states = kept;
  }
  const auto parsed = read_nvbench_document(document);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_NE(find_samples(*parsed, "copy_type_sweep/T=U16", "gpu_time"), nullptr);
  EXPECT_NE(find_samples(*parsed, "simple", "gpu_time"), nullptr);
  EXPECT_EQ(find_case(*parsed, "simple")->axes.at("Device"), "1");
}

TEST(NvbenchJson, ComparisonRunHasTheSameCases) {
  const auto reference = parse_nvbench_json(reference_text());
  const auto comparison =
      parse_nvbench_json(testing::read_file(testing::parser_fixture("nvbench/axes_cmp.json")));
  ASSERT_TRUE(reference);
  ASSERT_TRUE(comparison) << comparison.error().message;
  ASSERT_EQ(reference->samples.size(), comparison->samples.size());
  for (std::size_t i = 0; i < reference->samples.size(); ++i) {
    EXPECT_EQ(reference->samples[i].case_name, comparison->samples[i].case_name);
    EXPECT_EQ(reference->samples[i].metric, comparison->samples[i].metric);
  }
}

// A state as nvbench writes it with --jsonbin: the cold GPU times in a float32 file.
Json state_with_sample_file(const std::string& filename, int size) {
  return Json::parse(R"({"name":"Device=0 N=2^4","device":0,"is_skipped":false,
    "axis_values":[{"name":"N","type":"int64","value":"16"}],
    "summaries":[
      {"tag":"nv/cold/time/gpu/mean","hint":"duration","data":[{"name":"value","type":"float64","value":"0.002"}]},
      {"tag":"nv/json/bin:nv/cold/sample_times","hint":"file/sample_times","data":[
        {"name":"filename","type":"string","value":")" +
                     filename + R"("},{"name":"size","type":"int64","value":")" +
                     std::to_string(size) + R"("}]}]})");
}

Json document_with(Json state) {
  Json document =
      Json::parse(R"({"meta":{},"devices":[],"benchmarks":[{"name":"scan","states":[]}]})");
  document["benchmarks"][0]["states"].push_back(std::move(state));
  return document;
}

TEST(NvbenchJson, SampleTimesFromTheBinaryFileReplaceTheMean) {
  const testing::TempDir directory;
  std::filesystem::create_directories(directory / "out.json-bin");
  const std::vector<float> times = {0.001F, 0.0011F, 0.0009F};
  std::ofstream(directory / "out.json-bin/0.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(times.data()),
             static_cast<std::streamsize>(times.size() * 4));
  NvbenchOptions options;
  options.base_dir = directory.path();
  const auto parsed = read_nvbench_document(
      document_with(state_with_sample_file("out.json-bin/0.bin", 3)), options);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_THAT(find_samples(*parsed, "scan/N=2^4", "gpu_time")->values,
              ElementsAre(static_cast<double>(times[0]), static_cast<double>(times[1]),
                          static_cast<double>(times[2])));
  EXPECT_TRUE(parsed->warnings.empty());
}

TEST(NvbenchJson, AMissingOrShortSampleFileFallsBackToTheMean) {
  const testing::TempDir directory;
  NvbenchOptions options;
  options.base_dir = directory.path();
  const auto missing =
      read_nvbench_document(document_with(state_with_sample_file("gone.bin", 3)), options);
  ASSERT_TRUE(missing) << missing.error().message;
  EXPECT_THAT(find_samples(*missing, "scan/N=2^4", "gpu_time")->values, ElementsAre(0.002));
  ASSERT_EQ(missing->warnings.size(), 1U);
  EXPECT_THAT(missing->warnings[0], HasSubstr("sample times not used"));

  std::ofstream(directory / "short.bin", std::ios::binary) << "abcd";
  const auto short_file =
      read_nvbench_document(document_with(state_with_sample_file("short.bin", 3)), options);
  ASSERT_TRUE(short_file);
  EXPECT_THAT(short_file->warnings.at(0), HasSubstr("has 4 bytes; expected 3 float32 samples"));
}

TEST(NvbenchJson, ErrorsNameTheKeyPath) {
  auto document = Json::parse(reference_text());
  document["benchmarks"][1]["states"][2]["summaries"][3]["data"][0]["value"] = "fast";
  const auto bad_value = read_nvbench_document(document);
  ASSERT_FALSE(bad_value);
  EXPECT_THAT(bad_value.error().message,
              HasSubstr("nvbench JSON: benchmarks[1].states[2].summaries[3].data[0].value: "
                        "expected a finite number, found a string (\"fast\")"));
  document = Json::parse(reference_text());
  document["benchmarks"][0]["states"][0].erase("name");
  EXPECT_THAT(read_nvbench_document(document).error().message,
              HasSubstr("benchmarks[0].states[0].name: missing"));
  EXPECT_THAT(parse_nvbench_json(R"({"benchmarks":[]})").error().message,
              HasSubstr("no state with measurements among 0 benchmarks"));
}

TEST(NvbenchJson, SkipsMarkdownAroundTheDocument) {
  const auto parsed = parse_nvbench_json("# Devices\n\n## [0] `Quadro GV100`\n" + reference_text() +
                                         "# Benchmark Results\n");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_THAT(parsed->warnings.at(0), HasSubstr("skipped 3 lines"));
}

TEST(NvbenchJson, DetectsItsDocuments) {
  EXPECT_TRUE(looks_like_nvbench(Json::parse(reference_text())));
  EXPECT_FALSE(looks_like_nvbench(Json::parse(R"({"context":{},"benchmarks":[]})")));
}

} // namespace
} // namespace culprit::parsers
