// The regressions of the history ledger (core/history/regressions.hpp): their records and
// events, and how triage and people move them. The tables are in ledger.cpp's schema.
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "core/history/ledger.hpp"
#include "core/util/escape.hpp"
#include "core/util/json_text.hpp"

namespace culprit::history {
namespace {

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

// A state as the ledger keeps it; a state no culprit writes (set by hand, or a damaged row) is
// refused, never read as another.
using DamagedLine = std::function<std::string(std::string_view)>;

Result<RegressionState> state_from(std::string_view text, std::string_view id,
                                   const DamagedLine& damaged) {
  if (const auto state = parse_regression_state(text))
    return *state;
  return infra_error("{}", damaged(fmt::format("regression {} has the state \"{}\", which no "
                                               "culprit writes",
                                               excerpt(id), excerpt(text))));
}

Result<Regression> regression_from(const store::sql::Statement& row, const DamagedLine& damaged) {
  Regression r;
  r.id = row.column_text(0);
  r.host_id = row.column_text(1);
  r.culprit = row.column_text(2);
  r.subject = row.column_text(3);
  r.author = row.column_text(4);
  CULPRIT_TRY_ASSIGN(r.state, state_from(row.column_view(5), r.id, damaged));
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

Status insert_event(store::sql::Database& db, std::string_view id, const RegressionEvent& event) {
  CULPRIT_TRY_ASSIGN(auto statement,
                     db.prepare("INSERT INTO regression_events (regression, at, state, who, note, "
                                "commit_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
  statement.bind_all(id, store::to_micros(event.at), to_string(event.state), event.who, event.note,
                     event.commit);
  return statement.run();
}

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
  CULPRIT_TRY_ASSIGN(auto transaction, store::sql::Transaction::begin(
                                           m_db, store::sql::Transaction::Kind::serialized));
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
  const DamagedLine damaged_line = [this](std::string_view why) { return damaged(why); };
  CULPRIT_TRY_ASSIGN(auto query,
                     m_db.prepare(fmt::format("SELECT {} FROM regressions WHERE host_id = "
                                              "coalesce(?1, host_id) ORDER BY first_seen, "
                                              "rowid",
                                              k_regression_columns)));
  query.bind(1, host_id);
  std::vector<Regression> out;
  for (;;) {
    CULPRIT_TRY_ASSIGN(const bool has_row, query.step());
    if (!has_row)
      break;
    CULPRIT_TRY_ASSIGN(auto one, regression_from(query, damaged_line));
    out.push_back(std::move(one));
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
    CULPRIT_TRY_ASSIGN(const auto state, state_from(events.column_view(2), id, damaged_line));
    owner->events.push_back({.at = store::from_micros(events.column_int64(1)),
                             .state = state,
                             .who = events.column_text(3),
                             .note = events.column_text(4),
                             .commit = events.column_text(5)});
  }
}

Result<std::optional<Regression>> Ledger::regression(std::string_view id) {
  const DamagedLine damaged_line = [this](std::string_view why) { return damaged(why); };
  CULPRIT_TRY_ASSIGN(auto query, m_db.prepare(fmt::format("SELECT {} FROM regressions WHERE id = "
                                                          "?1",
                                                          k_regression_columns)));
  query.bind(1, id);
  CULPRIT_TRY_ASSIGN(const bool has_row, query.step());
  if (!has_row)
    return std::optional<Regression>();
  CULPRIT_TRY_ASSIGN(auto found, regression_from(query, damaged_line));
  CULPRIT_TRY_ASSIGN(auto events, m_db.prepare("SELECT at, state, who, note, commit_id FROM "
                                               "regression_events WHERE regression = ?1 ORDER "
                                               "BY at, rowid"));
  events.bind(1, id);
  for (;;) {
    CULPRIT_TRY_ASSIGN(const bool has_event, events.step());
    if (!has_event)
      return std::optional<Regression>(std::move(found));
    CULPRIT_TRY_ASSIGN(const auto state, state_from(events.column_view(1), found.id, damaged_line));
    found.events.push_back({.at = store::from_micros(events.column_int64(0)),
                            .state = state,
                            .who = events.column_text(2),
                            .note = events.column_text(3),
                            .commit = events.column_text(4)});
  }
}

Status Ledger::transition(std::string_view id, RegressionState from, const RegressionEvent& event) {
  CULPRIT_TRY_ASSIGN(auto transaction, store::sql::Transaction::begin(
                                           m_db, store::sql::Transaction::Kind::serialized));
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
