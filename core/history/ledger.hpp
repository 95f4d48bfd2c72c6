#pragma once
// The history ledger: which commits were tracked or imported on which host, in which sessions
// (one `culprit track` each) they were measured, which files were imported, and which change
// points triage has handled. One small SQLite file beside the results store (history.sqlite3 in
// the repository's cache dir), or tables beside the store's in a shared PostgreSQL database; the
// runs themselves stay in the store, under the artifact id and recipe hash that a tracked point
// names.
//
// The ledger is separate from the results store so that the store's schema and its migrations
// stay the measurement loop's alone; losing the ledger loses the list of tracked commits and the
// triage memory, never a run.
//
// Concurrency: WAL mode with a busy timeout, like the store; every write is one statement, but
// for a regression's, whose read and write are one serialized transaction.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/history/regressions.hpp"
#include "core/store/location.hpp"
#include "core/store/records.hpp"
#include "core/store/sql.hpp"
#include "core/util/error.hpp"

namespace culprit::history {

inline constexpr std::string_view k_ledger_file_name = "history.sqlite3";

// One session that measured a tracked commit: the label its runs carry in the store, the artifact
// it measured (a build that is not reproducible may give the same commit another one) and when
// it recorded the commit.
struct SessionMark {
  std::string id;
  std::string artifact_id;
  store::TimePoint at;
  friend bool operator==(const SessionMark&, const SessionMark&) = default;
};

// One commit's measurement on one host, as `culprit track` or `culprit import` left it.
struct TrackedPoint {
  std::string commit;
  std::string host_id;
  std::string recipe_hash;      // the runs' recipe hash; k_import_recipe for imports
  std::string artifact_id;      // the runs' artifact id; "import:<commit>" for imports
  std::string source;           // "track" or "import"
  std::string file;             // import: the name of the file imported last
  std::int64_t commit_time = 0; // committer time, seconds since the epoch: the series order
  store::TimePoint tracked_at;
  // The track sessions that measured the commit, oldest first (filled by Ledger::tracked; empty
  // for imports and for commits tracked before sessions were kept).
  std::vector<SessionMark> sessions;
};

// A change point that triage has dealt with, so that the next triage leaves it alone.
struct HandledChange {
  std::string host_id;
  std::string case_name;
  std::string metric;
  std::string before;  // the last measured commit of the old level
  std::string after;   // the first measured commit of the new level
  std::string outcome; // culprit_found | not_confirmed
  std::string culprit; // the commit named, when found
  store::TimePoint handled_at;
};

// What triage's last change-point search settled (core/history/search_window.hpp): for one scope
// (host, metric, cases and the search's settings), how many of the first tracked points need no
// search again, and their digest, so that the next search can keep what was found among them.
struct SearchMark {
  std::string scope;
  std::size_t points = 0;
  std::string digest;
  store::TimePoint searched_at;
};

class Ledger {
public:
  // Opens the ledger, creating it and its directory when missing. A file of another program or
  // of a newer culprit is an infrastructure error that says what to do.
  static Result<Ledger> open(const std::filesystem::path& file);
  static Result<Ledger> open_in(const std::filesystem::path& cache_dir);
  // The ledger at `where`: the cache dir's file, or the tables beside the store's on PostgreSQL.
  // A ledger whose version or tables are not those culprit writes (a table or column missing) is
  // refused as damaged, and left as it is.
  static Result<Ledger> open_at(const store::Location& where);
  // Whether open_at would refuse the ledger at `where` (of a newer culprit, of another program,
  // damaged), creating and changing nothing: a ledger not there yet passes.
  static Status check_at(const store::Location& where);

  // Inserts or updates (commit, host, recipe hash): the artifact, source, file and tracked_at
  // are replaced; the order of first insertion is kept for ties of commit_time.
  Status record_tracked(const TrackedPoint& point);
  // Every tracked point, by commit time and then by first insertion, with its sessions.
  Result<std::vector<TrackedPoint>> tracked();
  // That the commit of `point` (its host, recipe hash and artifact) was measured in `session`,
  // with its runs labelled so in the store.
  Status record_session(const TrackedPoint& point, std::string_view session);

  // Sessions that did not finish (an interrupted `culprit track`), by the command that started
  // them, so that the same command run again goes on in the same session: its runs count, and
  // no commit is measured twice over. `unfinished_session` gives the label of one started after
  // `started_after`; `begin_session` records one (keeping the start of one resumed);
  // `end_session` forgets it once the command finished.
  Result<std::optional<std::string>> unfinished_session(std::string_view command,
                                                        store::TimePoint started_after);
  Status begin_session(std::string_view command, std::string_view session);
  Status end_session(std::string_view command);

  // Imports are remembered by the hash of the file's contents, so that importing the same file
  // for the same commit and host twice adds no second run.
  Result<bool> was_imported(std::string_view commit, std::string_view host_id,
                            std::string_view content_hash);
  Status record_import(std::string_view commit, std::string_view host_id,
                       std::string_view content_hash, std::string_view file);

  Status record_handled(const HandledChange& change);
  Result<std::vector<HandledChange>> handled(std::string_view host_id);

  // The last search of `scope`, or none; record_search replaces it.
  Result<std::optional<SearchMark>> last_search(std::string_view scope);
  Status record_search(const SearchMark& mark);

  // Regressions (core/history/regressions.hpp). record_regression adds one that is not held yet
  // (in found.state, with an event by `who`) and returns true. For one it holds, it refreshes the
  // cases and last_seen and adds the evidence file; the state moves only as triage may move it
  // (new to confirmed, invalid or bisected; confirmed to bisected, which gives the record its
  // culprit, subject, author and owners), with an event, and a person's state stays. Returns
  // true when the record was added or bisected now.
  Result<bool> record_regression(const Regression& found, std::string_view who);
  // The record of `culprit` on `host_id`, whatever its id (one bisected from a record not
  // bisected keeps that record's id).
  Result<std::optional<Regression>> regression_of_culprit(std::string_view host_id,
                                                          std::string_view culprit);
  // Every regression (of one host when given), oldest first, with its events.
  Result<std::vector<Regression>> regressions(std::optional<std::string_view> host_id = {});
  Result<std::optional<Regression>> regression(std::string_view id);
  // Moves the regression `id` from `from` to `event.state`, with `event`; a usage error when it
  // is no longer in `from` (someone moved it meanwhile: look again).
  Status transition(std::string_view id, RegressionState from, const RegressionEvent& event);

  [[nodiscard]] const std::filesystem::path& file() const { return m_db.file(); }
  // The connection, for what reads or writes whole tables (culprit store copy).
  [[nodiscard]] store::sql::Database& database() { return m_db; }

private:
  explicit Ledger(store::sql::Database db) : m_db(std::move(db)) {}
  // The message for a ledger whose rows are not what culprit writes: what is wrong, and what to
  // do.
  [[nodiscard]] std::string damaged(std::string_view why) const;
  store::sql::Database m_db;
};

// The recipe hash under which imported runs are stored: they were made by someone else's
// command, so they never pool with runs of a recipe.
inline constexpr std::string_view k_import_recipe = "import";
std::string import_artifact_id(std::string_view commit);

} // namespace culprit::history
