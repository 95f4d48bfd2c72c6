#pragma once
// The manual (man/*.1 *.5 *.7) as the tests that hold it to the code read it.

#include <string>
#include <string_view>

namespace culprit::testing {

// man/PAGE of the source tree as a reader sees the words: groff's "\-" is a plain hyphen. Empty
// when the page is not there.
std::string manual_page(std::string_view page);

// Whether `word` stands in `text` as a word of its own: neither neighbour is a letter, a digit or
// one of `joiners` ("-o" is not in "-old" or "foo-o" with joiners "-").
bool names_word(std::string_view text, std::string_view word, std::string_view joiners);

} // namespace culprit::testing
