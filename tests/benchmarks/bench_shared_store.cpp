// The shared store against the embedded one: runs recorded per second by 1, 4 and 8 processes
// writing at once (one transaction per run, as the measurement loop records them), and the time
// of the query a history makes of one measurement, on SQLite in a temporary cache dir and on a
// throwaway PostgreSQL server on loopback (tests/support/postgres_server.hpp).
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/store/store.hpp"
#include "tests/support/postgres_server.hpp"
#include "tests/support/temp_dir.hpp"

namespace {

using namespace culprit::store;
using Seconds = std::chrono::duration<double>;

constexpr int k_runs_per_writer = 400;
constexpr int k_cases = 20;
constexpr int k_samples_per_case = 5;
constexpr int k_queries = 50;

MeasurementKey key_of(int writer) {
  return {"artifact", "recipe", fmt::format("host-{}", writer)};
}

RunRecord make_run(const MeasurementKey& key, int index, std::mt19937_64& random) {
  std::normal_distribution<double> noise(1e-3, 1e-5);
  RunRecord run;
  run.artifact_id = key.artifact_id;
  run.build_key = "build";
  run.commit_id = "commit";
  run.recipe_hash = key.recipe_hash;
  run.host_id = key.host_id;
  run.started = now() + std::chrono::microseconds(index);
  run.wall_seconds = 0.5;
  run.session = "bench";
  for (int c = 0; c < k_cases; ++c) {
    culprit::parsers::CaseSamples samples{fmt::format("case-{:02}", c),
                                          "time",
                                          "s",
                                          culprit::parsers::Direction::lower_is_better,
                                          {}};
    for (int i = 0; i < k_samples_per_case; ++i)
      samples.values.push_back(noise(random));
    run.samples.push_back(std::move(samples));
  }
  return run;
}

// In a child process: opens the store and records its runs.
int write(const Location& where, int writer) {
  auto store = Store::open_at(where);
  if (!store) {
    fmt::print(stderr, "writer {}: {}\n", writer, store.error().message);
    return 1;
  }
  const auto key = key_of(writer);
  if (!store->record_host({key.host_id, "{}", now(), now()}))
    return 1;
  std::mt19937_64 random(static_cast<std::uint64_t>(writer));
  for (int i = 0; i < k_runs_per_writer; ++i)
    if (auto recorded = store->record_run(make_run(key, i, random)); !recorded) {
      fmt::print(stderr, "writer {}: {}\n", writer, recorded.error().message);
      return 1;
    }
  return 0;
}

// Runs recorded per second by `writers` processes at once, all started together.
double runs_per_second(const Location& where, int writers) {
  // The schema first, so that the figure is of recording alone.
  if (!Store::open_at(where))
    return 0;
  const auto start = std::chrono::steady_clock::now();
  std::vector<pid_t> children;
  for (int writer = 0; writer < writers; ++writer) {
    const pid_t child = fork();
    if (child == 0)
      _exit(write(where, writer));
    children.push_back(child);
  }
  bool ok = true;
  for (const auto child : children) {
    int status = 0;
    waitpid(child, &status, 0);
    ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  const double seconds = Seconds(std::chrono::steady_clock::now() - start).count();
  return ok ? writers * k_runs_per_writer / seconds : 0;
}

// Milliseconds of one read of every case of one measurement (what `history` asks per point).
double query_ms(const Location& where) {
  auto store = Store::open_at(where);
  if (!store)
    return 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < k_queries; ++i)
    if (!store->counted_runs_between(key_of(0), "case-00", "case-99"))
      return 0;
  return 1e3 * Seconds(std::chrono::steady_clock::now() - start).count() / k_queries;
}

} // namespace

int main() {
  std::string why_not;
  auto* server = culprit::testing::PostgresServer::shared(&why_not);
  if (server == nullptr) {
    fmt::print(stderr, "bench_shared_store: no PostgreSQL server: {}\n", why_not);
    return 1;
  }
  fmt::print("{} runs a writer, {} cases x {} samples a run; one transaction a run\n",
             k_runs_per_writer, k_cases, k_samples_per_case);
  fmt::print("{:<12} {:>8} {:>14} {:>16}\n", "store", "writers", "runs/s", "history ms");
  for (const bool shared : {false, true}) {
    for (const int writers : {1, 4, 8}) {
      culprit::testing::TempDir dir("culprit-bench-shared");
      Location where{.cache_dir = dir.path(), .url = {}};
      if (shared) {
        auto url = server->fresh_database();
        if (!url) {
          fmt::print(stderr, "bench_shared_store: {}\n", url.error().message);
          return 1;
        }
        where.url = *url;
      }
      const double rate = runs_per_second(where, writers);
      const double ms = query_ms(where);
      if (rate == 0 || ms == 0) {
        fmt::print(stderr, "bench_shared_store: a writer or the query failed\n");
        return 1;
      }
      fmt::print("{:<12} {:>8} {:>14.0f} {:>16.2f}\n", shared ? "PostgreSQL" : "SQLite", writers,
                 rate, ms);
      std::fflush(stdout);
    }
  }
  return 0;
}
