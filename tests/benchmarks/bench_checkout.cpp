// Checkout and build-cache figures:
// - a warm slot of a 5,000-file repository where 10 files differ must rewrite only those 10 files
//   and take at most a tenth of a fresh checkout of the same tree;
// - a build-cache hit must cost under 50 ms of culprit's own time.
// Ratios are measured in one run; absolute times are printed for context only.

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>

#include <sys/stat.h>

#include "core/build/builder.hpp"
#include "core/build/workspace.hpp"
#include "core/exec/local_executor.hpp"
#include "tests/support/git_repo.hpp"
#include "tests/support/temp_dir.hpp"

using namespace culprit;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::map<std::string, std::pair<ino_t, long>> stamps(const std::filesystem::path& root) {
  std::map<std::string, std::pair<ino_t, long>> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    struct stat info = {};
    lstat(entry.path().c_str(), &info);
    out[entry.path().string()] = {info.st_ino,
                                  info.st_mtim.tv_nsec + info.st_mtim.tv_sec * 1000000000L};
  }
  return out;
}

} // namespace

int main() {
  testing::TempDir temp("culprit-bench-checkout");
  testing::ScratchRepo scratch(temp / "repo");
  constexpr int k_files = 5000;
  for (int i = 0; i < k_files; ++i)
    scratch.write("src/dir" + std::to_string(i % 50) + "/file" + std::to_string(i) + ".cpp",
                  "// file " + std::to_string(i) + "\nint f" + std::to_string(i) + "() { return " +
                      std::to_string(i) + "; }\n");
  const auto base = scratch.commit("5000 files");
  for (int i = 0; i < 10; ++i)
    scratch.write("src/dir" + std::to_string(i % 50) + "/file" + std::to_string(i) + ".cpp",
                  "// changed\n");
  const auto changed = scratch.commit("10 files differ");

  auto repo = git::Repository::open(scratch.dir()).value();
  const auto base_info = repo.commit_info(base).value();
  const auto changed_info = repo.commit_info(changed).value();

  // Fresh checkouts of the changed tree into new slots (best of 3).
  double fresh_ms = 1e18;
  for (int trial = 0; trial < 3; ++trial) {
    build::Workspace workspace(temp / ("fresh" + std::to_string(trial)));
    auto slot = workspace.acquire().value();
    const auto start = Clock::now();
    auto done = slot.checkout(repo, changed_info).value();
    fresh_ms = std::min(fresh_ms, ms_since(start));
    if (done.written != k_files)
      std::printf("unexpected: fresh checkout wrote %zu files\n", done.written);
  }

  // Warm: base checked out, then move to the changed tree (best of 5, alternating).
  build::Workspace workspace(temp / "warm");
  auto slot = workspace.acquire().value();
  slot.checkout(repo, base_info).value();
  double warm_ms = 1e18;
  std::size_t rewritten = 0;
  std::size_t written = 0;
  for (int trial = 0; trial < 5; ++trial) {
    const auto before = stamps(slot.source_dir());
    const auto start = Clock::now();
    written = slot.checkout(repo, changed_info).value().written;
    warm_ms = std::min(warm_ms, ms_since(start));
    const auto after = stamps(slot.source_dir());
    rewritten = 0;
    for (const auto& [path, stamp] : after)
      if (!before.contains(path) || before.at(path) != stamp)
        ++rewritten;
    slot.checkout(repo, base_info).value();
  }

  std::printf("checkout of a %d-file tree\n", k_files);
  std::printf("  fresh slot:            %8.1f ms\n", fresh_ms);
  std::printf("  warm slot, 10 differ:  %8.1f ms (%zu files rewritten on disk, %zu reported)\n",
              warm_ms, rewritten, written);
  std::printf("  warm / fresh:          %8.3f   (target: at most 0.100)  %s\n", warm_ms / fresh_ms,
              warm_ms / fresh_ms <= 0.1 && rewritten == 10 ? "ok" : "MISSED");

  // Build-cache hit: culprit's own time for a key that is already cached.
  exec::LocalExecutor executor;
  recipe::BuildRecipe recipe;
  recipe.command = "cp {src}/src/dir0/file0.cpp {build}/bench";
  recipe.artifacts = {"bench"};
  build::Builder builder(repo, recipe, temp / "cache", executor);
  builder.build(changed, "").value();
  double hit_ms = 1e18;
  for (int trial = 0; trial < 20; ++trial) {
    auto hit = builder.build(changed, "").value();
    hit_ms = std::min(hit_ms, hit.own_seconds * 1000);
  }
  std::printf("build-cache hit:         %8.2f ms of culprit's own time (target: under 50) %s\n",
              hit_ms, hit_ms < 50 ? "ok" : "MISSED");
  return 0;
}
