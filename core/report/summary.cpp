// The summary a command prints when it ends, as a pure function of its evidence, so that
// `culprit report EVIDENCE --format summary` prints exactly what the command printed.

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/report/report.hpp"
#include "core/report/roofline_text.hpp"
#include "core/report/verdict_table.hpp"
#include "core/util/escape.hpp"
#include "core/util/format.hpp"

namespace culprit::report {
namespace {

// The two revisions as the command was given them; older evidence, which lacks them, gives the
// commits' short ids.
std::array<std::string, 2> revision_names(const evidence::Evidence& evidence) {
  if (evidence.revisions.size() >= 2)
    return {evidence.revisions[0], evidence.revisions[1]};
  if (evidence.bisect)
    return {evidence.bisect->good.substr(0, 12), evidence.bisect->bad.substr(0, 12)};
  if (!evidence.comparisons.empty())
    return {evidence.comparisons.front().base.substr(0, 12),
            evidence.comparisons.front().head.substr(0, 12)};
  return {"base", "head"};
}

// run: one row per case with its median, interval, runs, spread and outliers.
std::string run_summary(const evidence::Evidence& evidence, const RenderOptions& options) {
  std::string out = fmt::format("{:<40}  {:>12}  {:>27}  {:>5}  {:>6}  {}\n", "case", "median",
                                fmt::format("{:.0f}% CI", evidence.settings.confidence * 100),
                                "runs", "cv", "outliers");
  for (const auto& m : evidence.measurements)
    out += fmt::format("{}  {:>12}  {:>27}  {:>5}  {:>6}  {}\n", terminal_cell(m.case_name, 40),
                       format_quantity(m.summary.median, m.unit),
                       fmt::format("[{}, {}]", format_quantity(m.summary.ci[0], m.unit),
                                   format_quantity(m.summary.ci[1], m.unit)),
                       m.runs.size(), format_cv(m.summary.cv), m.summary.outliers);
  if (options.detail != Detail::quiet)
    out += render_roofline_table(evidence, options.detail == Detail::verbose) +
           render_noise_lines(evidence);
  return out;
}

// compare: the verdict table; then how the roofline moved, the noise and what was reused.
std::string compare_summary(const evidence::Evidence& evidence, const RenderOptions& options) {
  const auto [base, head] = revision_names(evidence);
  std::string out = render_verdict_table(evidence, base, head);
  if (options.detail != Detail::quiet)
    out += render_roofline_moves(evidence) + render_noise_lines(evidence) +
           render_reuse_line(evidence, base, head);
  return out;
}

// The cases between the ends, when the bisection found no culprit to show instead.
std::string end_comparisons(const evidence::Evidence& evidence) {
  std::string out;
  for (const auto& c : evidence.comparisons)
    out +=
        fmt::format("  {}: {}{}{}\n", terminal_safe(c.case_name), c.verdict,
                    c.base_runs >= 2 && c.head_runs >= 2
                        ? fmt::format(", ratio {:.3f} [{:.3f}, {:.3f}]", c.ratio, c.ci[0], c.ci[1])
                        : std::string(),
                    c.note.empty() ? "" : " (" + terminal_safe(c.note) + ")");
  return out;
}

// One culprit: who and when, then each case it moved with how it was located, its time, its
// counts and its roofline.
std::string culprit_lines(const evidence::Evidence& evidence, const evidence::EvidenceCulprit& c) {
  std::string out = fmt::format("culprit {} {}\n  {} <{}>, {}\n", c.commit.substr(0, 12),
                                terminal_safe(c.subject), terminal_safe(c.author),
                                terminal_safe(c.email), terminal_safe(c.date));
  const auto level = fmt::format("{:.0f}% CI", evidence.settings.confidence * 100);
  for (const auto& moved : c.cases) {
    const auto share = moved.share ? ", " + share_text(evidence, moved) : "";
    if (moved.exact)
      out += fmt::format("  case {}: {} {:+.1f}% (exact, identical counts){}\n",
                         terminal_safe(moved.name), moved.metric, (moved.ratio - 1) * 100, share);
    else
      out +=
          fmt::format("  case {}: {}{:+.1f}% (ratio {:.3f}, {} [{:.3f}, {:.3f}]){}\n",
                      terminal_safe(moved.name), moved.in_time.empty() ? "" : moved.metric + " ",
                      (moved.ratio - 1) * 100, moved.ratio, level, moved.ci[0], moved.ci[1], share);
    for (const auto& line : in_time_lines(evidence, moved, level))
      out += fmt::format("    {}\n", terminal_safe(line));
    if (const auto counts = counters_line(moved); !counts.empty())
      out += fmt::format("    {}\n", terminal_safe(counts));
    if (const auto move =
            roofline_move(evidence, c.parent, c.commit, moved.name, moved.ratio, moved.ci))
      out += fmt::format("    roofline: {}\n", terminal_safe(move_text(*move)));
  }
  return out;
}

// bisect: what was found (or why nothing was), what it cost, where the evidence is.
std::string bisect_summary(const evidence::Evidence& evidence, const RenderOptions& options) {
  const auto& b = *evidence.bisect;
  const auto& status = evidence.status;
  const auto note = terminal_safe(b.note);
  const bool unconfirmed = status == "inconclusive" && b.candidates.empty();
  std::string out;
  if (unconfirmed)
    out += fmt::format("inconclusive: {}\n", note);
  if (status == "not_reproduced") {
    const auto [good, bad] = revision_names(evidence);
    out += fmt::format("not reproduced: no case is {} beyond {:.1f}% between {} and {}\n",
                       evidence.settings.direction == "improvement" ? "faster" : "slower",
                       evidence.settings.threshold * 100, terminal_safe(good), terminal_safe(bad));
  }
  if (status == "not_reproduced" || unconfirmed)
    out += end_comparisons(evidence);
  for (const auto& c : b.culprits)
    out += culprit_lines(evidence, c);
  if (status == "culprit_found" && !b.note.empty())
    out += fmt::format("note: {}\n", note);
  if (!b.candidates.empty()) {
    out += fmt::format("inconclusive: {}; the culprit is one of:\n", note);
    for (std::size_t i = 0; i < b.candidates.size(); ++i)
      out += fmt::format("  {}\n", terminal_safe(b.candidate_line(i)));
  }
  out += fmt::format("{} in range, {} in {}, {}{}\n",
                     counted(static_cast<std::size_t>(b.commits_in_range), "commit", "commits"),
                     counted(b.steps.size(), "probe", "probes"),
                     counted(static_cast<std::size_t>(b.rounds), "round", "rounds"),
                     counted(evidence.builds.size(), "build", "builds"),
                     options.evidence_file.empty()
                         ? std::string()
                         : "; evidence: " + terminal_safe(options.evidence_file));
  if (const auto where = render_executor_line(evidence.executor); !where.empty())
    out += where + "\n";
  if (options.detail != Detail::quiet)
    out += render_noise_lines(evidence);
  return out;
}

// track: what was measured, what was left alone, the anchors, the noise, where it ran.
std::string track_summary(const evidence::Evidence& evidence, const RenderOptions& options) {
  const auto& t = *evidence.track;
  const auto range = evidence.revisions.empty() ? std::string("the range")
                                                : terminal_safe(evidence.revisions.front());
  std::string out = fmt::format(
      "tracked {} of {} of {} ({} runs each; {}){}{}\n", t.measured,
      counted(static_cast<std::size_t>(t.selected), "commit", "commits"), range, t.runs,
      counted(static_cast<std::size_t>(t.runs_made), "new run", "new runs"),
      t.already_tracked > 0 ? fmt::format(", {} tracked before", t.already_tracked) : std::string(),
      t.failed_builds > 0 ? fmt::format(", {} did not build", t.failed_builds) : std::string());
  if (options.detail != Detail::quiet) {
    if (!t.anchors.empty()) {
      std::vector<std::string> shown;
      shown.reserve(t.anchors.size());
      for (const auto& anchor : t.anchors)
        shown.push_back(terminal_safe(anchor.substr(0, 12)));
      out += fmt::format("anchored on {}: tracked before and measured again in this session, so "
                         "that history can tell a change of the machine from a change of the "
                         "code\n",
                         fmt::join(shown, ", "));
    }
    for (const auto& noise : t.noise)
      out += fmt::format("noise: {}: {} (in {} of {})\n", terminal_safe(noise.case_name),
                         terminal_safe(noise.summary), noise.affected,
                         counted(static_cast<std::size_t>(noise.measured), "commit", "commits"));
  }
  if (const auto where = render_executor_line(evidence.executor); !where.empty())
    out += where + "\n";
  return out;
}

// A triage document's own keys, read as they are: a key that is missing reads as empty. Their
// types were checked when the evidence was read (core/evidence/raw_parts.hpp); a document made
// in memory is read as safely.
const nlohmann::json& doc_member(const nlohmann::json& object, const char* key) {
  static const nlohmann::json k_absent;
  if (!object.is_object())
    return k_absent;
  const auto it = object.find(key);
  return it == object.end() ? k_absent : *it;
}

const nlohmann::json& doc_list(const nlohmann::json& object, const char* key) {
  static const nlohmann::json k_empty = nlohmann::json::array();
  const auto& value = doc_member(object, key);
  return value.is_array() ? value : k_empty;
}

std::string doc_text(const nlohmann::json& object, const char* key) {
  const auto& value = doc_member(object, key);
  return value.is_string() ? terminal_safe(value.get<std::string>()) : std::string();
}

std::string doc_id(const nlohmann::json& object, const char* key) {
  return doc_text(object, key).substr(0, 12);
}

// A count: a non-negative integer, else 0.
std::size_t doc_count(const nlohmann::json& object, const char* key) {
  const auto& value = doc_member(object, key);
  return value.is_number_integer() && value.get<std::int64_t>() > 0
             ? static_cast<std::size_t>(value.get<std::int64_t>())
             : 0;
}

double doc_number(const nlohmann::json& object, const char* key, double otherwise) {
  const auto& value = doc_member(object, key);
  return value.is_number() ? value.get<double>() : otherwise;
}

// One finding: the commit, its regression record, and each case it moved.
std::string finding_lines(const nlohmann::json& finding, const nlohmann::json& regressions) {
  const auto kind = doc_text(finding, "kind");
  const auto commit = doc_text(finding, "commit");
  std::string record;
  if (kind == "regression")
    for (const char* list_name : {"recorded", "seen"}) {
      for (const auto& r : doc_list(regressions, list_name))
        if (record.empty() && doc_text(r, "culprit") == commit)
          record = fmt::format(" [{}{}]", doc_text(r, "id"),
                               std::string_view(list_name) == "recorded" ? ", new" : "");
    }
  const auto& culprits = doc_list(doc_member(finding, "bisect"), "culprits");
  static const nlohmann::json k_none;
  const auto& cases = doc_list(culprits.empty() ? k_none : culprits.front(), "cases");
  std::string out = fmt::format("{} {} {}{}\n  {}, {}:\n", kind, commit.substr(0, 12),
                                doc_text(finding, "subject"), record, doc_text(finding, "author"),
                                counted(cases.size(), "case", "cases"));
  for (const auto& c : cases) {
    const auto& ci = doc_list(c, "ci");
    const auto end = [&](std::size_t i) {
      return ci.size() == 2 && ci[i].is_number() ? ci[i].get<double>() : 1.0;
    };
    const double ratio = doc_number(c, "ratio", 1);
    out += fmt::format("    {}: {:+.1f}% (ratio {:.3f} [{:.3f}, {:.3f}])\n", doc_text(c, "case"),
                       (ratio - 1) * 100, ratio, end(0), end(1));
  }
  return out;
}

// What the change-point search took, when it kept an earlier search's findings (or, with -v,
// why it took every point of a long history).
std::string search_line(const nlohmann::json& search, Detail detail) {
  const std::size_t points = doc_count(search, "points");
  const std::size_t searched = doc_count(search, "searched");
  if (searched > 0 && searched < points)
    return fmt::format("searched the newest {} of {} points: the {} before were searched by the "
                       "triage of {} (--full searches them all)\n",
                       searched, points, points - searched,
                       terminal_safe(doc_text(search, "since")));
  const auto why = doc_text(search, "whole_because");
  if (detail == Detail::verbose && !why.empty())
    return fmt::format("searched all {} points: {}\n", points, terminal_safe(why));
  return {};
}

} // namespace

std::string render_triage_summary(const nlohmann::json& document, const RenderOptions& options) {
  const auto& regressions = doc_member(document, "regressions");
  std::string out;
  for (const auto& finding : doc_list(document, "findings"))
    out += finding_lines(finding, regressions);
  std::size_t handled_before = 0;
  const auto& changes = doc_list(document, "change_points");
  for (const auto& change : changes) {
    const auto status = doc_text(change, "status");
    handled_before += status == "handled_before" ? 1 : 0;
    if (status == "not_confirmed" || status == "inconclusive" || status == "failed") {
      const auto note = doc_text(change, "note");
      out += fmt::format("{} {}..{} [{}]: {}{}\n", status, doc_id(change, "before"),
                         doc_id(change, "after"), doc_text(change, "case"),
                         doc_text(change, "kind"), note.empty() ? "" : " (" + note + ")");
    }
  }
  for (const auto& r : doc_list(regressions, "unbisected")) {
    out += fmt::format("{} {}: {} between {} and {}, not bisected{}\n", doc_text(r, "id"),
                       doc_text(r, "state"), counted(doc_count(r, "cases"), "case", "cases"),
                       doc_id(r, "before"), doc_id(r, "after"),
                       doc_member(r, "new") == true ? " [new]" : "");
  }
  for (const auto& r : doc_list(regressions, "fixed"))
    out += fmt::format("fixed {} (culprit {} {}): every case back within the threshold after {}\n",
                       doc_text(r, "id"), doc_id(r, "culprit"), doc_text(r, "subject"),
                       doc_id(r, "fixed_by"));
  for (const auto& r : doc_list(regressions, "went_away"))
    out += fmt::format("went away {} (culprit {} {}): every case within the threshold on either "
                       "side of it as measured now, with no commit to credit\n",
                       doc_text(r, "id"), doc_id(r, "culprit"), doc_text(r, "subject"));
  out += search_line(doc_member(document, "search"), options.detail);
  const auto& findings = doc_list(document, "findings");
  const auto found = static_cast<std::size_t>(std::ranges::count_if(
      findings, [](const nlohmann::json& f) { return doc_text(f, "kind") == "regression"; }));
  out += fmt::format(
      "{}: {} new, {} handled before; {}, {}{}\n",
      counted(changes.size(), "change point", "change points"), changes.size() - handled_before,
      handled_before, counted(found, "regression finding", "regression findings"),
      counted(findings.size() - found, "improvement finding", "improvement findings"),
      options.evidence_file.empty() ? std::string()
                                    : "; evidence: " + terminal_safe(options.evidence_file));
  return out;
}

std::string render_executor_line(const nlohmann::json& executor) {
  // The object is kept as it was read: anything of another type reads as absent.
  if (doc_text(executor, "kind") != "slurm")
    return {};
  std::vector<std::string> jobs;
  for (const auto& job : doc_list(executor, "jobs")) {
    if (!job.is_object() || (job.contains("role") && doc_text(job, "role") != "measure"))
      continue;
    const auto node = doc_text(job, "node");
    jobs.push_back(fmt::format("job {} on {}", doc_text(job, "job_id"), node.empty() ? "?" : node));
  }
  if (jobs.empty())
    return {};
  const auto retried = executor.find("retries");
  const auto retries = retried != executor.end() && retried->is_number_integer()
                           ? retried->get<std::int64_t>()
                           : std::int64_t{0};
  return fmt::format("measured on {} Slurm allocation{}: {}{}", jobs.size(),
                     jobs.size() == 1 ? "" : "s", fmt::join(jobs, ", "),
                     retries > 0 ? fmt::format(" ({} retried)", retries) : std::string());
}

std::string render_summary(const evidence::Evidence& evidence, const RenderOptions& options) {
  // A command that failed or was interrupted printed its error instead of a summary.
  if (evidence.status == "failed" || evidence.status == "interrupted")
    return render_text(evidence, options);
  if (evidence.kind == "run")
    return run_summary(evidence, options);
  if (evidence.kind == "compare")
    return compare_summary(evidence, options);
  if (evidence.kind == "bisect" && evidence.bisect)
    return bisect_summary(evidence, options);
  if (evidence.kind == "track" && evidence.track)
    return track_summary(evidence, options);
  return render_text(evidence, options);
}

} // namespace culprit::report
