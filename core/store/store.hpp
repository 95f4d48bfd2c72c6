#pragma once
// The results store: one SQLite file in the cache dir, or a PostgreSQL database a team shares
// (core/store/location.hpp), that remembers hosts, runs and samples across invocations, so that
// asking again for a measurement already made costs nothing.
//
// Measurements are keyed by artifact id (the content hash of a build's artifacts), not by commit:
// commits whose artifacts are byte-identical share their runs. Runs are further keyed by the
// recipe's run-part hash and the host id, and only runs of the same key are ever pooled.
//
// Concurrency: the file is in WAL mode with a busy timeout, so several culprit processes may read
// and write it at once; a writer waits for another rather than failing. On PostgreSQL, writers on
// several machines go side by side and a run's id comes from the server. Each run is recorded in
// one transaction with all its samples: it is in the store whole, or not at all.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/store/location.hpp"
#include "core/store/records.hpp"
#include "core/store/sql.hpp"
#include "core/util/error.hpp"

namespace culprit::store {

// The store's file name inside the cache dir.
inline constexpr std::string_view k_store_file_name = "results.sqlite3";
// The schema version this culprit writes, kept in PRAGMA user_version.
inline constexpr std::int64_t k_schema_version = 3;

struct StoreOptions {
  // How long a writer waits for another process's transaction before giving up.
  std::chrono::milliseconds busy_timeout{30'000};
};

class Store {
public:
  // Opens the store file, creating it and its directory if needed, and migrates an older schema
  // (an empty file counts as version 0). Refuses a file written by a newer culprit, and reports a
  // damaged file as ExitCode::infrastructure with what to do about it.
  static Result<Store> open(const std::filesystem::path& file, StoreOptions options = {});
  // The store of a cache dir: cache_dir / k_store_file_name.
  static Result<Store> open_in(const std::filesystem::path& cache_dir, StoreOptions options = {});
  // The store at `where`: the cache dir's file, or the PostgreSQL database of its URL (its tables
  // created or migrated under a lock, so that several processes may start at once).
  static Result<Store> open_at(const Location& where, StoreOptions options = {});
  // Whether open_at would refuse the store at `where` (of a newer culprit, of another program, of
  // a version no culprit writes), creating and changing nothing: a store not there yet passes.
  static Status check_at(const Location& where);

  // The SQLite file; empty for a store on PostgreSQL.
  [[nodiscard]] const std::filesystem::path& file() const { return m_db.file(); }
  // The store as messages name it: the file, or the URL without its password.
  [[nodiscard]] const std::string& name() const { return m_db.name(); }

  // Hosts. record_host inserts or updates: first_seen is kept from the first record, last_seen
  // and the fingerprint are replaced.
  Status record_host(const HostRecord& host);
  Result<std::optional<HostRecord>> find_host(std::string_view host_id);

  // Records one run and all its samples atomically; returns the run's id. The run's host must
  // have been recorded first. Samples must be finite.
  Result<std::int64_t> record_run(const RunRecord& run);
  // Records a batch of runs in one transaction: all of them, or none (a batch imported from a
  // cluster node is never half in the store).
  Result<std::vector<std::int64_t>> record_runs(std::span<const RunRecord> runs);

  // The samples of each counted run (ok, not warm-up) of one case and metric.
  Result<CaseRuns> counted_runs(const MeasurementKey& key, std::string_view case_name,
                                std::string_view metric, const Freshness& freshness = {});
  // The counted runs of every case from first_case to last_case (in the order of their names)
  // and each of its metrics, sorted by case and metric: one read where a history of many cases
  // would make one per case.
  Result<std::vector<CaseMetricRuns>> counted_runs_between(const MeasurementKey& key,
                                                           std::string_view first_case,
                                                           std::string_view last_case,
                                                           const Freshness& freshness = {});
  // Every case and metric that counted runs of the measurement reported, sorted by case, metric;
  // only the cases named in `only` when it is not empty (found by the samples' key, without
  // reading the other cases' samples).
  Result<std::vector<CaseMetric>> measured_cases(const MeasurementKey& key,
                                                 const Freshness& freshness = {},
                                                 std::span<const std::string> only = {});
  Result<RunCounts> count_runs(const MeasurementKey& key, const Freshness& freshness = {});
  // The blocks that counted runs of the measurement belong to, in the order of their first run.
  Result<std::vector<std::string>> counted_blocks(const MeasurementKey& key,
                                                  const Freshness& freshness = {});
  // Everything about one artifact, for evidence.
  Result<ArtifactRecord> artifact_record(std::string_view artifact_id,
                                         const Freshness& freshness = {});

  // The work of one call of a case and its axes, as the last run of the artifact under the run
  // recipe reported them (record_run keeps them); none when no run described the case.
  Result<std::optional<parsers::CaseInfo>> case_work(const MeasurementKey& key,
                                                     std::string_view case_name);
  // The device the last run of the measurement named (the culprit harness's header).
  Result<std::optional<parsers::DeviceInfo>> device(const MeasurementKey& key);

  // Peaks of a host's device (the roofline model), by scope: "cpu" or "cpu:0,1" for the CPU as
  // measured (on those CPUs), "gpu:NAME" for a GPU. save_peaks replaces.
  Status save_peaks(const PeakRecord& peaks);
  Result<std::optional<PeakRecord>> find_peaks(std::string_view host_id, std::string_view scope);

  // The connection, for what reads or writes whole tables (culprit store copy).
  [[nodiscard]] sql::Database& database() { return m_db; }

private:
  explicit Store(sql::Database db) : m_db(std::move(db)) {}
  Result<std::vector<RunRecord>> load_runs(std::string_view artifact_id,
                                           const Freshness& freshness);

  sql::Database m_db;
};

} // namespace culprit::store
