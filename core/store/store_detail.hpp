#pragma once
// Between the store's source files; not part of its interface.

#include "core/store/records.hpp"
#include "core/store/sql.hpp"
#include "core/util/error.hpp"

namespace culprit::store {

// Keeps what a run said about its cases' work and its device (inside the run's transaction).
Status record_work(sql::Database& db, const RunRecord& run);

} // namespace culprit::store
