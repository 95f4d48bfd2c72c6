// libFuzzer target: the escaping of foreign text (core/util/escape.hpp) that everything culprit
// prints from outside passes through. Whatever the bytes, what comes out is inert on a terminal,
// an excerpt stays short, escaping is idempotent, and HTML text holds no markup.

#include <string>

#include "core/util/escape.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace culprit;
  const auto text = fuzz::as_text(data, size);
  const auto safe = terminal_safe(text);
  fuzz::check_inert_on_a_terminal(safe);
  if (terminal_safe(safe) != safe)
    std::abort(); // what is safe passes unchanged
  const std::size_t limit = size % 97;
  const auto cut = excerpt(text, limit);
  fuzz::check_inert_on_a_terminal(cut);
  // At most `limit` bytes of the value, then "... (N bytes in all)".
  if (cut.size() > limit + std::string("... ( bytes in all)").size() + 20)
    std::abort();
  if (cut.size() > limit && cut.find("bytes in all)") == std::string::npos)
    std::abort();
  const auto html = html_escape(text);
  fuzz::check_inert_on_a_terminal(html);
  if (html.find_first_of("<>\"'") != std::string::npos)
    std::abort();
  fuzz::check_inert_on_a_terminal(markdown_text(text));
  fuzz::check_inert_on_a_terminal(github_message(text));
  return 0;
}
