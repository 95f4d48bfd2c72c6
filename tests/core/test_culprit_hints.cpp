#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/evidence/culprit_hints.hpp"
#include "core/exec/local_executor.hpp"
#include "core/util/fs.hpp"
#include "tests/support/evidence_samples.hpp"
#include "tests/support/git_repo.hpp"
#include "tests/support/process.hpp"
#include "tests/support/source_tree.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const std::filesystem::path k_ptxas =
    culprit::testing::source_dir() / "tests" / "fixtures" / "ptxas";

// Answers `nm` with canned output; counts the calls.
class ScriptedNm final : public exec::Executor {
public:
  std::map<std::string, Result<exec::ExecResult>> answers; // by file name
  int calls = 0;
  Result<exec::ExecResult> run(const exec::ExecRequest& request) override {
    ++calls;
    const auto& argv = std::get<std::vector<std::string>>(request.command);
    EXPECT_EQ(argv.front(), "nm");
    EXPECT_GT(request.timeout.count(), 0);
    const auto it = answers.find(std::filesystem::path(argv.back()).filename().string());
    if (it == answers.end())
      return fail(ExitCode::infrastructure, "nm: not found");
    return it->second;
  }
  [[nodiscard]] std::string_view name() const override { return "scripted"; }
};

exec::ExecResult nm_output(std::string out) {
  exec::ExecResult r;
  r.out = std::move(out);
  return r;
}

class CulpritHints : public ::testing::Test {
protected:
  void SetUp() override {
    scratch.write("src/kernel.c", "int f(int x) {\n  return x + 1;\n}\n");
    scratch.write("src/old_name.c", "int g;\n");
    scratch.write("docs/readme.md", "hello\n");
    scratch.write(".github/CODEOWNERS", "*.c @c-team\n/docs/ @docs\n");
    parent = scratch.commit("parent");
    scratch.write("src/kernel.c", "int f(int x) {\n  int y = x * 2;\n  y += 3;\n  return y;\n}\n");
    scratch.remove("src/old_name.c");
    scratch.write("src/new_name.c", "int g;\n");
    scratch.write("data.bin", std::string("\0\1\2\3binary", 10));
    culprit = scratch.commit("kernel: compute y twice", "Grace Hopper");
    auto opened = git::Repository::open(scratch.dir());
    ASSERT_TRUE(opened) << opened.error().message;
    repo.emplace(std::move(*opened));
  }

  // A build record whose artifacts are `files` (name -> contents) and whose log is `log`.
  build::BuildRecord build(const std::string& key, const std::map<std::string, std::string>& files,
                           const std::filesystem::path& log) {
    const auto dir = temp / ("build-" + key);
    std::filesystem::create_directories(dir);
    for (const auto& [name, contents] : files)
      std::ofstream(dir / name, std::ios::binary) << contents;
    auto id = cache.store_artifacts({dir, dir, {}});
    EXPECT_TRUE(id) << id.error().message;
    build::BuildRecord record;
    record.key = key;
    record.ok = true;
    record.artifact_id = *id;
    record.log = cache.log_path(key);
    std::filesystem::create_directories(record.log.parent_path());
    std::filesystem::copy_file(log, record.log, std::filesystem::copy_options::overwrite_existing);
    EXPECT_TRUE(cache.record(record));
    return record;
  }

  // The cache and the two build keys of build("k-parent", ...) and build("k-culprit", ...).
  evidence::HintSources sources(exec::Executor* executor) {
    evidence::HintSources sources;
    sources.cache = &cache;
    sources.parent_build_key = "k-parent";
    sources.culprit_build_key = "k-culprit";
    sources.executor = executor;
    return sources;
  }

  testing::TempDir temp{"culprit-hints"};
  testing::ScratchRepo scratch{temp / "repo"};
  std::optional<git::Repository> repo;
  build::BuildCache cache{temp / "cache"};
  std::string parent, culprit;
};

TEST_F(CulpritHints, DiffstatCountsLinesPerFileWithRenamesAndBinaries) {
  auto stat = evidence::diffstat(*repo, culprit);
  ASSERT_TRUE(stat) << stat.error().message;
  EXPECT_EQ(stat->files, 3);
  EXPECT_EQ(stat->insertions, 3);
  EXPECT_EQ(stat->deletions, 1);
  ASSERT_EQ(stat->by_file.size(), 3U);
  EXPECT_EQ(stat->by_file[0].path, "data.bin");
  EXPECT_TRUE(stat->by_file[0].binary);
  EXPECT_EQ(stat->by_file[1].path, "src/kernel.c");
  EXPECT_EQ(stat->by_file[1].insertions, 3);
  EXPECT_EQ(stat->by_file[1].deletions, 1);
  EXPECT_EQ(stat->by_file[2].kind, "renamed");
  EXPECT_EQ(stat->by_file[2].old_path, "src/old_name.c");
  auto root = evidence::diffstat(*repo, parent, 2);
  ASSERT_TRUE(root);
  EXPECT_EQ(root->files, 4);
  EXPECT_EQ(root->by_file.size(), 2U); // kept to the two largest
}

TEST_F(CulpritHints, ComparesPtxasTablesArtifactSizesAndSymbols) {
  const auto before = build("k-parent",
                            {{"lib.o", "\x7f"
                                       "ELF old"},
                             {"gone.txt", "x"}},
                            k_ptxas / "default.log");
  const auto after = build("k-culprit",
                           {{"lib.o", "\x7f"
                                      "ELF new!"},
                            {"new.txt", "yy"}},
                           k_ptxas / "maxrreg32.log");
  // Both artifacts are called lib.o: answer by the order of the calls (the parent's first).
  class Sequenced final : public exec::Executor {
  public:
    int call = 0;
    Result<exec::ExecResult> run(const exec::ExecRequest& /*request*/) override {
      return nm_output(call++ == 0 ? "0000 0010 T f(int)\n0010 0004 t helper\n0020 0004 t helper\n"
                                     "0030 0008 D gone_table\nnot a symbol line\n"
                                   : "0000 0040 T f(int)\n0010 000c t helper\n"
                                     "0040 0100 B fresh_buffer\n");
    }
    [[nodiscard]] std::string_view name() const override { return "sequenced"; }
  } sequenced;
  auto hints = evidence::culprit_hints(*repo, culprit, sources(&sequenced));
  ASSERT_TRUE(hints) << hints.error().message;
  EXPECT_TRUE(hints->diffstat);
  EXPECT_THAT(hints->notes, IsEmpty());

  ASSERT_FALSE(hints->kernels.empty());
  const auto changed =
      std::ranges::count_if(hints->kernels, [](const evidence::EvidenceKernelChange& k) {
        return k.change == "changed";
      });
  EXPECT_GT(changed, 0);
  for (const auto& k : hints->kernels)
    if (k.change == "changed") {
      ASSERT_TRUE(k.parent && k.culprit);
      EXPECT_NE(k.parent->registers, k.culprit->registers);
      EXPECT_THAT(k.description, HasSubstr("registers"));
    }

  ASSERT_TRUE(hints->artifacts);
  EXPECT_FALSE(hints->artifacts->identical);
  EXPECT_EQ(hints->artifacts->parent_bytes, 8 + 1);
  EXPECT_EQ(hints->artifacts->culprit_bytes, 9 + 2);
  EXPECT_THAT(hints->artifacts->changed,
              Contains(Field(&evidence::EvidenceSizeChange::name, "new.txt")));
  EXPECT_THAT(hints->artifacts->changed,
              Contains(Field(&evidence::EvidenceSizeChange::name, "gone.txt")));

  // Sorted by the size of the change; duplicates summed; a removed symbol has no culprit size.
  ASSERT_EQ(hints->symbols.size(), 4U);
  EXPECT_EQ(hints->symbols[0].name, "fresh_buffer");
  EXPECT_FALSE(hints->symbols[0].parent_bytes);
  EXPECT_EQ(hints->symbols[1].name, "f(int)");
  EXPECT_EQ(*hints->symbols[1].parent_bytes, 0x10);
  EXPECT_EQ(*hints->symbols[1].culprit_bytes, 0x40);
  EXPECT_EQ(hints->symbols[2].name, "gone_table");
  EXPECT_FALSE(hints->symbols[2].culprit_bytes);
  EXPECT_EQ(hints->symbols[3].name, "helper");
  EXPECT_EQ(*hints->symbols[3].parent_bytes, 8);
  EXPECT_EQ(hints->symbols[3].artifact, "lib.o");
  EXPECT_NE(before.artifact_id, after.artifact_id);
}

TEST_F(CulpritHints, MissingNmOrBuildsAreSkippedQuietlyOrNoted) {
  build("k-parent",
        {{"lib.o", "\x7f"
                   "ELF old"}},
        k_ptxas / "default.log");
  build("k-culprit",
        {{"lib.o", "\x7f"
                   "ELF new"}},
        k_ptxas / "default.log");
  ScriptedNm absent; // every call fails as if nm were not installed
  auto hints = evidence::culprit_hints(*repo, culprit, sources(&absent));
  ASSERT_TRUE(hints) << hints.error().message;
  EXPECT_THAT(hints->symbols, IsEmpty());
  EXPECT_THAT(hints->notes, IsEmpty());
  EXPECT_EQ(absent.calls, 2);
  // The same ptxas report on both sides: every kernel unchanged.
  for (const auto& k : hints->kernels)
    EXPECT_EQ(k.change, "unchanged") << k.name;

  ScriptedNm interrupted;
  interrupted.answers["lib.o"] = fail(ExitCode::interrupted, "interrupted");
  auto stopped = evidence::culprit_hints(*repo, culprit, sources(&interrupted));
  ASSERT_FALSE(stopped);
  EXPECT_EQ(stopped.error().code, ExitCode::interrupted);

  auto evicted = sources(nullptr);
  evicted.parent_build_key = "k-evicted";
  auto partial = culprit_hints(*repo, culprit, evicted);
  ASSERT_TRUE(partial);
  EXPECT_THAT(partial->notes, ElementsAre("the parent's build is no longer in the build cache"));
  EXPECT_FALSE(partial->artifacts);
  EXPECT_THAT(partial->kernels, IsEmpty());
}

TEST_F(CulpritHints, ReadsRealSymbolSizesWithNm) {
  const auto probe =
      testing::run_process({"sh", "-c", "command -v cc && command -v nm"}, temp.path());
  if (probe.exit_code != 0)
    GTEST_SKIP() << "cc or nm is not installed (binutils, build-essential): symbol sizes untested";
  const auto compile = [&](const std::string& name, const std::string& source) {
    std::ofstream(temp / (name + ".c")) << source;
    const auto out = testing::run_process(
        {"cc", "-O0", "-c", (temp / (name + ".c")).string(), "-o", (temp / (name + ".o")).string()},
        temp.path());
    EXPECT_EQ(out.exit_code, 0) << out.err;
    return testing::run_process({"cat", (temp / (name + ".o")).string()}, temp.path()).out;
  };
  const auto small = compile("small", "int work(int x) { return x + 1; }\n");
  const auto large = compile("large", "int work(int x) { int s = 0; for (int i = 0; i < x; ++i) "
                                      "s += i * i ^ (s >> 3); return s + x * 7; }\n"
                                      "int table[64];\n");
  build("k-parent", {{"k.o", small}}, k_ptxas / "default.log");
  build("k-culprit", {{"k.o", large}}, k_ptxas / "default.log");
  exec::LocalExecutor local;
  auto hints = evidence::culprit_hints(*repo, culprit, sources(&local));
  ASSERT_TRUE(hints) << hints.error().message;
  EXPECT_THAT(hints->symbols, Contains(Field(&evidence::EvidenceSizeChange::name, "work")));
  EXPECT_THAT(hints->symbols, Contains(Field(&evidence::EvidenceSizeChange::name, "table")));
}

TEST_F(CulpritHints, DescribeCulpritsFillsCommitFactsOwnersAndHints) {
  evidence::Evidence e = testing::bisect_sample();
  e.bisect->culprits.resize(1);
  auto& c = e.bisect->culprits[0];
  c = evidence::EvidenceCulprit{};
  c.commit = culprit.substr(0, 10);
  c.cases = {{"sgemm", 1.05, {1.0, 1.1}, std::nullopt}};
  ASSERT_TRUE(evidence::describe_culprits(e, *repo, &cache, nullptr));
  EXPECT_EQ(c.commit, culprit);
  EXPECT_EQ(c.parent, parent);
  EXPECT_EQ(c.subject, "kernel: compute y twice");
  EXPECT_EQ(c.author, "Grace Hopper");
  EXPECT_FALSE(c.date.empty());
  EXPECT_THAT(c.files, ElementsAre("data.bin", "src/kernel.c", "src/new_name.c"));
  EXPECT_THAT(c.owners, ElementsAre("@c-team"));
  ASSERT_TRUE(c.hints && c.hints->diffstat);
  EXPECT_EQ(c.hints->diffstat->insertions, 3);
}

TEST(EvidenceHintsJson, RoundTripsAndStaysOptional) {
  const auto e = testing::bisect_sample();
  const auto json = to_json(e);
  EXPECT_TRUE(json["bisect"]["culprits"][0]["hints"]["kernels"].is_array());
  EXPECT_EQ(json["bisect"]["culprits"][0]["hints"]["kernels"][0]["culprit"]["registers"], 96);
  auto back = evidence::evidence_from_json(json);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(to_json(*back), json);

  auto without = json;
  without["bisect"]["culprits"][0].erase("hints");
  auto old = evidence::evidence_from_json(without);
  ASSERT_TRUE(old) << old.error().message;
  EXPECT_FALSE(old->bisect->culprits[0].hints);

  auto bad = json;
  bad["bisect"]["culprits"][0]["hints"]["kernels"][0].erase("change");
  EXPECT_THAT(evidence::evidence_from_json(bad).error().message,
              HasSubstr("bisect.culprits[0].hints.kernels[0].change"));
}

} // namespace
} // namespace culprit
