#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/exec/batch_files.hpp"
#include "core/util/fs.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

exec::BatchResult result_with(std::string out, int exit_code = 0) {
  exec::BatchResult batch;
  batch.started_micros = 1'700'000'000'000'000;
  batch.result.exit_code = exit_code;
  batch.result.out = std::move(out);
  batch.result.err = "warning\n";
  batch.result.wall = exec::Seconds(0.25);
  batch.result.user = exec::Seconds(0.2);
  batch.result.max_rss_kb = 4096;
  batch.result.notes = {"a note"};
  return batch;
}

void write_results(const std::filesystem::path& dir, const std::vector<exec::BatchResult>& results,
                   bool done = true, const std::string& tail = "") {
  exec::BatchNode node;
  node.node = "gpu07";
  node.job_id = "41";
  node.host_id = "h-gpu07";
  node.gpus = {"GPU-1234"};
  ASSERT_TRUE(write_file_atomic(dir / "node.json", to_json(node).dump()));
  std::ofstream out(dir / "results.jsonl", std::ios::binary);
  for (const auto& result : results)
    out << exec::result_line(result);
  out << tail;
  out.close();
  if (done) {
    ASSERT_TRUE(
        write_file_atomic(dir / "done.json", "{\"runs\": " + std::to_string(results.size()) + "}"));
  }
}

TEST(BatchFiles, RequestsRoundTripWithEveryField) {
  TempDir dir;
  exec::ExecRequest shell;
  shell.command = std::string("bench --fast | tee out");
  shell.cwd = "/scratch/1";
  shell.env = {{"CULPRIT_COMMIT", "abc"}, {"X", "y z"}};
  shell.timeout = exec::Seconds(2.5);
  shell.cpus = {2, 3};
  shell.output_limit = 1024;
  exec::ExecRequest argv;
  argv.command = std::vector<std::string>{"/bin/echo", "a b", ""};
  const std::vector<exec::ExecRequest> requests = {shell, argv};
  ASSERT_TRUE(exec::write_batch(dir.path(), requests));
  auto back = exec::read_batch(dir.path());
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->size(), 2U);
  EXPECT_EQ(std::get<std::string>((*back)[0].command), "bench --fast | tee out");
  EXPECT_EQ((*back)[0].cwd, "/scratch/1");
  EXPECT_EQ((*back)[0].env, shell.env);
  EXPECT_DOUBLE_EQ((*back)[0].timeout.count(), 2.5);
  EXPECT_EQ((*back)[0].cpus, (std::vector<int>{2, 3}));
  EXPECT_EQ((*back)[0].output_limit, 1024U);
  EXPECT_EQ(std::get<std::vector<std::string>>((*back)[1].command),
            (std::vector<std::string>{"/bin/echo", "a b", ""}));
}

TEST(BatchFiles, ResultsRoundTripAndInvalidUtf8BecomesAReplacementCharacter) {
  TempDir dir;
  write_results(dir.path(), {result_with("ok\n"), result_with("bad \xff byte\n", 3)});
  auto back = exec::read_batch_results(dir.path(), 2, true);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(back->complete);
  ASSERT_TRUE(back->node);
  EXPECT_EQ(back->node->node, "gpu07");
  EXPECT_EQ(back->node->gpus, (std::vector<std::string>{"GPU-1234"}));
  ASSERT_EQ(back->results.size(), 2U);
  EXPECT_EQ(back->results[0].result.out, "ok\n");
  EXPECT_EQ(back->results[0].started_micros, 1'700'000'000'000'000);
  EXPECT_DOUBLE_EQ(back->results[0].result.wall.count(), 0.25);
  EXPECT_EQ(back->results[0].result.max_rss_kb, 4096);
  EXPECT_EQ(back->results[1].result.exit_code, 3);
  EXPECT_EQ(back->results[1].result.out, "bad \xef\xbf\xbd byte\n");
}

TEST(BatchFiles, ACompleteReadRefusesMissingCutOrMiscountedResults) {
  {
    TempDir dir;
    auto back = exec::read_batch_results(dir.path(), 1, true);
    ASSERT_FALSE(back);
    EXPECT_EQ(back.error().code, ExitCode::infrastructure);
    EXPECT_THAT(back.error().message, HasSubstr("node.json"));
  }
  {
    TempDir dir;
    write_results(dir.path(), {result_with("x")}, false);
    auto back = exec::read_batch_results(dir.path(), 1, true);
    ASSERT_FALSE(back);
    EXPECT_THAT(back.error().message, HasSubstr("did not finish"));
  }
  {
    TempDir dir;
    write_results(dir.path(), {result_with("x")}, true, R"({"started": 1, "exit)");
    auto back = exec::read_batch_results(dir.path(), 2, true);
    ASSERT_FALSE(back);
    EXPECT_THAT(back.error().message, HasSubstr("cut line"));
  }
  {
    TempDir dir;
    write_results(dir.path(), {result_with("x")});
    auto back = exec::read_batch_results(dir.path(), 2, true);
    ASSERT_FALSE(back);
    EXPECT_THAT(back.error().message, HasSubstr("1 of the 2"));
  }
  {
    TempDir dir;
    write_results(dir.path(), {result_with("x")}, true, "{\"not\": \"a result\"}\n");
    auto back = exec::read_batch_results(dir.path(), 2, true);
    ASSERT_FALSE(back);
    EXPECT_THAT(back.error().message, HasSubstr("line 2"));
  }
}

TEST(BatchFiles, APartialReadKeepsTheWholeLinesOfAStoppedWorker) {
  TempDir dir;
  write_results(dir.path(), {result_with("one"), result_with("two")}, false,
                R"({"started": 1, "exit_co)");
  auto back = exec::read_batch_results(dir.path(), 5, false);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_FALSE(back->complete);
  ASSERT_EQ(back->results.size(), 2U);
  EXPECT_EQ(back->results[1].result.out, "two");
}

TEST(BatchFiles, ABatchFileOfAnotherKindIsRefused) {
  TempDir dir;
  ASSERT_TRUE(write_file_atomic(dir.path() / "batch.json", R"({"schema": "other/1"})"));
  auto back = exec::read_batch(dir.path());
  ASSERT_FALSE(back);
  EXPECT_THAT(back.error().message, HasSubstr("culprit.batch/1"));
}

} // namespace
} // namespace culprit
