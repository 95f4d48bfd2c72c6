#include "core/store/store.hpp"

#include <filesystem>
#include <optional>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "core/util/error.hpp"
#include "core/store/records.hpp"
#include "core/store/schema.hpp"
#include "core/store/sqlite.hpp"

namespace culprit::store {
namespace {

constexpr std::string_view k_build_columns =
    "build_key, commit_id, tree_id, ok, seconds, log_path, artifact_id, created";

BuildRecord read_build(const sqlite::Statement& row) {
  BuildRecord build;
  build.build_key = row.column_text(0);
  build.commit_id = row.column_text(1);
  build.tree_id = row.column_text(2);
  build.ok = row.column_bool(3);
  build.seconds = row.column_double(4);
  build.log_path = row.column_text(5);
  build.artifact_id = row.column_optional_text(6);
  build.created = from_micros(row.column_int64(7));
  return build;
}

Result<std::vector<BuildRecord>> read_builds(sqlite::Statement& statement) {
  std::vector<BuildRecord> builds;
  for (;;) {
    CULPRIT_TRY_ASSIGN(const bool has_row, statement.step());
    if (!has_row)
      return builds;
    builds.push_back(read_build(statement));
  }
}

} // namespace

Result<Store> Store::open(const std::filesystem::path& file, StoreOptions options) {
  if (file.has_parent_path()) {
    std::error_code error;
    std::filesystem::create_directories(file.parent_path(), error);
    if (error)
      return infra_error("cannot create the directory {} for the results store: {}; check its "
                         "permissions or choose another --cache-dir",
                         file.parent_path().string(), error.message());
  }
  CULPRIT_TRY_ASSIGN(auto db, sqlite::Database::open(file));
  CULPRIT_TRY(prepare_schema(db, options.busy_timeout, k_schema_version));
  return Store(std::move(db));
}

Result<Store> Store::open_in(const std::filesystem::path& cache_dir, StoreOptions options) {
  return open(cache_dir / k_store_file_name, options);
}

Status Store::record_host(const HostRecord& host) {
  CULPRIT_TRY_ASSIGN(auto statement,
                     m_db.prepare("INSERT INTO hosts (host_id, fingerprint, first_seen, last_seen) "
                                  "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (host_id) DO UPDATE SET "
                                  "fingerprint = excluded.fingerprint, "
                                  "last_seen = max(last_seen, excluded.last_seen)"));
  statement.bind_all(host.host_id, host.fingerprint, to_micros(host.first_seen),
                     to_micros(host.last_seen));
  return statement.run();
}

Result<std::optional<HostRecord>> Store::find_host(std::string_view host_id) {
  CULPRIT_TRY_ASSIGN(auto statement,
                     m_db.prepare("SELECT host_id, fingerprint, first_seen, last_seen FROM hosts "
                                  "WHERE host_id = ?1"));
  statement.bind(1, host_id);
  CULPRIT_TRY_ASSIGN(const bool has_row, statement.step());
  if (!has_row)
    return std::nullopt;
  return HostRecord{.host_id = statement.column_text(0),
                    .fingerprint = statement.column_text(1),
                    .first_seen = from_micros(statement.column_int64(2)),
                    .last_seen = from_micros(statement.column_int64(3))};
}

Status Store::record_build(const BuildRecord& build) {
  if (build.ok != build.artifact_id.has_value())
    return infra_error("internal error: build {} is {} but {} an artifact id", build.build_key,
                       build.ok ? "ok" : "failed", build.ok ? "lacks" : "has");
  CULPRIT_TRY_ASSIGN(auto statement,
                     m_db.prepare(fmt::format("INSERT OR REPLACE INTO builds ({}) VALUES (?1, ?2, "
                                              "?3, ?4, ?5, ?6, ?7, ?8)",
                                              k_build_columns)));
  statement.bind_all(build.build_key, build.commit_id, build.tree_id, build.ok, build.seconds,
                     build.log_path, build.artifact_id, to_micros(build.created));
  return statement.run();
}

Result<std::optional<BuildRecord>> Store::find_build(std::string_view build_key) {
  CULPRIT_TRY_ASSIGN(
      auto statement,
      m_db.prepare(fmt::format("SELECT {} FROM builds WHERE build_key = ?1", k_build_columns)));
  statement.bind(1, build_key);
  CULPRIT_TRY_ASSIGN(const bool has_row, statement.step());
  if (!has_row)
    return std::nullopt;
  return read_build(statement);
}

Result<std::vector<BuildRecord>> Store::failed_builds() {
  CULPRIT_TRY_ASSIGN(
      auto statement,
      m_db.prepare(fmt::format("SELECT {} FROM builds WHERE ok = 0 ORDER BY created, build_key",
                               k_build_columns)));
  return read_builds(statement);
}

Result<bool> Store::forget_failed_build(std::string_view build_key) {
  CULPRIT_TRY_ASSIGN(auto statement,
                     m_db.prepare("DELETE FROM builds WHERE build_key = ?1 AND ok = 0"));
  statement.bind(1, build_key);
  CULPRIT_TRY(statement.run());
  return m_db.changes() > 0;
}

Result<ArtifactRecord> Store::artifact_record(std::string_view artifact_id,
                                              const Freshness& freshness) {
  ArtifactRecord record;
  record.artifact_id = artifact_id;
  // One read transaction, so that builds and runs come from the same snapshot.
  CULPRIT_TRY_ASSIGN(auto snapshot,
                     sqlite::Transaction::begin(m_db, sqlite::Transaction::Kind::deferred));
  CULPRIT_TRY_ASSIGN(auto statement,
                     m_db.prepare(fmt::format(
                         "SELECT {} FROM builds WHERE artifact_id = ?1 ORDER BY created, build_key",
                         k_build_columns)));
  statement.bind(1, artifact_id);
  CULPRIT_TRY_ASSIGN(record.builds, read_builds(statement));
  CULPRIT_TRY_ASSIGN(record.runs, load_runs(artifact_id, freshness));
  CULPRIT_TRY(snapshot.commit());
  return record;
}

} // namespace culprit::store
