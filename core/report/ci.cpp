// What CI systems read: JUnit XML (one test case per benchmark case) and GitHub Actions
// workflow commands (annotations on the run and the pull request).

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/report/report.hpp"
#include "core/util/escape.hpp"
#include "core/util/format.hpp"

namespace culprit::report {
namespace {

std::string x(std::string_view text) {
  return html_escape(text);
}

// XML text that keeps its line breaks (html_escape would show them as "\n").
std::string x_lines(std::string_view text) {
  std::string out;
  for (std::size_t start = 0; start <= text.size();) {
    const auto end = std::min(text.find('\n', start), text.size());
    out += html_escape(text.substr(start, end - start));
    if (end < text.size())
      out += '\n';
    start = end + 1;
  }
  return out;
}

// The culprits that explain a case: those that moved it.
std::string culprit_lines(const evidence::Evidence& e, std::string_view case_name) {
  if (!e.bisect)
    return "";
  std::string out;
  for (const auto& c : e.bisect->culprits) {
    const auto moved =
        std::ranges::find_if(c.cases, [&](const auto& m) { return m.name == case_name; });
    if (moved == c.cases.end())
      continue;
    out +=
        fmt::format("\nculprit {}{} \"{}\" by {}, {}{}", short_id(c.commit),
                    c.regression.empty() ? "" : " (regression " + c.regression + ")", c.subject,
                    c.author, format_change(moved->ratio),
                    c.owners.empty() ? "" : fmt::format(", owners {}", fmt::join(c.owners, " ")));
    if (!c.hints)
      continue;
    if (c.hints->diffstat)
      out += "\n  diff: " + diffstat_line(*c.hints->diffstat);
    for (const auto* k : changed_kernels(*c.hints))
      out += fmt::format("\n  kernel {} ({}): {}", k->name, k->arch, k->description);
    if (c.hints->artifacts)
      out += "\n  artifacts: " + artifacts_line(*c.hints->artifacts);
  }
  return out;
}

struct TestCase {
  std::string name;
  std::string outcome; // "", failure, skipped, error
  std::string message;
  std::string details;
};

std::vector<TestCase> test_cases(const evidence::Evidence& e, const ReportView& v) {
  std::vector<TestCase> cases;
  const auto threshold = format_percent(e.settings.threshold);
  for (const auto* c : v.cases) {
    TestCase t{c->case_name, "", "", ""};
    const auto numbers =
        fmt::format("ratio {} {} {}, p {}, base {} ({}), head {} ({})", format_ratio(c->ratio),
                    v.confidence_label, format_ratio_ci(c->ci), format_p_value(c->p_value),
                    short_id(c->base), counted(c->base_runs, "run", "runs"), short_id(c->head),
                    counted(c->head_runs, "run", "runs"));
    if (c->verdict == "slower") {
      t.outcome = "failure";
      t.message = fmt::format("slower: {}, ratio {} {}, beyond the {} threshold",
                              change_with_ci(c->ratio, c->ci, v.confidence_label),
                              format_ratio(c->ratio), format_ratio_ci(c->ci), threshold);
    } else if (c->verdict == "inconclusive") {
      t.outcome = "skipped";
      t.message = "inconclusive: " + (c->note.empty() ? "the budget ran out before the CI left "
                                                        "the band of ±" +
                                                            threshold
                                                      : c->note);
    }
    t.details = numbers + culprit_lines(e, c->case_name);
    cases.push_back(std::move(t));
  }
  // A run: each measured case passes, with its numbers.
  if (cases.empty() && e.status != "failed")
    for (const auto& m : e.measurements)
      cases.push_back({m.case_name, "", "",
                       fmt::format("{} median {} {} [{}, {}], {}", short_id(m.commit),
                                   format_quantity(m.summary.median, m.unit), v.confidence_label,
                                   format_quantity(m.summary.ci[0], m.unit),
                                   format_quantity(m.summary.ci[1], m.unit),
                                   counted(m.runs.size(), "run", "runs"))});
  if (!cases.empty())
    return cases;
  // Nothing was measured: one test case for the command as a whole.
  TestCase whole{v.title, "", v.headline, culprit_lines(e, "")};
  if (e.status == "failed")
    whole.outcome = "error";
  else if (e.status == "slower" || e.status == "culprit_found")
    whole.outcome = "failure";
  else if (e.status == "inconclusive" || e.status == "not_reproduced")
    whole.outcome = "skipped";
  cases.push_back(std::move(whole));
  return cases;
}

} // namespace

std::string render_junit(const evidence::Evidence& e, const RenderOptions& options) {
  const auto v = make_view(e, options);
  const auto cases = test_cases(e, v);
  std::size_t failures = 0;
  std::size_t skipped = 0;
  std::size_t errors = 0;
  for (const auto& t : cases) {
    failures += static_cast<std::size_t>(t.outcome == "failure");
    skipped += static_cast<std::size_t>(t.outcome == "skipped");
    errors += static_cast<std::size_t>(t.outcome == "error");
  }
  auto timestamp = e.created;
  if (!timestamp.empty() && timestamp.back() == 'Z')
    timestamp.pop_back();
  const auto counts = fmt::format(R"(tests="{}" failures="{}" errors="{}" skipped="{}")",
                                  cases.size(), failures, errors, skipped);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"culprit\" {}>\n", counts);
  out += fmt::format("  <testsuite name=\"{}\" {} timestamp=\"{}\">\n", x(v.title), counts,
                     x(timestamp));
  out += "    <properties>\n";
  for (const auto& [name, value] : {std::pair<std::string, std::string>{"status", e.status},
                                    {"verdict", v.headline},
                                    {"command", v.reproduce},
                                    {"threshold", format_percent(e.settings.threshold)}})
    out += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", name, x(value));
  out += "    </properties>\n";
  const auto classname = "culprit." + (e.kind.empty() ? std::string("report") : e.kind);
  for (const auto& t : cases) {
    out +=
        fmt::format(R"(    <testcase classname="{}" name="{}" time="0")", x(classname), x(t.name));
    if (t.outcome.empty()) {
      out += t.details.empty() ? "/>\n"
                               : fmt::format(">\n      <system-out>{}</system-out>\n    "
                                             "</testcase>\n",
                                             x_lines(t.details));
      continue;
    }
    out += fmt::format(">\n      <{} message=\"{}\"", t.outcome, x(t.message));
    if (t.outcome == "skipped")
      out += "/>\n";
    else
      out += fmt::format(" type=\"{}\">{}</{}>\n", x(e.status),
                         x_lines(t.message + "\n" + t.details), t.outcome);
    if (t.outcome == "skipped" && !t.details.empty())
      out += fmt::format("      <system-out>{}</system-out>\n", x_lines(t.details));
    out += "    </testcase>\n";
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

std::string github_annotations(const evidence::Evidence& e) {
  const auto v = make_view(e);
  std::string out;
  const auto command = [&](std::string_view level, std::string_view file, std::string_view title,
                           std::string_view message) {
    out += fmt::format("::{} ", level);
    if (!file.empty())
      out += fmt::format("file={},", github_property(file));
    out += fmt::format("title={}::{}\n", github_property(title), github_message(message));
  };
  const auto threshold = format_percent(e.settings.threshold);
  for (const auto* c : v.cases) {
    const auto numbers =
        fmt::format("{} (ratio {} {}) against a threshold of {}; base {}, head {}",
                    change_with_ci(c->ratio, c->ci, v.confidence_label), format_ratio(c->ratio),
                    format_ratio_ci(c->ci), threshold, short_id(c->base), short_id(c->head));
    if (c->verdict == "slower")
      command("error", "", fmt::format("culprit: {} is slower", c->case_name), numbers);
    else if (c->verdict == "inconclusive")
      command("warning", "", fmt::format("culprit: {} is inconclusive", c->case_name),
              numbers + (c->note.empty() ? "" : "; " + c->note));
  }
  if (e.bisect)
    for (const auto& c : e.bisect->culprits) {
      std::string changes;
      for (const auto& moved : c.cases)
        changes +=
            fmt::format("{}{} on {}", changes.empty() ? "" : ", ",
                        change_with_ci(moved.ratio, moved.ci, v.confidence_label), moved.name);
      command("error", c.files.empty() ? std::string() : c.files.front(),
              fmt::format("culprit: {}{} {}", c.regression.empty() ? "" : c.regression + " ",
                          short_id(c.commit), c.subject),
              fmt::format("{} by {} on {}; files: {}; owners: {}", changes, c.author, c.date,
                          c.files.empty() ? "none" : fmt::format("{}", fmt::join(c.files, " ")),
                          c.owners.empty() ? "none" : fmt::format("{}", fmt::join(c.owners, " "))));
    }
  if (e.status == "failed")
    command("error", "", "culprit failed", v.headline);
  else if (e.status == "not_reproduced" || (e.bisect && e.status == "inconclusive"))
    command(e.status == "inconclusive" ? "warning" : "notice", "",
            fmt::format("culprit: {}",
                        e.status == "inconclusive" ? "bisect inconclusive" : "not reproduced"),
            v.headline);
  return out;
}

} // namespace culprit::report
