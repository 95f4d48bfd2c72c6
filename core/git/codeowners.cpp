#include "core/git/codeowners.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "core/git/repository.hpp"

namespace culprit::git {
namespace {

// Splits a line at whitespace that is not escaped with a backslash; escapes stay in the tokens.
std::vector<std::string> tokenize(std::string_view line) {
  std::vector<std::string> tokens;
  std::string current;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '\\' && i + 1 < line.size()) {
      current += c;
      current += line[++i];
    } else if (c == ' ' || c == '\t') {
      if (!current.empty())
        tokens.push_back(std::move(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty())
    tokens.push_back(std::move(current));
  return tokens;
}

// "\ " and "\#" become the characters they escape; other escapes stay for the glob matcher.
std::string unescape_pattern(std::string_view token) {
  std::string out;
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '\\' && i + 1 < token.size() &&
        (token[i + 1] == ' ' || token[i + 1] == '\t' || token[i + 1] == '#')) {
      out += token[++i];
      continue;
    }
    out += token[i];
  }
  return out;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::ranges::transform(out, out.begin(),
                         [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool is_owner(std::string_view token) {
  return token.size() > 1 && token.find('@') != std::string_view::npos;
}

bool is_section_header(std::string_view line) {
  return line.starts_with('[') || line.starts_with("^[");
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r') &&
         (text.size() < 2 || text[text.size() - 2] != '\\'))
    text.remove_suffix(1);
  return text;
}

// One path segment against one glob segment: '*' any run of characters, '?' one character,
// '\c' the character c. Greedy with one backtracking point: linear in practice, quadratic at
// worst, never exponential.
bool segment_matches(std::string_view glob, std::string_view text) {
  std::size_t g = 0;
  std::size_t t = 0;
  std::size_t star = std::string_view::npos;
  std::size_t star_t = 0;
  while (t < text.size()) {
    if (g < glob.size() && glob[g] == '*') {
      while (g < glob.size() && glob[g] == '*')
        ++g;
      star = g;
      star_t = t;
      continue;
    }
    if (g < glob.size()) {
      const bool escaped = glob[g] == '\\' && g + 1 < glob.size();
      const char want = escaped ? glob[g + 1] : glob[g];
      if ((!escaped && want == '?') || want == text[t]) {
        g += escaped ? 2 : 1;
        ++t;
        continue;
      }
    }
    if (star == std::string_view::npos)
      return false;
    g = star;
    t = ++star_t;
  }
  while (g < glob.size() && glob[g] == '*')
    ++g;
  return g == glob.size();
}

// Path segments against glob segments, where a "**" segment matches any number of segments.
bool segments_match(const std::vector<std::string_view>& glob,
                    const std::vector<std::string_view>& path, std::size_t path_size) {
  std::size_t g = 0;
  std::size_t p = 0;
  std::size_t star = std::string_view::npos;
  std::size_t star_p = 0;
  while (p < path_size) {
    if (g < glob.size() && glob[g] == "**") {
      star = ++g;
      star_p = p;
    } else if (g < glob.size() && segment_matches(glob[g], path[p])) {
      ++g;
      ++p;
    } else if (star != std::string_view::npos) {
      g = star;
      p = ++star_p;
    } else {
      return false;
    }
  }
  while (g < glob.size() && glob[g] == "**")
    ++g;
  return g == glob.size();
}

std::vector<std::string_view> split_path(std::string_view text) {
  std::vector<std::string_view> parts;
  while (!text.empty()) {
    const auto slash = text.find('/');
    const auto part = text.substr(0, slash);
    if (!part.empty())
      parts.push_back(part);
    if (slash == std::string_view::npos)
      break;
    text.remove_prefix(slash + 1);
  }
  return parts;
}

void append_unique(std::vector<std::string>& out, const std::vector<std::string>& items) {
  for (const auto& item : items)
    if (std::ranges::find(out, item) == out.end())
      out.push_back(item);
}

} // namespace

bool codeowners_pattern_matches(std::string_view pattern, std::string_view path,
                                CodeownersDialect dialect) {
  const bool directory_only = pattern.ends_with('/');
  while (pattern.ends_with('/'))
    pattern.remove_suffix(1);
  bool anchored = pattern.starts_with('/');
  while (pattern.starts_with('/'))
    pattern.remove_prefix(1);
  if (pattern.empty())
    return false;
  if (dialect == CodeownersDialect::github && pattern.find('/') != std::string_view::npos)
    anchored = true;
  // "dir/*" names the files directly in dir, not the directories below it.
  const bool direct_only = pattern == "*" ? false : pattern.ends_with("/*");
  auto glob = split_path(pattern);
  if (!anchored)
    glob.insert(glob.begin(), "**");
  const auto parts = split_path(path);
  for (std::size_t k = 1; k <= parts.size(); ++k) {
    const bool whole = k == parts.size();
    if ((whole && directory_only) || (!whole && direct_only))
      continue;
    if (segments_match(glob, parts, k))
      return true;
  }
  return false;
}

Codeowners Codeowners::parse(std::string_view text, CodeownersDialect dialect) {
  Codeowners result;
  result.m_dialect = dialect;
  result.m_sections.emplace_back();
  std::size_t current = 0;
  std::vector<std::string> defaults;
  int number = 0;
  while (!text.empty()) {
    const auto end = text.find('\n');
    const auto line = trim(text.substr(0, end));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++number;
    if (line.empty() || line.starts_with('#'))
      continue;
    if (is_section_header(line)) {
      const bool optional = line.starts_with('^');
      const auto close = line.find(']');
      const auto open = line.find('[');
      if (close == std::string_view::npos || close <= open + 1) {
        result.m_warnings.push_back(
            fmt::format("line {}: a section header needs a name in [brackets]; skipped", number));
        continue;
      }
      const auto name = std::string(line.substr(open + 1, close - open - 1));
      auto rest = line.substr(close + 1);
      if (rest.starts_with('[')) // [Section][2]: the number of approvals
        rest.remove_prefix(std::min(rest.size(), rest.find(']') + 1));
      defaults.clear();
      for (const auto& token : tokenize(rest)) {
        if (token.starts_with('#'))
          break;
        if (is_owner(token))
          defaults.push_back(token);
      }
      const auto same = std::ranges::find_if(result.m_sections, [&](const CodeownersSection& s) {
        return !s.name.empty() && lower(s.name) == lower(name);
      });
      if (same == result.m_sections.end()) {
        result.m_sections.push_back({name, optional, defaults, {}});
        current = result.m_sections.size() - 1;
      } else {
        current = static_cast<std::size_t>(same - result.m_sections.begin());
        if (same->default_owners.empty())
          same->default_owners = defaults;
      }
      continue;
    }
    const auto tokens = tokenize(line);
    CodeownersRule rule;
    rule.line = number;
    rule.pattern = unescape_pattern(tokens.front());
    if (rule.pattern.starts_with('!')) {
      if (dialect == CodeownersDialect::github) {
        result.m_warnings.push_back(
            fmt::format("line {}: GitHub does not support '!' patterns; skipped", number));
        continue;
      }
      rule.excluded = true;
      rule.pattern.erase(0, 1);
    }
    for (std::size_t i = 1; i < tokens.size(); ++i) {
      if (tokens[i].starts_with('#'))
        break;
      if (is_owner(tokens[i]))
        rule.owners.push_back(tokens[i]);
      else
        result.m_warnings.push_back(
            fmt::format("line {}: '{}' is not an owner (@user, @org/team or an email); ignored",
                        number, tokens[i]));
    }
    if (rule.owners.empty() && !rule.excluded)
      rule.owners = defaults;
    result.m_sections[current].rules.push_back(std::move(rule));
  }
  return result;
}

std::vector<std::string> Codeowners::owners_of(std::string_view path) const {
  std::vector<std::string> owners;
  for (const auto& section : m_sections) {
    const auto last = std::ranges::find_if(
        section.rules.rbegin(), section.rules.rend(), [&](const CodeownersRule& rule) {
          return codeowners_pattern_matches(rule.pattern, path, m_dialect);
        });
    if (last != section.rules.rend() && !last->excluded)
      append_unique(owners, last->owners);
  }
  return owners;
}

std::vector<std::string> Codeowners::owners_of(const std::vector<std::string>& paths) const {
  std::vector<std::string> owners;
  for (const auto& path : paths)
    append_unique(owners, owners_of(path));
  return owners;
}

Result<std::optional<CodeownersFile>> find_codeowners(const Repository& repo,
                                                      std::string_view commit) {
  for (const auto path : k_codeowners_paths) {
    auto text = repo.read_file_at(commit, path);
    if (!text)
      continue;
    bool sections = path.starts_with(".gitlab/");
    for (std::string_view rest = *text; !rest.empty() && !sections;) {
      const auto end = rest.find('\n');
      sections = is_section_header(trim(rest.substr(0, end)));
      rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
    }
    return CodeownersFile{
        std::string(path),
        Codeowners::parse(*text, sections ? CodeownersDialect::gitlab : CodeownersDialect::github)};
  }
  return std::optional<CodeownersFile>();
}

} // namespace culprit::git
