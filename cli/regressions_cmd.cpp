// culprit regressions: the regressions triage found, kept in the history ledger with their state
// (core/history/regressions.hpp): list them, show one, and move one along (ack, wontfix, reopen).

#include <algorithm>
#include <array>
#include <cstdlib>
#include <optional>
#include <utility>

#include <fmt/chrono.h>
#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/context.hpp"
#include "cli/flag_checks.hpp"
#include "cli/output.hpp"
#include "cli/report_outputs.hpp"
#include "core/history/ledger.hpp"
#include "core/measure/case_select.hpp"
#include "core/util/escape.hpp"
#include "core/util/format.hpp"
#include "core/util/fs.hpp"
#include "core/util/json_text.hpp"

namespace culprit::cli {
namespace {

std::string when(store::TimePoint at) {
  return fmt::format("{:%Y-%m-%d %H:%M} UTC", std::chrono::floor<std::chrono::seconds>(at));
}

std::string percent(double ratio) {
  return fmt::format("{:+.1f}%", (ratio - 1) * 100);
}

// "loop +50.2%, copy +3.1%", the cases of one regression.
std::string cases_line(const history::Regression& r) {
  std::string out;
  for (const auto& c : r.cases)
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", c.case_name, percent(c.ratio));
  return out;
}

// The owners, each escaped for where they are shown, comma-separated.
template <class Escape> std::string owners_line(const history::Regression& r, Escape escape) {
  std::string out;
  for (const auto& owner : r.owners)
    out += (out.empty() ? "" : ", ") + escape(owner);
  return out;
}

// The host of a record as host ids are shown beside other things: its first 12 characters.
std::string short_host(const std::string& host_id) {
  return terminal_safe(host_id.substr(0, character_boundary(host_id, 12)));
}

// Its culprit and subject, or for one not bisected yet, the commits its change lies between.
std::string culprit_line(const history::Regression& r, std::size_t width = 0) {
  if (!r.culprit.empty())
    return fmt::format("{}  {}", r.culprit.substr(0, 12),
                       width == 0 ? terminal_safe(r.subject) : terminal_safe(r.subject, width));
  return fmt::format("not bisected: between {} and {}", r.range_before.substr(0, 12),
                     r.range_after.substr(0, 12));
}

nlohmann::json regression_json(const history::Regression& r) {
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& c : r.cases) {
    nlohmann::json one = {
        {"case", c.case_name}, {"metric", c.metric}, {"ratio", c.ratio}, {"ci", c.ci}};
    one["share"] = c.share ? nlohmann::json(*c.share) : nlohmann::json(nullptr);
    cases.push_back(std::move(one));
  }
  nlohmann::json events = nlohmann::json::array();
  for (const auto& e : r.events)
    events.push_back({{"at", when(e.at)},
                      {"state", history::to_string(e.state)},
                      {"who", e.who},
                      {"note", e.note},
                      {"commit", e.commit}});
  return {{"id", r.id},
          {"state", history::to_string(r.state)},
          {"culprit", r.culprit.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.culprit)},
          {"range", {{"before", r.range_before}, {"after", r.range_after}}},
          {"subject", r.subject},
          {"author", r.author},
          {"host", r.host_id},
          {"cases", std::move(cases)},
          {"owners", r.owners},
          {"evidence", r.evidence},
          {"first_seen", when(r.first_seen)},
          {"last_seen", when(r.last_seen)},
          {"fixed_by", r.fixed_by.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.fixed_by)},
          {"events", std::move(events)}};
}

// One regression in Markdown, ready to paste into a bug.
std::string regression_markdown(const history::Regression& r) {
  std::string out = fmt::format("### {} {}: {}\n\n", r.id,
                                markdown_text(r.culprit.empty() ? "not bisected yet" : r.subject),
                                history::to_string(r.state));
  if (r.culprit.empty())
    out += fmt::format("- between {} and {}\n", markdown_code(r.range_before),
                       markdown_code(r.range_after));
  else
    out += fmt::format("- culprit: {} by {}\n", markdown_code(r.culprit), markdown_text(r.author));
  if (!r.owners.empty())
    out += fmt::format("- owners: {}\n", owners_line(r, markdown_text));
  out += fmt::format("- first seen {}, last seen {}, host {}\n", when(r.first_seen),
                     when(r.last_seen), markdown_code(r.host_id));
  if (!r.fixed_by.empty())
    out += fmt::format("- fixed by {}\n", markdown_code(r.fixed_by));
  out += "\n| case | change | interval | share |\n|---|---|---|---|\n";
  for (const auto& c : r.cases)
    out += fmt::format("| {} | {} | [{:.3f}, {:.3f}] | {} |\n",
                       markdown_code(c.case_name, InTable::yes), percent(c.ratio), c.ci[0], c.ci[1],
                       c.share ? fmt::format("{:.0f}%", *c.share * 100) : "-");
  out += "\n";
  for (const auto& file : r.evidence)
    out += fmt::format("- evidence: {}\n", markdown_code(file));
  for (const auto& e : r.events)
    out += fmt::format("- {} {}: {}{}\n", when(e.at), markdown_text(e.who),
                       history::to_string(e.state),
                       e.note.empty() ? "" : " (" + markdown_text(e.note) + ")");
  return out + "\n";
}

std::string regression_text(const history::Regression& r) {
  std::string out = fmt::format("{} {}  {}\n", r.id, history::to_string(r.state), culprit_line(r));
  out += fmt::format("  {}first seen {}, last seen {}, host {}\n",
                     r.author.empty() ? "" : terminal_safe(r.author) + ", ", when(r.first_seen),
                     when(r.last_seen), short_host(r.host_id));
  if (!r.owners.empty())
    out += fmt::format("  owners: {}\n",
                       owners_line(r, [](const std::string& o) { return terminal_safe(o); }));
  for (const auto& c : r.cases)
    out += fmt::format("  case {}: {} (ratio {:.3f} [{:.3f}, {:.3f}]){}\n",
                       terminal_safe(c.case_name), percent(c.ratio), c.ratio, c.ci[0], c.ci[1],
                       c.share ? fmt::format(", {:.0f}% of the whole change", *c.share * 100) : "");
  if (!r.fixed_by.empty())
    out += fmt::format("  fixed by {}\n", r.fixed_by.substr(0, 12));
  for (const auto& file : r.evidence)
    out += fmt::format("  evidence: {}\n", terminal_safe(file));
  for (const auto& e : r.events)
    out += fmt::format("  {} {}: {}{}\n", when(e.at), terminal_safe(e.who),
                       history::to_string(e.state),
                       e.note.empty() ? "" : " (" + terminal_safe(e.note) + ")");
  return out;
}

class RegressionsCommand final : public Command {
public:
  void add_flags(CLI::App& sub) override {
    sub.add_option("action", m_action, "list (the default), show, ack, wontfix or reopen")
        ->check(CLI::IsMember({"list", "show", "ack", "wontfix", "reopen"}));
    sub.add_option("id", m_id, "the regression (show, ack, wontfix, reopen)");
    sub.add_option(
        "--state", m_states,
        "list: only these states (new, confirmed, invalid, bisected, acknowledged, wontfix, "
        "fixed, went-away, open, all; default open)");
    sub.add_option("--owner", m_owner, "list: only those with an owner that contains this text");
    sub.add_option("--case", m_cases, "list: only those that slowed a case matching these globs");
    sub.add_option("--note", m_note, "ack, wontfix, reopen: why (kept with the change)");
    sub.add_option("--who", m_who, "ack, wontfix, reopen: who (default: $USER)");
    sub.add_option("--json", m_json, "write the regressions as JSON to FILE ('-': stdout)")
        ->option_text("FILE")
        ->group("Output");
    sub.add_option("--markdown", m_markdown,
                   "write Markdown to FILE, ready to paste into a bug ('-': stdout)")
        ->option_text("FILE")
        ->group("Output");
  }

  int run(const GlobalOptions& global) override {
    if (auto writable = check_outputs(outputs()); !writable)
      return print_failure(writable.error());
    if (auto fitting = check_arguments(); !fitting)
      return print_failure(fitting.error());
    auto states = chosen_states();
    if (!states)
      return print_failure(states.error());
    auto repo = open_repository(global);
    if (!repo)
      return print_failure(repo.error());
    auto cache = store_location(global, *repo);
    if (!cache)
      return print_failure(cache.error());
    auto ledger = history::Ledger::open_at(*cache);
    if (!ledger)
      return print_failure(ledger.error());
    if (m_action == "list")
      return list(*ledger, *states);
    auto found = ledger->regression(m_id);
    if (!found)
      return print_failure(found.error());
    if (!*found)
      return print_failure(usage_error("there is no regression {} in this repository's history; "
                                       "'culprit regressions list --state all' lists them",
                                       excerpt(m_id))
                               .error());
    if (m_action == "show")
      return write({**found});
    return act(*ledger, **found);
  }

private:
  [[nodiscard]] std::array<NamedOutput, 2> outputs() const {
    return {NamedOutput{"--json", m_json}, NamedOutput{"--markdown", m_markdown}};
  }

  // What the action takes: an id but for list, the filters for list alone, --note and --who for
  // the moves alone. Anything else would be silently ignored, so it is refused.
  [[nodiscard]] Status check_arguments() const {
    const bool moves = m_action != "list" && m_action != "show";
    if (m_action != "list" && m_id.empty())
      return usage_error("culprit regressions {} needs the regression's id (see 'culprit "
                         "regressions list')",
                         m_action);
    if (m_action == "list" && !m_id.empty())
      return usage_error("culprit regressions list takes no id ('{}'); to see one regression, run "
                         "'culprit regressions show {}'",
                         excerpt(m_id, 40), excerpt(m_id, 40));
    if (m_action != "list") {
      for (const auto& [flag, given] :
           {std::pair{"--state", !m_states.empty()}, std::pair{"--owner", !m_owner.empty()},
            std::pair{"--case", !m_cases.empty()}})
        if (given)
          return usage_error("{} chooses what 'culprit regressions list' lists; culprit "
                             "regressions {} takes the id alone",
                             flag, m_action);
    }
    if (!moves) {
      for (const auto& [flag, given] :
           {std::pair{"--note", m_note.has_value()}, std::pair{"--who", m_who.has_value()}})
        if (given)
          return usage_error("{} goes with a move (ack, wontfix or reopen); culprit regressions "
                             "{} changes nothing",
                             flag, m_action);
    }
    return {};
  }

  Result<std::vector<history::RegressionState>> chosen_states() const {
    using history::RegressionState;
    std::vector<RegressionState> states;
    const auto words = m_states.empty() ? std::vector<std::string>{"open"} : m_states;
    for (const auto& word : words) {
      if (word == "open") {
        states.insert(states.end(), {RegressionState::detected, RegressionState::confirmed,
                                     RegressionState::bisected, RegressionState::acknowledged});
      } else if (word == "all") {
        states.insert(states.end(), {RegressionState::detected, RegressionState::confirmed,
                                     RegressionState::invalid, RegressionState::bisected,
                                     RegressionState::acknowledged, RegressionState::wontfix,
                                     RegressionState::fixed, RegressionState::went_away});
      } else if (const auto state = history::parse_regression_state(word)) {
        states.push_back(*state);
      } else {
        return usage_error("--state {}: give new, confirmed, invalid, bisected, acknowledged, "
                           "wontfix, fixed, went-away, open or all",
                           excerpt(word));
      }
    }
    return states;
  }

  int list(history::Ledger& ledger, const std::vector<history::RegressionState>& states) {
    auto all = ledger.regressions();
    if (!all)
      return print_failure(all.error());
    std::vector<history::Regression> chosen;
    for (auto& r : *all) {
      if (std::ranges::find(states, r.state) == states.end())
        continue;
      if (!m_owner.empty() && std::ranges::none_of(r.owners, [&](const std::string& owner) {
            return owner.find(m_owner) != std::string::npos;
          }))
        continue;
      if (!m_cases.empty() && std::ranges::none_of(r.cases, [&](const auto& c) {
            return measure::case_matches(c.case_name, m_cases);
          }))
        continue;
      chosen.push_back(std::move(r));
    }
    if (!any_to_stdout(outputs())) {
      for (const auto& r : chosen)
        print_to(stdout, "{:<9}{:<14}{:<14}{}  {}\n", r.id, history::to_string(r.state),
                 short_host(r.host_id), culprit_line(r, 60), terminal_safe(cases_line(r)));
      print_to(stdout, "{}\n", counted(chosen.size(), "regression", "regressions"));
    }
    return write(chosen, false);
  }

  // The --json and --markdown outputs; the text on stdout when `text` (show), unless an output
  // goes there.
  int write(const std::vector<history::Regression>& chosen, bool text = true) {
    if (text && !any_to_stdout(outputs()))
      for (const auto& r : chosen)
        print_to(stdout, "{}", regression_text(r));
    if (!m_json.empty()) {
      nlohmann::json document = {{"kind", "regressions"}, {"regressions", nlohmann::json::array()}};
      for (const auto& r : chosen)
        document["regressions"].push_back(regression_json(r));
      if (auto written = write_output(m_json, json_text(document, 2) + "\n"); !written)
        return print_failure(written.error());
    }
    if (!m_markdown.empty()) {
      std::string markdown;
      for (const auto& r : chosen)
        markdown += regression_markdown(r);
      if (auto written = write_output(m_markdown, markdown); !written)
        return print_failure(written.error());
    }
    if (auto flushed = finish_stdout(); !flushed)
      return print_failure(flushed.error());
    return 0;
  }

  int act(history::Ledger& ledger, const history::Regression& regression) {
    const auto action = m_action == "ack"       ? history::RegressionAction::acknowledge
                        : m_action == "wontfix" ? history::RegressionAction::wontfix
                                                : history::RegressionAction::reopen;
    auto next = history::next_state(regression, action);
    if (!next)
      return print_failure(next.error());
    std::string who = m_who.value_or("");
    if (who.empty()) {
      const char* user = std::getenv("USER");
      who = user != nullptr && *user != '\0' ? user : "unknown";
    }
    if (auto moved = ledger.transition(regression.id, regression.state,
                                       {.at = store::now(),
                                        .state = *next,
                                        .who = who,
                                        .note = m_note.value_or(""),
                                        .commit = std::string()});
        !moved)
      return print_failure(moved.error());
    auto now_held = ledger.regression(regression.id);
    if (!now_held || !*now_held)
      return print_failure(now_held
                               ? infra_error("{} vanished from the ledger", regression.id).error()
                               : now_held.error());
    print_to(any_to_stdout(outputs()) ? stderr : stdout, "{}: {} -> {}\n", regression.id,
             history::to_string(regression.state), history::to_string(*next));
    return write({**now_held}, false);
  }

  std::string m_action = "list";
  std::string m_id;
  std::vector<std::string> m_states;
  std::string m_owner;
  std::vector<std::string> m_cases;
  std::optional<std::string> m_note;
  std::optional<std::string> m_who;
  std::string m_json;
  std::string m_markdown;
};

} // namespace

std::unique_ptr<Command> make_regressions_command() {
  return std::make_unique<RegressionsCommand>();
}

} // namespace culprit::cli
