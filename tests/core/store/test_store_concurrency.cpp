// Several culprit processes writing one store at once: a writer waits for another rather than
// failing, and nothing is lost.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <sys/file.h>

#include <array>
#include <thread>

#include "core/store/sql.hpp"

#include "tests/core/store/store_fixture.hpp"

namespace culprit::store::testing {
namespace {

constexpr int k_processes = 3;
constexpr int k_runs_per_process = 150;

// Runs in a child: opens the store (possibly while another process creates it) and records runs.
int write_runs(const Location& where, int writer, int start_fd) {
  char go = 0;
  if (read(start_fd, &go, 1) != 1)
    return 10;
  auto store = Store::open_at(where);
  if (!store) {
    fmt::print(stderr, "writer {}: {}\n", writer, store.error().message);
    return 11;
  }
  const MeasurementKey key{"artifact", "recipe", fmt::format("host-{}", writer)};
  if (!store->record_host(make_host(key.host_id)))
    return 12;
  for (int i = 0; i < k_runs_per_process; ++i) {
    auto run = make_run(key, {static_cast<double>(i), static_cast<double>(i) + 0.5});
    run.session = fmt::format("writer-{}", writer);
    if (auto id = store->record_run(run); !id) {
      fmt::print(stderr, "writer {}: {}\n", writer, id.error().message);
      return 13;
    }
  }
  return 0;
}

class StoreWriters : public ::testing::TestWithParam<store::sql::Dialect> {};

// On either backend: the writers race to create the schema too.
TEST_P(StoreWriters, ProcessesWritingAtOnceLoseNothing) {
  Backend backend;
  Location where;
  CULPRIT_STORE_LOCATION(backend, GetParam(), where);
  where.cache_dir /= "cache";
  std::array<int, 2> start{};
  ASSERT_EQ(pipe(start.data()), 0);
  std::array<pid_t, k_processes> children{};
  for (int writer = 0; writer < k_processes; ++writer) {
    children[writer] = fork();
    ASSERT_GE(children[writer], 0);
    if (children[writer] == 0) {
      close(start[1]);
      _exit(write_runs(where, writer, start[0]));
    }
  }
  close(start[0]);
  // Release every writer at once, so that they also race to create the schema.
  const std::array<char, k_processes> go{};
  ASSERT_EQ(write(start[1], go.data(), go.size()), static_cast<ssize_t>(go.size()));
  close(start[1]);
  for (const auto child : children) {
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }

  auto store = Store::open_at(where);
  ASSERT_TRUE(store) << store.error().message;
  for (int writer = 0; writer < k_processes; ++writer) {
    const MeasurementKey key{"artifact", "recipe", fmt::format("host-{}", writer)};
    auto runs = store->counted_runs(key, "sgemm/4096", "time");
    ASSERT_TRUE(runs) << runs.error().message;
    ASSERT_EQ(runs->samples.size(), static_cast<std::size_t>(k_runs_per_process));
    for (int i = 0; i < k_runs_per_process; ++i)
      EXPECT_EQ(runs->samples[i],
                (std::vector<double>{static_cast<double>(i), static_cast<double>(i) + 0.5}));
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreWriters,
                         ::testing::Values(store::sql::Dialect::sqlite,
                                           store::sql::Dialect::postgres),
                         backend_name);

TEST(StoreConcurrency, AWriterWaitsForAnotherTransaction) {
  culprit::testing::TempDir dir;
  auto store = Store::open_in(dir.path());
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->record_host(make_host(k_key.host_id)));
  auto other = store::sql::Database::open_sqlite(store->file());
  ASSERT_TRUE(other);
  auto holding = store::sql::Transaction::begin(*other);
  ASSERT_TRUE(holding);
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_TRUE(holding->commit());
  });
  auto id = store->record_run(make_run(k_key, {1.0}));
  release.join();
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(store->count_runs(k_key)->counted, 1);
}

TEST(StoreConcurrency, AWriterThatWaitsTooLongSaysWhy) {
  culprit::testing::TempDir dir;
  auto store = Store::open_in(dir.path(), {std::chrono::milliseconds(50)});
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->record_host(make_host(k_key.host_id)));
  auto other = store::sql::Database::open_sqlite(store->file());
  auto holding = store::sql::Transaction::begin(*other);
  ASSERT_TRUE(holding);
  auto id = store->record_run(make_run(k_key, {1.0}));
  ASSERT_FALSE(id);
  EXPECT_NE(id.error().message.find("another culprit process"), std::string::npos);
}

TEST(StoreConcurrency, OpeningWaitsForAnotherProcessSettingUp) {
  culprit::testing::TempDir dir;
  const auto lock_file = (dir / k_store_file_name).string() + ".lock";
  const int fd = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX), 0);
  auto store = Store::open_in(dir.path(), {std::chrono::milliseconds(50)});
  ASSERT_FALSE(store);
  EXPECT_NE(store.error().message.find("another culprit process"), std::string::npos);
  close(fd);
  EXPECT_TRUE(Store::open_in(dir.path()));
}

} // namespace
} // namespace culprit::store::testing
