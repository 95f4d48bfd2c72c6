#pragma once
// `culprit store copy FROM TO`: a history moved between the cache dir's SQLite files and a
// PostgreSQL store, in either direction: hosts, runs with their samples, the roofline's inputs
// and peaks, and the ledger (tracked commits, sessions, imports, handled change points,
// regressions and their events).
//
// Idempotent: what the target holds already is left as it is (a run is known by its host,
// artifact, recipe, build, start time and wall time; other rows by their keys), so copying twice
// copies nothing the second time. Resumable: runs go over in batches, a transaction each, so an
// interrupted copy keeps the batches it finished and the same command goes on from there.
// Unfinished track sessions are not copied: they belong to the machine whose command stopped.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "core/store/location.hpp"
#include "core/util/error.hpp"

namespace culprit::history {

struct CopyCounts {
  std::int64_t runs_copied = 0;
  std::int64_t runs_present = 0; // already in the target
  std::int64_t rows_copied = 0;  // of the other tables
  std::int64_t rows_present = 0;
};

struct CopyOptions {
  int batch = 500; // runs a transaction
  // Called after each batch with the counts so far; returning false stops (an interrupt).
  std::function<bool(const CopyCounts&)> on_batch;
};

// Refuses, before it makes anything there, a target whose store or ledger the target's culprit
// would refuse (a newer culprit's, another program's, a damaged one). A regression the target
// holds already (by its id) keeps the target's record and events: the source's events of it are
// not copied (they count as there already).
Result<CopyCounts> copy_store(const store::Location& from, const store::Location& to,
                              const CopyOptions& options = {});

// The line that ends a copy: "copied 1 run and 37 other rows from A to B (0 runs and 0 rows were
// there already)", each count in the number it needs.
std::string copy_summary(const CopyCounts& counts, std::string_view from, std::string_view to);

} // namespace culprit::history
