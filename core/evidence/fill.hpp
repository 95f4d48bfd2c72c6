#pragma once
// From what the drivers measured to the evidence document: builds, measurements with every run,
// comparisons, bisection steps and culprits with their commit metadata.

#include <string>
#include <vector>

#include "core/bisect/bisect.hpp"
#include "core/build/builder.hpp"
#include "core/evidence/evidence.hpp"
#include "core/git/repository.hpp"
#include "core/measure/compare.hpp"
#include "core/measure/sampler.hpp"
#include "core/recipe/recipe.hpp"
#include "core/store/location.hpp"

namespace culprit::evidence {

// tool, command, created, repo and settings; kind and status are the caller's. A store URL in the
// command, and the store, are recorded without their password.
Evidence evidence_header(const std::vector<std::string>& command, const git::Repository& repo,
                         const recipe::Recipe& recipe, const store::Location& store = {});
EvidenceBuild build_entry(const build::BuildResult& build);
// The runs of a case (the first `first_n`, all when 0) with their summary: the median of the
// pooled samples with a two-level bootstrap interval, the mean, the minimum, the coefficient of
// variation of the run medians, the count of Tukey outliers among the samples, and what the
// samples say about interference.
Result<EvidenceMeasurement> measurement_entry(measure::Sampler& sampler,
                                              const measure::Subject& subject,
                                              const measure::SelectedCase& selected,
                                              std::size_t first_n, double confidence,
                                              std::uint64_t seed);
// `setting` is the statistic setting the comparison was made under (auto, min, ...).
EvidenceComparison comparison_entry(const measure::Subject& base, const measure::Subject& head,
                                    const measure::CaseVerdict& verdict,
                                    const std::string& setting);
// The evidence of a diagnosis, with its line for people.
EvidenceInterference interference_entry(const stats::Interference& diagnosis);
std::string verdict_status(
    const measure::CompareOutcome& outcome); // no_change | slower | faster | inconclusive

// Everything of a bisection: builds, measurements of every measured commit, the confirmation,
// the steps and the culprits with their change and share (describe_culprits in
// core/culprit_hints adds their commit metadata, owners and hints). With several lanes (devices),
// a commit gets one measurement per device that measured it, each with its host id. `timer`
// (BisectSettings::timer) holds the timed runs of a bisection under a counting instrument.
Status fill_bisect_evidence(Evidence& evidence, const bisect::BisectRange& range,
                            const bisect::BisectOutcome& outcome,
                            std::span<measure::Sampler* const> lanes, double confidence,
                            std::uint64_t seed, measure::Sampler* timer = nullptr);

} // namespace culprit::evidence
