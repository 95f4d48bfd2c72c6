#pragma once
// Helpers for the store's tests: a store on either backend (a temporary directory's SQLite file,
// or a database of a throwaway PostgreSQL server) and runs to put in it.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "core/store/store.hpp"
#include "tests/support/postgres_server.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit::store::testing {

inline const MeasurementKey k_key{"artifact-a", "recipe-1", "host-1"};

inline RunRecord make_run(const MeasurementKey& key, std::vector<double> values,
                          std::string case_name = "sgemm/4096", std::string metric = "time") {
  RunRecord run;
  run.artifact_id = key.artifact_id;
  run.build_key = "build-" + key.artifact_id;
  run.commit_id = "commit-" + key.artifact_id;
  run.recipe_hash = key.recipe_hash;
  run.host_id = key.host_id;
  run.started = now();
  run.wall_seconds = 1.5;
  run.user_seconds = 1.25;
  run.sys_seconds = 0.125;
  run.max_rss_kib = 20'480;
  run.exit_code = 0;
  run.samples.push_back({std::move(case_name), std::move(metric), "s",
                         parsers::Direction::lower_is_better, std::move(values)});
  return run;
}

inline HostRecord make_host(const std::string& host_id) {
  return HostRecord{host_id, R"({"cpu":"test"})", now(), now()};
}

// Where a test's store lives: the cache dir's SQLite file, or an empty database of the test
// process's PostgreSQL server (skipped, or failed under CULPRIT_REQUIRE_POSTGRES=1, without one).
class Backend {
public:
  // Sets *skip to why when there is no server; a fatal failure is reported by the caller.
  Result<Location> location(store::sql::Dialect dialect, std::string* skip) {
    if (dialect == store::sql::Dialect::sqlite)
      return Location{.cache_dir = m_dir.path(), .url = {}};
    auto* server = culprit::testing::PostgresServer::shared(skip);
    if (server == nullptr)
      return Location{};
    CULPRIT_TRY_ASSIGN(auto url, server->fresh_database());
    return Location{.cache_dir = m_dir.path(), .url = std::move(url)};
  }
  [[nodiscard]] const std::filesystem::path& dir() const { return m_dir.path(); }

private:
  culprit::testing::TempDir m_dir;
};

inline std::string backend_name(const ::testing::TestParamInfo<store::sql::Dialect>& info) {
  return info.param == store::sql::Dialect::sqlite ? "SQLite" : "PostgreSQL";
}

// Opens the location of `dialect` into *where, or skips (fails under CULPRIT_REQUIRE_POSTGRES).
#define CULPRIT_STORE_LOCATION(backend, dialect, where)                                            \
  do {                                                                                             \
    std::string why_not;                                                                           \
    auto located = (backend).location((dialect), &why_not);                                        \
    if (!why_not.empty())                                                                          \
      CULPRIT_POSTGRES_OR_SKIP(nullptr, why_not);                                                  \
    ASSERT_TRUE(located) << located.error().message;                                               \
    (where) = std::move(*located);                                                                 \
  } while (false)

class StoreTest : public ::testing::TestWithParam<store::sql::Dialect> {
protected:
  void SetUp() override {
    CULPRIT_STORE_LOCATION(m_backend, GetParam(), m_where);
    auto opened = Store::open_at(m_where);
    ASSERT_TRUE(opened) << opened.error().message;
    m_store.emplace(std::move(*opened));
    ASSERT_TRUE(m_store->record_host(make_host(k_key.host_id)));
  }

  std::int64_t record(const RunRecord& run) {
    auto id = m_store->record_run(run);
    EXPECT_TRUE(id) << id.error().message;
    return id.value_or(-1);
  }

  Backend m_backend;
  Location m_where;
  std::optional<Store> m_store;
};

} // namespace culprit::store::testing
