#include "core/report/view.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "core/util/escape.hpp"
#include "core/util/format.hpp"

namespace culprit::report {
namespace {

// "1 file", "3 files"; a negative count (a corrupt document) reads as 0.
std::string files(int count) {
  return counted(static_cast<std::size_t>(std::max(count, 0)), "file", "files");
}

std::vector<const evidence::EvidenceComparison*> primary_comparisons(const evidence::Evidence& e) {
  std::vector<const evidence::EvidenceComparison*> all;
  std::vector<const evidence::EvidenceComparison*> ends;
  for (const auto& c : e.comparisons) {
    all.push_back(&c);
    if (e.bisect && same_commit(c.base, e.bisect->good) && same_commit(c.head, e.bisect->bad))
      ends.push_back(&c);
  }
  return ends.empty() ? all : ends;
}

double magnitude(const evidence::EvidenceComparison* c) {
  return std::abs(std::log(c->ratio > 0 ? c->ratio : 1.0));
}

std::string compare_headline(const evidence::Evidence& e, const ReportView& v) {
  std::map<std::string, std::vector<const evidence::EvidenceComparison*>> by_verdict;
  for (const auto* c : v.cases)
    by_verdict[c->verdict].push_back(c);
  const auto total = v.cases.size();
  const auto threshold = format_percent(e.settings.threshold);
  const auto extreme = [&](const std::string& verdict) {
    const auto& cases = by_verdict[verdict];
    const auto* worst = *std::ranges::max_element(
        cases, [](const auto* a, const auto* b) { return magnitude(a) < magnitude(b); });
    return fmt::format("{} {}", worst->case_name,
                       change_with_ci(worst->ratio, worst->ci, v.confidence_label));
  };
  const auto others = [&](std::string_view skip) {
    std::string out;
    for (const auto* verdict : {"slower", "faster", "inconclusive"})
      if (verdict != skip && !by_verdict[verdict].empty())
        out += fmt::format("; {} {}", by_verdict[verdict].size(), verdict);
    return out;
  };
  if (e.status == "slower" && !by_verdict["slower"].empty())
    return fmt::format("slower: {} of {} beyond the {} threshold; worst {}{}",
                       by_verdict["slower"].size(), counted(total, "case", "cases"), threshold,
                       extreme("slower"), others("slower"));
  if (e.status == "faster" && !by_verdict["faster"].empty())
    return fmt::format("faster: {} of {} beyond the {} threshold; best {}{}",
                       by_verdict["faster"].size(), counted(total, "case", "cases"), threshold,
                       extreme("faster"), others("faster"));
  if (e.status == "no_change")
    return fmt::format("no change: {} of {} within ±{}{}", by_verdict["same"].size(),
                       counted(total, "case", "cases"), threshold, others(""));
  if (e.status == "inconclusive")
    return fmt::format("inconclusive: {} of {} undecided when the budget ran out{}",
                       by_verdict["inconclusive"].size(), counted(total, "case", "cases"),
                       others("inconclusive"));
  return "";
}

// "+64.8% on a, +82.2% on b": how a culprit moved each of its cases.
std::string changes_on_cases(const evidence::EvidenceCulprit& c) {
  std::string list;
  for (const auto& moved : c.cases)
    list +=
        fmt::format("{}{} on {}", list.empty() ? "" : ", ", format_change(moved.ratio), moved.name);
  return list;
}

// "+5.0%", or "+5.0% to +9.1% (2 cases)" for a culprit that moved several.
std::string change_range(const evidence::EvidenceCulprit& c) {
  if (c.cases.empty())
    return "";
  const auto [low, high] = std::ranges::minmax_element(
      c.cases, [](const auto& a, const auto& b) { return a.ratio < b.ratio; });
  if (c.cases.size() == 1)
    return format_change(low->ratio);
  return fmt::format("{} to {} ({} cases)", format_change(low->ratio), format_change(high->ratio),
                     c.cases.size());
}

std::string bisect_headline(const evidence::Evidence& e, const ReportView& v) {
  const auto& b = *e.bisect;
  std::vector<std::string> moved;
  for (const auto& c : b.culprits)
    for (const auto& m : c.cases)
      if (std::ranges::find(moved, m.name) == moved.end())
        moved.push_back(m.name);
  if (e.status == "culprit_found" && b.culprits.size() == 1) {
    const auto& c = b.culprits.front();
    if (c.cases.size() == 1)
      return fmt::format(
          "culprit found: {} \"{}\" by {}, {} on {}", short_id(c.commit), c.subject, c.author,
          change_with_ci(c.cases[0].ratio, c.cases[0].ci, v.confidence_label), c.cases[0].name);
    return fmt::format("1 culprit found, {}: {} \"{}\" by {}, {}",
                       counted(moved.size(), "case", "cases"), short_id(c.commit), c.subject,
                       c.author, changes_on_cases(c));
  }
  if (e.status == "culprit_found" && !b.culprits.empty()) {
    std::string list;
    for (const auto& c : b.culprits)
      list += fmt::format("{}{} {}", list.empty() ? "" : ", ", short_id(c.commit), change_range(c));
    return fmt::format("{} culprits found, {}: {}", b.culprits.size(),
                       counted(moved.size(), "case", "cases"), list);
  }
  if (e.status == "not_reproduced")
    return fmt::format("not reproduced: {} and {} do not differ beyond the {} threshold",
                       short_id(b.good), short_id(b.bad), format_percent(e.settings.threshold));
  if (e.status == "inconclusive" && !b.candidates.empty()) {
    std::string list;
    for (std::size_t i = 0; i < b.candidates.size() && i < 5; ++i)
      list += (i == 0 ? "" : ", ") + short_id(b.candidates[i]);
    if (b.candidates.size() > 5)
      list += fmt::format(" and {} more", b.candidates.size() - 5);
    return fmt::format("inconclusive: {} remain: {}",
                       counted(b.candidates.size(), "candidate commit", "candidate commits"), list);
  }
  return "";
}

std::string headline(const evidence::Evidence& e, const ReportView& v) {
  std::string line;
  if (e.bisect)
    line = bisect_headline(e, v);
  else if (!v.cases.empty())
    line = compare_headline(e, v);
  if (!line.empty())
    return line;
  if (e.status == "failed")
    return "failed: " + (e.warnings.empty() ? std::string("builds or runs failed with no way "
                                                          "around them")
                                            : e.warnings.front());
  if (e.track)
    return fmt::format("tracked {} of {}{}{}", e.track->measured,
                       counted(static_cast<std::size_t>(e.track->selected), "commit", "commits"),
                       e.revisions.empty() ? "" : " of " + e.revisions.front(),
                       e.track->failed_builds > 0
                           ? fmt::format(", {} did not build", e.track->failed_builds)
                           : std::string());
  if (e.kind == "run" && !e.measurements.empty()) {
    std::size_t cases = 0;
    for (const auto& m : e.measurements)
      cases += static_cast<std::size_t>(m.commit == e.measurements.front().commit);
    return fmt::format("measured {} of {}", counted(cases, "case", "cases"),
                       short_id(e.measurements[0].commit));
  }
  return e.status.empty() ? std::string("no verdict") : e.status;
}

// Without the range from git, a bisection's path can still be put in order: each good-like
// probe lies after the earlier good-like ones, each bad-like probe before the earlier bad-like
// ones; skipped and undecided probes sit between the two (their exact place is not recorded).
std::vector<PathPoint> infer_order(std::vector<PathPoint> probes) {
  std::vector<PathPoint> left;
  std::vector<PathPoint> middle;
  std::vector<PathPoint> right;
  for (auto& p : probes) {
    if (p.role == "good")
      left.push_back(std::move(p));
    else if (p.role == "bad")
      right.push_back(std::move(p));
    else
      middle.push_back(std::move(p));
  }
  std::ranges::reverse(right);
  left.insert(left.end(), middle.begin(), middle.end());
  left.insert(left.end(), right.begin(), right.end());
  return left;
}

void build_path(const evidence::Evidence& e, const RenderOptions& options, ReportView& v) {
  const auto& b = *e.bisect;
  std::vector<PathPoint> probes;
  for (std::size_t i = 0; i < b.steps.size(); ++i) {
    const auto& s = b.steps[i];
    // A commit probed twice (a second look) keeps its last verdict and its first number.
    const auto seen = std::ranges::find_if(
        probes, [&](const PathPoint& p) { return same_commit(p.commit, s.commit); });
    if (seen != probes.end()) {
      seen->role = s.classified;
      seen->step = &s;
      continue;
    }
    probes.push_back({s.commit, s.classified, false, false, static_cast<int>(i) + 1, &s});
  }
  std::erase_if(probes, [&](const PathPoint& p) {
    return same_commit(p.commit, b.good) || same_commit(p.commit, b.bad);
  });
  for (auto& p : probes)
    p.culprit = std::ranges::any_of(b.culprits, [&](const evidence::EvidenceCulprit& c) {
      return same_commit(c.commit, p.commit);
    });

  if (!options.commit_order.empty()) {
    const auto index = [&](const PathPoint& p) {
      const auto it = std::ranges::find_if(
          options.commit_order, [&](const std::string& c) { return same_commit(c, p.commit); });
      return it - options.commit_order.begin();
    };
    std::ranges::sort(probes, [&](const PathPoint& a, const PathPoint& c) {
      return std::pair(index(a), a.probe) < std::pair(index(c), c.probe);
    });
    v.path_order_known = true;
  } else {
    probes = infer_order(std::move(probes));
  }
  v.path.push_back({b.good, "good", true, false, 0, nullptr});
  v.path.insert(v.path.end(), probes.begin(), probes.end());
  const bool bad_is_culprit = std::ranges::any_of(
      b.culprits, [&](const evidence::EvidenceCulprit& c) { return same_commit(c.commit, b.bad); });
  v.path.push_back({b.bad, "bad", true, bad_is_culprit, 0, nullptr});
}

void build_environment(const evidence::Evidence& e, ReportView& v) {
  const auto text = [&](const char* key) {
    const auto it = e.host.find(key);
    return it != e.host.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (const auto host = text("hostname"); !host.empty())
    v.environment.emplace_back("host", host);
  if (auto cpu = text("cpu"); !cpu.empty() || e.host.contains("cores")) {
    if (const auto it = e.host.find("cores"); it != e.host.end() && it->is_number_integer())
      cpu += fmt::format("{}{} logical cores", cpu.empty() ? "" : ", ", it->get<int>());
    v.environment.emplace_back("cpu", cpu);
  }
  if (const auto os = text("os"); !os.empty())
    v.environment.emplace_back("os", os);
  if (const auto it = e.host.find("gpus"); it != e.host.end() && it->is_array())
    for (const auto& gpu : *it) {
      if (!gpu.is_object())
        continue;
      auto name = gpu.value("name", std::string("GPU"));
      if (const auto driver = gpu.value("driver_version", std::string()); !driver.empty())
        name += ", driver " + driver;
      v.environment.emplace_back("gpu", name);
    }
  const auto& s = e.settings;
  std::string settings = fmt::format("metric {}, threshold {}, confidence {}",
                                     s.metric.empty() ? "(the format's primary)" : s.metric,
                                     format_percent(s.threshold), format_percent(s.confidence));
  if (s.max_runs > 0)
    settings += fmt::format(", runs {}-{}", s.min_runs, s.max_runs);
  settings += fmt::format(", seed {}", s.seed);
  v.environment.emplace_back("settings", settings);
  if (!s.build.empty())
    v.environment.emplace_back("build", s.build);
  if (!s.run.empty())
    v.environment.emplace_back("run", s.run);
  if (!e.repo_path.empty())
    v.environment.emplace_back("repository", e.repo_path);
  v.environment.emplace_back("culprit",
                             e.tool_version + (e.created.empty() ? "" : ", " + e.created));
}

} // namespace

std::optional<std::array<double, 2>> share_bounds(const evidence::Evidence& evidence,
                                                  const evidence::EvidenceCulpritCase& moved) {
  if (!moved.share || !(moved.ci[0] > 0) || !(moved.ci[1] > 0))
    return std::nullopt;
  const evidence::EvidenceComparison* whole = nullptr;
  for (const auto& c : evidence.comparisons)
    if (c.case_name == moved.name &&
        (!evidence.bisect || (c.base == evidence.bisect->good && c.head == evidence.bisect->bad)))
      whole = &c;
  if (whole == nullptr)
    return share_interval(*moved.share, moved.ratio, moved.ci);
  const double w0 = std::log(whole->ci[0]);
  const double w1 = std::log(whole->ci[1]);
  if (!std::isfinite(w0) || !std::isfinite(w1) || w0 * w1 <= 0)
    return std::nullopt; // the whole change's interval holds no change
  std::array<double, 2> bounds{std::numeric_limits<double>::infinity(),
                               -std::numeric_limits<double>::infinity()};
  for (const double part : {std::log(moved.ci[0]), std::log(moved.ci[1])})
    for (const double all : {w0, w1}) {
      bounds[0] = std::min(bounds[0], part / all);
      bounds[1] = std::max(bounds[1], part / all);
    }
  return bounds;
}

std::string share_text(const evidence::Evidence& evidence,
                       const evidence::EvidenceCulpritCase& moved) {
  return moved.share ? format_share(*moved.share, share_bounds(evidence, moved)) : std::string();
}

const evidence::EvidenceMeasurement* find_measurement(const evidence::Evidence& evidence,
                                                      std::string_view commit,
                                                      std::string_view case_name) {
  for (const auto& m : evidence.measurements)
    if (m.case_name == case_name && same_commit(m.commit, commit))
      return &m;
  return nullptr;
}

std::string compared_level(const evidence::Evidence& evidence,
                           const evidence::EvidenceComparison& comparison, Side side) {
  const bool head = side == Side::head;
  if (comparison.estimator && comparison.estimator->blocks > 0)
    return format_quantity(head ? comparison.estimator->head_level
                                : comparison.estimator->base_level,
                           comparison.unit);
  const auto* m =
      find_measurement(evidence, head ? comparison.head : comparison.base, comparison.case_name);
  return m != nullptr ? format_quantity(m->summary.median, m->unit) : "-";
}

std::vector<double> run_medians(const evidence::EvidenceMeasurement& measurement) {
  std::vector<double> medians;
  for (auto run : measurement.runs) {
    if (run.empty())
      continue;
    std::ranges::sort(run);
    const auto n = run.size();
    medians.push_back(n % 2 == 1 ? run[n / 2] : (run[n / 2 - 1] + run[n / 2]) / 2);
  }
  return medians;
}

std::string change_with_ci(double ratio, const std::array<double, 2>& ci,
                           std::string_view confidence_label) {
  return fmt::format("{} ({} {})", format_change(ratio), confidence_label, format_change_ci(ci));
}

std::string culprit_change(const evidence::EvidenceCulpritCase& moved,
                           std::string_view confidence_label) {
  if (moved.exact)
    return fmt::format("{} {} (exact)", moved.metric, format_change(moved.ratio));
  if (!moved.in_time.empty())
    return fmt::format("{} {}", moved.metric,
                       change_with_ci(moved.ratio, moved.ci, confidence_label));
  return change_with_ci(moved.ratio, moved.ci, confidence_label);
}

std::string count_label(std::string_view metric) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 11> labels = {{
      {"instructions", "instructions"},
      {"data_reads", "data reads"},
      {"data_writes", "data writes"},
      {"branches", "branches"},
      {"branch_mispredictions", "branch mispredictions"},
      {"l1_misses_instr", "L1 instruction misses"},
      {"l1_misses_data", "L1 data misses"},
      {"ll_misses_instr", "LL instruction misses"},
      {"ll_misses_data", "LL data misses"},
      {"estimated_cycles", "estimated cycles"},
      {"", ""},
  }};
  for (const auto& [name, label] : labels)
    if (name == metric)
      return std::string(label);
  return std::string(metric);
}

std::string counters_line(const evidence::EvidenceCulpritCase& moved) {
  if (!moved.counters)
    return {};
  const auto& counters = *moved.counters;
  if (counters.changes.empty())
    return fmt::format("counts: none ({})", counters.note);
  static constexpr std::array<std::string_view, 5> headline = {
      "instructions", "l1_misses_data", "ll_misses_data", "branch_mispredictions",
      "estimated_cycles"};
  std::vector<std::string> parts;
  for (const auto metric : headline)
    for (const auto& change : counters.changes)
      if (change.metric == metric)
        parts.push_back(
            fmt::format("{} {}", count_label(metric),
                        change.parent > 0 ? format_change(change.culprit / change.parent)
                        : change.parent == change.culprit
                            ? fmt::format("{:.0f}", change.parent)
                            : fmt::format("{:.0f} -> {:.0f}", change.parent, change.culprit)));
  return fmt::format("counts: {}{}", fmt::join(parts, ", "),
                     counters.case_name == moved.name
                         ? std::string()
                         : " (of the whole program " + counters.case_name + ")");
}

std::vector<std::string> in_time_lines(const evidence::Evidence& evidence,
                                       const evidence::EvidenceCulpritCase& moved,
                                       std::string_view confidence_label) {
  std::vector<std::string> lines;
  for (const auto& timed : moved.in_time) {
    auto line = fmt::format("in time: {}{} {}: {}", timed.metric,
                            timed.case_name == moved.name ? "" : " on " + timed.case_name,
                            change_with_ci(timed.ratio, timed.ci, confidence_label), timed.verdict);
    if (timed.verdict == "inconclusive" || timed.verdict == "same")
      line += fmt::format(" at {:.1f}%", evidence.settings.threshold * 100);
    line += fmt::format(" ({} runs a side)", std::min(timed.base_runs, timed.head_runs));
    lines.push_back(std::move(line));
  }
  return lines;
}

std::vector<std::string> bisect_cases(const evidence::Evidence& evidence) {
  std::vector<std::string> cases;
  const auto add = [&](const std::string& name) {
    if (!name.empty() && std::ranges::find(cases, name) == cases.end())
      cases.push_back(name);
  };
  if (evidence.bisect) {
    for (const auto& c : evidence.bisect->cases)
      add(c);
    if (cases.empty())
      for (const auto& c : evidence.bisect->culprits)
        for (const auto& moved : c.cases)
          add(moved.name);
  }
  if (cases.empty())
    for (const auto& c : evidence.comparisons)
      add(c.case_name);
  return cases;
}

ReportView make_view(const evidence::Evidence& evidence, const RenderOptions& options) {
  ReportView v;
  v.title = "culprit " + (evidence.kind.empty() ? std::string("report") : evidence.kind);
  v.confidence_label = format_percent(evidence.settings.confidence) + " CI";
  v.cases = primary_comparisons(evidence);
  if (evidence.bisect)
    build_path(evidence, options, v);
  v.headline = headline(evidence, v);
  build_environment(evidence, v);
  v.reproduce = shell_command(evidence.command);
  return v;
}

} // namespace culprit::report

namespace culprit::report {

std::string diffstat_line(const evidence::EvidenceDiffstat& d) {
  return fmt::format("{} changed, +{} -{}", files(d.files), d.insertions, d.deletions);
}

std::string artifacts_line(const evidence::EvidenceArtifacts& a) {
  if (a.identical)
    return fmt::format("byte-identical to the parent's ({}, {})", format_bytes(a.culprit_bytes),
                       files(a.culprit_files));
  auto line =
      fmt::format("{} -> {} ({})", format_bytes(a.parent_bytes), format_bytes(a.culprit_bytes),
                  format_byte_delta(a.culprit_bytes - a.parent_bytes));
  if (a.parent_files == a.culprit_files)
    return line + ", " + files(a.culprit_files);
  return line + fmt::format(", {} -> {}", a.parent_files, files(a.culprit_files));
}

std::string size_change_line(const evidence::EvidenceSizeChange& c) {
  if (!c.parent_bytes && c.culprit_bytes)
    return "new, " + format_bytes(*c.culprit_bytes);
  if (c.parent_bytes && !c.culprit_bytes)
    return "removed, " + format_bytes(*c.parent_bytes);
  const auto before = c.parent_bytes.value_or(0);
  const auto after = c.culprit_bytes.value_or(0);
  return fmt::format("{} -> {} ({})", format_bytes(before), format_bytes(after),
                     format_byte_delta(after - before));
}

std::vector<const evidence::EvidenceKernelChange*>
changed_kernels(const evidence::EvidenceHints& hints) {
  std::vector<const evidence::EvidenceKernelChange*> rows;
  for (const auto& k : hints.kernels)
    if (k.change != "unchanged")
      rows.push_back(&k);
  return rows;
}

} // namespace culprit::report
