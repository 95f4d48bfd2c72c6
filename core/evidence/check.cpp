// The invariants of evidence read back (core/evidence/evidence.hpp, check_evidence): what culprit
// itself writes always holds them, so a document that breaks one was damaged or made by hand, and
// rendering it would state things that are not so.

#include <algorithm>
#include <array>
#include <cmath>
#include <span>

#include "core/evidence/evidence.hpp"
#include "core/util/escape.hpp"

namespace culprit::evidence {
namespace {

using Words = std::span<const std::string_view>;
constexpr std::array<std::string_view, 5> k_kinds = {"run", "compare", "bisect", "track", "triage"};
constexpr std::array<std::string_view, 9> k_statuses = {
    "measured",      "no_change",      "slower", "faster",     "inconclusive",
    "culprit_found", "not_reproduced", "failed", "interrupted"};
constexpr std::array<std::string_view, 4> k_verdicts = {"slower", "faster", "same", "inconclusive"};
constexpr std::array<std::string_view, 5> k_classes = {"good", "bad", "skip", "intermediate",
                                                       "unresolved"};
constexpr std::array<std::string_view, 3> k_directions = {"", "lower", "higher"};
constexpr std::array<std::string_view, 2> k_limiters = {"compute", "memory"};

std::unexpected<Error> bad_key(std::string_view path, std::string_view why) {
  return usage_error("'{}' in the evidence {}; it was damaged or edited: render the file culprit "
                     "wrote",
                     path, why);
}

Status one_of(std::string_view path, const std::string& value, Words allowed) {
  if (std::ranges::find(allowed, value) != allowed.end())
    return {};
  std::string list;
  for (const auto word : allowed)
    if (!word.empty())
      list += (list.empty() ? "" : ", ") + std::string(word);
  return bad_key(path, fmt::format("is '{}', not one of {}", excerpt(value), list));
}

Status finite(std::string_view path, double value) {
  if (!std::isfinite(value))
    return bad_key(path, "is not a finite number");
  return {};
}

Status at_least(std::string_view path, double value, double low) {
  CULPRIT_TRY(finite(path, value));
  if (value < low)
    return bad_key(path, fmt::format("is {:g}, below {:g}", value, low));
  return {};
}

// An interval [lower, upper] with lower <= upper, both finite and at least `low`.
Status interval(std::string_view path, const std::array<double, 2>& ci, double low) {
  CULPRIT_TRY(at_least(fmt::format("{}[0]", path), ci[0], low));
  CULPRIT_TRY(at_least(fmt::format("{}[1]", path), ci[1], low));
  if (ci[0] > ci[1])
    return bad_key(
        path, fmt::format("is [{:g}, {:g}], whose lower end is above its upper end", ci[0], ci[1]));
  return {};
}

// Settings every writer fills: a threshold and a confidence are fractions in (0, 1), the
// bisection's shares in (0, 1], a budget positive.
Status check_settings(const EvidenceSettings& s) {
  if (s.threshold <= 0 || s.threshold >= 1 || std::isnan(s.threshold))
    return bad_key("settings.threshold", fmt::format("is {:g}, not between 0 and 1", s.threshold));
  if (s.confidence <= 0 || s.confidence >= 1 || std::isnan(s.confidence))
    return bad_key("settings.confidence",
                   fmt::format("is {:g}, not between 0 and 1", s.confidence));
  for (const auto& [key, share] : {std::pair{"settings.classify_confidence", s.classify_confidence},
                                   std::pair{"settings.explained_share", s.explained_share}}) {
    if (share && (!(*share > 0) || *share > 1))
      return bad_key(key, fmt::format("is {:g}, not in (0, 1]", *share));
  }
  if (s.budget && !(*s.budget > 0))
    return bad_key("settings.budget", fmt::format("is {:g}; give a positive number of seconds "
                                                  "or null",
                                                  *s.budget));
  return {};
}

Status check_measurement(const EvidenceMeasurement& m, const std::string& at) {
  CULPRIT_TRY(one_of(at + ".direction", m.direction, k_directions));
  for (std::size_t r = 0; r < m.runs.size(); ++r)
    for (std::size_t i = 0; i < m.runs[r].size(); ++i)
      CULPRIT_TRY(finite(fmt::format("{}.runs[{}][{}]", at, r, i), m.runs[r][i]));
  if (!m.blocks.empty() && m.blocks.size() != m.runs.size())
    return bad_key(at + ".blocks", fmt::format("has {} entries for {} runs; give one per run",
                                               m.blocks.size(), m.runs.size()));
  if (m.duets.size() != m.blocks.size())
    return bad_key(at + ".duets",
                   fmt::format("has {} entries where blocks has {}; give one per run",
                               m.duets.size(), m.blocks.size()));
  CULPRIT_TRY(finite(at + ".summary.median", m.summary.median));
  CULPRIT_TRY(interval(at + ".summary.ci", m.summary.ci, -HUGE_VAL));
  if (m.roofline) {
    const auto& r = *m.roofline;
    const auto path = at + ".roofline";
    CULPRIT_TRY(at_least(path + ".flops", r.flops, 0));
    CULPRIT_TRY(at_least(path + ".bytes", r.bytes, 0));
    CULPRIT_TRY(at_least(path + ".intensity", r.intensity, 0));
    CULPRIT_TRY(at_least(path + ".bound_seconds", r.bound_seconds, 0));
    CULPRIT_TRY(one_of(path + ".limiter", r.limiter, k_limiters));
    CULPRIT_TRY(at_least(path + ".fraction", r.fraction, 0));
    CULPRIT_TRY(interval(path + ".fraction_ci", r.fraction_ci, 0));
  }
  return at_least(at + ".summary.outliers", m.summary.outliers, 0);
}

Status check_comparison(const EvidenceComparison& c, const std::string& at) {
  CULPRIT_TRY(one_of(at + ".verdict", c.verdict, k_verdicts));
  CULPRIT_TRY(one_of(at + ".direction", c.direction, k_directions));
  CULPRIT_TRY(at_least(at + ".ratio", c.ratio, 0));
  CULPRIT_TRY(interval(at + ".ci", c.ci, 0));
  CULPRIT_TRY(at_least(at + ".p_value", c.p_value, 0));
  if (c.p_value > 1)
    return bad_key(at + ".p_value", fmt::format("is {:g}, above 1", c.p_value));
  CULPRIT_TRY(at_least(at + ".base_runs", c.base_runs, 0));
  if (c.slow_runs) {
    CULPRIT_TRY(at_least(at + ".slow_runs.runs", c.slow_runs->runs, 0));
    CULPRIT_TRY(at_least(at + ".slow_runs.compared", c.slow_runs->compared, 0));
    CULPRIT_TRY(at_least(at + ".slow_runs.mixed", c.slow_runs->mixed, 0));
  }
  if (c.reuse) {
    CULPRIT_TRY(at_least(at + ".reuse.blocks", c.reuse->blocks, 0));
    CULPRIT_TRY(at_least(at + ".reuse.base_unpaired", c.reuse->base_unpaired, 0));
    CULPRIT_TRY(at_least(at + ".reuse.head_unpaired", c.reuse->head_unpaired, 0));
  }
  return at_least(at + ".head_runs", c.head_runs, 0);
}

Status check_bisect(const EvidenceBisect& b) {
  CULPRIT_TRY(at_least("bisect.commits_in_range", b.commits_in_range, 0));
  CULPRIT_TRY(at_least("bisect.rounds", b.rounds, 0));
  CULPRIT_TRY(at_least("bisect.parallel", b.parallel, 1));
  for (std::size_t i = 0; i < b.steps.size(); ++i) {
    const auto& s = b.steps[i];
    const auto at = fmt::format("bisect.steps[{}]", i);
    CULPRIT_TRY(one_of(at + ".classified", s.classified, k_classes));
    if (s.position)
      CULPRIT_TRY(finite(at + ".position", *s.position));
    if (s.ci)
      CULPRIT_TRY(interval(at + ".ci", *s.ci, -HUGE_VAL));
    CULPRIT_TRY(at_least(at + ".runs", s.runs, 0));
  }
  for (std::size_t i = 0; i < b.culprits.size(); ++i) {
    const auto& c = b.culprits[i];
    if (c.cases.empty())
      return bad_key(fmt::format("bisect.culprits[{}].cases", i),
                     "is empty, and a culprit names the cases it moved");
    for (std::size_t j = 0; j < c.cases.size(); ++j) {
      const auto& moved = c.cases[j];
      const auto at = fmt::format("bisect.culprits[{}].cases[{}]", i, j);
      CULPRIT_TRY(at_least(at + ".ratio", moved.ratio, 0));
      CULPRIT_TRY(interval(at + ".ci", moved.ci, 0));
      if (moved.share)
        CULPRIT_TRY(finite(at + ".share", *moved.share));
    }
  }
  return {};
}

} // namespace

Status check_evidence(const Evidence& e) {
  CULPRIT_TRY(one_of("kind", e.kind, k_kinds));
  CULPRIT_TRY(one_of("status", e.status, k_statuses));
  if (e.kind == "bisect" && !e.bisect)
    return bad_key("bisect", "is missing, and evidence of kind bisect needs it");
  if (e.kind == "track" && !e.track)
    return bad_key("track", "is missing, and evidence of kind track needs it");
  if (e.track) {
    const auto& t = *e.track;
    for (const auto& [key, count] : {std::pair{"selected", t.selected},
                                     {"measured", t.measured},
                                     {"runs", t.runs},
                                     {"runs_made", t.runs_made},
                                     {"already_tracked", t.already_tracked},
                                     {"failed_builds", t.failed_builds},
                                     {"anchors_wanted", t.anchors_wanted}})
      CULPRIT_TRY(at_least(fmt::format("track.{}", key), count, 0));
  }
  CULPRIT_TRY(check_settings(e.settings));
  for (std::size_t i = 0; i < e.builds.size(); ++i)
    CULPRIT_TRY(at_least(fmt::format("builds[{}].seconds", i), e.builds[i].seconds, 0));
  for (std::size_t i = 0; i < e.measurements.size(); ++i)
    CULPRIT_TRY(check_measurement(e.measurements[i], fmt::format("measurements[{}]", i)));
  for (std::size_t i = 0; i < e.comparisons.size(); ++i)
    CULPRIT_TRY(check_comparison(e.comparisons[i], fmt::format("comparisons[{}]", i)));
  for (std::size_t i = 0; i < e.roofline_peaks.size(); ++i) {
    const auto& p = e.roofline_peaks[i];
    const auto at = fmt::format("roofline_peaks[{}]", i);
    if (!(p.flops_per_second > 0) || !std::isfinite(p.flops_per_second))
      return bad_key(at + ".flops_per_second", "is not a positive number");
    if (!(p.bytes_per_second > 0) || !std::isfinite(p.bytes_per_second))
      return bad_key(at + ".bytes_per_second", "is not a positive number");
  }
  if (e.bisect)
    CULPRIT_TRY(check_bisect(*e.bisect));
  return {};
}

} // namespace culprit::evidence
