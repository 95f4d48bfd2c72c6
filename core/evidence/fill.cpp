#include "core/evidence/fill.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "core/measure/stats_bridge.hpp"
#include "core/util/clock.hpp"
#include "core/util/version.hpp"
#include "stats/bootstrap.hpp"
#include "stats/summary.hpp"

namespace culprit::evidence {
namespace {

// Of the interval on a measurement's median: it describes one side and decides nothing.
constexpr std::size_t k_summary_resamples = 2000;

// The coefficient of variation of the run medians: their standard deviation over the magnitude of
// their mean, taken of the medians divided by the largest magnitude among them, which changes
// nothing in the ratio and keeps the sums finite for counts near the largest double; 0 when the
// mean is 0.
double run_median_cv(std::span<const double> medians) {
  double largest = 0;
  for (const double value : medians)
    largest = std::max(largest, std::abs(value));
  if (!(largest > 0) || !std::isfinite(largest))
    return 0;
  std::vector<double> scaled;
  scaled.reserve(medians.size());
  for (const double value : medians)
    scaled.push_back(value / largest);
  const auto spread = stats::summarize(scaled);
  if (!spread || !spread->coefficient_of_variation ||
      !std::isfinite(*spread->coefficient_of_variation))
    return 0;
  return std::abs(*spread->coefficient_of_variation);
}

} // namespace

Evidence evidence_header(const std::vector<std::string>& command, const git::Repository& repo,
                         const recipe::Recipe& recipe, const store::Location& store) {
  Evidence e;
  e.tool_version = k_version;
  e.command.reserve(command.size());
  for (const auto& argument : command)
    e.command.push_back(store::mask_urls_in(argument));
  e.created = utc_now_iso8601();
  e.repo_path = repo.is_bare() ? repo.common_dir().string() : repo.workdir().string();
  e.repo_head = repo.resolve("HEAD").value_or("");
  auto& s = e.settings;
  s.build = recipe.build.command;
  std::visit(
      [&](const auto& c) {
        if constexpr (std::is_same_v<std::decay_t<decltype(c)>, std::string>)
          s.run = c;
        else
          s.run = fmt::format("{}", fmt::join(c, " "));
      },
      recipe.run.command);
  s.format = recipe.run.format;
  s.metric = recipe.run.metric;
  s.threshold = recipe.decide.threshold;
  s.confidence = recipe.decide.confidence;
  s.seed = recipe.decide.seed;
  s.classify_confidence = recipe.decide.classify_confidence;
  s.explained_share = recipe.decide.explained_share;
  if (recipe.decide.budget)
    s.budget = recipe.decide.budget->count();
  s.min_runs = recipe.decide.min_runs;
  s.max_runs = recipe.decide.max_runs;
  s.warmup = recipe.decide.warmup;
  s.cases = recipe.run.cases;
  s.statistic = recipe.decide.statistic;
  s.duet = std::string(to_string(recipe.run.duet));
  s.instrument = std::string(to_string(recipe.run.instrument));
  s.cwd = std::string(to_string(recipe.run.cwd));
  if (store.shared())
    s.store = store::masked_url(store.url);
  return e;
}

EvidenceBuild build_entry(const build::BuildResult& build) {
  return {build.commit,
          build.key,
          build.ok(),
          build.seconds,
          std::string(to_string(build.status)),
          build.artifact_id,
          build.log.string(),
          build.message};
}

EvidenceInterference interference_entry(const stats::Interference& diagnosis) {
  EvidenceInterference i;
  i.one_sided = diagnosis.one_sided;
  i.skewness = diagnosis.skewness;
  i.spread = diagnosis.spread;
  i.summary = measure::describe_interference(diagnosis);
  if (const auto& states = diagnosis.states)
    i.states = EvidenceSpeedStates{states->fast, states->slow, states->slow_share,
                                   states->separation, states->slow_stretch};
  if (const auto& drift = diagnosis.drift)
    i.drift = EvidenceDrift{drift->change, drift->tau, drift->p_value};
  return i;
}

Result<EvidenceMeasurement> measurement_entry(measure::Sampler& sampler,
                                              const measure::Subject& subject,
                                              const measure::SelectedCase& selected,
                                              std::size_t first_n, double confidence,
                                              std::uint64_t seed) {
  EvidenceMeasurement m;
  m.commit = subject.commit;
  m.case_name = selected.key.case_name;
  m.metric = selected.key.metric;
  m.unit = selected.unit;
  m.direction = std::string(to_string(selected.direction));
  m.artifact_id = subject.artifact_id;
  CULPRIT_TRY_ASSIGN(auto runs, sampler.runs(subject, selected.key, first_n));
  m.runs = std::move(runs.samples);
  if (std::ranges::any_of(runs.blocks, [](const auto& block) { return block.has_value(); })) {
    for (std::size_t i = 0; i < m.runs.size(); ++i) {
      m.blocks.push_back(runs.blocks.at(i).value_or(""));
      m.duets.push_back(i < runs.duets.size() && runs.duets[i]);
    }
  }
  std::vector<double> pooled;
  std::vector<double> run_medians;
  for (const auto& run : m.runs) {
    pooled.insert(pooled.end(), run.begin(), run.end());
    if (auto med = stats::median(run))
      run_medians.push_back(*med);
  }
  if (pooled.empty())
    return m;
  if (pooled.size() == 1) {
    // One run of one sample (a budget that ran out): a level without an interval.
    m.summary.median = m.summary.mean = m.summary.min = pooled.front();
    m.summary.ci = {pooled.front(), pooled.front()};
    return m;
  }
  CULPRIT_TRY_ASSIGN(const auto summary,
                     measure::from_stats(stats::summarize(pooled), m.case_name));
  m.summary.median = summary.median;
  m.summary.mean = summary.mean;
  m.summary.min = summary.min;
  m.summary.ci = {summary.median, summary.median};
  if (auto diagnosis = measure::diagnose(m.runs, selected.direction))
    m.interference = interference_entry(*diagnosis);
  if (auto outliers = stats::classify_outliers(pooled))
    m.summary.outliers = static_cast<int>(outliers->mild.size() + outliers->severe.size());
  if (run_medians.size() >= 2) {
    m.summary.cv = run_median_cv(run_medians);
    if (auto interval = stats::level_interval(
            m.runs, stats::Statistic::median,
            measure::level_interval_options(confidence, seed, k_summary_resamples)))
      m.summary.ci = {interval->lower, interval->upper};
  }
  return m;
}

EvidenceComparison comparison_entry(const measure::Subject& base, const measure::Subject& head,
                                    const measure::CaseVerdict& verdict,
                                    const std::string& setting) {
  EvidenceComparison c;
  c.base = base.commit;
  c.head = head.commit;
  c.case_name = verdict.selected.key.case_name;
  c.metric = verdict.selected.key.metric;
  c.unit = verdict.selected.unit;
  c.direction = std::string(to_string(verdict.selected.direction));
  c.verdict = std::string(stats::to_string(verdict.verdict));
  c.base_runs = static_cast<int>(verdict.base_runs);
  c.head_runs = static_cast<int>(verdict.head_runs);
  c.min_detectable = verdict.min_detectable;
  c.note = verdict.note;
  c.reuse = EvidenceReuse{.blocks = static_cast<int>(verdict.reused_blocks),
                          .base_unpaired = static_cast<int>(verdict.unpaired[0]),
                          .head_unpaired = static_cast<int>(verdict.unpaired[1])};
  if (verdict.comparison) {
    c.ratio = verdict.comparison->ratio.estimate;
    c.ci = {verdict.comparison->ratio.lower, verdict.comparison->ratio.upper};
    c.p_value = verdict.comparison->p_value;
    if (verdict.estimator) {
      EvidenceEstimator e;
      e.statistic = stats::to_string(verdict.estimator->statistic);
      e.setting = setting;
      e.reason = verdict.estimator->reason;
      e.method = std::string(stats::to_string(verdict.comparison->method));
      e.blocks = static_cast<int>(verdict.blocks);
      e.duets = static_cast<int>(verdict.duets);
      e.interval_confidence = verdict.comparison->interval_confidence;
      e.base_level = verdict.levels[0];
      e.head_level = verdict.levels[1];
      c.estimator = std::move(e);
    }
  }
  if (const auto& s = verdict.selection) {
    c.slow_runs =
        EvidenceSlowRuns{.share = s->slow_share(),
                         .runs = static_cast<int>(s->runs),
                         .compared = static_cast<int>(s->kept.size()),
                         .fast = static_cast<int>(s->fast_blocks),
                         .slow = static_cast<int>(s->slow_blocks),
                         .mixed = static_cast<int>(s->mixed_blocks),
                         .slow_used = s->slow_blocks_used,
                         .summary = measure::describe_slow_runs(*s, verdict.one_sample_runs)};
  }
  if (verdict.tail) {
    const auto& t = verdict.tail->comparison;
    c.tail = EvidenceTail{stats::to_string(verdict.tail->statistic),
                          t.ratio.estimate,
                          {t.ratio.lower, t.ratio.upper},
                          t.p_value,
                          std::string(stats::to_string(t.verdict))};
  }
  return c;
}

std::string verdict_status(const measure::CompareOutcome& outcome) {
  bool slower = false;
  bool faster = false;
  bool inconclusive = false;
  for (const auto& c : outcome.cases) {
    slower = slower || c.verdict == stats::Verdict::slower;
    faster = faster || c.verdict == stats::Verdict::faster;
    inconclusive = inconclusive || c.verdict == stats::Verdict::inconclusive;
  }
  if (slower)
    return "slower";
  if (inconclusive)
    return "inconclusive";
  if (faster)
    return "faster";
  return "no_change";
}

Status fill_bisect_evidence(Evidence& evidence, const bisect::BisectRange& range,
                            const bisect::BisectOutcome& outcome,
                            std::span<measure::Sampler* const> lanes, double confidence,
                            std::uint64_t seed, measure::Sampler* timer) {
  for (const auto& [commit, build] : outcome.builds)
    evidence.builds.push_back(build_entry(build));
  // A bisection interrupted early may not have built its ends yet.
  const auto good = outcome.subjects.find(range.good);
  const auto bad = outcome.subjects.find(range.bad);
  if (good != outcome.subjects.end() && bad != outcome.subjects.end())
    for (const auto& verdict : outcome.confirmation.cases)
      evidence.comparisons.push_back(
          comparison_entry(good->second, bad->second, verdict, evidence.settings.statistic));
  // Every measured commit, for every case bisected (or confirmed, when nothing was).
  std::vector<measure::SelectedCase> cases = outcome.cases;
  if (cases.empty())
    for (const auto& verdict : outcome.confirmation.cases)
      cases.push_back(verdict.selected);
  std::vector<measure::Sampler*> devices;
  for (auto* lane : lanes) {
    if (std::ranges::none_of(devices, [&](const measure::Sampler* seen) {
          return seen->options().host_id == lane->options().host_id;
        }))
      devices.push_back(lane);
  }
  for (const auto& [commit, subject] : outcome.subjects) {
    for (auto* device : devices) {
      for (const auto& selected : cases) {
        // Bisected by time under a counting instrument: the runs are the timer's.
        auto& source =
            timer != nullptr && outcome.by_time.contains(selected.key) ? *timer : *device;
        CULPRIT_TRY_ASSIGN(auto m,
                           measurement_entry(source, subject, selected, 0, confidence, seed));
        if (m.runs.empty())
          continue;
        if (const auto it = outcome.reused_from.find(commit); it != outcome.reused_from.end())
          m.reused_from = it->second;
        if (devices.size() > 1)
          m.host_id = device->options().host_id;
        evidence.measurements.push_back(std::move(m));
      }
    }
  }
  // The timed runs that confirmed each culprit that counts located, and its parent's.
  for (const auto& culprit : outcome.culprits) {
    for (const auto& verdict : culprit.in_time) {
      for (const auto& commit : {culprit.parent, culprit.commit}) {
        const auto subject = outcome.subjects.find(commit);
        if (timer == nullptr || subject == outcome.subjects.end())
          continue;
        CULPRIT_TRY_ASSIGN(auto m, measurement_entry(*timer, subject->second, verdict.selected, 0,
                                                     confidence, seed));
        if (!m.runs.empty())
          evidence.measurements.push_back(std::move(m));
      }
    }
  }
  EvidenceBisect b;
  b.good = range.good;
  b.bad = range.bad;
  b.commits_in_range = static_cast<int>(range.commits.size());
  b.rounds = static_cast<int>(outcome.rounds);
  b.parallel = static_cast<int>(outcome.lanes);
  b.note = outcome.note;
  for (const auto& c : outcome.cases)
    b.cases.push_back(c.key.case_name);
  for (const auto& step : outcome.steps) {
    EvidenceStep s;
    s.commit = step.commit;
    s.case_name = step.case_name;
    s.classified = std::string(to_string(step.classified));
    s.runs = static_cast<int>(step.runs);
    s.note = step.note;
    s.host_id = step.host_id;
    s.statistic = step.statistic;
    if (step.position) {
      s.position = step.position->position.estimate;
      s.ci = std::array<double, 2>{step.position->position.lower, step.position->position.upper};
    }
    b.steps.push_back(std::move(s));
  }
  for (const auto& culprit : outcome.culprits) {
    EvidenceCulpritCase moved;
    moved.name = culprit.selected.key.case_name;
    moved.share = culprit.share;
    moved.metric = culprit.selected.key.metric;
    if (culprit.change) {
      moved.ratio = culprit.change->ratio.estimate;
      moved.ci = {culprit.change->ratio.lower, culprit.change->ratio.upper};
      moved.exact = culprit.change->method == stats::ComparisonMethod::exact;
    }
    if (culprit.counters) {
      EvidenceCounters counters;
      counters.case_name = culprit.counters->counted_case;
      counters.note = culprit.counters->note;
      for (const auto& change : culprit.counters->changes)
        counters.changes.push_back({change.metric, change.parent, change.culprit});
      moved.counters = std::move(counters);
    }
    const auto parent = outcome.subjects.find(culprit.parent);
    const auto found = outcome.subjects.find(culprit.commit);
    if (parent != outcome.subjects.end() && found != outcome.subjects.end())
      for (const auto& verdict : culprit.in_time)
        moved.in_time.push_back(
            comparison_entry(parent->second, found->second, verdict, evidence.settings.statistic));
    EvidenceCulprit c;
    c.commit = culprit.commit;
    c.parent = culprit.parent;
    c.cases.push_back(std::move(moved));
    add_culprit(b.culprits, std::move(c));
  }
  b.candidates = outcome.candidates;
  evidence.bisect = std::move(b);
  return {};
}

} // namespace culprit::evidence
