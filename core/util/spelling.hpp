#pragma once
// The names of an enumeration's values, as one table a value's name and a name's value are both
// read from (files, flags, evidence and stores spell them the same).

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace culprit {

template <class E> struct Spelling {
  E value;
  std::string_view name;
};

// The name of `value`; the first name when the table lacks it.
template <class E, std::size_t N>
constexpr std::string_view name_in(const std::array<Spelling<E>, N>& spellings, E value) {
  for (const auto& spelling : spellings)
    if (spelling.value == value)
      return spelling.name;
  return spellings.front().name;
}

// The value named `name`; none when no entry has that name.
template <class E, std::size_t N>
constexpr std::optional<E> value_in(const std::array<Spelling<E>, N>& spellings,
                                    std::string_view name) {
  for (const auto& spelling : spellings)
    if (spelling.name == name)
      return spelling.value;
  return std::nullopt;
}

} // namespace culprit
