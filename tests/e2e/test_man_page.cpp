// The manual and the bash completion against the binary: every flag that `culprit COMMAND --help`
// prints must be in the command's page (man/culprit-COMMAND.1) or in culprit(1), which holds the
// options many commands share, and in man/culprit.bash-completion; every key of culprit.toml in
// culprit.toml(5); every page must render without a groff warning, be listed in culprit(1) and be
// found by `culprit help`.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/manual.hpp"
#include "tests/support/process.hpp"
#include "tests/support/source_tree.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;

const std::filesystem::path k_source(testing::source_dir());
const std::filesystem::path k_man_dir = k_source / "man";
const std::filesystem::path k_completion = k_source / "man" / "culprit.bash-completion";

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
  return testing::names_word(text, flag, "-");
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

// Every page of the manual: man/*.1, *.5 and *.7.
std::vector<std::filesystem::path> pages() {
  std::vector<std::filesystem::path> found;
  for (const auto& entry : std::filesystem::directory_iterator(k_man_dir)) {
    const auto extension = entry.path().extension().string();
    if (extension == ".1" || extension == ".5" || extension == ".7")
      found.push_back(entry.path());
  }
  std::ranges::sort(found);
  return found;
}

// The sections and the keys of each that culprit.toml accepts, as the binary's own refusals of an
// unknown section and an unknown key list them.
std::map<std::string, std::vector<std::string>> recipe_keys() {
  testing::TempDir dir;
  const auto git = [&](const std::vector<std::string>& args) {
    auto argv = std::vector<std::string>{"git", "-c", "user.name=t", "-c", "user.email=t@t"};
    argv.insert(argv.end(), args.begin(), args.end());
    ASSERT_EQ(testing::run_process(argv, dir.path()).exit_code, 0);
  };
  git({"init", "-q"});
  git({"commit", "-q", "--allow-empty", "-m", "empty"});
  const auto refusal = [&](const std::string& recipe) {
    std::ofstream(dir.path() / "culprit.toml") << recipe;
    const auto out = testing::run_culprit({"build", "HEAD"}, dir.path());
    EXPECT_EQ(out.exit_code, 2) << out.err;
    return out.err;
  };
  // "...; the sections are [build], [run], ... and [store]"
  std::map<std::string, std::vector<std::string>> keys;
  const auto sections = refusal("[no_such_section]\nx = 1\n");
  for (auto at = sections.find('['); at != std::string::npos; at = sections.find('[', at + 1))
    keys[sections.substr(at + 1, sections.find(']', at) - at - 1)];
  for (auto& [section, names] : keys) {
    // "...unknown key 'no_such_key' in [run]; known keys: command, format, ..."
    const auto err = refusal("[" + section + "]\nno_such_key = 1\n");
    const auto list = err.find("known keys: ");
    EXPECT_NE(list, std::string::npos) << err;
    std::istringstream in(err.substr(list + 12));
    for (std::string name; std::getline(in >> std::ws, name, ',');)
      names.push_back(name.substr(0, name.find_last_not_of(" \n") + 1));
  }
  return keys;
}

TEST(ManPage, DocumentsEveryCommandAndEveryFlagThatHelpPrints) {
  const auto overview = testing::manual_page("culprit.1");
  const auto names = commands();
  ASSERT_GE(names.size(), 13U);
  for (const auto& flag : flags_of(testing::run_culprit({"--help"}, k_source).out))
    EXPECT_TRUE(mentions(overview, flag)) << "culprit " << flag << " is not in culprit(1)";
  for (const auto& command : names) {
    if (command == "help") {
      // Its page is the overview's own.
      EXPECT_TRUE(mentions(overview, "culprit help")) << "culprit help is not in culprit(1)";
      for (const auto& flag : flags_of(testing::run_culprit({"help", "--help"}, k_source).out))
        EXPECT_TRUE(mentions(overview, flag)) << "culprit help " << flag << " is not in culprit(1)";
      continue;
    }
    const auto page = "culprit-" + command + ".1";
    ASSERT_TRUE(std::filesystem::exists(k_man_dir / page)) << "no page " << page;
    const auto text = testing::manual_page(page);
    EXPECT_TRUE(mentions(overview, "culprit-" + command))
        << "culprit(1) does not list culprit-" << command;
    const auto help = testing::run_culprit({command, "--help"}, k_source);
    EXPECT_EQ(help.exit_code, 0) << command;
    for (const auto& flag : flags_of(help.out))
      EXPECT_TRUE(mentions(text, flag) || mentions(overview, flag))
          << "culprit " << command << " " << flag << " is not in " << page << " or culprit(1)";
  }
}

TEST(ManPage, DocumentsEveryKeyOfTheRecipe) {
  const auto page = testing::manual_page("culprit.toml.5");
  const auto keys = recipe_keys();
  ASSERT_GE(keys.size(), 6U);
  for (const auto& [section, names] : keys) {
    EXPECT_NE(page.find("[" + section + "]"), std::string::npos)
        << "[" << section << "] is not in culprit.toml(5)";
    EXPECT_FALSE(names.empty()) << section;
    for (const auto& name : names)
      EXPECT_TRUE(mentions(page, name))
          << "[" << section << "] " << name << " is not in culprit.toml(5)";
  }
}

TEST(ManPage, ListsTheExitCodesConfigurationAndFormats) {
  const auto overview = testing::manual_page("culprit.1");
  for (const auto* section : {".SH EXIT STATUS", ".SH ENVIRONMENT", ".SH FILES", ".SH SEE ALSO"})
    EXPECT_NE(overview.find(section), std::string::npos) << section;
  for (const auto* code : {"0", "1", "2", "3", "4", "5", "130"})
    EXPECT_NE(overview.find(std::string(".TP\n.B ") + code + "\n"), std::string::npos) << code;
  EXPECT_NE(testing::manual_page("culprit-harness.7").find(".SH THE CULPRIT JSON-LINES FORMAT"),
            std::string::npos);
  EXPECT_NE(testing::manual_page("culprit-report.1").find(".SH REPORTS"), std::string::npos);
}

TEST(ManPage, EveryPageIsListedInTheOverviewAndFoundByHelp) {
  const auto overview = testing::manual_page("culprit.1");
  const auto all = pages();
  ASSERT_GE(all.size(), 20U);
  for (const auto& page : all) {
    const auto name = page.stem().string();
    const auto section = page.extension().string().substr(1);
    if (name != "culprit") {
      EXPECT_NE(overview.find(".BR " + name + " (" + section + ")"), std::string::npos)
          << "culprit(1) does not point to " << name << "(" << section << ")";
    }
    // The topic `culprit help` takes: a command's name, or the guide's name without "culprit-".
    auto topic = name == "culprit" ? std::string() : name.substr(8);
    if (name == "culprit.toml")
      topic = "toml";
    std::vector<std::string> args{"help", "--path"};
    if (!topic.empty())
      args.push_back(topic);
    const auto out = testing::run_culprit(args, k_source);
    EXPECT_EQ(out.exit_code, 0) << name << ": " << out.err;
    EXPECT_EQ(std::filesystem::path(out.out.substr(0, out.out.find('\n'))),
              std::filesystem::canonical(page))
        << name;
  }
  const auto unknown = testing::run_culprit({"help", "no-such-topic"}, k_source);
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, ::testing::HasSubstr("topics: the commands (init, build"));
}

TEST(ManPage, EveryPageRendersWithoutGroffWarnings) {
  const auto probe = testing::run_process({"sh", "-c", "command -v groff"}, k_source);
  if (probe.exit_code != 0)
    GTEST_SKIP() << "groff is not installed (groff-base): the pages were not rendered";
  for (const auto& page : pages()) {
    const auto out = testing::run_process({"groff", "-man", "-ww", "-z", page.string()}, k_source);
    EXPECT_EQ(out.exit_code, 0) << page.filename();
    EXPECT_EQ(out.err, "") << "groff warns about " << page.filename();
  }
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
  EXPECT_THAT(complete({"help", "stat"}), ElementsAre("statistics"));
  EXPECT_THAT(complete({"help", "bis"}), ElementsAre("bisect"));
}

// The values that options and operands of a --help text accept, as CLI11 prints a set of them:
// "  --color TEXT:{auto,always,never}" gives {"--color", {"always", "auto", "never"}}; an operand
// ("  action TEXT:{list,show}=list") is named by its place among the operands ("0", "1", ...).
std::map<std::string, std::set<std::string>> choices_of(const std::string& help) {
  std::map<std::string, std::set<std::string>> found;
  bool operands = false;
  int operand = 0;
  for (const auto& line : lines_of(help)) {
    if (!line.starts_with(" ")) {
      operands = line.starts_with("Positionals:");
      continue;
    }
    const auto start = line.find_first_not_of(' ');
    if (start != 2)
      continue; // a description's continuation
    auto name = line.substr(start, line.find(' ', start) - start);
    if (name.find(',') != std::string::npos)
      name = name.substr(name.rfind(',') + 1);
    if (operands && !name.starts_with('-'))
      name = std::to_string(operand++);
    const auto open = line.find(":{");
    if (open == std::string::npos || open > line.find(' ', start) + 20)
      continue;
    std::istringstream values(line.substr(open + 2, line.find('}', open) - open - 2));
    for (std::string value; std::getline(values, value, ',');)
      found[name].insert(value);
  }
  return found;
}

// What the completion offers, as a set.
std::set<std::string> offered(const std::vector<std::string>& words) {
  const auto list = complete(words);
  return {list.begin(), list.end()};
}

TEST(BashCompletion, OffersEveryValueThatTheCodeAccepts) {
  for (const auto& [flag, values] : choices_of(testing::run_culprit({"--help"}, k_source).out))
    EXPECT_EQ(offered({flag, ""}), values) << "culprit " << flag;
  std::size_t checked = 0;
  for (const auto& command : commands()) {
    for (const auto& [name, values] :
         choices_of(testing::run_culprit({command, "--help"}, k_source).out)) {
      ++checked;
      std::vector<std::string> words{command};
      if (name.starts_with('-'))
        words.push_back(name);
      else // the operands before it, then the one to complete
        words.insert(words.end(), std::stoul(name), "x");
      words.emplace_back();
      EXPECT_EQ(offered(words), values) << "culprit " << command << " " << name;
    }
  }
  EXPECT_GE(checked, 10U) << "--cwd and --instrument of the measuring commands, and more";
}

// The help topics, as `culprit help` lists them when it knows none by the name given.
std::set<std::string> help_topics() {
  const auto unknown = testing::run_culprit({"help", "no-such-topic"}, k_source);
  const auto list = unknown.err.substr(unknown.err.find("topics: the commands (") + 22);
  std::set<std::string> topics;
  std::string word;
  for (const char c : list) {
    if (c == ',' || c == ' ' || c == ')' || c == '\n') {
      if (!word.empty())
        topics.insert(word);
      word.clear();
    } else {
      word += c;
    }
  }
  return topics;
}

TEST(BashCompletion, OffersEachWordWhereItFits) {
  const auto names = commands();
  EXPECT_EQ(offered({""}), std::set<std::string>(names.begin(), names.end()));
  const auto topics = help_topics();
  ASSERT_GE(topics.size(), 19U);
  EXPECT_FALSE(topics.contains("help"));
  EXPECT_EQ(offered({"help", ""}), topics);
  for (const auto& topic : topics)
    EXPECT_EQ(testing::run_culprit({"help", "--path", topic}, k_source).exit_code, 0) << topic;
  EXPECT_THAT(complete({"help", "bisect", ""}), ::testing::IsEmpty());
  // A verb once: what follows is an id, or the places a history is copied between.
  EXPECT_THAT(complete({"regressions", "ack", ""}), ::testing::IsEmpty());
  EXPECT_THAT(complete({"regressions", "ack", "R0123456", "--note", "x", ""}),
              ::testing::IsEmpty());
  EXPECT_THAT(complete({"regressions", "--owner", "x", ""}), Contains("show"));
  EXPECT_THAT(complete({"store", "copy", ""}), Contains("local"));
  EXPECT_THAT(complete({"store", "copy", ""}), ::testing::Not(Contains("copy")));
  EXPECT_THAT(complete({"store", "copy", "local", "postgresql://db", ""}), ::testing::IsEmpty());
  // A global option's value is no command.
  EXPECT_THAT(complete({"--store", ""}), ::testing::IsEmpty());
  EXPECT_THAT(complete({"--store", "postgresql://u@127.0.0.1/db", "hi"}), ElementsAre("history"));
}

TEST(HelpCommand, AManThatCannotShowThePageIsAnInfrastructureError) {
  testing::TempDir bin("culprit-fake-man");
  const auto fake_man = [&](const std::string& script) {
    const auto file = bin / "man";
    std::ofstream(file) << "#!/bin/sh\n" << script;
    std::filesystem::permissions(file, std::filesystem::perms::owner_all);
  };
  const std::map<std::string, std::string> path{{"PATH", bin.path().string() + ":/usr/bin:/bin"}};
  // man's own status when the pager fails is 3, which culprit says for an inconclusive answer.
  fake_man("echo 'man: command exited with status 1: false' >&2\nexit 3\n");
  const auto failed = testing::run_culprit({"help", "bisect"}, k_source, path);
  EXPECT_EQ(failed.exit_code, 4) << failed.err;
  EXPECT_THAT(failed.err, ::testing::HasSubstr("culprit: error: man could not show the page"));
  EXPECT_THAT(failed.err, ::testing::HasSubstr("culprit-bisect.1"));
  EXPECT_EQ(std::ranges::count(failed.err, '\n'), 2) << "man's line and culprit's";
  fake_man("echo \"$@\"\n");
  const auto shown = testing::run_culprit({"help", "help"}, k_source, path);
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_THAT(shown.out, ::testing::StartsWith("-l "));
  EXPECT_THAT(shown.out, ::testing::HasSubstr("culprit.1")) << "culprit help is in culprit(1)";
  std::filesystem::remove(bin / "man");
  const auto missing = testing::run_culprit({"help"}, k_source, {{"PATH", bin.path().string()}});
  EXPECT_EQ(missing.exit_code, 4) << missing.err;
  EXPECT_THAT(missing.err, ::testing::HasSubstr("cannot start man"));
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
