#pragma once
// CODEOWNERS: who owns which files, as GitHub and GitLab read the file, so that a report can
// name the people to tell about a culprit.
//
// Syntax (both): one rule a line, a path pattern then owners (@user, @org/team, @@role, email);
// blank lines and lines starting with # are ignored, and so is the rest of a line from a # that
// follows a space; "\ " is a space in a pattern and "\#" a literal #. The last rule that matches
// a path decides its owners; a rule without owners leaves the path unowned.
// Patterns (gitignore-like): a leading / anchors at the top of the repository; a trailing /
// matches a directory and everything in it; "*" and "?" do not match /; "**" matches any
// number of directories ("**/x", "a/**/b", "a/**"); a pattern that matches a directory owns
// everything below it, except that "dir/*" owns only the files directly in dir. A pattern
// without a leading / matches at any depth; GitHub (like gitignore) anchors a pattern with a
// slash in its middle ("docs/*"), GitLab does not.
// GitLab adds sections: "[Name]", "^[Name]" (optional), "[Name][2]" (approvals), each with
// default owners after the header for its rules that name none; section names are compared
// without case and sections of one name are one section; "!pattern" excludes paths. The last
// matching rule wins within each section, and a path's owners are the union across sections
// (the rules before the first header are a section of their own).
//
// Matching is on strings only: a pattern never causes a file to be read or written, so paths
// from a repository cannot escape it through a pattern.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/error.hpp"

namespace culprit::git {

class Repository;

enum class CodeownersDialect { github, gitlab };

struct CodeownersRule {
  std::string pattern; // as written, unescaped
  std::vector<std::string> owners;
  bool excluded = false; // GitLab "!pattern"
  int line = 0;
};

struct CodeownersSection {
  std::string name; // empty for the rules before the first header
  bool optional = false;
  std::vector<std::string> default_owners;
  std::vector<CodeownersRule> rules;
};

class Codeowners {
public:
  // Parses the file's text. Lines that cannot be read (an unclosed section header) are skipped
  // and listed in warnings(); parsing itself never fails.
  static Codeowners parse(std::string_view text, CodeownersDialect dialect);

  // The owners of one path (relative to the top of the repository, '/'-separated), in the order
  // the rules name them, without repeats.
  [[nodiscard]] std::vector<std::string> owners_of(std::string_view path) const;
  // The union over several paths, in order of first appearance.
  [[nodiscard]] std::vector<std::string> owners_of(const std::vector<std::string>& paths) const;

  [[nodiscard]] const std::vector<CodeownersSection>& sections() const { return m_sections; }
  [[nodiscard]] const std::vector<std::string>& warnings() const { return m_warnings; }
  [[nodiscard]] CodeownersDialect dialect() const { return m_dialect; }

private:
  CodeownersDialect m_dialect = CodeownersDialect::github;
  std::vector<CodeownersSection> m_sections;
  std::vector<std::string> m_warnings;
};

// Whether `pattern` (unescaped, as in CodeownersRule) matches `path` under `dialect`.
bool codeowners_pattern_matches(std::string_view pattern, std::string_view path,
                                CodeownersDialect dialect);

// The places a CODEOWNERS file is looked for, first found wins: .github/CODEOWNERS, CODEOWNERS,
// .gitlab/CODEOWNERS, docs/CODEOWNERS.
inline constexpr std::string_view k_codeowners_paths[] = {".github/CODEOWNERS", "CODEOWNERS",
                                                          ".gitlab/CODEOWNERS", "docs/CODEOWNERS"};

struct CodeownersFile {
  std::string path; // where it was found
  Codeowners owners;
};

// The CODEOWNERS file in the tree of `commit`, read with git (never from the working tree), or
// nullopt when there is none. A file in .gitlab/, or one with section headers, is read the
// GitLab way; others the GitHub way.
Result<std::optional<CodeownersFile>> find_codeowners(const Repository& repo,
                                                      std::string_view commit);

} // namespace culprit::git
