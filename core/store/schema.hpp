#pragma once
// The store's schema and its migrations. In a SQLite file the version is PRAGMA user_version, and
// PRAGMA application_id marks the file as culprit's, so that another program's database is refused
// rather than altered. On PostgreSQL the culprit_schema table keeps the version of each part
// (the store's tables, the ledger's) and marks the database as culprit's.

#include <chrono>
#include <cstdint>
#include <span>
#include <string_view>

#include "core/store/sql.hpp"
#include "core/util/error.hpp"

namespace culprit::store {

inline constexpr std::int64_t k_application_id = 0x43554c50; // "CULP"

// Sets the connection's pragmas (busy timeout, foreign keys, WAL journal, synchronous=NORMAL),
// then brings the schema up to `target_version`, each migration in one transaction. Refuses a
// file whose version is newer than target_version or that belongs to another program.
// One part of culprit's tables in a PostgreSQL database ("store", "ledger"), whose version is kept
// in the culprit_schema table (which also marks the database as culprit's).
struct PostgresComponent {
  std::string_view name;
  std::string_view description; // "results store", "history ledger"
  std::int64_t version = 0;
  // The tables of version `version - upgrades.size()`, created into an empty database; then
  // upgrades[i] takes that version + i to the next, in a new database as in an older one.
  std::string_view create;
  std::span<const std::string_view> upgrades;
};

// Creates the component's tables when missing, under the advisory lock of a serialized
// transaction, so that processes starting at once take turns, and takes an older version up by
// its upgrades in that transaction. Refuses a database that holds tables but no culprit_schema
// (another application's), a component of a newer culprit, and a version it has no upgrade for.
Status prepare_postgres_component(sql::Database& db, const PostgresComponent& component);
// The refusals of prepare_postgres_component, made without changing anything: the component's
// version, 0 when the database holds none.
Result<std::int64_t> check_postgres_component(sql::Database& db,
                                              const PostgresComponent& component);

// The refusals of prepare_schema (a store of a newer culprit, of another program, of a version no
// culprit writes), made without changing anything.
Status check_schema(sql::Database& db, std::int64_t target_version);

Status prepare_schema(sql::Database& db, std::chrono::milliseconds busy_timeout,
                      std::int64_t target_version);

} // namespace culprit::store
