// culprit help [TOPIC]: shows a page of the manual (man/), git's way. A command's name shows
// culprit-COMMAND(1); "toml" and "evidence" the file formats (5); "statistics", "harness",
// "roofline" and "cluster" the guides (7); nothing the overview, culprit(1).
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
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

extern char** environ; // NOLINT(readability-redundant-declaration): POSIX leaves it undeclared

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
    return show(file->lexically_normal().string());
  }

private:
  // man(1) pages the text on a terminal and prints it plainly elsewhere, as git help does. Its
  // exit status is not culprit's (3, a pager that failed, means inconclusive here): a page shown
  // is 0, a man that cannot show it is an infrastructure error that says where the page is.
  // Meanwhile Ctrl-C and Ctrl-\ are the pager's to handle, as system(3) leaves them.
  static int show(const std::string& path) {
    std::array<const char*, 4> argv{"man", "-l", path.c_str(), nullptr};
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGQUIT);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
    struct sigaction ignore{};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    struct sigaction saved_int{};
    struct sigaction saved_quit{};
    sigaction(SIGINT, &ignore, &saved_int);
    sigaction(SIGQUIT, &ignore, &saved_quit);
    pid_t child = 0;
    const int spawned = posix_spawnp(&child, "man", nullptr, &attributes,
                                     const_cast<char* const*>(argv.data()), environ);
    posix_spawnattr_destroy(&attributes);
    int status = 0;
    if (spawned == 0)
      while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
      }
    sigaction(SIGINT, &saved_int, nullptr);
    sigaction(SIGQUIT, &saved_quit, nullptr);
    if (spawned != 0) {
      print_error(fmt::format("cannot start man ({}); install man-db, or read {}",
                              std::strerror(spawned), terminal_safe(path)));
      return static_cast<int>(ExitCode::infrastructure);
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
      return static_cast<int>(ExitCode::success);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGINT)
      return static_cast<int>(ExitCode::interrupted);
    const auto how = WIFEXITED(status) ? fmt::format("exited with status {}", WEXITSTATUS(status))
                                       : fmt::format("was ended by signal {}", WTERMSIG(status));
    print_error(fmt::format("man could not show the page ({}; check MANPAGER and PAGER); read "
                            "it with 'man -l {}'",
                            how, terminal_safe(path)));
    return static_cast<int>(ExitCode::infrastructure);
  }

  [[nodiscard]] std::optional<Page> page_of(const std::string& topic) const {
    // `culprit help` is told of in the overview, as every command is listed there.
    if (topic.empty() || topic == "culprit" || topic == "help")
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
