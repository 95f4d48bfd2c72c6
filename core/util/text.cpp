#include "core/util/text.hpp"

#include <cctype>
#include <utility>

namespace culprit {

std::vector<std::string> split_arguments(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  for (const char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      if (!word.empty())
        words.push_back(std::exchange(word, {}));
    } else {
      word += c;
    }
  }
  if (!word.empty())
    words.push_back(std::move(word));
  return words;
}

} // namespace culprit
