#pragma once
// Small operations on text that several layers share.

#include <string>
#include <string_view>
#include <vector>

namespace culprit {

// `text` without the characters of `blanks` at either end (by default what std::isspace calls
// space in the C locale).
constexpr std::string_view trim(std::string_view text,
                                std::string_view blanks = " \t\n\v\f\r") noexcept {
  const auto first = text.find_first_not_of(blanks);
  if (first == std::string_view::npos)
    return {};
  return text.substr(first, text.find_last_not_of(blanks) + 1 - first);
}

// The words of `text` split at whitespace, none empty ("-p gpu --exclusive": three words), as
// sbatch_args and srun_args given as one string are split.
std::vector<std::string> split_arguments(std::string_view text);

} // namespace culprit
