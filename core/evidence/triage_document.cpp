#include "core/evidence/triage_document.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "core/evidence/culprit_hints.hpp"
#include "core/evidence/fill.hpp"
#include "core/util/clock.hpp"

namespace culprit::evidence {
namespace {

using nlohmann::json;

// The evidence writer's spelling of a bisection, reused for each finding.
json bisect_json(const EvidenceBisect& bisect) {
  Evidence holder;
  holder.bisect = bisect;
  return to_json(holder).at("bisect");
}

json change_json(const history::TriageChange& triaged) {
  const auto& c = triaged.change;
  return {{"case", c.case_name},
          {"metric", c.metric},
          {"unit", c.unit},
          {"before", c.before},
          {"after", c.commit},
          {"ratio", c.ratio},
          {"p_value", c.p_value},
          {"kind", c.regression() ? "regression" : "improvement"},
          {"status", to_string(triaged.status)},
          {"culprits", triaged.culprits},
          {"note", triaged.note}};
}

std::string status_of(const history::TriageOutcome& outcome) {
  if (outcome.new_regressions())
    return "culprit_found";
  if (outcome.count(history::TriageStatus::inconclusive) +
          outcome.count(history::TriageStatus::failed) >
      0)
    return "inconclusive";
  return "no_change";
}

} // namespace

Result<std::map<std::string, std::string>>
regression_record_ids(history::Ledger& ledger, const history::TriageOutcome& outcome,
                      const std::string& host_id) {
  std::map<std::string, std::string> ids;
  for (const auto& finding : outcome.findings) {
    if (!finding.regression || ids.contains(finding.commit))
      continue;
    CULPRIT_TRY_ASSIGN(const auto held, ledger.regression_of_culprit(host_id, finding.commit));
    std::string id = held ? held->id : std::string();
    for (const auto g : finding.groups) {
      for (const auto c : outcome.groups[g].changes) {
        if (!id.empty())
          break;
        const auto& change = outcome.changes[c].change;
        const auto range = history::range_regression_id(host_id, change.before, change.commit);
        CULPRIT_TRY_ASSIGN(const auto unbisected, ledger.regression(range));
        if (unbisected && unbisected->culprit.empty())
          id = range;
      }
    }
    ids.emplace(finding.commit, id.empty() ? history::regression_id(host_id, finding.commit) : id);
  }
  return ids;
}

Result<TriageDocument> triage_document(Evidence header, const history::TriageOutcome& outcome,
                                       const git::Repository& repo, const build::BuildCache* cache,
                                       exec::Executor* executor, measure::Sampler& sampler,
                                       double confidence, std::uint64_t seed,
                                       const std::map<std::string, std::string>& record_ids) {
  Evidence evidence = std::move(header);
  evidence.kind = "triage";
  evidence.status = status_of(outcome);
  // Each bisection's evidence, as `culprit bisect` would write it.
  std::vector<std::optional<EvidenceBisect>> parts(outcome.groups.size());
  std::set<std::string> built;
  for (std::size_t g = 0; g < outcome.groups.size(); ++g) {
    const auto& group = outcome.groups[g];
    if (group.bisect.status == bisect::BisectStatus::not_run)
      continue; // the bisection failed; its change points say why
    Evidence part;
    measure::Sampler* const lanes[] = {&sampler};
    CULPRIT_TRY(fill_bisect_evidence(part, group.range, group.bisect, lanes, confidence, seed));
    CULPRIT_TRY(describe_culprits(part, repo, cache, executor));
    for (auto& build : part.builds)
      if (built.insert(build.commit).second)
        evidence.builds.push_back(std::move(build));
    std::ranges::move(part.comparisons, std::back_inserter(evidence.comparisons));
    std::ranges::move(part.measurements, std::back_inserter(evidence.measurements));
    parts[g] = std::move(part.bisect);
  }

  json findings = json::array();
  EvidenceBisect all;
  for (const auto& finding : outcome.findings) {
    EvidenceBisect bisect;
    // The record a regression is kept as (update_regressions), named in every output.
    const auto known = record_ids.find(finding.commit);
    const auto record = !finding.regression ? std::string()
                        : known != record_ids.end()
                            ? known->second
                            : history::regression_id(sampler.options().host_id, finding.commit);
    for (const auto g : finding.groups) {
      const auto& part = *parts[g];
      if (bisect.good.empty()) {
        bisect.good = part.good;
        bisect.bad = part.bad;
        bisect.commits_in_range = part.commits_in_range;
        bisect.steps = part.steps;
      }
      for (auto culprit : part.culprits) {
        if (culprit.commit != finding.commit)
          continue;
        culprit.regression = record;
        add_culprit(bisect.culprits, culprit);
      }
    }
    for (const auto& moved : bisect.culprits.front().cases)
      bisect.cases.push_back(moved.name);
    if (all.good.empty())
      all.good = bisect.good;
    all.bad = bisect.bad;
    all.commits_in_range += bisect.commits_in_range;
    all.cases.insert(all.cases.end(), bisect.cases.begin(), bisect.cases.end());
    for (const auto& culprit : bisect.culprits)
      add_culprit(all.culprits, culprit);
    const auto& first = bisect.culprits.front();
    findings.push_back({{"kind", finding.regression ? "regression" : "improvement"},
                        {"commit", finding.commit},
                        {"subject", first.subject},
                        {"author", first.author},
                        {"cases", bisect.cases},
                        {"bisect", bisect_json(bisect)}});
  }
  for (const auto& part : parts)
    if (part)
      std::ranges::copy(part->candidates, std::back_inserter(all.candidates));
  if (!all.culprits.empty() || !all.candidates.empty())
    evidence.bisect = std::move(all);

  json changes = json::array();
  for (const auto& triaged : outcome.changes)
    changes.push_back(change_json(triaged));
  json document = to_json(evidence);
  document["change_points"] = std::move(changes);
  document["findings"] = std::move(findings);
  return TriageDocument{std::move(evidence), std::move(document)};
}

namespace {

// A finding's culprit as the document describes it: cases, subject, author, owners.
const EvidenceCulprit* described(const TriageDocument& document, const history::Finding& finding) {
  if (!document.evidence.bisect)
    return nullptr;
  const auto& culprits = document.evidence.bisect->culprits;
  const auto it = std::ranges::find(culprits, finding.commit, &EvidenceCulprit::commit);
  return it == culprits.end() ? nullptr : &*it;
}

// The cases of `culprit` that `finding` moved: one commit that slowed one case and sped up another
// is two findings, and the document's culprit holds the cases of both.
std::vector<history::RegressionCase> regression_cases(const EvidenceCulprit& culprit,
                                                      const history::Finding& finding) {
  std::vector<history::RegressionCase> cases;
  for (const auto& c : culprit.cases)
    if (std::ranges::any_of(finding.culprits, [&](const bisect::FoundCulprit& moved) {
          return moved.selected.key.case_name == c.name;
        }))
      cases.push_back({c.name, c.metric, c.ratio, c.ci, c.share});
  return cases;
}

// The first change point of the first of `groups`, or none.
const history::ChangePoint* first_change(const history::TriageOutcome& outcome,
                                         const std::vector<std::size_t>& groups) {
  for (const auto g : groups)
    for (const auto c : outcome.groups[g].changes)
      return &outcome.changes[c].change;
  return nullptr;
}

// What triage made of a regression's bisection that named no culprit: confirmed when the
// comparison confirmed one of its cases, invalid when it did not reproduce any, else new (the
// comparison ran out of runs, or the commits did not build).
history::RegressionState unbisected_state(const history::TriageOutcome& outcome,
                                          const history::TriageGroup& group) {
  const bool confirmed = std::ranges::any_of(group.changes, [&](std::size_t c) {
    return std::ranges::any_of(group.bisect.cases, [&](const measure::SelectedCase& selected) {
      return selected.key.case_name == outcome.changes[c].change.case_name;
    });
  });
  if (confirmed)
    return history::RegressionState::confirmed;
  const bool dismissed = std::ranges::all_of(group.changes, [&](std::size_t c) {
    return outcome.changes[c].status == history::TriageStatus::not_confirmed;
  });
  return dismissed ? history::RegressionState::invalid : history::RegressionState::detected;
}

// A record for each bisection of a regression that named no culprit, known by the commits of its
// first change point, with the change points' cases.
Status record_unbisected(history::Ledger& ledger, const history::TriageOutcome& outcome,
                         const std::string& host_id, const std::string& evidence_file,
                         store::TimePoint now, RegressionUpdate& update) {
  for (std::size_t g = 0; g < outcome.groups.size(); ++g) {
    const auto& group = outcome.groups[g];
    if (group.improvement || group.changes.empty() || !group.bisect.culprits.empty())
      continue;
    const auto& first = outcome.changes[group.changes.front()].change;
    history::Regression found{.id =
                                  history::range_regression_id(host_id, first.before, first.commit),
                              .host_id = host_id,
                              .range_before = first.before,
                              .range_after = first.commit,
                              .state = unbisected_state(outcome, group),
                              .evidence = {evidence_file},
                              .first_seen = now,
                              .last_seen = now};
    for (const auto c : group.changes) {
      const auto& change = outcome.changes[c].change;
      found.cases.push_back({change.case_name, change.metric, change.ratio, change.ci, {}});
    }
    CULPRIT_TRY_ASSIGN(const bool added, ledger.record_regression(found, "triage"));
    CULPRIT_TRY_ASSIGN(auto held, ledger.regression(found.id));
    update.unbisected.push_back(held ? std::move(*held) : std::move(found));
    update.unbisected_new.push_back(added);
  }
  return {};
}

using Descends = std::function<Result<bool>(const std::string&, const std::string&)>;

// Whether a record's step still stands in the code: bisected and not closed.
bool step_stands(history::RegressionState state) {
  return state == history::RegressionState::bisected ||
         state == history::RegressionState::acknowledged ||
         state == history::RegressionState::wontfix;
}

// The steps a case of `regression` took strictly after its culprit and before `fix`: the change
// points `history` shows there, and the regressions `held` there that no change point of the
// history shows (the search no longer looks that far back) and that still stand. A commit git
// cannot place (a rewritten branch) lies between nothing: it keeps no fix from closing.
history::StepsBetween steps_between(const history::Regression& regression, const std::string& fix,
                                    const history::History& history,
                                    const std::vector<history::Regression>& held,
                                    const Descends& descends) {
  return [&regression, fix, &history, &held,
          &descends](const history::RegressionCase& slowed) -> std::optional<double> {
    // Whether `a` comes before `b` on the way to it (a proper ancestor), as far as git can say.
    const auto precedes = [&](const std::string& a, const std::string& b) {
      if (a == b)
        return false;
      const auto ancestor = descends(a, b);
      return ancestor && *ancestor;
    };
    const auto at_or_before = [&](const std::string& a, const std::string& b) {
      return a == b || precedes(a, b);
    };
    double product = 1;
    std::vector<const history::ChangePoint*> shown;
    for (const auto& change : history.change_points) {
      if (!history::same_case(slowed, change.case_name, change.metric))
        continue;
      shown.push_back(&change);
      // After the culprit: the old level's last commit is the culprit or a later one.
      if (at_or_before(regression.culprit, change.before) && precedes(change.commit, fix))
        product *= change.ratio;
    }
    for (const auto& other : held) {
      if (other.id == regression.id || other.culprit.empty() || !step_stands(other.state))
        continue;
      const auto moved = std::ranges::find_if(other.cases, [&](const history::RegressionCase& c) {
        return c.case_name == slowed.case_name && c.metric == slowed.metric;
      });
      if (moved == other.cases.end() || !precedes(regression.culprit, other.culprit) ||
          !precedes(other.culprit, fix))
        continue;
      const bool counted = std::ranges::any_of(shown, [&](const history::ChangePoint* change) {
        return precedes(change->before, other.culprit) &&
               at_or_before(other.culprit, change->commit);
      });
      if (!counted)
        product *= moved->ratio;
    }
    return product;
  };
}

} // namespace

Result<RegressionUpdate> update_regressions(
    history::Ledger& ledger, const history::TriageOutcome& outcome, const TriageDocument& document,
    const history::History& history, const std::string& host_id, const std::string& evidence_file,
    double threshold,
    const std::function<Result<bool>(const std::string& culprit, const std::string& fix)>&
        descends) {
  RegressionUpdate update;
  const auto now = store::now();
  std::vector<history::Improvement> improvements;
  for (const auto& finding : outcome.findings) {
    const auto* culprit = described(document, finding);
    if (culprit == nullptr)
      continue;
    if (!finding.regression) {
      improvements.push_back({finding.commit, regression_cases(*culprit, finding)});
      continue;
    }
    const auto* first = first_change(outcome, finding.groups);
    // The id the document named it by (regression_record_ids), which the record keeps.
    history::Regression found{.id = culprit->regression.empty()
                                        ? history::regression_id(host_id, finding.commit)
                                        : culprit->regression,
                              .host_id = host_id,
                              .culprit = finding.commit,
                              .range_before = first != nullptr ? first->before : std::string(),
                              .range_after = first != nullptr ? first->commit : std::string(),
                              .subject = culprit->subject,
                              .author = culprit->author,
                              .cases = regression_cases(*culprit, finding),
                              .owners = culprit->owners,
                              .evidence = {evidence_file},
                              .first_seen = now,
                              .last_seen = now};
    CULPRIT_TRY_ASSIGN(const bool added, ledger.record_regression(found, "triage"));
    (added ? update.recorded : update.seen).push_back(std::move(found));
  }
  CULPRIT_TRY(record_unbisected(ledger, outcome, host_id, evidence_file, now, update));
  CULPRIT_TRY_ASSIGN(const auto held, ledger.regressions(host_id));
  for (const auto& regression : held) {
    // One not bisected has no culprit to place a fix after, or to measure either side of.
    if (!is_open(regression.state) || regression.culprit.empty())
      continue;
    bool closed_now = false;
    for (const auto& improvement : improvements) {
      if (!fixes(improvement, regression, threshold,
                 steps_between(regression, improvement.commit, history, held, descends)))
        continue;
      // A culprit no longer in the repository (a rewritten branch) cannot be placed before the
      // fix, and one that a person moved meanwhile is theirs: either stays as it is.
      const auto after = descends(regression.culprit, improvement.commit);
      if (!after || !*after)
        continue;
      auto moved = ledger.transition(
          regression.id, regression.state,
          {.at = now,
           .state = history::RegressionState::fixed,
           .who = "triage",
           .note = fmt::format("every case back within {:.1f}% of its level before {}",
                               threshold * 100, regression.culprit.substr(0, 12)),
           .commit = improvement.commit});
      if (!moved && moved.error().code == ExitCode::usage)
        continue;
      CULPRIT_TRY(moved);
      auto closed = regression;
      closed.state = history::RegressionState::fixed;
      closed.fixed_by = improvement.commit;
      update.fixed.push_back(std::move(closed));
      closed_now = true;
      break;
    }
    const auto found_again = [&](const auto& list) {
      return std::ranges::any_of(
          list, [&](const history::Regression& r) { return r.id == regression.id; });
    };
    if (closed_now || found_again(update.recorded) || found_again(update.seen))
      continue;
    // The level came back with no commit to credit: gone, as measured now. A culprit git no
    // longer knows cannot be placed among the points, and stays as it is.
    const auto gone =
        step_went_away(regression, history, threshold, [&](const std::string& commit) {
          return commit == regression.culprit ? Result<bool>(true)
                                              : descends(regression.culprit, commit);
        });
    if (!gone || !*gone)
      continue;
    auto moved =
        ledger.transition(regression.id, regression.state,
                          {.at = now,
                           .state = history::RegressionState::went_away,
                           .who = "triage",
                           .note = fmt::format("every case within {:.1f}% on either side of {} as "
                                               "measured now, with no step there: no commit to "
                                               "credit",
                                               threshold * 100, regression.culprit.substr(0, 12)),
                           .commit = {}});
    if (!moved && moved.error().code == ExitCode::usage)
      continue;
    CULPRIT_TRY(moved);
    auto closed = regression;
    closed.state = history::RegressionState::went_away;
    update.went_away.push_back(std::move(closed));
  }
  return update;
}

void add_regressions(TriageDocument& document, const RegressionUpdate& update) {
  const auto ids = [](const std::vector<history::Regression>& list) {
    json out = json::array();
    for (const auto& r : list)
      out.push_back({{"id", r.id}, {"culprit", r.culprit}});
    return out;
  };
  const auto closed = [](const std::vector<history::Regression>& list, bool with_fix) {
    json out = json::array();
    for (const auto& r : list) {
      json entry = {{"id", r.id}, {"culprit", r.culprit}, {"subject", r.subject}};
      if (with_fix)
        entry["fixed_by"] = r.fixed_by;
      out.push_back(std::move(entry));
    }
    return out;
  };
  json unbisected = json::array();
  for (std::size_t i = 0; i < update.unbisected.size(); ++i) {
    const auto& r = update.unbisected[i];
    unbisected.push_back({{"id", r.id},
                          {"state", to_string(r.state)},
                          {"cases", r.cases.size()},
                          {"before", r.range_before},
                          {"after", r.range_after},
                          {"new", i < update.unbisected_new.size() && update.unbisected_new[i]}});
  }
  document.json["regressions"] = {{"recorded", ids(update.recorded)},
                                  {"seen", ids(update.seen)},
                                  {"unbisected", std::move(unbisected)},
                                  {"fixed", closed(update.fixed, true)},
                                  {"went_away", closed(update.went_away, false)}};
}

void add_search(TriageDocument& document, const history::SearchWindow& window) {
  json since = nullptr;
  if (window.since)
    since = utc_iso8601(window.since->searched_at);
  document.json["search"] = {{"points", window.points},
                             {"searched", window.points - window.first},
                             {"since", std::move(since)},
                             {"whole_because", window.why_whole}};
}

} // namespace culprit::evidence
