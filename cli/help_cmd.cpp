// culprit help [TOPIC]: shows a page of the manual (man/), git's way. A command's name shows
// culprit-COMMAND(1); "toml" and "evidence" the file formats (5); "statistics", "harness",
// "roofline" and "cluster" the guides (7); nothing the overview, culprit(1).
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "core/util/error.hpp"

namespace culprit::cli {
namespace {

namespace fs = std::filesystem;

struct Guide {
  std::string_view topic; // what `culprit help` takes
  std::string_view name;  // the page's name, as `man` knows it
  char section;
};

const std::array k_guides = {
    Guide{"toml", "culprit.toml", '5'},
    Guide{"evidence", "culprit-evidence", '5'},
    Guide{"statistics", "culprit-statistics", '7'},
    Guide{"harness", "culprit-harness", '7'},
    Guide{"roofline", "culprit-roofline", '7'},
    Guide{"cluster", "culprit-cluster", '7'},
};

struct Page {
  std::string name;
  char section;
};

// The directories that may hold the pages: the installed tree beside the binary
// (PREFIX/bin/culprit and PREFIX/share/man/manN), then the source tree the binary was built from.
std::vector<fs::path> page_roots() {
  std::vector<fs::path> roots;
  std::error_code error;
  const auto self = fs::read_symlink("/proc/self/exe", error);
  if (!error)
    roots.push_back(self.parent_path() / CULPRIT_MAN_FROM_BINDIR);
  roots.emplace_back(CULPRIT_SOURCE_MAN_DIR);
  return roots;
}

std::optional<fs::path> find_page(const Page& page) {
  const auto file = fmt::format("{}.{}", page.name, page.section);
  for (const auto& root : page_roots()) {
    std::error_code error;
    for (const auto& candidate : {root / fmt::format("man{}", page.section) / file, root / file})
      if (fs::is_regular_file(candidate, error))
        return candidate;
  }
  return std::nullopt;
}

class HelpCommand final : public Command {
public:
  explicit HelpCommand(std::vector<std::string> commands) : m_commands(std::move(commands)) {}

  void add_flags(CLI::App& sub) override {
    sub.add_option("topic", m_topic,
                   "a command, or toml, evidence, statistics, harness, roofline or cluster");
    sub.add_flag("--path", m_path_only, "print where the page is instead of showing it");
  }

  int run(const GlobalOptions& /*global*/) override {
    const auto page = page_of(m_topic);
    if (!page) {
      print_error(fmt::format("no page for '{}'; topics: the commands ({}), {}",
                              terminal_safe(m_topic), fmt::join(m_commands, ", "),
                              topics_of_guides()));
      return static_cast<int>(ExitCode::usage);
    }
    const auto file = find_page(*page);
    if (!file) {
      print_error(fmt::format("the page {}({}) is not installed beside this culprit; '{} --help' "
                              "lists the options",
                              page->name, page->section,
                              m_topic.empty() ? "culprit" : "culprit " + m_topic));
      return static_cast<int>(ExitCode::infrastructure);
    }
    if (m_path_only) {
      print_to(stdout, "{}\n", file->lexically_normal().string());
      return 0;
    }
    // man(1) pages the text on a terminal and prints it plainly elsewhere, as git help does.
    const std::string path = file->lexically_normal().string();
    std::array<const char*, 4> argv{"man", "-l", path.c_str(), nullptr};
    ::execvp("man", const_cast<char* const*>(argv.data()));
    print_error(fmt::format("cannot start man ({}); install man-db, or read {}",
                            std::strerror(errno), path));
    return static_cast<int>(ExitCode::infrastructure);
  }

private:
  [[nodiscard]] std::optional<Page> page_of(const std::string& topic) const {
    if (topic.empty() || topic == "culprit")
      return Page{"culprit", '1'};
    for (const auto& command : m_commands)
      if (topic == command || topic == "culprit-" + command)
        return Page{"culprit-" + command, '1'};
    for (const auto& guide : k_guides)
      if (topic == guide.topic || topic == guide.name)
        return Page{std::string(guide.name), guide.section};
    return std::nullopt;
  }

  static std::string topics_of_guides() {
    std::vector<std::string_view> topics;
    topics.reserve(k_guides.size());
    for (const auto& guide : k_guides)
      topics.push_back(guide.topic);
    return fmt::format("{}", fmt::join(topics, ", "));
  }

  std::vector<std::string> m_commands;
  std::string m_topic;
  bool m_path_only = false;
};

} // namespace

std::unique_ptr<Command> make_help_command(std::vector<std::string> commands) {
  return std::make_unique<HelpCommand>(std::move(commands));
}

} // namespace culprit::cli
