#pragma once
// What only the SQLite backend of core/store/sql.hpp has: its raw handle, for the result codes
// that tell a migration's SQL error from a damaged file.

#include "core/store/sql.hpp"

struct sqlite3;

namespace culprit::store::sql {

// The connection's SQLite handle; null when the database is not SQLite.
sqlite3* sqlite_handle(const Database& db);

} // namespace culprit::store::sql
