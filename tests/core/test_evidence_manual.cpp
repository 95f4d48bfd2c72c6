// culprit-evidence(5) against the key table: every key the evidence writer spells
// (core/evidence/keys.hpp, walked into every nested object) is named in the page, so the schema's
// manual and the code cannot drift apart.

#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "core/evidence/keys.hpp"
#include "tests/support/manual.hpp"

namespace culprit {
namespace {

template <class T> void collect_keys_in(std::set<std::string>& names);

// The key names of S and of every object below it, each dotted part on its own.
template <evidence::keys::Object S> void collect_keys(std::set<std::string>& names) {
  evidence::keys::for_each_key<S>([&](const auto& key) {
    std::istringstream parts{std::string(key.name)};
    for (std::string part; std::getline(parts, part, '.');)
      names.insert(part);
    collect_keys_in<std::remove_cvref_t<decltype(std::declval<S&>().*(key.member))>>(names);
    return true;
  });
}

// A member's value: an object, an optional or a list of objects is walked as the writer walks it
// (core/evidence/evidence.cpp's value_json); anything else holds no keys.
template <class T> void collect_keys_in(std::set<std::string>& names) {
  if constexpr (evidence::keys::Object<T>)
    collect_keys<T>(names);
  else if constexpr (evidence::keys::is_optional<T>::value ||
                     evidence::keys::is_object_list<T>::value)
    collect_keys_in<typename T::value_type>(names);
}

TEST(EvidenceManual, NamesEveryKeyOfTheKeyTable) {
  const auto text = testing::manual_page("culprit-evidence.5");
  ASSERT_FALSE(text.empty()) << "man/culprit-evidence.5 is missing";
  std::set<std::string> names;
  collect_keys<evidence::Evidence>(names);
  ASSERT_GT(names.size(), 100U);
  for (const auto& name : names)
    EXPECT_TRUE(testing::names_word(text, name, "_"))
        << "evidence key '" << name << "' is not in culprit-evidence(5)";
}

} // namespace
} // namespace culprit
