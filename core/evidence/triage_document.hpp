#pragma once
// The evidence of a triage (kind "triage"): the document of core/evidence/evidence.hpp, whose
// top-level "bisect" lists every culprit named (regressions first), plus keys of its own:
//   "change_points": [{case, metric, unit, before, after, ratio, p_value, kind, status,
//                      culprits, note}]  every change point looked at, and what became of it;
//   "findings": [{kind, commit, subject, author, cases, bisect: {good, bad, commits_in_range,
//                 cases, steps, culprits}}]  one per culprit commit, regressions first;
//   "regressions": {recorded, seen: [{id, culprit}], unbisected: [{id, state, cases, before,
//                   after, new}], fixed: [{id, culprit, subject, fixed_by}], went_away: [{id,
//                   culprit, subject}]}  what the triage did to the records the ledger keeps
//                   (add_regressions; absent in documents from before it was written);
//   "search": {points, searched, since, whole_because}  how many tracked points the history has
//             and how many the change-point search took (the newest ones); since: when the
//             search whose findings before them stand ran, null when it took them all;
//             whole_because: why it took them all, "" when the history is short or --full asked
//             (add_search; absent in documents from before the search was kept).
// Builds, measurements and confirmations of every bisection are in the usual lists.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/build/cache.hpp"
#include "core/evidence/evidence.hpp"
#include "core/exec/executor.hpp"
#include "core/git/repository.hpp"
#include "core/history/ledger.hpp"
#include "core/history/search_window.hpp"
#include "core/history/triage.hpp"
#include "core/measure/sampler.hpp"
#include "core/util/error.hpp"

namespace culprit::evidence {

struct TriageDocument {
  Evidence evidence;   // the part every evidence reader and report format understands
  nlohmann::json json; // the same with change_points and findings: what --json writes
};

// The id of the record each regression finding is kept as, by culprit commit: the record the
// ledger holds for that culprit, else the record not bisected yet of one of its change points
// (which the culprit then takes over, id and events kept), else a new id (regression_id).
Result<std::map<std::string, std::string>>
regression_record_ids(history::Ledger& ledger, const history::TriageOutcome& outcome,
                      const std::string& host_id);

// `header` is evidence_header()'s, with host and settings; kind and status are set here
// (culprit_found when a new regression was named, inconclusive when only open change points
// remain, no_change otherwise). Each regression culprit names its record: `record_ids`
// (regression_record_ids), or regression_id of host and culprit where it holds none.
Result<TriageDocument> triage_document(Evidence header, const history::TriageOutcome& outcome,
                                       const git::Repository& repo, const build::BuildCache* cache,
                                       exec::Executor* executor, measure::Sampler& sampler,
                                       double confidence, std::uint64_t seed,
                                       const std::map<std::string, std::string>& record_ids = {});

// What a triage did to the regressions the ledger keeps (core/history/regressions.hpp).
struct RegressionUpdate {
  std::vector<history::Regression> recorded; // first found by this triage, or bisected by it
  std::vector<history::Regression> seen;     // held already, found again
  // Change points of regressions not bisected: new, confirmed or invalid, as this triage left
  // them; `unbisected_new` says which of them it recorded first.
  std::vector<history::Regression> unbisected;
  std::vector<bool> unbisected_new;
  std::vector<history::Regression> fixed;     // closed: fixed_by names the improvement's commit
  std::vector<history::Regression> went_away; // closed: the history no longer shows their step
};

// Records each regression finding of `document` (one record per culprit commit, under the id the
// document names it by, with its cases, subject, author, owners and `evidence_file`), and each
// bisection of a regression that named no culprit as a record of its first change point's
// commits: new while not confirmed, confirmed when the comparison confirmed it, invalid when it
// did not reproduce; closes each open regression of `host_id` that an improvement finding of the
// same triage brought back within `threshold` (history::fixes), when `descends(culprit, fix)`
// says the improvement came after the culprit; and sets each other open one that `history` no
// longer shows a step for (step_went_away) to went-away.
Result<RegressionUpdate> update_regressions(
    history::Ledger& ledger, const history::TriageOutcome& outcome, const TriageDocument& document,
    const history::History& history, const std::string& host_id, const std::string& evidence_file,
    double threshold,
    const std::function<Result<bool>(const std::string& culprit, const std::string& fix)>&
        descends);

// Adds what `update` did to the regression records to the document's JSON, as "regressions".
void add_regressions(TriageDocument& document, const RegressionUpdate& update);

// Adds what the change-point search took (core/history/search_window.hpp), as "search".
void add_search(TriageDocument& document, const history::SearchWindow& window);

} // namespace culprit::evidence
