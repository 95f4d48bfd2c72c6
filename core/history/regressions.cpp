#include "core/history/regressions.hpp"

#include <algorithm>
#include <cmath>

#include "core/git/hash.hpp"
#include "core/util/spelling.hpp"

namespace culprit::history {
namespace {

constexpr std::array<Spelling<RegressionState>, 8> k_states = {{
    {RegressionState::detected, "new"},
    {RegressionState::confirmed, "confirmed"},
    {RegressionState::invalid, "invalid"},
    {RegressionState::bisected, "bisected"},
    {RegressionState::acknowledged, "acknowledged"},
    {RegressionState::wontfix, "wontfix"},
    {RegressionState::fixed, "fixed"},
    {RegressionState::went_away, "went-away"},
}};

} // namespace

std::string_view to_string(RegressionState state) {
  return name_in(k_states, state);
}

std::optional<RegressionState> parse_regression_state(std::string_view text) {
  return value_in(k_states, text);
}

bool is_open(RegressionState state) {
  return state == RegressionState::detected || state == RegressionState::confirmed ||
         state == RegressionState::bisected || state == RegressionState::acknowledged;
}

bool same_case(const RegressionCase& slowed, std::string_view case_name, std::string_view metric) {
  return slowed.case_name == case_name && (slowed.metric.empty() || slowed.metric == metric);
}

std::string regression_id(std::string_view host_id, std::string_view culprit) {
  git::Hasher hasher;
  hasher.add("regression").add(host_id).add(culprit);
  return "R" + hasher.hex().substr(0, 7);
}

std::string range_regression_id(std::string_view host_id, std::string_view before,
                                std::string_view after) {
  git::Hasher hasher;
  hasher.add("regression-range").add(host_id).add(before).add(after);
  return "R" + hasher.hex().substr(0, 7);
}

std::string_view to_string(RegressionAction action) {
  switch (action) {
  case RegressionAction::acknowledge:
    return "ack";
  case RegressionAction::wontfix:
    return "wontfix";
  case RegressionAction::reopen:
    return "reopen";
  }
  return "ack";
}

Result<RegressionState> next_state(const Regression& regression, RegressionAction action) {
  const auto state = regression.state;
  switch (action) {
  case RegressionAction::acknowledge:
    if (state == RegressionState::bisected || state == RegressionState::detected ||
        state == RegressionState::confirmed)
      return RegressionState::acknowledged;
    if (state == RegressionState::acknowledged)
      return usage_error("{} is acknowledged already", regression.id);
    return usage_error("{} is {}: reopen it first ('culprit regressions reopen {}')", regression.id,
                       to_string(state), regression.id);
  case RegressionAction::wontfix:
    if (state == RegressionState::wontfix)
      return usage_error("{} is wontfix already", regression.id);
    if (state == RegressionState::fixed)
      return usage_error("{} is fixed (by {}): there is nothing left not to fix", regression.id,
                         regression.fixed_by.substr(0, 12));
    if (state == RegressionState::went_away)
      return usage_error("{} went away: there is nothing left not to fix", regression.id);
    if (state == RegressionState::invalid)
      return usage_error("{} did not reproduce (invalid): there is nothing to fix", regression.id);
    return RegressionState::wontfix;
  case RegressionAction::reopen: {
    if (is_open(state))
      return usage_error("{} is open already ({})", regression.id, to_string(state));
    // Back to what triage last made of it: bisected, or confirmed or new for one not bisected.
    const auto triaged = std::ranges::find_if(
        regression.events.rbegin(), regression.events.rend(), [](const RegressionEvent& e) {
          return e.state == RegressionState::detected || e.state == RegressionState::confirmed ||
                 e.state == RegressionState::bisected;
        });
    if (triaged != regression.events.rend())
      return triaged->state;
    return regression.culprit.empty() ? RegressionState::detected : RegressionState::bisected;
  }
  }
  return usage_error("unknown action on {}", regression.id);
}

namespace {

// A case's interval, or its ratio alone when it holds none around the ratio.
std::array<double, 2> bounds_of(const RegressionCase& c) {
  return c.ci[0] <= c.ratio && c.ratio <= c.ci[1] && c.ci[0] > 0 ? c.ci
                                                                 : std::array{c.ratio, c.ratio};
}

} // namespace

bool fixes(const Improvement& improvement, const Regression& regression, double threshold,
           const StepsBetween& between) {
  if (regression.cases.empty())
    return false;
  return std::ranges::all_of(regression.cases, [&](const RegressionCase& slowed) {
    const auto back = std::ranges::find_if(improvement.cases, [&](const RegressionCase& c) {
      return c.case_name == slowed.case_name && c.metric == slowed.metric;
    });
    if (back == improvement.cases.end() || !(slowed.ratio > 0) || !(back->ratio > 0))
      return false;
    const auto stacked = between ? between(slowed) : std::optional<double>(1.0);
    if (!stacked || !(*stacked > 0) || !std::isfinite(*stacked))
      return false;
    const auto before = bounds_of(slowed);
    const auto after = bounds_of(*back);
    const double low = before[0] * after[0] * *stacked;
    const double high = before[1] * after[1] * *stacked;
    return low <= 1 + threshold && high >= 1 / (1 + threshold);
  });
}

} // namespace culprit::history
