#include "core/recipe/command_template.hpp"

#include <algorithm>

namespace culprit::recipe {
namespace {

bool shell_safe(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("_./:@%+=,-").find(c) != std::string_view::npos;
}

// Where the template has the shell at a point: outside quotes, or inside '...' or "...".
enum class ShellContext { plain, single_quoted, double_quoted };

class ShellScanner {
public:
  [[nodiscard]] ShellContext context() const { return m_context; }
  // Follows one character of the template as the shell will read it.
  void feed(char c) {
    if (m_escaped) {
      m_escaped = false;
      return;
    }
    switch (m_context) {
    case ShellContext::plain:
      if (c == '\\')
        m_escaped = true;
      else if (c == '\'')
        m_context = ShellContext::single_quoted;
      else if (c == '"')
        m_context = ShellContext::double_quoted;
      break;
    case ShellContext::single_quoted:
      if (c == '\'')
        m_context = ShellContext::plain;
      break;
    case ShellContext::double_quoted:
      if (c == '\\')
        m_escaped = true;
      else if (c == '"')
        m_context = ShellContext::plain;
      break;
    }
  }

private:
  ShellContext m_context = ShellContext::plain;
  bool m_escaped = false;
};

// A value for where it lands: a recipe that writes "{rev}" or '{rev}' must not let a revision
// name close its quotes or expand $(...) inside them.
std::string quote_for(ShellContext context, std::string_view value) {
  std::string out;
  switch (context) {
  case ShellContext::plain:
    return quote_for_sh(value);
  case ShellContext::single_quoted:
    for (const char c : value)
      out += c == '\'' ? std::string_view("'\\''") : std::string_view(&c, 1);
    return out;
  case ShellContext::double_quoted:
    for (const char c : value) {
      if (c == '$' || c == '`' || c == '"' || c == '\\')
        out += '\\';
      out += c;
    }
    return out;
  }
  return out;
}

} // namespace

std::string quote_for_sh(std::string_view value) {
  if (!value.empty() && std::all_of(value.begin(), value.end(), shell_safe))
    return std::string(value);
  std::string quoted = "'";
  for (const char c : value) {
    if (c == '\'')
      quoted += "'\\''";
    else
      quoted += c;
  }
  quoted += '\'';
  return quoted;
}

Result<std::string> expand_template(std::string_view text, const TemplateValues& values,
                                    Quoting quoting) {
  std::string out;
  out.reserve(text.size() + 64);
  ShellScanner shell;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      out += c;
      ++i;
      continue;
    }
    if (c != '{' || (i > 0 && text[i - 1] == '$')) { // ${VAR} belongs to the shell
      out += c;
      shell.feed(c);
      continue;
    }
    const auto close = text.find('}', i);
    if (close == std::string_view::npos) {
      out += c; // a lone brace, e.g. in a shell function body
      continue;
    }
    const auto name = text.substr(i + 1, close - i - 1);
    const std::string* value = nullptr;
    if (name == "src")
      value = &values.src;
    else if (name == "build")
      value = &values.build;
    else if (name == "commit")
      value = &values.commit;
    else if (name == "rev")
      value = &values.rev;
    if (value == nullptr) {
      const bool looks_like_placeholder =
          !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) {
            return (ch >= 'a' && ch <= 'z') || ch == '_';
          });
      if (looks_like_placeholder)
        return usage_error("unknown placeholder {{{}}} in '{}'; the placeholders are {{src}}, "
                           "{{build}}, {{commit}} and {{rev}} (write {{{{ for a literal brace)",
                           name, text);
      out += c; // shell syntax such as ${VAR} or { a; b; }
      continue;
    }
    out += quoting == Quoting::shell ? quote_for(shell.context(), *value) : *value;
    i = close;
  }
  return out;
}

Result<std::vector<std::string>> expand_template(const std::vector<std::string>& argv,
                                                 const TemplateValues& values) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  for (const auto& arg : argv) {
    CULPRIT_TRY_ASSIGN(auto expanded, expand_template(arg, values, Quoting::none));
    out.push_back(std::move(expanded));
  }
  return out;
}

std::map<std::string, std::string> template_environment(const TemplateValues& values) {
  return {{"CULPRIT_SRC", values.src},
          {"CULPRIT_BUILD", values.build},
          {"CULPRIT_COMMIT", values.commit},
          {"CULPRIT_REV", values.rev}};
}

} // namespace culprit::recipe
