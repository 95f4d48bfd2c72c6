// Where the roofline's peaks come from (core/roofline/peaks.hpp) and the work expressions of
// [roofline.cases] (core/recipe/work_expression.hpp).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/evidence/roofline_fill.hpp"
#include "core/recipe/work_expression.hpp"
#include "core/roofline/peaks.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::HasSubstr;

struct CountingMeasure {
  int calls = 0;
  std::vector<int> last_cpus;
  roofline::CpuMeasure function() {
    return [this](const roofline::CpuPeakOptions& options) -> Result<roofline::Peaks> {
      ++calls;
      last_cpus = options.cpus;
      return roofline::Peaks{.device = "Test CPU",
                             .flops_per_second = 100e9,
                             .tensor_flops_per_second = std::nullopt,
                             .bytes_per_second = 20e9,
                             .source = "measured on this host"};
    };
  }
};

struct Rig {
  testing::TempDir dir{"culprit-peaks"};
  store::Store store = store::Store::open_in(dir.path()).value();
  Rig() { EXPECT_TRUE(store.record_host({"host-a", "{}", store::now(), store::now()})); }
};

TEST(RooflinePeaks, TheCpuIsMeasuredOnceAndKeptInTheStoreForItsCpus) {
  Rig rig;
  CountingMeasure measure;
  {
    roofline::PeakResolver resolver(
        rig.store, {.recipe = {}, .host_id = "host-a", .cpus = {1}, .gpu_names = {}},
        measure.function());
    auto first = resolver.peaks_for(std::nullopt, "time");
    ASSERT_TRUE(first) << first.error().message;
    ASSERT_TRUE(first->peaks);
    EXPECT_EQ(first->peaks->flops_per_second, 100e9);
    auto again = resolver.peaks_for(parsers::DeviceInfo{"cpu", "Test CPU", std::nullopt}, "time");
    ASSERT_TRUE(again && again->peaks);
    EXPECT_EQ(measure.calls, 1);
    EXPECT_EQ(measure.last_cpus, std::vector<int>{1}) << "measured where the runs are pinned";
  }
  // A later command reads the store, and says since when.
  roofline::PeakResolver later(rig.store,
                               {.recipe = {}, .host_id = "host-a", .cpus = {1}, .gpu_names = {}},
                               measure.function());
  auto kept = later.peaks_for(std::nullopt, "time");
  ASSERT_TRUE(kept && kept->peaks);
  EXPECT_EQ(measure.calls, 1);
  EXPECT_THAT(kept->peaks->source, HasSubstr("kept since"));
  EXPECT_THAT(kept->peaks->source, HasSubstr("culprit env --peaks"));
  // Other CPUs, another measurement.
  roofline::PeakResolver unpinned(rig.store,
                                  {.recipe = {}, .host_id = "host-a", .cpus = {}, .gpu_names = {}},
                                  measure.function());
  ASSERT_TRUE(unpinned.peaks_for(std::nullopt, "time"));
  EXPECT_EQ(measure.calls, 2);
}

TEST(RooflinePeaks, TheRecipeGivesPeaksOneByOne) {
  Rig rig;
  CountingMeasure measure;
  recipe::RooflineRecipe recipe;
  recipe.peak_gbps = 50;
  roofline::PeakResolver partly(
      rig.store, {.recipe = recipe, .host_id = "host-a", .cpus = {}, .gpu_names = {}},
      measure.function());
  auto answer = partly.peaks_for(std::nullopt, "time");
  ASSERT_TRUE(answer && answer->peaks);
  EXPECT_EQ(answer->peaks->flops_per_second, 100e9) << "measured";
  EXPECT_EQ(answer->peaks->bytes_per_second, 50e9) << "given";
  EXPECT_THAT(answer->peaks->source, HasSubstr("bandwidth from the configuration"));

  recipe.peak_gflops = 300;
  roofline::PeakResolver wholly(
      rig.store, {.recipe = recipe, .host_id = "host-a", .cpus = {}, .gpu_names = {}},
      measure.function());
  const int before = measure.calls;
  answer = wholly.peaks_for(std::nullopt, "time");
  ASSERT_TRUE(answer && answer->peaks);
  EXPECT_EQ(answer->peaks->flops_per_second, 300e9);
  EXPECT_EQ(measure.calls, before) << "nothing to measure when the recipe gives every peak";
}

TEST(RooflinePeaks, AGpuFromItsPropertiesAsTheHarnessReportsThem) {
  // An A100 SXM4: 108 SMs of 64 FP32 lanes at 1410 MHz; HBM2e at 1593 MHz on 5120 bits.
  const parsers::GpuProperties a100{.sm_count = 108,
                                    .sm_clock_mhz = 1410,
                                    .memory_clock_mhz = 1593,
                                    .memory_bus_bits = 5120,
                                    .compute_major = 8,
                                    .compute_minor = 0};
  const auto peaks = roofline::gpu_peaks_from_properties("NVIDIA A100-SXM4-80GB", a100);
  ASSERT_TRUE(peaks);
  EXPECT_NEAR(peaks->flops_per_second, 19.49e12, 0.01e12) << "the datasheet's 19.5 TFLOP/s";
  EXPECT_NEAR(peaks->bytes_per_second, 2.039e12, 0.001e12) << "the datasheet's 2,039 GB/s";
  ASSERT_TRUE(peaks->tensor_flops_per_second) << "the tensor peak from the datasheet";
  EXPECT_THAT(peaks->source, HasSubstr("108 SMs x 64 FP32 lanes"));

  Rig rig;
  CountingMeasure measure;
  roofline::PeakResolver resolver(rig.store,
                                  {.recipe = {}, .host_id = "host-a", .cpus = {}, .gpu_names = {}},
                                  measure.function());
  auto answer =
      resolver.peaks_for(parsers::DeviceInfo{"cuda", "NVIDIA A100-SXM4-80GB", a100}, "gpu_time");
  ASSERT_TRUE(answer && answer->peaks);
  EXPECT_NEAR(answer->peaks->flops_per_second, 19.49e12, 0.01e12);
  EXPECT_EQ(measure.calls, 0) << "a GPU run never measures the CPU";

  EXPECT_FALSE(roofline::fp32_lanes_per_sm(1, 0));
  EXPECT_FALSE(roofline::gpu_peaks_from_properties("old", {.sm_count = 1,
                                                           .sm_clock_mhz = 1,
                                                           .memory_clock_mhz = 1,
                                                           .memory_bus_bits = 1,
                                                           .compute_major = 1,
                                                           .compute_minor = 0}));
}

TEST(RooflinePeaks, AGpuByNameFromTheDatasheetOrAReasonWhyNot) {
  Rig rig;
  CountingMeasure measure;
  roofline::PeakResolver resolver(
      rig.store,
      {.recipe = {}, .host_id = "host-a", .cpus = {}, .gpu_names = {"NVIDIA H100 80GB HBM3"}},
      measure.function());
  auto smi = resolver.peaks_for(std::nullopt, "gpu_time");
  ASSERT_TRUE(smi && smi->peaks) << "nvidia-smi's name, from the datasheet";
  EXPECT_EQ(smi->peaks->device, "NVIDIA H100 SXM5");
  auto unknown = resolver.peaks_for(
      parsers::DeviceInfo{"cuda", "NVIDIA Quadro Mystery", std::nullopt}, "gpu_time");
  ASSERT_TRUE(unknown);
  EXPECT_FALSE(unknown->peaks);
  EXPECT_THAT(unknown->reason, HasSubstr("'NVIDIA Quadro Mystery' is not in the datasheet"));
  EXPECT_THAT(unknown->reason, HasSubstr("peak_gflops and peak_gbps"));

  recipe::RooflineRecipe tensor;
  tensor.compute = "tensor";
  tensor.device = "cpu";
  roofline::PeakResolver cpu_tensor(
      rig.store, {.recipe = tensor, .host_id = "host-a", .cpus = {}, .gpu_names = {}},
      measure.function());
  auto none = cpu_tensor.peaks_for(std::nullopt, "time");
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->peaks);
  EXPECT_THAT(none->reason, HasSubstr("no tensor-core peak"));
}

TEST(WorkExpressions, EvaluateOverTheCaseAxes) {
  auto gemm = recipe::WorkExpression::parse("2*M*N*K");
  ASSERT_TRUE(gemm) << gemm.error().message;
  EXPECT_EQ(gemm->names(), (std::vector<std::string>{"K", "M", "N"}));
  EXPECT_EQ(gemm->evaluate({{"M", "128"}, {"N", "64"}, {"K", "2^5"}}).value(), 2.0 * 128 * 64 * 32);
  auto bytes = recipe::WorkExpression::parse("4*(M*K + K*N + M*N)");
  ASSERT_TRUE(bytes);
  EXPECT_EQ(bytes->evaluate({{"M", "2"}, {"N", "3"}, {"K", "4"}}).value(), 4.0 * (8 + 12 + 6));
  EXPECT_EQ(recipe::WorkExpression::parse("1e6")->evaluate({}).value(), 1e6);

  const auto missing = gemm->evaluate({{"M", "1"}, {"N", "1"}});
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().message, HasSubstr("names K, an axis the case does not have"));
  const auto word = gemm->evaluate({{"M", "1"}, {"N", "1"}, {"K", "F32"}});
  ASSERT_FALSE(word);
  EXPECT_THAT(word.error().message, HasSubstr("axis K as a number, and it is 'F32'"));
  const auto negative = recipe::WorkExpression::parse("M-10")->evaluate({{"M", "1"}});
  ASSERT_FALSE(negative);
  EXPECT_THAT(negative.error().message, HasSubstr("finite number, 0 or more"));

  for (const auto* bad : {"2*M*", "(M", "M N", "", "   "}) {
    const auto parsed = recipe::WorkExpression::parse(bad);
    ASSERT_FALSE(parsed) << bad;
    EXPECT_EQ(parsed.error().code, ExitCode::usage);
    EXPECT_EQ(parsed.error().message.find('\n'), std::string::npos);
  }
  EXPECT_THAT(recipe::WorkExpression::parse("2*M*").error().message, HasSubstr("does not parse"));
  EXPECT_EQ(recipe::axis_number("2^20"), 1048576.0);
  EXPECT_EQ(recipe::axis_number("4096"), 4096.0);
  EXPECT_FALSE(recipe::axis_number("F32"));
  EXPECT_FALSE(recipe::axis_number("10^999"));
}

store::RunRecord run_of(const std::string& artifact, std::vector<parsers::CaseInfo> cases,
                        std::optional<parsers::DeviceInfo> device,
                        store::RunStatus status = store::RunStatus::ok) {
  store::RunRecord run;
  run.artifact_id = artifact;
  run.build_key = "key";
  run.commit_id = "c1";
  run.recipe_hash = "recipe";
  run.host_id = "host-a";
  run.started = store::now();
  run.status = status;
  if (status == store::RunStatus::ok)
    run.samples.push_back(
        {"sgemm/M=2,N=3,K=4", "time", "s", parsers::Direction::lower_is_better, {1e-3}});
  run.cases = std::move(cases);
  run.device = std::move(device);
  return run;
}

TEST(RooflineWork, TheStoreKeepsWhatTheLastGoodRunSaidPerMeasurement) {
  Rig rig;
  const parsers::CaseInfo gemm{.case_name = "sgemm/M=2,N=3,K=4",
                               .flops = 48,
                               .bytes = 104,
                               .axes = {{"M", "2"}, {"N", "3"}, {"K", "4"}}};
  ASSERT_TRUE(
      rig.store.record_run(run_of("a1", {gemm}, parsers::DeviceInfo{"cpu", "Test CPU", {}})));
  const store::MeasurementKey key{"a1", "recipe", "host-a"};
  const auto work = rig.store.case_work(key, gemm.case_name);
  ASSERT_TRUE(work && *work);
  EXPECT_EQ(**work, gemm);
  const auto device = rig.store.device(key);
  ASSERT_TRUE(device && *device);
  EXPECT_EQ((*device)->name, "Test CPU");
  EXPECT_FALSE(rig.store.case_work({"a2", "recipe", "host-a"}, gemm.case_name).value());
  // A failed run's word is not kept.
  auto changed = gemm;
  changed.flops = 1;
  ASSERT_TRUE(rig.store.record_run(run_of("a1", {changed}, {}, store::RunStatus::failed)));
  EXPECT_EQ(rig.store.case_work(key, gemm.case_name).value()->flops, 48);

  ASSERT_TRUE(rig.store.save_peaks({.host_id = "host-a",
                                    .scope = "cpu",
                                    .device = "Test CPU",
                                    .flops_per_second = 1e11,
                                    .tensor_flops_per_second = std::nullopt,
                                    .bytes_per_second = 2e10,
                                    .source = "measured",
                                    .measured = store::now()}));
  const auto kept = rig.store.find_peaks("host-a", "cpu");
  ASSERT_TRUE(kept && *kept);
  EXPECT_EQ((*kept)->bytes_per_second, 2e10);
  EXPECT_FALSE(rig.store.find_peaks("host-a", "cpu:0").value());
}

TEST(RooflineWork, ExpressionsWinTheOutputFillsInAndMissingBytesIsAReason) {
  recipe::RooflineRecipe recipe;
  recipe.cases = {{.glob = "sgemm/*", .flops = "2*M*N*K", .bytes = ""},
                  {.glob = "bad/*", .flops = "2*Q", .bytes = "8"}};
  const parsers::CaseInfo output{
      .case_name = "sgemm/M=2,N=3,K=4", .flops = 1, .bytes = 104, .axes = {}};
  auto work = evidence::work_of("sgemm/M=2,N=3,K=4", output, recipe);
  EXPECT_TRUE(work.reason.empty()) << work.reason;
  EXPECT_EQ(work.flops, 48.0) << "the expression, over the name's axes";
  EXPECT_EQ(work.bytes, 104.0) << "the output's, which the expression leaves out";
  EXPECT_EQ(work.source, "culprit.toml");

  work = evidence::work_of("sgemm/M=2,N=3,K=4", std::nullopt, recipe);
  EXPECT_FALSE(work.flops);
  EXPECT_THAT(work.reason, HasSubstr("FLOPs are known but not the bytes"));

  work = evidence::work_of("bad/x", std::nullopt, recipe);
  EXPECT_THAT(work.reason, HasSubstr("[roofline.cases] 'bad/*' flops: '2*Q' names Q"));

  work = evidence::work_of(
      "copy/N=4", parsers::CaseInfo{.case_name = "copy/N=4", .flops = {}, .bytes = 32, .axes = {}},
      {});
  EXPECT_TRUE(work.reason.empty());
  EXPECT_EQ(work.flops, 0.0) << "bytes alone: a kernel that only moves memory";
  EXPECT_EQ(work.source, "output");

  work = evidence::work_of("plain", std::nullopt, {});
  EXPECT_THAT(work.reason, HasSubstr("no work"));

  EXPECT_EQ(evidence::axes_in_name("copy/T=F32,N=2^20"),
            (std::map<std::string, std::string>{{"N", "2^20"}, {"T", "F32"}}));
  EXPECT_EQ(evidence::axes_in_name("a/M=1/K=2"),
            (std::map<std::string, std::string>{{"K", "2"}, {"M", "1"}}));
  EXPECT_TRUE(evidence::axes_in_name("no-axes").empty());
}

TEST(RooflineWork, EveryMeasurementGetsItsPlaceOrWhyNot) {
  Rig rig;
  const parsers::CaseInfo gemm{
      .case_name = "sgemm/M=2,N=3,K=4", .flops = 48e6, .bytes = 104e3, .axes = {}};
  ASSERT_TRUE(rig.store.record_run(run_of("a1", {gemm}, {})));
  CountingMeasure measure;
  roofline::PeakResolver resolver(rig.store,
                                  {.recipe = {}, .host_id = "host-a", .cpus = {}, .gpu_names = {}},
                                  measure.function());
  evidence::Evidence evidence;
  evidence::EvidenceMeasurement m;
  m.commit = "c1";
  m.case_name = gemm.case_name;
  m.metric = "time";
  m.unit = "s";
  m.artifact_id = "a1";
  m.summary.median = 2e-3;
  m.summary.ci = {1.6e-3, 2.5e-3};
  evidence.measurements.push_back(m);
  auto bandwidth = m;
  bandwidth.metric = "bytes_per_second";
  bandwidth.unit = "B/s";
  evidence.measurements.push_back(bandwidth);
  const recipe::RooflineRecipe recipe;
  evidence::RooflineInputs inputs{.store = rig.store,
                                  .recipe_hash = "recipe",
                                  .host_id = "host-a",
                                  .recipe = recipe,
                                  .peaks = resolver};
  ASSERT_TRUE(evidence::fill_roofline(evidence, inputs));
  const auto& r = evidence.measurements[0].roofline;
  ASSERT_TRUE(r);
  // 48 MFLOP at 100 GFLOP/s: 0.48 ms; 104 kB at 20 GB/s: 5.2 us. Compute-bound, 0.48 / 2 ms.
  EXPECT_EQ(r->limiter, "compute");
  EXPECT_NEAR(r->bound_seconds, 4.8e-4, 1e-12);
  EXPECT_NEAR(r->fraction, 0.24, 1e-12);
  EXPECT_NEAR(r->fraction_ci[0], 4.8e-4 / 2.5e-3, 1e-12);
  EXPECT_NEAR(r->fraction_ci[1], 4.8e-4 / 1.6e-3, 1e-12);
  EXPECT_NEAR(r->intensity, 48e6 / 104e3, 1e-9);
  EXPECT_NEAR(r->achieved_flops_per_second, 24e9, 1);
  EXPECT_EQ(r->work, "output");
  EXPECT_EQ(r->device, "Test CPU");
  EXPECT_FALSE(evidence.measurements[1].roofline);
  EXPECT_THAT(evidence.measurements[1].roofline_note, HasSubstr("is in B/s, not a time"));
  ASSERT_EQ(evidence.roofline_peaks.size(), 1U);
  EXPECT_EQ(evidence.roofline_peaks[0].flops_per_second, 100e9);
  EXPECT_EQ(measure.calls, 1);

  // A benchmark that gives no work costs no measurement and says nothing.
  evidence::Evidence silent;
  auto plain = m;
  plain.artifact_id = "no-work";
  silent.measurements.push_back(plain);
  CountingMeasure unused;
  roofline::PeakResolver idle(rig.store,
                              {.recipe = {}, .host_id = "host-b", .cpus = {}, .gpu_names = {}},
                              unused.function());
  evidence::RooflineInputs idle_inputs{.store = rig.store,
                                       .recipe_hash = "recipe",
                                       .host_id = "host-b",
                                       .recipe = recipe,
                                       .peaks = idle};
  ASSERT_TRUE(evidence::fill_roofline(silent, idle_inputs));
  EXPECT_FALSE(silent.measurements[0].roofline);
  EXPECT_TRUE(silent.measurements[0].roofline_note.empty());
  EXPECT_EQ(unused.calls, 0);
}

} // namespace
} // namespace culprit
