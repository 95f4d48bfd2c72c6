#pragma once
// The evidence of a triage (kind "triage"): the document of core/evidence/evidence.hpp, whose
// top-level "bisect" lists every culprit named (regressions first), plus two keys of its own:
//   "change_points": [{case, metric, unit, before, after, ratio, p_value, kind, status,
//                      culprits, note}]  every change point looked at, and what became of it;
//   "findings": [{kind, commit, subject, author, cases, bisect: {good, bad, commits_in_range,
//                 cases, steps, culprits}}]  one per culprit commit, regressions first.
// Builds, measurements and confirmations of every bisection are in the usual lists.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/build/cache.hpp"
#include "core/evidence/evidence.hpp"
#include "core/exec/executor.hpp"
#include "core/git/repository.hpp"
#include "core/history/ledger.hpp"
#include "core/history/triage.hpp"
#include "core/measure/sampler.hpp"
#include "core/util/error.hpp"

namespace culprit::history {

struct TriageDocument {
  Evidence evidence;   // the part every evidence reader and report format understands
  nlohmann::json json; // the same with change_points and findings: what --json writes
};

// `header` is evidence_header()'s, with host and settings; kind and status are set here
// (culprit_found when a new regression was named, inconclusive when only open change points
// remain, no_change otherwise).
Result<TriageDocument> triage_document(Evidence header, const TriageOutcome& outcome,
                                       const git::Repository& repo, const BuildCache* cache,
                                       Executor* executor, Sampler& sampler, double confidence,
                                       std::uint64_t seed);

// What a triage did to the regressions the ledger keeps (core/history/regressions.hpp).
struct RegressionUpdate {
  std::vector<Regression> recorded;  // first found by this triage
  std::vector<Regression> seen;      // held already, found again
  std::vector<Regression> fixed;     // closed: fixed_by names the improvement's commit
  std::vector<Regression> went_away; // closed: the history no longer shows their step
};

// Records each regression finding of `document` (one record per culprit commit, with its cases,
// subject, author, owners and `evidence_file`); closes each open regression of `host_id` that
// an improvement finding of the same triage brought back within `threshold` (history::fixes),
// when `descends(culprit, fix)` says the improvement came after the culprit; and sets each other
// open one that `history` no longer shows a step for (step_went_away) to went-away.
Result<RegressionUpdate> update_regressions(
    Ledger& ledger, const TriageOutcome& outcome, const TriageDocument& document,
    const History& history, const std::string& host_id, const std::string& evidence_file,
    double threshold,
    const std::function<Result<bool>(const std::string& culprit, const std::string& fix)>&
        descends);

} // namespace culprit::history
