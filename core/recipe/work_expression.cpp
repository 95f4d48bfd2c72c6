#include "core/recipe/work_expression.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <deque>
#include <optional>

#include <fmt/format.h>
#include <muParser.h>

#include "core/util/escape.hpp"

namespace culprit::recipe {
namespace {

// Gives every name the expression uses a variable of its own, and remembers the names.
struct NameCollector {
  std::deque<double> values; // stable addresses
  std::vector<std::string> names;
};

double* collect_name(const char* name, void* data) {
  auto* collector = static_cast<NameCollector*>(data);
  collector->names.emplace_back(name);
  return &collector->values.emplace_back(1.0);
}

std::string where(const mu::Parser::exception_type& error) {
  const auto position = error.GetPos();
  return position >= 0 ? fmt::format(" at character {}", position + 1) : std::string();
}

} // namespace

std::optional<double> axis_number(std::string_view text) {
  const auto parse = [](std::string_view part) -> std::optional<double> {
    double value = 0;
    const std::string digits(part); // from_chars reads a range; a string gives it its end
    const auto* end = digits.c_str() + digits.size();
    const auto [next, error] = std::from_chars(digits.c_str(), end, value);
    if (error != std::errc() || next != end || !std::isfinite(value))
      return std::nullopt;
    return value;
  };
  if (const auto caret = text.find('^'); caret != std::string_view::npos) {
    const auto base = parse(text.substr(0, caret));
    const auto exponent = parse(text.substr(caret + 1));
    if (!base || !exponent)
      return std::nullopt;
    const double value = std::pow(*base, *exponent);
    return std::isfinite(value) ? std::optional(value) : std::nullopt;
  }
  return parse(text);
}

Result<WorkExpression> WorkExpression::parse(std::string_view text) {
  WorkExpression expression;
  expression.m_text = std::string(text);
  if (text.find_first_not_of(" \t") == std::string_view::npos)
    return usage_error("the work expression is empty; give one such as \"2*M*N*K\"");
  NameCollector collector;
  try {
    mu::Parser parser;
    parser.SetVarFactory(collect_name, &collector);
    parser.SetExpr(expression.m_text);
    (void)parser.GetUsedVar(); // parses the whole expression
  } catch (const mu::Parser::exception_type& error) {
    return usage_error("the work expression '{}' does not parse{}: {}", excerpt(text), where(error),
                       excerpt(error.GetMsg()));
  }
  expression.m_names = std::move(collector.names);
  std::ranges::sort(expression.m_names);
  expression.m_names.erase(std::ranges::unique(expression.m_names).begin(),
                           expression.m_names.end());
  return expression;
}

Result<double> WorkExpression::evaluate(const std::map<std::string, std::string>& axes) const {
  std::deque<double> values;
  try {
    mu::Parser parser;
    for (const auto& name : m_names) {
      const auto axis = axes.find(name);
      if (axis == axes.end())
        return usage_error("'{}' names {}, an axis the case does not have", excerpt(m_text),
                           excerpt(name));
      const auto number = axis_number(axis->second);
      if (!number)
        return usage_error("'{}' needs axis {} as a number, and it is '{}'", excerpt(m_text),
                           excerpt(name), excerpt(axis->second));
      parser.DefineVar(name, &values.emplace_back(*number));
    }
    parser.SetExpr(m_text);
    const double value = parser.Eval();
    if (!std::isfinite(value) || value < 0)
      return usage_error("'{}' gives {} for this case; work must be a finite number, 0 or more",
                         excerpt(m_text), value);
    return value;
  } catch (const mu::Parser::exception_type& error) {
    return usage_error("the work expression '{}' cannot be evaluated{}: {}", excerpt(m_text),
                       where(error), excerpt(error.GetMsg()));
  }
}

} // namespace culprit::recipe
