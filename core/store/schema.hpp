#pragma once
// The store's schema and its migrations. The version is PRAGMA user_version; PRAGMA
// application_id marks the file as culprit's, so that another program's database is refused
// rather than altered.

#include <chrono>
#include <cstdint>

#include "core/store/sqlite.hpp"
#include "core/util/error.hpp"

namespace culprit::store {

inline constexpr std::int64_t k_application_id = 0x43554c50; // "CULP"

// Sets the connection's pragmas (busy timeout, foreign keys, WAL journal, synchronous=NORMAL),
// then brings the schema up to `target_version`, each migration in one transaction. Refuses a
// file whose version is newer than target_version or that belongs to another program.
Status prepare_schema(sqlite::Database& db, std::chrono::milliseconds busy_timeout,
                      std::int64_t target_version);

} // namespace culprit::store
