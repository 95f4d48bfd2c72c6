#pragma once
// Numbers picked out of free-form output with a regular expression, one sample per matching
// line. The pattern has one capture group (the value), or named groups `value` and, optionally,
// `case`: (?P<case>\S+): (?P<value>[0-9.e+-]+) ms  ((?<name>...) is accepted too). Without a
// case group every sample belongs to options.case_name.
//
// RE2 (Cox, "Regular Expression Matching in the Wild", 2010) rather than std::regex: its
// matching takes time linear in the input and no recursion, so no output, however long its
// lines, can make the parser hang or overflow the stack, which libstdc++'s backtracking
// std::regex does on long lines. The price is RE2's syntax: no backreferences or lookaround.

#include <string>
#include <string_view>

#include "core/parsers/metric.hpp"
#include "core/util/error.hpp"

namespace culprit::parsers {

struct RegexOptions {
  std::string pattern;
  std::string unit;   // s, ms, us, ns are stored in seconds
  std::string metric; // empty: "time" when unit is a time unit, else "value"
  Direction direction = Direction::lower_is_better;
  std::string case_name = "default"; // the case when the pattern has no case group
};

// Errors: an invalid pattern or the wrong groups (ExitCode::usage); a captured value that is not
// a number (with line and column), or no matching line at all.
[[nodiscard]] Result<ParsedOutput> parse_regex_lines(std::string_view text,
                                                     const RegexOptions& options);

} // namespace culprit::parsers
