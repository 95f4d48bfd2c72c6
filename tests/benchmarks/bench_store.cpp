// The results store's speed: recording runs (one transaction each, as the measurement loop does)
// and the query the measurement loop makes after every batch.
#include <chrono>
#include <cstdio>
#include <random>

#include <fmt/format.h>

#include "core/store/store.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using namespace culprit::store;
using Seconds = std::chrono::duration<double>;

constexpr int k_runs = 10'000;
constexpr int k_samples_per_run = 10;
constexpr int k_artifacts = 100;
constexpr int k_cases = 5;
constexpr int k_queries = 1'000;

RunRecord make_run(int index, std::mt19937_64& random) {
  std::normal_distribution<double> noise(1e-3, 1e-5);
  RunRecord run;
  run.artifact_id = fmt::format("artifact-{:03}", index % k_artifacts);
  run.build_key = "build-" + run.artifact_id;
  run.commit_id = "commit-" + run.artifact_id;
  run.recipe_hash = "recipe";
  run.host_id = "host";
  run.started = now();
  run.wall_seconds = 0.5;
  run.session = "bench";
  // Each run reports k_samples_per_run samples, spread over k_cases cases.
  for (int c = 0; c < k_cases; ++c) {
    culprit::parsers::CaseSamples samples{
        fmt::format("case-{}", c), "time", "s", culprit::parsers::Direction::lower_is_better, {}};
    for (int i = 0; i < k_samples_per_run / k_cases; ++i)
      samples.values.push_back(noise(random));
    run.samples.push_back(std::move(samples));
  }
  return run;
}

template <class F> double time_it(F&& body) {
  const auto start = std::chrono::steady_clock::now();
  body();
  return Seconds(std::chrono::steady_clock::now() - start).count();
}

int fail(const culprit::Error& error) {
  fmt::print(stderr, "bench_store: {}\n", error.message);
  return 1;
}

} // namespace

int main() {
  culprit::testing::TempDir dir("culprit-bench-store");
  auto store = Store::open_in(dir.path());
  if (!store)
    return fail(store.error());
  if (auto recorded = store->record_host({"host", "{}", now(), now()}); !recorded)
    return fail(recorded.error());

  std::mt19937_64 random(1);
  std::vector<RunRecord> runs;
  runs.reserve(k_runs);
  for (int i = 0; i < k_runs; ++i)
    runs.push_back(make_run(i, random));

  std::optional<culprit::Error> error;
  const double insert_seconds = time_it([&] {
    for (const auto& run : runs)
      if (auto id = store->record_run(run); !id && !error)
        error = id.error();
  });
  if (error)
    return fail(*error);
  fmt::print("record_run: {} runs of {} samples in {:.2f} s: {:.0f} runs/s ({:.0f} samples/s)\n",
             k_runs, k_samples_per_run, insert_seconds, k_runs / insert_seconds,
             k_runs * k_samples_per_run / insert_seconds);

  std::size_t seen = 0;
  const double query_seconds = time_it([&] {
    for (int q = 0; q < k_queries; ++q) {
      const MeasurementKey key{fmt::format("artifact-{:03}", q % k_artifacts), "recipe", "host"};
      auto found = store->counted_runs(key, fmt::format("case-{}", q % k_cases), "time");
      if (!found && !error)
        error = found.error();
      else if (found)
        seen += found->samples.size();
    }
  });
  if (error)
    return fail(*error);
  fmt::print("counted_runs: one case of one artifact among {} ({} runs each): {:.1f} us/query "
             "({} queries, {} runs read)\n",
             k_artifacts, k_runs / k_artifacts, 1e6 * query_seconds / k_queries, k_queries, seen);

  const double cases_seconds = time_it([&] {
    for (int q = 0; q < k_queries; ++q) {
      const MeasurementKey key{fmt::format("artifact-{:03}", q % k_artifacts), "recipe", "host"};
      if (auto cases = store->measured_cases(key); !cases && !error)
        error = cases.error();
    }
  });
  const double artifact_seconds = time_it([&] {
    for (int q = 0; q < k_artifacts; ++q)
      if (auto record = store->artifact_record(fmt::format("artifact-{:03}", q)); !record && !error)
        error = record.error();
  });
  if (error)
    return fail(*error);
  fmt::print("measured_cases: {:.1f} us/query; artifact_record: {:.2f} ms/artifact\n",
             1e6 * cases_seconds / k_queries, 1e3 * artifact_seconds / k_artifacts);
  std::uintmax_t bytes = 0;
  for (const auto* suffix : {"", "-wal"}) {
    std::error_code ignored;
    const auto size = std::filesystem::file_size(store->file().string() + suffix, ignored);
    bytes += ignored ? 0 : size;
  }
  fmt::print("store file with its WAL: {:.1f} MiB for {} samples\n",
             static_cast<double>(bytes) / (1 << 20), k_runs * k_samples_per_run);
  return 0;
}
