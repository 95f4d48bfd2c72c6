#include "core/evidence/triage.hpp"

#include <algorithm>
#include <set>

#include "core/evidence/culprit_hints.hpp"
#include "core/evidence/fill.hpp"

namespace culprit::history {
namespace {

using nlohmann::json;

// The evidence writer's spelling of a bisection, reused for each finding.
json bisect_json(const EvidenceBisect& bisect) {
  Evidence holder;
  holder.bisect = bisect;
  return to_json(holder).at("bisect");
}

json change_json(const TriageChange& triaged) {
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

std::string status_of(const TriageOutcome& outcome) {
  if (outcome.new_regressions())
    return "culprit_found";
  if (outcome.count(TriageStatus::inconclusive) + outcome.count(TriageStatus::failed) > 0)
    return "inconclusive";
  return "no_change";
}

} // namespace

Result<TriageDocument> triage_document(Evidence header, const TriageOutcome& outcome,
                                       const git::Repository& repo, const BuildCache* cache,
                                       Executor* executor, Sampler& sampler, double confidence,
                                       std::uint64_t seed) {
  Evidence evidence = std::move(header);
  evidence.kind = "triage";
  evidence.status = status_of(outcome);
  // Each bisection's evidence, as `culprit bisect` would write it.
  std::vector<std::optional<EvidenceBisect>> parts(outcome.groups.size());
  std::set<std::string> built;
  for (std::size_t g = 0; g < outcome.groups.size(); ++g) {
    const auto& group = outcome.groups[g];
    if (group.bisect.status == BisectStatus::not_run)
      continue; // the bisection failed; its change points say why
    Evidence part;
    Sampler* const lanes[] = {&sampler};
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
    for (const auto g : finding.groups) {
      const auto& part = *parts[g];
      if (bisect.good.empty()) {
        bisect.good = part.good;
        bisect.bad = part.bad;
        bisect.commits_in_range = part.commits_in_range;
        bisect.steps = part.steps;
      }
      for (const auto& culprit : part.culprits)
        if (culprit.commit == finding.commit)
          add_culprit(bisect.culprits, culprit);
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

} // namespace culprit::history
