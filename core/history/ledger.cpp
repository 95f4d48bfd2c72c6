#include "core/history/ledger.hpp"

#include <map>
#include <system_error>
#include <tuple>
#include <utility>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "core/util/json_text.hpp"

namespace culprit::history {
namespace {

constexpr std::int64_t k_ledger_application_id = 0x43554c48; // "CULH"
// Version 2 added the sessions table; a version 1 ledger gains it when opened, and its points
// keep no session (their runs carry no label either). Version 3 added unfinished_sessions,
// version 4 regressions and their events.
// 5: regressions not bisected yet (states new, confirmed, invalid) and their range of commits.
constexpr std::int64_t k_ledger_version = 5;

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
)sql";

// A regression's cases as the JSON text the ledger keeps, and back.
std::string cases_text(const std::vector<RegressionCase>& cases) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : cases) {
    nlohmann::json one = {
        {"case", c.case_name}, {"metric", c.metric}, {"ratio", c.ratio}, {"ci", c.ci}};
    if (c.share)
      one["share"] = *c.share;
    out.push_back(std::move(one));
  }
  return json_text(out);
}

std::vector<RegressionCase> cases_from(const std::string& text) {
  std::vector<RegressionCase> cases;
  const auto json = nlohmann::json::parse(text, nullptr, false);
  if (!json.is_array())
    return cases;
  for (const auto& one : json) {
    if (!one.is_object())
      continue;
    RegressionCase c;
    const auto string_at = [&](const char* key) {
      const auto it = one.find(key);
      return it != one.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    c.case_name = string_at("case");
    c.metric = string_at("metric");
    if (const auto ratio = one.find("ratio"); ratio != one.end() && ratio->is_number())
      c.ratio = ratio->get<double>();
    if (const auto ci = one.find("ci"); ci != one.end() && ci->is_array() && ci->size() == 2 &&
                                        (*ci)[0].is_number() && (*ci)[1].is_number())
      c.ci = {(*ci)[0].get<double>(), (*ci)[1].get<double>()};
    if (const auto share = one.find("share"); share != one.end() && share->is_number())
      c.share = share->get<double>();
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<std::string> strings_from(const std::string& text) {
  const auto json = nlohmann::json::parse(text, nullptr, false);
  std::vector<std::string> out;
  if (json.is_array())
    for (const auto& one : json)
      if (one.is_string())
        out.push_back(one.get<std::string>());
  return out;
}

constexpr std::string_view k_regression_columns =
    "id, host_id, culprit, subject, author, state, cases, owners, evidence, first_seen, "
    "last_seen, fixed_by, range_before, range_after";

Regression regression_from(const sqlite::Statement& row) {
  Regression r;
  r.id = row.column_text(0);
  r.host_id = row.column_text(1);
  r.culprit = row.column_text(2);
  r.subject = row.column_text(3);
  r.author = row.column_text(4);
  r.state = parse_regression_state(row.column_text(5)).value_or(RegressionState::bisected);
  r.cases = cases_from(row.column_text(6));
  r.owners = strings_from(row.column_text(7));
  r.evidence = strings_from(row.column_text(8));
  r.first_seen = store::from_micros(row.column_int64(9));
  r.last_seen = store::from_micros(row.column_int64(10));
  r.fixed_by = row.column_text(11);
  r.range_before = row.column_text(12);
  r.range_after = row.column_text(13);
  return r;
}

Status insert_event(sqlite::Database& db, std::string_view id, const RegressionEvent& event) {
  CULPRIT_TRY_ASSIGN(auto statement,
                     db.prepare("INSERT INTO regression_events (regression, at, state, who, note, "
                                "commit_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
  statement.bind_all(id, store::to_micros(event.at), to_string(event.state), event.who, event.note,
                     event.commit);
  return statement.run();
}

Status prepare(sqlite::Database& db) {
  CULPRIT_TRY(db.execute("PRAGMA busy_timeout = 30000"));
  CULPRIT_TRY_ASSIGN(const auto version, db.pragma_integer("user_version"));
  CULPRIT_TRY_ASSIGN(const auto application_id, db.pragma_integer("application_id"));
  if (version > k_ledger_version)
    return infra_error("the history ledger {} was written by a newer culprit (version {}); "
                       "upgrade culprit, or choose another --cache-dir",
                       db.file().string(), version);
  if (application_id != 0 && application_id != k_ledger_application_id)
    return infra_error("{} is not a culprit history ledger; move it away or choose another "
                       "--cache-dir",
                       db.file().string());
  {
    CULPRIT_TRY_ASSIGN(auto journal, db.prepare("PRAGMA journal_mode = WAL"));
    CULPRIT_TRY(journal.step());
  }
  CULPRIT_TRY_ASSIGN(auto transaction, sqlite::Transaction::begin(db));
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
  CULPRIT_TRY_ASSIGN(auto db, sqlite::Database::open(file));
  CULPRIT_TRY(prepare(db));
  return Ledger(std::move(db));
}

Result<Ledger> Ledger::open_in(const std::filesystem::path& cache_dir) {
  return open(cache_dir / k_ledger_file_name);
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
                     m_db.prepare("INSERT OR REPLACE INTO sessions (commit_id, host_id, "
                                  "recipe_hash, session, artifact_id, measured_at) VALUES (?1, ?2, "
                                  "?3, ?4, ?5, ?6)"));
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
                                  "session = excluded.session THEN started_at ELSE "
                                  "excluded.started_at END"));
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
                     m_db.prepare("INSERT OR REPLACE INTO imports (commit_id, host_id, "
                                  "content_hash, file, imported_at) VALUES (?1, ?2, ?3, ?4, ?5)"));
  statement.bind_all(commit, host_id, content_hash, file, store::to_micros(store::now()));
  return statement.run();
}

Status Ledger::record_handled(const HandledChange& change) {
  CULPRIT_TRY_ASSIGN(auto statement,
                     m_db.prepare("INSERT OR REPLACE INTO handled (host_id, case_name, metric, "
                                  "before_id, after_id, outcome, culprit, handled_at) VALUES "
                                  "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"));
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

namespace {

// Why a record starts in, or moves to, `state` by triage.
std::string_view triage_note(RegressionState state) {
  switch (state) {
  case RegressionState::detected:
    return "a change point, not confirmed yet";
  case RegressionState::confirmed:
    return "confirmed by a comparison of the commits around it; not bisected yet";
  case RegressionState::invalid:
    return "a comparison of the commits around it did not reproduce it";
  default:
    return "confirmed and bisected to its culprit";
  }
}

// Whether triage may move a record from `held` to `found`: a change point not confirmed yet gets
// confirmed, or found invalid; any record not bisected gets its culprit.
bool triage_moves(RegressionState held, RegressionState found) {
  if (held == RegressionState::detected)
    return found == RegressionState::confirmed || found == RegressionState::invalid ||
           found == RegressionState::bisected;
  return held == RegressionState::confirmed && found == RegressionState::bisected;
}

} // namespace

Result<bool> Ledger::record_regression(const Regression& found, std::string_view who) {
  CULPRIT_TRY_ASSIGN(auto transaction, sqlite::Transaction::begin(m_db));
  CULPRIT_TRY_ASSIGN(auto held, regression(found.id));
  const auto now = store::to_micros(found.last_seen);
  if (held) {
    auto evidence = held->evidence;
    for (const auto& file : found.evidence)
      if (std::ranges::find(evidence, file) == evidence.end())
        evidence.push_back(file);
    const bool moves = triage_moves(held->state, found.state);
    const auto state = moves ? found.state : held->state;
    const bool gains_culprit = held->culprit.empty() && !found.culprit.empty();
    if (gains_culprit) {
      // Bisected at last: the record becomes its culprit's, id and events kept (and a person's
      // state, such as acknowledged, too).
      CULPRIT_TRY_ASSIGN(auto update,
                         m_db.prepare("UPDATE regressions SET cases = ?2, evidence = ?3, "
                                      "last_seen = ?4, culprit = ?5, subject = ?6, author = ?7, "
                                      "owners = ?8, state = CASE WHEN ?10 THEN ?9 ELSE state "
                                      "END WHERE id = ?1"));
      update.bind_all(found.id, cases_text(found.cases), json_text(nlohmann::json(evidence)), now,
                      found.culprit, found.subject, found.author,
                      json_text(nlohmann::json(found.owners)), to_string(state),
                      std::int64_t{moves ? 1 : 0});
      CULPRIT_TRY(update.run());
    } else {
      CULPRIT_TRY_ASSIGN(auto update,
                         m_db.prepare("UPDATE regressions SET cases = ?2, evidence = ?3, "
                                      "last_seen = ?4, state = CASE WHEN ?6 THEN ?5 ELSE state "
                                      "END WHERE id = ?1"));
      update.bind_all(found.id, cases_text(found.cases), json_text(nlohmann::json(evidence)), now,
                      to_string(state), std::int64_t{moves ? 1 : 0});
      CULPRIT_TRY(update.run());
    }
    if (moves || gains_culprit)
      CULPRIT_TRY(insert_event(m_db, found.id,
                               {.at = found.last_seen,
                                .state = state,
                                .who = std::string(who),
                                .note = std::string(triage_note(found.state)),
                                .commit = found.culprit}));
    CULPRIT_TRY(transaction.commit());
    return gains_culprit;
  }
  CULPRIT_TRY_ASSIGN(
      auto insert,
      m_db.prepare(fmt::format("INSERT INTO regressions ({}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
                               "?8, ?9, ?10, ?11, ?12, ?13, ?14)",
                               k_regression_columns)));
  insert.bind_all(found.id, found.host_id, found.culprit, found.subject, found.author,
                  to_string(found.state), cases_text(found.cases),
                  json_text(nlohmann::json(found.owners)),
                  json_text(nlohmann::json(found.evidence)), store::to_micros(found.first_seen),
                  now, std::string(), found.range_before, found.range_after);
  CULPRIT_TRY(insert.run());
  CULPRIT_TRY(insert_event(m_db, found.id,
                           {.at = found.first_seen,
                            .state = found.state,
                            .who = std::string(who),
                            .note = std::string(triage_note(found.state)),
                            .commit = found.culprit}));
  CULPRIT_TRY(transaction.commit());
  return true;
}

Result<std::optional<Regression>> Ledger::regression_of_culprit(std::string_view host_id,
                                                                std::string_view culprit) {
  CULPRIT_TRY_ASSIGN(auto query, m_db.prepare("SELECT id FROM regressions WHERE host_id = ?1 AND "
                                              "culprit = ?2 ORDER BY first_seen, rowid LIMIT 1"));
  query.bind_all(host_id, culprit);
  CULPRIT_TRY_ASSIGN(const bool has_row, query.step());
  if (!has_row)
    return std::optional<Regression>();
  return regression(query.column_text(0));
}

Result<std::vector<Regression>> Ledger::regressions(std::optional<std::string_view> host_id) {
  CULPRIT_TRY_ASSIGN(auto query,
                     m_db.prepare(fmt::format("SELECT {} FROM regressions WHERE ?1 IS NULL OR "
                                              "host_id = ?1 ORDER BY first_seen, rowid",
                                              k_regression_columns)));
  query.bind(1, host_id);
  std::vector<Regression> out;
  for (;;) {
    CULPRIT_TRY_ASSIGN(const bool has_row, query.step());
    if (!has_row)
      break;
    out.push_back(regression_from(query));
  }
  CULPRIT_TRY_ASSIGN(auto events, m_db.prepare("SELECT regression, at, state, who, note, "
                                               "commit_id FROM regression_events ORDER BY at, "
                                               "rowid"));
  for (;;) {
    CULPRIT_TRY_ASSIGN(const bool has_row, events.step());
    if (!has_row)
      return out;
    const auto id = events.column_text(0);
    const auto owner = std::ranges::find(out, id, &Regression::id);
    if (owner == out.end())
      continue;
    owner->events.push_back(
        {.at = store::from_micros(events.column_int64(1)),
         .state = parse_regression_state(events.column_text(2)).value_or(RegressionState::bisected),
         .who = events.column_text(3),
         .note = events.column_text(4),
         .commit = events.column_text(5)});
  }
}

Result<std::optional<Regression>> Ledger::regression(std::string_view id) {
  CULPRIT_TRY_ASSIGN(auto query, m_db.prepare(fmt::format("SELECT {} FROM regressions WHERE id = "
                                                          "?1",
                                                          k_regression_columns)));
  query.bind(1, id);
  CULPRIT_TRY_ASSIGN(const bool has_row, query.step());
  if (!has_row)
    return std::optional<Regression>();
  auto found = regression_from(query);
  CULPRIT_TRY_ASSIGN(auto events, m_db.prepare("SELECT at, state, who, note, commit_id FROM "
                                               "regression_events WHERE regression = ?1 ORDER "
                                               "BY at, rowid"));
  events.bind(1, id);
  for (;;) {
    CULPRIT_TRY_ASSIGN(const bool has_event, events.step());
    if (!has_event)
      return std::optional<Regression>(std::move(found));
    found.events.push_back(
        {.at = store::from_micros(events.column_int64(0)),
         .state = parse_regression_state(events.column_text(1)).value_or(RegressionState::bisected),
         .who = events.column_text(2),
         .note = events.column_text(3),
         .commit = events.column_text(4)});
  }
}

Status Ledger::transition(std::string_view id, RegressionState from, const RegressionEvent& event) {
  CULPRIT_TRY_ASSIGN(auto transaction, sqlite::Transaction::begin(m_db));
  CULPRIT_TRY_ASSIGN(auto update,
                     m_db.prepare("UPDATE regressions SET state = ?3, fixed_by = ?4 WHERE id = "
                                  "?1 AND state = ?2"));
  update.bind_all(id, to_string(from), to_string(event.state),
                  event.state == RegressionState::fixed ? event.commit : std::string());
  CULPRIT_TRY(update.run());
  if (m_db.changes() != 1)
    return usage_error("{} is no longer {}: someone changed it meanwhile; look again "
                       "('culprit regressions show {}')",
                       id, to_string(from), id);
  CULPRIT_TRY(insert_event(m_db, id, event));
  return transaction.commit();
}

} // namespace culprit::history
