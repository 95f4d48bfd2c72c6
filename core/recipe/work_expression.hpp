#pragma once
// The work of a case whose output carries none, from an expression over its axes:
// [roofline.cases] in culprit.toml gives "sgemm/*" = { flops = "2*M*N*K", bytes = "4*(M*K+K*N+M*N)"
// }. muParser (Debian's libmuparser-dev) parses and evaluates the expressions: + - * / ^,
// parentheses, numbers, and functions such as min, max, sqrt and log2.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/error.hpp"

namespace culprit::recipe {

class WorkExpression {
public:
  // Checks the syntax and learns the names the expression uses. A syntax error is a usage error
  // that quotes the expression and says where and what is wrong.
  static Result<WorkExpression> parse(std::string_view text);

  [[nodiscard]] const std::string& text() const { return m_text; }
  // The axis names the expression uses, sorted.
  [[nodiscard]] const std::vector<std::string>& names() const { return m_names; }

  // The value for a case's axes. An error (usage) says which axis the case lacks, or which is not
  // a number; a result that is not a finite non-negative number is an error too.
  [[nodiscard]] Result<double> evaluate(const std::map<std::string, std::string>& axes) const;

private:
  std::string m_text;
  std::vector<std::string> m_names;
};

// An axis value as a number: "4096", "1.5e3", and nvbench's powers "2^20".
std::optional<double> axis_number(std::string_view text);

} // namespace culprit::recipe
