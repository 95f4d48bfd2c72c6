#include "tests/support/manual.hpp"

#include <cctype>

#include "core/util/fs.hpp"
#include "tests/support/source_tree.hpp"

namespace culprit::testing {

std::string manual_page(std::string_view page) {
  auto text = read_file(source_dir() / "man" / page).value_or("");
  for (auto at = text.find("\\-"); at != std::string::npos; at = text.find("\\-", at))
    text.erase(at, 1);
  return text;
}

bool names_word(std::string_view text, std::string_view word, std::string_view joiners) {
  const auto word_char = [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           joiners.find(c) != std::string_view::npos;
  };
  for (auto at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const auto end = at + word.size();
    if ((at == 0 || !word_char(text[at - 1])) && (end == text.size() || !word_char(text[end])))
      return true;
  }
  return false;
}

} // namespace culprit::testing
