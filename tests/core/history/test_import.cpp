#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/history/import.hpp"
#include "core/history/series.hpp"
#include "tests/support/source_tree.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit::history {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

const std::filesystem::path k_fixtures =
    culprit::testing::source_dir() / "tests" / "fixtures" / "parsers";

struct Importer {
  TempDir dir{"culprit-import"};
  store::Store store = store::Store::open_in(dir.path()).value();
  Ledger ledger = Ledger::open_in(dir.path()).value();

  Result<ImportOutcome> import(const std::filesystem::path& file, const std::string& commit,
                               parsers::OutputFormat format = parsers::OutputFormat::auto_detect) {
    ImportRequest request;
    request.file = file;
    request.commit = commit;
    request.commit_time = 100;
    request.parse.format = format;
    request.host = {"ci-runner", R"({"hostname":"ci-runner"})", store::now(), store::now()};
    return import_results(store, ledger, request);
  }

  std::filesystem::path write(const std::string& name, const std::string& text) {
    const auto path = dir.path() / name;
    std::ofstream(path) << text;
    return path;
  }
};

TEST(Import, AGoogleBenchmarkFileIsOneRunOfThePseudoArtifact) {
  Importer importer;
  auto outcome = importer.import(k_fixtures / "gbench" / "repetitions.json", "abc123");
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_FALSE(outcome->already_imported);
  EXPECT_EQ(outcome->format, parsers::OutputFormat::gbench);
  EXPECT_GT(outcome->cases, 0U);

  const store::MeasurementKey key{"import:abc123", std::string(k_import_recipe), "ci-runner"};
  EXPECT_EQ(importer.store.count_runs(key)->counted, 1);
  const auto record = importer.store.artifact_record("import:abc123").value();
  ASSERT_EQ(record.runs.size(), 1U);
  EXPECT_EQ(record.runs[0].commit_id, "abc123");
  EXPECT_THAT(record.runs[0].message, HasSubstr("repetitions.json"));
  const auto tracked = importer.ledger.tracked().value();
  ASSERT_EQ(tracked.size(), 1U);
  EXPECT_EQ(tracked[0].source, "import");
  EXPECT_EQ(tracked[0].file, "repetitions.json");
  EXPECT_EQ(tracked[0].host_id, "ci-runner");

  // The same file again adds nothing; another file is another run.
  auto again = importer.import(k_fixtures / "gbench" / "repetitions.json", "abc123");
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->already_imported);
  EXPECT_EQ(importer.store.count_runs(key)->counted, 1);
  ASSERT_TRUE(importer.import(k_fixtures / "gbench" / "single.json", "abc123"));
  EXPECT_EQ(importer.store.count_runs(key)->counted, 2);
}

TEST(Import, CulpritJsonLinesAndNvbenchAreTaken) {
  Importer importer;
  auto lines = importer.import(k_fixtures / "culprit" / "run.jsonl", "c1");
  ASSERT_TRUE(lines) << lines.error().message;
  EXPECT_EQ(lines->format, parsers::OutputFormat::culprit);
  auto nvbench = importer.import(k_fixtures / "nvbench" / "axes_ref.json", "c2");
  ASSERT_TRUE(nvbench) << nvbench.error().message;
  EXPECT_EQ(nvbench->format, parsers::OutputFormat::nvbench);
  EXPECT_EQ(importer.ledger.tracked()->size(), 2U);
}

TEST(Import, AnUnknownFormatIsAUsageErrorThatSaysWhatIsTaken) {
  Importer importer;
  const auto csv = importer.write("results.csv", "case,time\nk,1.0\n");
  const auto outcome = importer.import(csv, "c1");
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, ExitCode::usage);
  EXPECT_THAT(outcome.error().message, HasSubstr("not Google Benchmark JSON"));
  const auto forced = importer.import(csv, "c1", parsers::OutputFormat::csv);
  ASSERT_FALSE(forced);
  EXPECT_EQ(forced.error().code, ExitCode::usage);
  const auto missing = importer.import(importer.dir.path() / "nope.json", "c1");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ExitCode::usage);
  EXPECT_TRUE(importer.ledger.tracked()->empty());
}

TEST(Import, AFileWithoutSamplesIsAUsageError) {
  Importer importer;
  const auto empty = importer.write("empty.json", R"({"context": {}, "benchmarks": []})");
  const auto outcome = importer.import(empty, "c1", parsers::OutputFormat::gbench);
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, ExitCode::usage);
}

} // namespace
} // namespace culprit::history
