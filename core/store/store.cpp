#include "core/store/store.hpp"

#include <filesystem>
#include <optional>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "core/store/location.hpp"
#include "core/store/records.hpp"
#include "core/store/schema.hpp"
#include "core/store/sql.hpp"
#include "core/util/error.hpp"

namespace culprit::store {
Result<Store> Store::open(const std::filesystem::path& file, StoreOptions options) {
  if (file.has_parent_path()) {
    std::error_code error;
    std::filesystem::create_directories(file.parent_path(), error);
    if (error)
      return infra_error("cannot create the directory {} for the results store: {}; check its "
                         "permissions or choose another --cache-dir",
                         file.parent_path().string(), error.message());
  }
  CULPRIT_TRY_ASSIGN(auto db, sql::Database::open_sqlite(file));
  CULPRIT_TRY(prepare_schema(db, options.busy_timeout, k_schema_version));
  return Store(std::move(db));
}

Result<Store> Store::open_in(const std::filesystem::path& cache_dir, StoreOptions options) {
  return open(cache_dir / k_store_file_name, options);
}

Result<Store> Store::open_at(const Location& where, StoreOptions options) {
  if (!where.shared())
    return open_in(where.cache_dir, options);
  CULPRIT_TRY_ASSIGN(auto db, sql::Database::open_postgres(where.url));
  CULPRIT_TRY(prepare_schema(db, options.busy_timeout, k_schema_version));
  return Store(std::move(db));
}

Status Store::check_at(const Location& where) {
  if (!where.shared()) {
    const auto file = where.cache_dir / k_store_file_name;
    std::error_code error;
    if (!std::filesystem::exists(file, error))
      return {};
    CULPRIT_TRY_ASSIGN(auto db, sql::Database::open_sqlite(file));
    return check_schema(db, k_schema_version);
  }
  CULPRIT_TRY_ASSIGN(auto db, sql::Database::open_postgres(where.url));
  return check_schema(db, k_schema_version);
}

Status Store::record_host(const HostRecord& host) {
  CULPRIT_TRY_ASSIGN(auto statement,
                     m_db.prepare("INSERT INTO hosts (host_id, fingerprint, first_seen, last_seen) "
                                  "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (host_id) DO UPDATE SET "
                                  "fingerprint = excluded.fingerprint, "
                                  "last_seen = CASE WHEN hosts.last_seen > excluded.last_seen "
                                  "THEN hosts.last_seen ELSE excluded.last_seen END"));
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

Result<ArtifactRecord> Store::artifact_record(std::string_view artifact_id,
                                              const Freshness& freshness) {
  ArtifactRecord record;
  record.artifact_id = artifact_id;
  CULPRIT_TRY_ASSIGN(record.runs, load_runs(artifact_id, freshness));
  return record;
}

} // namespace culprit::store
