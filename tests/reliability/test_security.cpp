// Paths and names that come from a repository cannot make culprit read or write outside its slot
// and its cache, and revision names never reach a shell unquoted: committed symlinks pointing out
// of the tree (one at /etc), artifact globs through them, a directory swapped for a symlink
// between revisions, .gitmodules names with '..', and branches named like shell commands.

#include <fstream>

#include <fmt/format.h>

#include <gmock/gmock.h>

#include "tests/reliability/reliability_support.hpp"

namespace culprit::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr std::string_view k_secret = "TOP-SECRET-0c1f9";

class Security : public ::testing::Test {
protected:
  void SetUp() override {
    std::filesystem::create_directories(outside());
    std::ofstream(outside() / "secret.txt") << k_secret << "\n";
    repo.write("value", "1\n");
    repo.write("bench.sh", k_step_bench_script);
  }
  ProcessOutput culprit_cli(std::vector<std::string> args) {
    args.insert(args.begin(), {"--cache-dir", cache().string()});
    return run_culprit(args, repo.dir());
  }
  void write_recipe(std::string_view build, std::string_view artifacts) {
    repo.write("culprit.toml",
               fmt::format("[build]\ncommand = \"{}\"\nartifacts = [{}]\n"
                           "[run]\ncommand = \"sh {{build}}/bench.sh {{build}}/value\"\n",
                           build, artifacts));
  }
  [[nodiscard]] std::filesystem::path cache() const { return temp / "cache"; }
  [[nodiscard]] std::filesystem::path outside() const { return temp / "outside"; }

  // Whether any regular file under `dir` holds the secret.
  static bool holds_secret(const std::filesystem::path& dir) {
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (!it->is_regular_file() || it->is_symlink())
        continue;
      std::ifstream in(it->path(), std::ios::binary);
      const std::string text((std::istreambuf_iterator<char>(in)), {});
      if (text.find(k_secret) != std::string::npos)
        return true;
    }
    return false;
  }

  TempDir temp{"culprit-security"};
  ScratchRepo repo{temp / "project"};
};

TEST_F(Security, AnArtifactPathThroughACommittedSymlinkIsRefused) {
  repo.symlink(outside().string(), "out");
  write_recipe("true", "\"{src}/out/secret.txt\"");
  repo.commit("an artifact path through a link that points out of the tree");
  const auto result = culprit_cli({"build", "HEAD"});
  EXPECT_EQ(result.exit_code, 4) << result.out << result.err;
  EXPECT_THAT(result.out + result.err, HasSubstr("outside"));
  EXPECT_FALSE(holds_secret(cache()));
}

TEST_F(Security, AnArtifactPathThroughASymlinkTheBuildMadeIsRefused) {
  write_recipe("ln -s " + outside().string() + " {build}/out", "\"out/secret.txt\"");
  repo.commit("the build links a directory out of the tree");
  const auto result = culprit_cli({"build", "HEAD"});
  EXPECT_EQ(result.exit_code, 4) << result.out << result.err;
  EXPECT_FALSE(holds_secret(cache()));
}

TEST_F(Security, ACommittedSymlinkToEtcStaysALinkAndIsNeverFollowed) {
  repo.symlink("/etc", "etc");
  repo.symlink("/etc/passwd", "passwd");
  write_recipe("cp -R {src}/. {build}/", "");
  repo.commit("links to /etc");
  const auto result = culprit_cli({"build", "HEAD"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::ifstream passwd("/etc/passwd");
  std::string first_line;
  std::getline(passwd, first_line);
  for (const auto& entry : std::filesystem::recursive_directory_iterator(cache())) {
    if (entry.is_symlink() || !entry.is_regular_file())
      continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    EXPECT_EQ(text.find(first_line), std::string::npos) << entry.path() << " holds /etc/passwd";
  }
  // A glob through the link is refused too.
  write_recipe("true", "\"{src}/etc/passwd\"");
  repo.commit("an artifact in /etc");
  const auto through = culprit_cli({"build", "HEAD"});
  EXPECT_EQ(through.exit_code, 4) << through.out << through.err;
}

TEST_F(Security, ADirectorySwappedForALinkOutIsNeverWrittenThrough) {
  write_recipe("cp {src}/value {build}/", "");
  repo.symlink(outside().string(), "d");
  const auto linked = repo.commit("d is a link out of the tree");
  repo.remove("d");
  repo.write("d/planted.txt", "planted\n");
  const auto planted = repo.commit("d is a directory with a file");
  repo.remove("d");
  repo.symlink(outside().string(), "d");
  const auto relinked = repo.commit("d is a link again");
  const auto result = culprit_cli({"build", linked, planted, relinked, planted});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_FALSE(std::filesystem::exists(outside() / "planted.txt"));
  EXPECT_TRUE(std::filesystem::exists(outside() / "secret.txt"));
}

// A gitlink at `sub` whose .gitmodules entry is `name` with `path`.
std::string commit_submodule(ScratchRepo& repo, const std::string& commit, std::string_view name,
                             std::string_view path) {
  repo.write(".gitmodules",
             fmt::format("[submodule \"{}\"]\n\tpath = {}\n\turl = ./nowhere\n", name, path));
  repo.git({"add", ".gitmodules", "culprit.toml", "value", "bench.sh"});
  repo.git({"update-index", "--add", "--cacheinfo", "160000," + commit + ",sub"});
  repo.git({"commit", "-q", "-m", "a submodule"});
  return repo.git({"rev-parse", "HEAD"});
}

TEST_F(Security, ASubmoduleNameWithDotDotCannotReachARepositoryOutside) {
  // ../../../evil leads from .git/modules/ (there once any submodule was initialized) to a
  // repository beside the project.
  std::filesystem::create_directories(repo.dir() / ".git" / "modules");
  ScratchRepo evil(temp / "evil-source");
  evil.write("secret.txt", std::string(k_secret) + "\n");
  const auto evil_commit = evil.commit("secret");
  evil.git({"clone", "-q", "--bare", ".", (temp / "evil").string()});
  write_recipe("cp -R {src}/. {build}/", "");
  commit_submodule(repo, evil_commit, "../../../evil", "sub");
  const auto result = culprit_cli({"build", "HEAD"});
  EXPECT_NE(result.exit_code, 0) << result.out;
  EXPECT_THAT(result.out + result.err, HasSubstr("../../../evil"));
  EXPECT_FALSE(holds_secret(cache()));
}

TEST_F(Security, ASubmodulePathWithDotDotWritesNothingOutside) {
  write_recipe("cp -R {src}/. {build}/", "");
  commit_submodule(repo, std::string(40, '1'), "x", "../../x");
  const auto result = culprit_cli({"build", "HEAD"});
  EXPECT_NE(result.exit_code, 0) << result.out;
  EXPECT_THAT(result.out + result.err, HasSubstr("submodule"));
  EXPECT_FALSE(std::filesystem::exists(temp / "x"));
  EXPECT_FALSE(std::filesystem::exists(temp.path().parent_path() / "x"));
}

TEST_F(Security, ASubmoduleFileCannotIncludeAFileOutside) {
  // git never follows include.path in .gitmodules; a config reader that did would open any file
  // a commit names. Here the included file would rename the submodule at sub.
  std::ofstream(outside() / "included.cfg") << "[submodule \"viaInclude\"]\n\tpath = sub\n";
  write_recipe("cp -R {src}/. {build}/", "");
  repo.write(".gitmodules",
             "[submodule \"sub\"]\n\tpath = sub\n\turl = ./nowhere\n[include]\n\tpath = " +
                 (outside() / "included.cfg").string() + "\n");
  repo.git({"add", ".gitmodules", "culprit.toml", "value", "bench.sh"});
  repo.git({"update-index", "--add", "--cacheinfo", "160000," + std::string(40, '2') + ",sub"});
  repo.git({"commit", "-q", "-m", "a submodule file that includes another"});
  const auto result = culprit_cli({"build", "HEAD"});
  EXPECT_NE(result.exit_code, 0) << result.out; // the submodule is not in the module store
  EXPECT_THAT(result.out + result.err, Not(HasSubstr("viaInclude")));
}

// The artifact directory that `culprit build` printed last (its line's last word).
std::filesystem::path artifact_dir_of(const std::string& out) {
  auto line = out.substr(0, out.find_last_not_of('\n') + 1);
  line = line.substr(line.find_last_of('\n') + 1);
  return line.substr(line.find_last_of(' ') + 1);
}

std::string contents_of(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST_F(Security, ASubmoduleUpdateCommandIsNeitherRefusedNorRun) {
  // git accepts `update = !command` in .gitmodules, and runs it only for `git submodule update`;
  // culprit checks submodules out itself, from the module store, and never runs it.
  ScratchRepo library(temp / "library");
  library.write("lib.txt", "the library\n");
  library.commit("lib");
  write_recipe("cp -R {src}/. {build}/", "");
  repo.git({"submodule", "add", "-q", (temp / "library").string(), "sub"});
  const auto ran = temp / "the-update-command-ran";
  repo.git({"config", "-f", ".gitmodules", "submodule.sub.update", "!touch " + ran.string()});
  repo.commit("a submodule with an update command");
  const auto result = culprit_cli({"build", "HEAD"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(contents_of(artifact_dir_of(result.out) / "sub" / "lib.txt"), "the library\n");
  EXPECT_FALSE(std::filesystem::exists(ran));
}

TEST_F(Security, ABuildThatRunsGitSeesItsOwnCommitAndLeavesTheUsersIndexAlone) {
  // The cache inside the working tree, ignored, as `--cache-dir .cache` makes it; a build that
  // asks git for its version and its status, as CMake projects do.
  repo.write(".gitignore", ".cache/\n");
  write_recipe("git rev-parse HEAD > {build}/head && git status --porcelain > {build}/status && "
               "cp {src}/bench.sh {src}/value {build}/",
               "");
  const auto first = repo.commit("first");
  repo.write("value", "2\n");
  repo.commit("second");
  repo.write("value", "uncommitted\n"); // a dirty tree: `git status` would refresh the index
  const auto git_dir = repo.dir() / ".git";
  const auto index_before = contents_of(git_dir / "index");
  const auto before = snapshot(git_dir);
  // Also with a GIT_DIR and GIT_WORK_TREE in the environment that point at the user's checkout.
  for (const auto& env :
       {std::map<std::string, std::string>{},
        std::map<std::string, std::string>{{"GIT_DIR", git_dir.string()},
                                           {"GIT_WORK_TREE", repo.dir().string()}}}) {
    SCOPED_TRACE(env.empty() ? "no GIT_DIR" : "GIT_DIR set");
    const auto result =
        run_culprit({"--cache-dir", ".cache", "build", "--rebuild", first}, repo.dir(), env);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto built = artifact_dir_of(result.out);
    EXPECT_EQ(contents_of(built / "head"), first + "\n");
    EXPECT_EQ(contents_of(built / "status"), "") << "the slot's .git answers for the commit";
    EXPECT_EQ(contents_of(git_dir / "index"), index_before);
    const auto after = snapshot(git_dir);
    EXPECT_TRUE(before == after) << changed_paths(before, after);
  }
}

// Branch names that are shell commands; git accepts each of them.
const std::vector<std::string> k_hostile_revisions = {
    "$(touch${IFS}pwned1)", ";touch${IFS}pwned2", "`touch${IFS}pwned3`", "x'$(touch${IFS}pwned4)'",
    "x\"$(touch${IFS}pwned5)\""};

bool pwned_anywhere(const std::filesystem::path& dir) {
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
    if (it->path().filename().string().starts_with("pwned"))
      return true;
  return false;
}

TEST_F(Security, RevisionNamesNeverReachTheShellUnquoted) {
  // {rev} bare, in double quotes and in single quotes, as recipes write it.
  write_recipe("echo {rev} > {build}/bare; echo \\\"{rev}\\\" > {build}/double; "
               "echo '{rev}' > {build}/single; cp {src}/value {build}/",
               "");
  repo.commit("a recipe that records the revision name");
  for (const auto& name : k_hostile_revisions)
    repo.git({"branch", name});
  for (const auto& name : k_hostile_revisions) {
    SCOPED_TRACE(name);
    // Every branch names one commit: --rebuild, so that each name runs the build command.
    const auto result = culprit_cli({"build", "--rebuild", name});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const std::filesystem::path artifacts = result.out.substr(
        result.out.rfind(' ') + 1, result.out.find_last_not_of('\n') - result.out.rfind(' '));
    for (const char* file : {"bare", "double", "single"}) {
      std::ifstream in(artifacts / file);
      std::string line;
      std::getline(in, line);
      EXPECT_EQ(line, name) << file;
    }
  }
  EXPECT_FALSE(pwned_anywhere(temp.path()));
}

TEST_F(Security, HostileRevisionNamesAsTheEndsOfABisection) {
  repo.write("culprit.toml", k_step_recipe);
  repo.commit("good");
  repo.git({"branch", k_hostile_revisions[0]});
  repo.write("value", "1.5\n");
  repo.commit("slower");
  repo.git({"branch", k_hostile_revisions[1]});
  const auto result =
      culprit_cli({"bisect", "--good", k_hostile_revisions[0], "--bad", k_hostile_revisions[1],
                   "--run", "echo {rev} >/dev/null; sh {build}/bench.sh {build}/value"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_FALSE(pwned_anywhere(temp.path()));
}

// Bytes that would drive a terminal: ESC sequences (clear the screen, set the title, recolour),
// BEL, NUL, a C1 control, a bidi override.
bool drives_a_terminal(std::string_view text) {
  return text.find_first_of(std::string_view("\x1b\x07\0", 3)) != std::string_view::npos ||
         text.find("\xc2\x9b") != std::string_view::npos ||
         text.find("\xe2\x80\xae") != std::string_view::npos;
}

TEST_F(Security, TextFromCommitsAndBenchmarksNeverDrivesTheTerminal) {
  // A case name with an escape sequence and a NUL, a culprit whose subject sets the window title
  // and rings the bell, an author with a bidi override, a revision and a host name with escapes.
  const auto bench = temp / "hostile-bench.sh";
  std::ofstream(bench)
      << R"(sh "$(dirname "$1")/bench.sh" "$1" | sed 's/"kernel"/"k\\u001b[2J\\u0000\\u009b1m"/')"
      << "\n";
  repo.write("culprit.toml", k_step_recipe);
  const auto good = repo.commit("good");
  repo.write("value", "15\n");
  const auto bad = repo.commit("slower\x1b]0;owned\x07\x1b[31m red", "Eve \xe2\x80\xae evil");
  const std::string run = "sh " + bench.string() + " {build}/value";

  std::vector<ProcessOutput> outputs;
  outputs.push_back(culprit_cli({"run", "HEAD", "--run", run}));
  outputs.push_back(culprit_cli({"compare", good, bad, "--run", run}));
  outputs.push_back(culprit_cli({"bisect", "--good", good, "--bad", bad, "--run", run}));
  outputs.push_back(culprit_cli({"run", "\x1b[2Jmain"}));
  const auto results = temp / "results.json";
  std::ofstream(results)
      << "{\"type\":\"sample\",\"case\":\"k\",\"metric\":\"time\",\"unit\":\"ms\","
         "\"value\":1}\n";
  outputs.push_back(culprit_cli(
      {"import", results.string(), "--commit", "HEAD", "--host", "ci\x1b]0;owned\x07"}));
  for (const auto& output : outputs) {
    EXPECT_FALSE(drives_a_terminal(output.out)) << output.out;
    EXPECT_FALSE(drives_a_terminal(output.err)) << output.err;
  }
  EXPECT_EQ(outputs[2].exit_code, 0) << outputs[2].err;
  EXPECT_THAT(outputs[2].out, HasSubstr("slower\\x1b]0;owned\\x07\\x1b[31m red"));
  // The NUL is stored as U+FFFD, as on a PostgreSQL store; the rest is escaped where it is shown.
  EXPECT_THAT(outputs[0].out, HasSubstr("k\\x1b[2J\xEF\xBF\xBD\\u{009b}1m"));
  EXPECT_THAT(outputs[3].err, HasSubstr("\\x1b[2Jmain"));
}

} // namespace
} // namespace culprit::testing
