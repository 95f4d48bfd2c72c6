// culprit init: write a commented culprit.toml for the repository in hand.

#include <fmt/ranges.h>

#include "cli/command.hpp"
#include "cli/context.hpp"
#include "cli/output.hpp"
#include "core/recipe/init_recipe.hpp"
#include "core/util/fs.hpp"

namespace culprit::cli {
namespace {

class InitCommand final : public Command {
public:
  void add_flags(CLI::App& sub) override {
    sub.add_flag("--force", m_force, "overwrite an existing recipe file");
    sub.add_flag("--stdout", m_stdout, "print the recipe instead of writing it");
  }

  int run(const GlobalOptions& global) override {
    auto repo = open_repository(global);
    if (!repo)
      return print_failure(repo.error());
    const auto path = recipe_path(global, *repo);
    if (path.empty() && !m_stdout)
      return print_failure(Error{ExitCode::usage,
                                 "a bare repository has no working tree to put "
                                 "culprit.toml in; pass --config FILE or --stdout"});
    const auto guess = recipe::guess_project(repo->workdir());
    const auto text = recipe::initial_recipe(guess);
    if (m_stdout) {
      fmt::print("{}", text);
      return 0;
    }
    std::error_code ec;
    if (std::filesystem::exists(path, ec) && !m_force)
      return print_failure(
          Error{ExitCode::usage,
                fmt::format("{} exists already; pass --force to replace it", path.string())});
    if (auto written = write_file_atomic(path, text); !written)
      return print_failure(written.error());
    const auto data_note =
        guess.data_dirs.empty()
            ? std::string()
            : fmt::format("the sources read {}/ by relative paths: {}\n",
                          fmt::join(guess.data_dirs, "/, "),
                          text.find("\ncwd = \"artifacts\"") != std::string::npos
                              ? "the recipe keeps it beside the program and starts runs there"
                              : "see [build] artifacts and [run] cwd in the recipe to keep it "
                                "beside the program");
    if (!guess.targets.empty()) {
      const auto& target = guess.targets.front();
      fmt::print("wrote {} ({} project; builds and runs {}, a {} program): try 'culprit run "
                 "HEAD'\n",
                 path.string(), guess.kind, target.name,
                 target.library == "gbench" ? "Google Benchmark" : "nvbench");
      fmt::print("{}", data_note);
      return 0;
    }
    fmt::print("wrote {} ({} project, {} output): edit [run] command, then try 'culprit build "
               "HEAD'\n",
               path.string(), guess.kind, guess.format);
    fmt::print("{}", data_note);
    return 0;
  }

private:
  bool m_force = false;
  bool m_stdout = false;
};

} // namespace

std::unique_ptr<Command> make_init_command() {
  return std::make_unique<InitCommand>();
}

} // namespace culprit::cli
