// The man page and the bash completion against the binary: every flag that `culprit COMMAND
// --help` prints must be in man/culprit.1 and in man/culprit.bash-completion, and the page must
// render without a groff warning.

#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/process.hpp"
#include "tests/support/source_tree.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;

const std::filesystem::path k_source(testing::source_dir());
const std::filesystem::path k_man = k_source / "man" / "culprit.1";
const std::filesystem::path k_completion = k_source / "man" / "culprit.bash-completion";

std::string read(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The page as a reader sees the words: groff's "\-" is a plain hyphen.
std::string man_text() {
  auto text = read(k_man);
  for (auto at = text.find("\\-"); at != std::string::npos; at = text.find("\\-", at))
    text.erase(at, 1);
  return text;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

// The commands listed under "Subcommands:" in `culprit --help`.
std::vector<std::string> commands() {
  const auto help = testing::run_culprit({"--help"}, k_source);
  std::vector<std::string> names;
  bool in_list = false;
  for (const auto& line : lines_of(help.out)) {
    if (line.starts_with("Subcommands:")) {
      in_list = true;
      continue;
    }
    if (in_list && line.starts_with("  ") && line.size() > 2 && line[2] != ' ')
      names.push_back(line.substr(2, line.find(' ', 2) - 2));
  }
  return names;
}

// The option names (-o, --output, ...) of a --help text: the first column of its option lines.
std::set<std::string> flags_of(const std::string& help) {
  std::set<std::string> flags;
  for (const auto& line : lines_of(help)) {
    const auto start = line.find_first_not_of(' ');
    if (start == std::string::npos || start == 0 || line[start] != '-')
      continue;
    const auto column = line.substr(start, line.find(' ', start) - start);
    std::istringstream names(column);
    for (std::string name; std::getline(names, name, ',');)
      if (name.starts_with('-'))
        flags.insert(name);
  }
  return flags;
}

// Whether `flag` stands in `text` as a word of its own ("-o" is not in "-old" or "foo-o").
bool mentions(const std::string& text, const std::string& flag) {
  const auto word_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-';
  };
  for (auto at = text.find(flag); at != std::string::npos; at = text.find(flag, at + 1)) {
    const auto end = at + flag.size();
    if ((at == 0 || !word_char(text[at - 1])) && (end == text.size() || !word_char(text[end])))
      return true;
  }
  return false;
}

// What the completion offers for `culprit WORDS... CURRENT<TAB>`.
std::vector<std::string> complete(const std::vector<std::string>& words) {
  std::string array = "culprit";
  for (const auto& w : words)
    array += " '" + w + "'";
  const auto script = "source '" + k_completion.string() + "'; COMP_WORDS=(" + array +
                      "); COMP_CWORD=" + std::to_string(words.size()) +
                      "; _culprit; printf '%s\\n' \"${COMPREPLY[@]}\"";
  const auto out = testing::run_process({"bash", "--norc", "-c", script}, k_source);
  EXPECT_EQ(out.exit_code, 0) << out.err;
  auto lines = lines_of(out.out);
  std::erase(lines, "");
  return lines;
}

TEST(ManPage, DocumentsEveryCommandAndEveryFlagThatHelpPrints) {
  const auto man = man_text();
  const auto names = commands();
  ASSERT_GE(names.size(), 12U);
  for (const auto& flag : flags_of(testing::run_culprit({"--help"}, k_source).out))
    EXPECT_TRUE(mentions(man, flag)) << "culprit " << flag << " is not in man/culprit.1";
  for (const auto& command : names) {
    EXPECT_NE(man.find(".SS \"culprit " + command), std::string::npos)
        << "no section for culprit " << command;
    const auto help = testing::run_culprit({command, "--help"}, k_source);
    EXPECT_EQ(help.exit_code, 0) << command;
    for (const auto& flag : flags_of(help.out))
      EXPECT_TRUE(mentions(man, flag))
          << "culprit " << command << " " << flag << " is not in man/culprit.1";
  }
}

TEST(ManPage, ListsTheExitCodesConfigurationAndFormats) {
  const auto man = man_text();
  for (const auto* section :
       {".SH EXIT STATUS", ".SH CONFIGURATION FILE", ".SH THE CULPRIT JSON-LINES FORMAT",
        ".SH EVIDENCE", ".SH REPORTS", ".SH ENVIRONMENT", ".SH FILES"})
    EXPECT_NE(man.find(section), std::string::npos) << section;
  for (const auto* code : {"0", "1", "2", "3", "4", "5", "130"})
    EXPECT_NE(man.find(std::string(".TP\n.B ") + code + "\n"), std::string::npos) << code;
}

TEST(ManPage, RendersWithoutGroffWarnings) {
  const auto probe = testing::run_process({"sh", "-c", "command -v groff"}, k_source);
  if (probe.exit_code != 0)
    GTEST_SKIP() << "groff is not installed (groff-base): the man page was not rendered";
  const auto out = testing::run_process({"groff", "-man", "-ww", "-z", k_man.string()}, k_source);
  EXPECT_EQ(out.exit_code, 0);
  EXPECT_EQ(out.err, "") << "groff warns about man/culprit.1";
}

TEST(BashCompletion, CompletesCommandsAndFlags) {
  EXPECT_THAT(complete({"bi"}), ElementsAre("bisect"));
  EXPECT_THAT(complete({"bisect", "--go"}), ElementsAre("--good"));
  EXPECT_THAT(complete({"--repo", ".", "rep"}), ElementsAre("report"));
  EXPECT_THAT(complete({"re"}), ElementsAre("report", "regressions"));
  EXPECT_THAT(complete({"regressions", "w"}), ElementsAre("wontfix"));
  EXPECT_THAT(complete({"regressions", "--state", "a"}), ElementsAre("all", "acknowledged"));
  EXPECT_THAT(complete({"report", "x.json", "--format", "m"}), ElementsAre("markdown"));
  EXPECT_THAT(complete({"compare", "--format", "nv"}), ElementsAre("nvbench"));
  EXPECT_THAT(complete({"--col"}), ElementsAre("--color"));
  EXPECT_THAT(complete({"bisect", "--good", "HE"}), Contains("HEAD"));
}

TEST(BashCompletion, OffersEveryFlagThatHelpPrints) {
  for (const auto& flag : flags_of(testing::run_culprit({"--help"}, k_source).out))
    EXPECT_THAT(complete({flag}), Contains(flag)) << flag;
  for (const auto& command : commands()) {
    const auto help = testing::run_culprit({command, "--help"}, k_source);
    const auto offered = complete({command, "-"});
    for (const auto& flag : flags_of(help.out))
      EXPECT_THAT(offered, Contains(flag)) << "culprit " << command << " " << flag;
  }
}

} // namespace
} // namespace culprit
