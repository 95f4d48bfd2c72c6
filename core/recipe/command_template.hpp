#pragma once
// Commands are templates: {src}, {build}, {commit} and {rev} expand in build and run commands.
// In a shell string a value is inserted as is when it holds only characters the shell leaves
// alone (letters, digits and _./:@%+=,-), and single-quoted otherwise, so that a revision name or
// path can never inject shell syntax. Where the recipe put the placeholder inside quotes of its
// own ("{rev}" or '{rev}'), the value is escaped for those quotes instead. In an argument vector
// values are inserted verbatim.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/error.hpp"

namespace culprit::recipe {

struct TemplateValues {
  std::string src;
  std::string build;
  std::string commit;
  std::string rev;
};

enum class Quoting { shell, none };

// Expands the placeholders; `{{` and `}}` stand for literal braces. An unknown placeholder such
// as {bulid} is a usage error that names it.
Result<std::string> expand_template(std::string_view text, const TemplateValues& values,
                                    Quoting quoting);
Result<std::vector<std::string>> expand_template(const std::vector<std::string>& argv,
                                                 const TemplateValues& values);

// 'it'\''s' style quoting for /bin/sh; plain text stays plain.
std::string quote_for_sh(std::string_view value);

// CULPRIT_SRC, CULPRIT_BUILD, CULPRIT_COMMIT and CULPRIT_REV.
std::map<std::string, std::string> template_environment(const TemplateValues& values);

} // namespace culprit::recipe
