// culprit-evidence(5) against the key table: every key the evidence writer spells
// (core/evidence/keys.hpp, walked into every nested object) is named in the page, so the schema's
// manual and the code cannot drift apart.

#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "core/evidence/keys.hpp"
#include "tests/support/source_tree.hpp"

namespace culprit {
namespace {

template <class T> struct ObjectOf {
  using type = void;
};
template <evidence_keys::Object T> struct ObjectOf<T> {
  using type = T;
};
template <evidence_keys::Object T> struct ObjectOf<std::optional<T>> {
  using type = T;
};
template <evidence_keys::Object T, class A> struct ObjectOf<std::vector<T, A>> {
  using type = T;
};

// The key names of S and of every object below it, each dotted part on its own.
template <evidence_keys::Object S> void collect_keys(std::set<std::string>& names) {
  evidence_keys::for_each_key<S>([&](const auto& key) {
    std::istringstream parts{std::string(key.name)};
    for (std::string part; std::getline(parts, part, '.');)
      names.insert(part);
    using Member = std::remove_cvref_t<decltype(std::declval<S&>().*(key.member))>;
    using Nested = typename ObjectOf<Member>::type;
    if constexpr (!std::is_void_v<Nested>)
      collect_keys<Nested>(names);
    return true;
  });
}

bool names_word(const std::string& text, const std::string& word) {
  const auto word_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const auto end = at + word.size();
    if ((at == 0 || !word_char(text[at - 1])) && (end == text.size() || !word_char(text[end])))
      return true;
  }
  return false;
}

TEST(EvidenceManual, NamesEveryKeyOfTheKeyTable) {
  std::ifstream in(std::filesystem::path(testing::source_dir()) / "man" / "culprit-evidence.5");
  ASSERT_TRUE(in) << "man/culprit-evidence.5 is missing";
  std::ostringstream page;
  page << in.rdbuf();
  // groff spells "_" as itself and "-" as "\-"; keys use only the first.
  const auto text = page.str();
  std::set<std::string> names;
  collect_keys<Evidence>(names);
  ASSERT_GT(names.size(), 100U);
  for (const auto& name : names)
    EXPECT_TRUE(names_word(text, name))
        << "evidence key '" << name << "' is not in culprit-evidence(5)";
}

} // namespace
} // namespace culprit
