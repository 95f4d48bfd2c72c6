// The history ledger: its schema and versions, tracked points, sessions, imports and handled
// change points. Its regressions are in ledger_regressions.cpp.
#include "core/history/ledger.hpp"

#include "core/store/schema.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <system_error>
#include <tuple>
#include <utility>

#include <fmt/core.h>

namespace culprit::history {
namespace {

constexpr std::int64_t k_ledger_application_id = 0x43554c48; // "CULH"
// Version 2 added the sessions table; a version 1 ledger gains it when opened, and its points
// keep no session (their runs carry no label either). Version 3 added unfinished_sessions,
// version 4 regressions and their events.
// 5: regressions not bisected yet (states new, confirmed, invalid) and their range of commits.
// 6: searches, what triage's last change-point search covered.
constexpr std::int64_t k_ledger_version = 6;

constexpr std::string_view k_schema = R"sql(
CREATE TABLE IF NOT EXISTS tracked (
  commit_id   TEXT NOT NULL,
  host_id     TEXT NOT NULL,
  recipe_hash TEXT NOT NULL,
  artifact_id TEXT NOT NULL,
  source      TEXT NOT NULL CHECK (source IN ('track', 'import')),
  file        TEXT NOT NULL,
  commit_time INTEGER NOT NULL,
  tracked_at  INTEGER NOT NULL,
  UNIQUE (commit_id, host_id, recipe_hash)
);
CREATE TABLE IF NOT EXISTS sessions (
  commit_id   TEXT NOT NULL,
  host_id     TEXT NOT NULL,
  recipe_hash TEXT NOT NULL,
  session     TEXT NOT NULL,
  artifact_id TEXT NOT NULL,
  measured_at INTEGER NOT NULL,
  PRIMARY KEY (commit_id, host_id, recipe_hash, session)
);
CREATE TABLE IF NOT EXISTS unfinished_sessions (
  command    TEXT PRIMARY KEY,
  session    TEXT NOT NULL,
  started_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS imports (
  commit_id    TEXT NOT NULL,
  host_id      TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  file         TEXT NOT NULL,
  imported_at  INTEGER NOT NULL,
  PRIMARY KEY (commit_id, host_id, content_hash)
);
CREATE TABLE IF NOT EXISTS handled (
  host_id    TEXT NOT NULL,
  case_name  TEXT NOT NULL,
  metric     TEXT NOT NULL,
  before_id  TEXT NOT NULL,
  after_id   TEXT NOT NULL,
  outcome    TEXT NOT NULL,
  culprit    TEXT NOT NULL,
  handled_at INTEGER NOT NULL,
  PRIMARY KEY (host_id, case_name, metric, before_id, after_id)
);
CREATE TABLE IF NOT EXISTS regressions (
  id         TEXT PRIMARY KEY,
  host_id    TEXT NOT NULL,
  culprit    TEXT NOT NULL,
  subject    TEXT NOT NULL,
  author     TEXT NOT NULL,
  state      TEXT NOT NULL,
  cases      TEXT NOT NULL,
  owners     TEXT NOT NULL,
  evidence   TEXT NOT NULL,
  first_seen INTEGER NOT NULL,
  last_seen  INTEGER NOT NULL,
  fixed_by   TEXT NOT NULL,
  range_before TEXT NOT NULL DEFAULT '',
  range_after  TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS regression_events (
  regression TEXT NOT NULL,
  at         INTEGER NOT NULL,
  state      TEXT NOT NULL,
  who        TEXT NOT NULL,
  note       TEXT NOT NULL,
  commit_id  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS searches (
  scope       TEXT PRIMARY KEY,
  points      INTEGER NOT NULL,
  digest      TEXT NOT NULL,
  searched_at INTEGER NOT NULL
);
)sql";

// The ledger on PostgreSQL, made at version 5: the server's types, and a rowid of each table that
// keeps the order of insertion, as SQLite's implicit one does. k_postgres_upgrades take it on.
constexpr std::string_view k_postgres_schema = R"sql(
CREATE TABLE tracked (
  rowid       BIGINT GENERATED ALWAYS AS IDENTITY,
  commit_id   TEXT COLLATE "C" NOT NULL,
  host_id     TEXT COLLATE "C" NOT NULL,
  recipe_hash TEXT COLLATE "C" NOT NULL,
  artifact_id TEXT NOT NULL,
  source      TEXT NOT NULL CHECK (source IN ('track', 'import')),
  file        TEXT NOT NULL,
  commit_time BIGINT NOT NULL,
  tracked_at  BIGINT NOT NULL,
  UNIQUE (commit_id, host_id, recipe_hash)
);
CREATE TABLE sessions (
  rowid       BIGINT GENERATED ALWAYS AS IDENTITY,
  commit_id   TEXT COLLATE "C" NOT NULL,
  host_id     TEXT COLLATE "C" NOT NULL,
  recipe_hash TEXT COLLATE "C" NOT NULL,
  session     TEXT COLLATE "C" NOT NULL,
  artifact_id TEXT NOT NULL,
  measured_at BIGINT NOT NULL,
  PRIMARY KEY (commit_id, host_id, recipe_hash, session)
);
CREATE TABLE unfinished_sessions (
  command    TEXT PRIMARY KEY,
  session    TEXT NOT NULL,
  started_at BIGINT NOT NULL
);
CREATE TABLE imports (
  commit_id    TEXT COLLATE "C" NOT NULL,
  host_id      TEXT COLLATE "C" NOT NULL,
  content_hash TEXT COLLATE "C" NOT NULL,
  file         TEXT NOT NULL,
  imported_at  BIGINT NOT NULL,
  PRIMARY KEY (commit_id, host_id, content_hash)
);
CREATE TABLE handled (
  rowid      BIGINT GENERATED ALWAYS AS IDENTITY,
  host_id    TEXT COLLATE "C" NOT NULL,
  case_name  TEXT COLLATE "C" NOT NULL,
  metric     TEXT COLLATE "C" NOT NULL,
  before_id  TEXT COLLATE "C" NOT NULL,
  after_id   TEXT COLLATE "C" NOT NULL,
  outcome    TEXT NOT NULL,
  culprit    TEXT NOT NULL,
  handled_at BIGINT NOT NULL,
  PRIMARY KEY (host_id, case_name, metric, before_id, after_id)
);
CREATE TABLE regressions (
  rowid      BIGINT GENERATED ALWAYS AS IDENTITY,
  id         TEXT COLLATE "C" PRIMARY KEY,
  host_id    TEXT COLLATE "C" NOT NULL,
  culprit    TEXT COLLATE "C" NOT NULL,
  subject    TEXT NOT NULL,
  author     TEXT NOT NULL,
  state      TEXT NOT NULL,
  cases      TEXT NOT NULL,
  owners     TEXT NOT NULL,
  evidence   TEXT NOT NULL,
  first_seen BIGINT NOT NULL,
  last_seen  BIGINT NOT NULL,
  fixed_by   TEXT NOT NULL,
  range_before TEXT NOT NULL DEFAULT '',
  range_after  TEXT NOT NULL DEFAULT ''
);
CREATE TABLE regression_events (
  rowid      BIGINT GENERATED ALWAYS AS IDENTITY,
  regression TEXT COLLATE "C" NOT NULL,
  at         BIGINT NOT NULL,
  state      TEXT NOT NULL,
  who        TEXT NOT NULL,
  note       TEXT NOT NULL,
  commit_id  TEXT NOT NULL
);
CREATE INDEX regression_events_by_regression ON regression_events (regression);
)sql";

// k_postgres_upgrades[i] takes version 5 + i to the next.
constexpr std::array<std::string_view, 1> k_postgres_upgrades = {R"sql(
CREATE TABLE searches (
  scope       TEXT COLLATE "C" PRIMARY KEY,
  points      BIGINT NOT NULL,
  digest      TEXT NOT NULL,
  searched_at BIGINT NOT NULL
);
)sql"};

// The ledger's tables and the columns each holds (but for regressions' range, which came with
// version 5).
struct LedgerTable {
  std::string_view name;
  std::int64_t since; // the ledger version that added the table
  std::vector<std::string_view> columns;
};

const std::vector<LedgerTable>& ledger_schema_tables() {
  static const std::vector<LedgerTable> tables = {
      {"tracked",
       1,
       {"commit_id", "host_id", "recipe_hash", "artifact_id", "source", "file", "commit_time",
        "tracked_at"}},
      {"imports", 1, {"commit_id", "host_id", "content_hash", "file", "imported_at"}},
      {"handled",
       1,
       {"host_id", "case_name", "metric", "before_id", "after_id", "outcome", "culprit",
        "handled_at"}},
      {"sessions",
       2,
       {"commit_id", "host_id", "recipe_hash", "session", "artifact_id", "measured_at"}},
      {"unfinished_sessions", 3, {"command", "session", "started_at"}},
      {"regressions",
       4,
       {"id", "host_id", "culprit", "subject", "author", "state", "cases", "owners", "evidence",
        "first_seen", "last_seen", "fixed_by", "range_before", "range_after"}},
      {"regression_events", 4, {"regression", "at", "state", "who", "note", "commit_id"}},
      {"searches", 6, {"scope", "points", "digest", "searched_at"}},
  };
  return tables;
}

// Every table of the database and its columns.
Result<std::map<std::string, std::set<std::string>, std::less<>>>
columns_held(store::sql::Database& db) {
  CULPRIT_TRY_ASSIGN(auto query,
                     db.prepare(db.dialect() == store::sql::Dialect::sqlite
                                    ? "SELECT m.name, p.name FROM sqlite_master AS m, "
                                      "pragma_table_info(m.name) AS p WHERE m.type = 'table'"
                                    : "SELECT table_name, column_name FROM "
                                      "information_schema.columns WHERE table_schema = "
                                      "current_schema()"));
  std::map<std::string, std::set<std::string>, std::less<>> held;
  for (;;) {
    CULPRIT_TRY_ASSIGN(const bool has_row, query.step());
    if (!has_row)
      return held;
    held[query.column_text(0)].insert(query.column_text(1));
  }
}

// What to do about a ledger whose tables or rows are not what culprit writes.
std::unexpected<Error> refuse_damaged_ledger(const store::sql::Database& db, std::string_view why) {
  if (db.dialect() == store::sql::Dialect::sqlite)
    return infra_error("the history ledger {0} is damaged ({1}); move it away (mv {0} {0}.bad) "
                       "and culprit starts a new one (the runs stay in the results store)",
                       db.name(), why);
  return infra_error("the history ledger in {} is damaged ({}); restore its tables from a backup "
                     "(the runs, in the results store's tables, are untouched)",
                     db.name(), why);
}

// Refuses a ledger whose tables are not those of `version`: a table lacks a column, or the ledger
// lacks a table its version has (dropped by hand, or a file put together from pieces), which
// making the schema would otherwise bring back empty. An older ledger gains the tables of later
// versions when it is opened.
Status check_tables(store::sql::Database& db, std::int64_t version) {
  CULPRIT_TRY_ASSIGN(const auto held, columns_held(db));
  for (const auto& table : ledger_schema_tables()) {
    const auto it = held.find(table.name);
    if (it == held.end()) {
      if (version >= table.since)
        return refuse_damaged_ledger(db, fmt::format("its table {} is missing", table.name));
      continue;
    }
    for (const auto column : table.columns) {
      if (version < 5 && column.starts_with("range_"))
        continue;
      if (!it->second.contains(std::string(column)))
        return refuse_damaged_ledger(
            db, fmt::format("its table {} has no column {}", table.name, column));
    }
  }
  return {};
}

// Refuses a SQLite ledger of a version no culprit writes, of a newer culprit, or of another
// program.
Status check_header(const store::sql::Database& db, std::int64_t version,
                    std::int64_t application_id) {
  if (version < 0)
    return refuse_damaged_ledger(
        db, fmt::format("its version is {}, which no culprit writes", version));
  if (version > k_ledger_version)
    return infra_error("the history ledger {} was written by a newer culprit (version {}); "
                       "upgrade culprit, or choose another --cache-dir",
                       db.name(), version);
  if (application_id != 0 && application_id != k_ledger_application_id)
    return infra_error("{} is not a culprit history ledger; move it away or choose another "
                       "--cache-dir",
                       db.name());
  return {};
}

Result<std::int64_t> checked_sqlite_version(store::sql::Database& db) {
  CULPRIT_TRY_ASSIGN(const auto version, db.pragma_integer("user_version"));
  CULPRIT_TRY_ASSIGN(const auto application_id, db.pragma_integer("application_id"));
  CULPRIT_TRY(check_header(db, version, application_id));
  return version;
}

constexpr store::PostgresComponent k_postgres_ledger{.name = "ledger",
                                                     .description = "history ledger",
                                                     .version = k_ledger_version,
                                                     .create = k_postgres_schema,
                                                     .upgrades = k_postgres_upgrades};

Status prepare(store::sql::Database& db) {
  if (db.dialect() == store::sql::Dialect::postgres) {
    // Checked before the upgrade, which would otherwise be committed before the refusal: the
    // tables an older ledger holds do not change under an upgrade of another process.
    CULPRIT_TRY_ASSIGN(const auto version, store::check_postgres_component(db, k_postgres_ledger));
    if (version != 0)
      CULPRIT_TRY(check_tables(db, version));
    CULPRIT_TRY(store::prepare_postgres_component(db, k_postgres_ledger));
    return check_tables(db, k_ledger_version);
  }
  CULPRIT_TRY(db.execute("PRAGMA busy_timeout = 30000"));
  // Looked at before WAL mode is set, so that a file of another program or of a newer culprit
  // is left as it is; and again under the write lock, which orders this process after another
  // that is making the ledger at the same time.
  CULPRIT_TRY(checked_sqlite_version(db));
  {
    CULPRIT_TRY_ASSIGN(auto journal, db.prepare("PRAGMA journal_mode = WAL"));
    CULPRIT_TRY(journal.step());
  }
  CULPRIT_TRY_ASSIGN(auto transaction, store::sql::Transaction::begin(db));
  CULPRIT_TRY_ASSIGN(const auto version, checked_sqlite_version(db));
  CULPRIT_TRY(check_tables(db, version));
  if (version == k_ledger_version)
    return transaction.commit();
  CULPRIT_TRY(db.execute(k_schema));
  // Version 4 and older kept no range: their regressions all have a culprit.
  if (version != 0 && version < 5) {
    CULPRIT_TRY_ASSIGN(auto columns, db.prepare("SELECT count(*) FROM pragma_table_info("
                                                "'regressions') WHERE name = 'range_before'"));
    CULPRIT_TRY(columns.step());
    if (columns.column_int64(0) == 0)
      CULPRIT_TRY(db.execute("ALTER TABLE regressions ADD COLUMN range_before TEXT NOT NULL "
                             "DEFAULT ''; ALTER TABLE regressions ADD COLUMN range_after TEXT "
                             "NOT NULL DEFAULT ''"));
  }
  CULPRIT_TRY(db.execute(fmt::format("PRAGMA user_version = {}; PRAGMA application_id = {}",
                                     k_ledger_version, k_ledger_application_id)));
  return transaction.commit();
}

} // namespace

std::string import_artifact_id(std::string_view commit) {
  return fmt::format("import:{}", commit);
}

Result<Ledger> Ledger::open(const std::filesystem::path& file) {
  if (file.has_parent_path()) {
    std::error_code error;
    std::filesystem::create_directories(file.parent_path(), error);
    if (error)
      return infra_error("cannot create the directory {} for the history ledger: {}; check its "
                         "permissions or choose another --cache-dir",
                         file.parent_path().string(), error.message());
  }
  CULPRIT_TRY_ASSIGN(auto db, store::sql::Database::open_sqlite(file, "history ledger"));
  CULPRIT_TRY(prepare(db));
  return Ledger(std::move(db));
}

Result<Ledger> Ledger::open_in(const std::filesystem::path& cache_dir) {
  return open(cache_dir / k_ledger_file_name);
}

Result<Ledger> Ledger::open_at(const store::Location& where) {
  if (!where.shared())
    return open_in(where.cache_dir);
  CULPRIT_TRY_ASSIGN(auto db, store::sql::Database::open_postgres(where.url, "history ledger"));
  CULPRIT_TRY(prepare(db));
  return Ledger(std::move(db));
}

Status Ledger::check_at(const store::Location& where) {
  if (!where.shared()) {
    const auto file = where.cache_dir / k_ledger_file_name;
    std::error_code error;
    if (!std::filesystem::exists(file, error))
      return {};
    CULPRIT_TRY_ASSIGN(auto db, store::sql::Database::open_sqlite(file, "history ledger"));
    CULPRIT_TRY_ASSIGN(const auto version, checked_sqlite_version(db));
    return check_tables(db, version);
  }
  CULPRIT_TRY_ASSIGN(auto db, store::sql::Database::open_postgres(where.url, "history ledger"));
  CULPRIT_TRY_ASSIGN(const auto version, store::check_postgres_component(db, k_postgres_ledger));
  return version != 0 ? check_tables(db, version) : Status{};
}

std::string Ledger::damaged(std::string_view why) const {
  return refuse_damaged_ledger(m_db, why).error().message;
}

Status Ledger::record_tracked(const TrackedPoint& point) {
  CULPRIT_TRY_ASSIGN(
      auto statement,
      m_db.prepare("INSERT INTO tracked (commit_id, host_id, recipe_hash, artifact_id, source, "
                   "file, commit_time, tracked_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
                   "ON CONFLICT (commit_id, host_id, recipe_hash) DO UPDATE SET "
                   "artifact_id = excluded.artifact_id, source = excluded.source, "
                   "file = excluded.file, commit_time = excluded.commit_time, "
                   "tracked_at = excluded.tracked_at"));
  statement.bind_all(point.commit, point.host_id, point.recipe_hash, point.artifact_id,
                     point.source, point.file, point.commit_time,
                     store::to_micros(point.tracked_at));
  return statement.run();
}

Result<std::vector<TrackedPoint>> Ledger::tracked() {
  CULPRIT_TRY_ASSIGN(auto query,
                     m_db.prepare("SELECT commit_id, host_id, recipe_hash, artifact_id, source, "
                                  "file, commit_time, tracked_at FROM tracked ORDER BY "
                                  "commit_time, rowid"));
  std::vector<TrackedPoint> points;
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> index;
  for (;;) {
    CULPRIT_TRY_ASSIGN(const bool has_row, query.step());
    if (!has_row)
      break;
    points.push_back({.commit = query.column_text(0),
                      .host_id = query.column_text(1),
                      .recipe_hash = query.column_text(2),
                      .artifact_id = query.column_text(3),
                      .source = query.column_text(4),
                      .file = query.column_text(5),
                      .commit_time = query.column_int64(6),
                      .tracked_at = store::from_micros(query.column_int64(7)),
                      .sessions = {}});
    const auto& p = points.back();
    index.emplace(std::tuple{p.commit, p.host_id, p.recipe_hash}, points.size() - 1);
  }
  CULPRIT_TRY_ASSIGN(auto sessions,
                     m_db.prepare("SELECT commit_id, host_id, recipe_hash, session, artifact_id, "
                                  "measured_at FROM sessions ORDER BY measured_at, rowid"));
  for (;;) {
    CULPRIT_TRY_ASSIGN(const bool has_row, sessions.step());
    if (!has_row)
      return points;
    const auto it = index.find(
        std::tuple{sessions.column_text(0), sessions.column_text(1), sessions.column_text(2)});
    if (it != index.end())
      points[it->second].sessions.push_back({.id = sessions.column_text(3),
                                             .artifact_id = sessions.column_text(4),
                                             .at = store::from_micros(sessions.column_int64(5))});
  }
}

Status Ledger::record_session(const TrackedPoint& point, std::string_view session) {
  CULPRIT_TRY_ASSIGN(auto statement,
                     m_db.prepare("INSERT INTO sessions (commit_id, host_id, recipe_hash, "
                                  "session, artifact_id, measured_at) VALUES (?1, ?2, ?3, ?4, ?5, "
                                  "?6) ON CONFLICT (commit_id, host_id, recipe_hash, session) DO "
                                  "UPDATE SET artifact_id = excluded.artifact_id, measured_at = "
                                  "excluded.measured_at"));
  statement.bind_all(point.commit, point.host_id, point.recipe_hash, session, point.artifact_id,
                     store::to_micros(store::now()));
  return statement.run();
}

Result<std::optional<std::string>> Ledger::unfinished_session(std::string_view command,
                                                              store::TimePoint started_after) {
  CULPRIT_TRY_ASSIGN(auto query, m_db.prepare("SELECT session FROM unfinished_sessions WHERE "
                                              "command = ?1 AND started_at > ?2"));
  query.bind_all(command, store::to_micros(started_after));
  CULPRIT_TRY_ASSIGN(const bool has_row, query.step());
  if (!has_row)
    return std::optional<std::string>{};
  return std::optional(query.column_text(0));
}

Status Ledger::begin_session(std::string_view command, std::string_view session) {
  CULPRIT_TRY_ASSIGN(auto statement,
                     m_db.prepare("INSERT INTO unfinished_sessions (command, session, started_at) "
                                  "VALUES (?1, ?2, ?3) ON CONFLICT (command) DO UPDATE SET "
                                  "session = excluded.session, started_at = CASE WHEN "
                                  "unfinished_sessions.session = excluded.session THEN "
                                  "unfinished_sessions.started_at ELSE excluded.started_at "
                                  "END"));
  statement.bind_all(command, session, store::to_micros(store::now()));
  return statement.run();
}

Status Ledger::end_session(std::string_view command) {
  CULPRIT_TRY_ASSIGN(auto statement,
                     m_db.prepare("DELETE FROM unfinished_sessions WHERE command = ?1"));
  statement.bind_all(command);
  return statement.run();
}

Result<bool> Ledger::was_imported(std::string_view commit, std::string_view host_id,
                                  std::string_view content_hash) {
  CULPRIT_TRY_ASSIGN(auto query, m_db.prepare("SELECT 1 FROM imports WHERE commit_id = ?1 AND "
                                              "host_id = ?2 AND content_hash = ?3"));
  query.bind_all(commit, host_id, content_hash);
  return query.step();
}

Status Ledger::record_import(std::string_view commit, std::string_view host_id,
                             std::string_view content_hash, std::string_view file) {
  CULPRIT_TRY_ASSIGN(auto statement,
                     m_db.prepare("INSERT INTO imports (commit_id, host_id, content_hash, file, "
                                  "imported_at) VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT "
                                  "(commit_id, host_id, content_hash) DO UPDATE SET file = "
                                  "excluded.file, imported_at = excluded.imported_at"));
  statement.bind_all(commit, host_id, content_hash, file, store::to_micros(store::now()));
  return statement.run();
}

Status Ledger::record_handled(const HandledChange& change) {
  CULPRIT_TRY_ASSIGN(auto statement,
                     m_db.prepare("INSERT INTO handled (host_id, case_name, metric, before_id, "
                                  "after_id, outcome, culprit, handled_at) VALUES (?1, ?2, ?3, ?4, "
                                  "?5, ?6, ?7, ?8) ON CONFLICT (host_id, case_name, metric, "
                                  "before_id, after_id) DO UPDATE SET outcome = excluded.outcome, "
                                  "culprit = excluded.culprit, handled_at = excluded.handled_at"));
  statement.bind_all(change.host_id, change.case_name, change.metric, change.before, change.after,
                     change.outcome, change.culprit, store::to_micros(change.handled_at));
  return statement.run();
}

Result<std::vector<HandledChange>> Ledger::handled(std::string_view host_id) {
  CULPRIT_TRY_ASSIGN(auto query,
                     m_db.prepare("SELECT host_id, case_name, metric, before_id, after_id, "
                                  "outcome, culprit, handled_at FROM handled WHERE host_id = ?1 "
                                  "ORDER BY handled_at, rowid"));
  query.bind(1, host_id);
  std::vector<HandledChange> changes;
  for (;;) {
    CULPRIT_TRY_ASSIGN(const bool has_row, query.step());
    if (!has_row)
      return changes;
    changes.push_back({.host_id = query.column_text(0),
                       .case_name = query.column_text(1),
                       .metric = query.column_text(2),
                       .before = query.column_text(3),
                       .after = query.column_text(4),
                       .outcome = query.column_text(5),
                       .culprit = query.column_text(6),
                       .handled_at = store::from_micros(query.column_int64(7))});
  }
}

Result<std::optional<SearchMark>> Ledger::last_search(std::string_view scope) {
  CULPRIT_TRY_ASSIGN(auto query, m_db.prepare("SELECT points, digest, searched_at FROM searches "
                                              "WHERE scope = ?1"));
  query.bind(1, scope);
  CULPRIT_TRY_ASSIGN(const bool has_row, query.step());
  if (!has_row)
    return std::optional<SearchMark>{};
  return std::optional<SearchMark>(SearchMark{
      .scope = std::string(scope),
      .points = static_cast<std::size_t>(std::max<std::int64_t>(0, query.column_int64(0))),
      .digest = query.column_text(1),
      .searched_at = store::from_micros(query.column_int64(2))});
}

Status Ledger::record_search(const SearchMark& mark) {
  CULPRIT_TRY_ASSIGN(auto statement,
                     m_db.prepare("INSERT INTO searches (scope, points, digest, searched_at) "
                                  "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (scope) DO UPDATE SET "
                                  "points = excluded.points, digest = excluded.digest, "
                                  "searched_at = excluded.searched_at"));
  statement.bind_all(mark.scope, static_cast<std::int64_t>(mark.points), mark.digest,
                     store::to_micros(mark.searched_at));
  return statement.run();
}

} // namespace culprit::history
