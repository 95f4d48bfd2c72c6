#include "tests/support/evidence_samples.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

namespace culprit::testing {
namespace {

constexpr const char* k_sgemm = "sgemm/M=4096,N=4096,K=4096";

// Noise from a fixed sequence, so that the samples are the same on every machine.
// Integer arithmetic only, so that every platform gets the same doubles.
double noise(int seed, int k) {
  const auto x =
      (static_cast<std::uint64_t>(seed) * 2654435761U + static_cast<std::uint64_t>(k) * 40503U) %
      1000U;
  return static_cast<double>(x) / 1000.0 - 0.5;
}

evidence::EvidenceMeasurement measurement(const std::string& commit, const std::string& case_name,
                                          double median, int runs, int seed, double drift = 0) {
  evidence::EvidenceMeasurement m;
  m.commit = commit;
  m.case_name = case_name;
  m.metric = "time";
  m.unit = "s";
  m.direction = "lower";
  for (int r = 0; r < runs; ++r) {
    std::vector<double> run;
    const double level = median * (1 + 0.006 * noise(seed, r) + drift * r);
    for (int s = 0; s < 3; ++s)
      run.push_back(std::round(level * (1 + 0.004 * noise(seed + 7, r * 3 + s)) * 1e9) / 1e9);
    m.runs.push_back(run);
  }
  m.summary.median = median;
  m.summary.ci = {median * 0.994, median * 1.006};
  m.summary.mean = median;
  m.summary.min = median * 0.99;
  m.summary.cv = 0.006;
  return m;
}

evidence::EvidenceComparison comparison(const std::string& base, const std::string& head,
                                        const std::string& case_name, double ratio,
                                        std::array<double, 2> ci, double p,
                                        const std::string& verdict) {
  evidence::EvidenceComparison c;
  c.base = base;
  c.head = head;
  c.case_name = case_name;
  c.metric = "time";
  c.unit = "s";
  c.direction = "lower";
  c.ratio = ratio;
  c.ci = ci;
  c.p_value = p;
  c.verdict = verdict;
  c.base_runs = 12;
  c.head_runs = 12;
  return c;
}

evidence::Evidence base_evidence(const std::string& kind, const std::string& status) {
  evidence::Evidence e;
  e.kind = kind;
  e.status = status;
  e.tool_version = "0.1.0";
  e.created = "2026-03-02T10:00:00Z";
  e.repo_path = "/home/ada/src/kernels";
  e.repo_head = sample_commit(40);
  e.host = {{"hostname", "bench-01"},
            {"cpu", "AMD EPYC 7763 64-Core Processor"},
            {"cores", 16},
            {"os", "Linux 6.1.0-18-amd64"},
            {"gpus", nlohmann::json::array(
                         {{{"name", "NVIDIA A100-SXM4-80GB"}, {"driver_version", "535.104.05"}}})}};
  e.settings.build = "cmake --build {build} --target bench";
  e.settings.run = "{build}/bench --json";
  e.settings.format = "culprit";
  e.settings.metric = "time";
  e.settings.min_runs = 5;
  e.settings.max_runs = 40;
  e.settings.warmup = 1;
  return e;
}

evidence::EvidenceHints first_culprit_hints() {
  evidence::EvidenceHints h;
  evidence::EvidenceDiffstat d;
  d.files = 2;
  d.insertions = 24;
  d.deletions = 9;
  d.by_file = {{"kernels/cuda/sgemm.cu", "kernels/cuda/sgemm.cu", "modified", 20, 7, false},
               {"kernels/cuda/sgemm.cuh", "kernels/cuda/sgemm.cuh", "modified", 4, 2, false}};
  h.diffstat = d;
  const evidence::EvidenceKernelResources before{64, 1, 0, 0, 0, 16384, 400};
  const evidence::EvidenceKernelResources after{96, 1, 48, 48, 48, 16384, 400};
  const evidence::EvidenceKernelResources saxpy{16, 0, 0, 0, 0, 0, 380};
  h.kernels = {{"kernels::cuda::sgemm_kernel<128, 8>", "sm_80", "changed", before, after,
                "registers 64 -> 96, spill stores 0 -> 48 B, spill loads 0 -> 48 B, stack 0 -> "
                "48 B"},
               {"kernels::cuda::saxpy_kernel", "sm_80", "unchanged", saxpy, saxpy, ""}};
  evidence::EvidenceArtifacts a;
  a.parent_bytes = 4404019;
  a.culprit_bytes = 4412211;
  a.parent_files = 2;
  a.culprit_files = 2;
  a.changed = {{"bench", "", 4390912, 4399104}};
  h.artifacts = a;
  h.symbols = {{"void kernels::cuda::sgemm_kernel<128, 8>(int, int, int, float const*, float "
                "const*, float*)",
                "bench", 5120, 12288},
               {"kernels::cuda::launch_sgemm(int, int, int)", "bench", 412, 436}};
  return h;
}

} // namespace

std::string sample_commit(int i) {
  std::string id;
  for (int k = 0; k < 20; ++k)
    id += fmt::format("{:02x}", (i * 37 + k * 11) % 256);
  return id;
}

std::vector<std::string> bisect_sample_order() {
  std::vector<std::string> order;
  for (int i = 1; i <= 40; ++i)
    order.push_back(sample_commit(i));
  return order;
}

evidence::Evidence compare_sample() {
  auto e = base_evidence("compare", "slower");
  const auto base = sample_commit(0);
  const auto head = sample_commit(40);
  e.command = {"culprit", "compare", "v1.4", "HEAD", "--json", "compare.json"};
  e.revisions = {"v1.4", "HEAD"};
  e.builds = {{base, "9c1e77a0d4b2f6e8", true, 41.2, "built", "a1", "", ""},
              {head, "2b7d90c3e1f4a5b6", true, 12.5, "cached", "a2", "", ""}};
  struct Case {
    const char* name;
    double base_median;
    double ratio;
    std::array<double, 2> ci;
    double p;
    const char* verdict;
  };
  const Case cases[] = {
      {k_sgemm, 4.12e-3, 1.081, {1.062, 1.100}, 0.0004, "slower"},
      {"softmax/rows=8192,cols=1024", 182e-6, 1.003, {0.991, 1.012}, 0.61, "same"},
      {"layernorm/rows=4096,cols=4096", 96.4e-6, 1.018, {0.995, 1.041}, 0.09, "inconclusive"},
      {"saxpy/n=16777216", 1.31e-3, 0.951, {0.940, 0.962}, 2e-7, "faster"}};
  int seed = 1;
  for (const auto& c : cases) {
    e.measurements.push_back(measurement(base, c.name, c.base_median, 12, seed++));
    e.measurements.push_back(measurement(head, c.name, c.base_median * c.ratio, 12, seed++,
                                         c.verdict == std::string("inconclusive") ? 0.002 : 0));
    e.comparisons.push_back(comparison(base, head, c.name, c.ratio, c.ci, c.p, c.verdict));
  }
  e.comparisons[2].note = "40 runs (the budget) were not enough to decide";
  e.comparisons[2].base_runs = e.comparisons[2].head_runs = 40;
  return e;
}

evidence::Evidence roofline_sample() {
  auto e = compare_sample();
  e.roofline_peaks.push_back({.device = "NVIDIA A100 SXM4 80GB",
                              .compute = "tensor",
                              .flops_per_second = 19.5e12,
                              .tensor_flops_per_second = 156e12,
                              .bytes_per_second = 2.039e12,
                              .source = "datasheet: NVIDIA A100 datasheet"});
  for (auto& m : e.measurements) {
    double flops = 0;
    double bytes = 0;
    if (m.case_name == k_sgemm) {
      flops = 2.0 * 4096 * 4096 * 4096;
      bytes = 4.0 * 3 * 4096 * 4096;
    } else if (m.case_name == "saxpy/n=16777216") {
      flops = 2.0 * 16777216;
      bytes = 12.0 * 16777216;
    } else {
      m.roofline_note = "no roofline: no work: the output gives no FLOPs or bytes for this case";
      continue;
    }
    evidence::EvidenceRoofline r;
    r.flops = flops;
    r.bytes = bytes;
    r.intensity = flops / bytes;
    r.achieved_flops_per_second = flops / m.summary.median;
    r.achieved_bytes_per_second = bytes / m.summary.median;
    const double compute = flops / 156e12; // on the tensor cores
    const double memory = bytes / 2.039e12;
    r.bound_seconds = std::max(compute, memory);
    r.limiter = compute >= memory ? "compute" : "memory";
    r.bound_flops_per_second = flops / r.bound_seconds;
    r.fraction = r.bound_seconds / m.summary.median;
    r.fraction_ci = {r.bound_seconds / m.summary.ci[1], r.bound_seconds / m.summary.ci[0]};
    r.work = "output";
    r.device = "NVIDIA A100 SXM4 80GB";
    m.roofline = r;
  }
  return e;
}

evidence::Evidence bisect_sample() {
  auto e = base_evidence("bisect", "culprit_found");
  e.command = {"culprit", "bisect", "--good",  "v1.4",       "--bad",
               "HEAD",    "--case", "sgemm/*", "--markdown", "bisect.md"};
  e.settings.cases = {"sgemm/*"};
  e.settings.direction = "regression";
  e.revisions = {"v1.4", "HEAD"};
  evidence::EvidenceBisect b;
  b.good = sample_commit(0);
  b.bad = sample_commit(40);
  b.commits_in_range = 40;
  b.rounds = 11;
  b.cases = {k_sgemm};
  struct Probe {
    int commit;
    const char* classified;
    double position;
  };
  const Probe probes[] = {{20, "intermediate", 0.60},
                          {10, "good", 0.01},
                          {15, "intermediate", 0.62},
                          {12, "good", -0.02},
                          {14, "skip", 0},
                          {13, "intermediate", 0.58},
                          {30, "bad", 0.99},
                          {25, "intermediate", 0.61},
                          {27, "skip", 0},
                          {28, "intermediate", 0.63},
                          {29, "bad", 1.01}};
  const auto level = [](int commit) { return commit < 13 ? 1.0 : commit < 29 ? 1.05 : 1.083; };
  const double median = 4.12e-3;
  e.measurements.push_back(measurement(b.good, k_sgemm, median, 12, 100));
  e.measurements.push_back(measurement(b.bad, k_sgemm, median * level(40), 12, 140));
  for (const auto& p : probes) {
    const auto id = sample_commit(p.commit);
    evidence::EvidenceStep step;
    step.commit = id;
    step.classified = p.classified;
    if (std::string(p.classified) == "skip") {
      step.note = p.commit == 14 ? "build failed: error: 'k_tile' was not declared in this scope"
                                 : "build failed: undefined reference to 'launch_sgemm'";
      e.builds.push_back({id, fmt::format("b{:02}", p.commit), false, 30.5, "failed", "",
                          "/cache/logs/b.log", "the build command exited with status 2"});
    } else {
      step.position = p.position;
      step.ci = std::array<double, 2>{p.position - 0.06, p.position + 0.06};
      step.runs = 8;
      e.measurements.push_back(
          measurement(id, k_sgemm, median * level(p.commit), 8, 100 + p.commit));
      e.builds.push_back({id, fmt::format("b{:02}", p.commit), true, 35.0, "built",
                          fmt::format("a{:02}", p.commit), "", ""});
    }
    b.steps.push_back(step);
  }
  e.comparisons.push_back(
      comparison(b.good, b.bad, k_sgemm, 1.083, {1.071, 1.095}, 1e-7, "slower"));
  e.comparisons.push_back(comparison(sample_commit(12), sample_commit(13), k_sgemm, 1.050,
                                     {1.039, 1.061}, 1e-5, "slower"));
  e.comparisons.push_back(comparison(sample_commit(28), sample_commit(29), k_sgemm, 1.031,
                                     {1.020, 1.042}, 3e-4, "slower"));
  evidence::EvidenceCulprit first{sample_commit(13),
                                  sample_commit(12),
                                  "sgemm: unroll the k-loop by 8",
                                  "Ada Lovelace",
                                  "ada@example.com",
                                  "2026-02-11T09:30:00+01:00",
                                  {"kernels/cuda/sgemm.cu", "kernels/cuda/sgemm.cuh"},
                                  {"@gpu-kernels", "@ada"},
                                  {{k_sgemm, 1.050, {1.039, 1.061}, 0.6}}};
  first.hints = first_culprit_hints();
  evidence::EvidenceCulprit second{
      sample_commit(29),  sample_commit(28),   "Build with -O2 instead of -O3 for faster CI",
      "Grace Hopper",     "grace@example.com", "2026-02-20T16:05:00-05:00",
      {"CMakeLists.txt"}, {"@build-infra"},    {{k_sgemm, 1.031, {1.020, 1.042}, 0.4}}};
  evidence::EvidenceHints hints;
  hints.diffstat = evidence::EvidenceDiffstat{
      1, 1, 1, {{"CMakeLists.txt", "CMakeLists.txt", "modified", 1, 1, false}}};
  hints.notes = {"the parent's build is no longer in the build cache"};
  second.hints = hints;
  b.culprits = {first, second};
  e.bisect = b;
  e.warnings = {"a GPU slowed down during 2 runs (power cap); those runs were set aside"};
  return e;
}

evidence::Evidence malicious_sample() {
  auto e = bisect_sample();
  const std::string evil = "<script>alert(1)</script> | **x** \x1b[31m";
  auto& c = e.bisect->culprits[0];
  c.subject = evil;
  c.author = "Mallory <b>\x1b]0;owned\x07</b>";
  c.email = "m@x\">";
  c.files = {"evil|name.cu", "<img src=x onerror=alert(1)>.cu", "line\nbreak.cu", "`tick`.cu"};
  c.owners = {"@org/team", "<i>@x</i>"};
  c.hints->kernels[0].name = "k<script>|x";
  c.hints->symbols[0].name = "operator<<(std::ostream&, v const&) \x1b[2J";
  e.bisect->steps[4].note = "build failed: \x1b[31mred\x1b[0m | <b>";
  e.warnings.push_back("::error::injected\nsecond line %0A");
  e.host["cpu"] = "CPU \x1b]0;title\x07 <b>";
  e.command.push_back("$(rm -rf /)");
  e.command.push_back("it's \x1b[31m");
  e.revisions = {"v1.4 \x1b[2J", "HEAD\nforged line"};
  for (auto& m : e.measurements)
    if (m.case_name == k_sgemm)
      m.case_name = evil;
  for (auto& cmp : e.comparisons)
    cmp.case_name = evil;
  e.bisect->cases = {evil};
  c.cases[0].name = evil;
  e.bisect->culprits[1].cases[0].name = evil;
  return e;
}

evidence::Evidence run_sample() {
  auto e = compare_sample();
  e.kind = "run";
  e.status = "no_change";
  e.command = {"culprit", "run", "HEAD", "--json", "run.json"};
  e.revisions = {"HEAD"};
  e.comparisons.clear();
  std::erase_if(e.measurements, [](const evidence::EvidenceMeasurement& m) {
    return m.commit != sample_commit(40);
  });
  e.builds.erase(e.builds.begin());
  return e;
}

evidence::Evidence failed_sample() {
  auto e = base_evidence("compare", "failed");
  e.command = {"culprit", "compare", "v1.4", "HEAD"};
  e.builds = {{sample_commit(40), "2b7d90c3e1f4a5b6", false, 3.1, "failed", "", "/cache/logs/x.log",
               "the build command exited with status 1"}};
  e.warnings = {"the build of HEAD failed: the build command exited with status 1 (log: "
                "/cache/logs/x.log)"};
  return e;
}

evidence::Evidence track_sample() {
  auto e = base_evidence("track", "measured");
  e.command = {"culprit", "track", "v1.4..HEAD", "--every", "4", "--json", "track.json"};
  e.revisions = {"v1.4..HEAD"};
  e.executor = {{"kind", "slurm"},
                {"parallel", 2},
                {"retries", 0},
                {"jobs",
                 {{{"job_id", "4101"}, {"role", "measure"}, {"node", "gpu07"}},
                  {{"job_id", "4102"}, {"role", "measure"}, {"node", "gpu11"}}}}};
  for (const int i : {8, 12, 16, 20})
    e.builds.push_back({sample_commit(i), fmt::format("b{:02}", i), i != 16, 30.0,
                        i == 16 ? "failed" : "built", i == 16 ? "" : fmt::format("a{:02}", i),
                        "/cache/logs/b.log",
                        i == 16 ? "the build command exited with status 2" : ""});
  evidence::EvidenceTrack t;
  t.session = "track:2026-03-02T10:00:00.000001Z:4242";
  t.resumed = true;
  t.selected = 10;
  t.measured = 3;
  t.runs = 9;
  t.runs_made = 31;
  t.already_tracked = 6;
  t.failed_builds = 1;
  t.anchors_wanted = 1;
  t.anchors = {sample_commit(8)};
  t.noise = {{k_sgemm, "two speed states: 18% of samples 1.6x slower", 2, 4}};
  e.track = t;
  return e;
}

} // namespace culprit::testing
