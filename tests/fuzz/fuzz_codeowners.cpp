// libFuzzer target: CODEOWNERS files of both dialects and the matching of paths against them.
// The input is the file, then a NUL, then paths one a line; its first byte picks the dialect.

#include "core/git/codeowners.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0)
    return 0;
  const auto dialect = (data[0] & 1U) != 0 ? culprit::git::CodeownersDialect::gitlab
                                           : culprit::git::CodeownersDialect::github;
  auto text = culprit::fuzz::as_text(data + 1, size - 1);
  const auto nul = text.find('\0');
  const auto file = text.substr(0, nul);
  auto paths = nul == std::string_view::npos ? std::string_view() : text.substr(nul + 1);
  const auto owners = culprit::git::Codeowners::parse(file, dialect);
  std::vector<std::string> all;
  while (!paths.empty()) {
    const auto end = paths.find('\n');
    const auto path = paths.substr(0, end);
    paths.remove_prefix(end == std::string_view::npos ? paths.size() : end + 1);
    (void)owners.owners_of(path);
    for (const auto& section : owners.sections())
      for (const auto& rule : section.rules)
        (void)culprit::git::codeowners_pattern_matches(rule.pattern, path, dialect);
    all.emplace_back(path);
  }
  (void)owners.owners_of(all);
  return 0;
}
