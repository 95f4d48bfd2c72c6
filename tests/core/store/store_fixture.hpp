#pragma once
// Helpers for the store's tests: a store in a temporary directory and runs to put in it.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "core/store/store.hpp"
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
  run.samples.push_back({std::move(case_name), std::move(metric), "s", Direction::lower_is_better,
                         std::move(values)});
  return run;
}

inline HostRecord make_host(const std::string& host_id) {
  return HostRecord{host_id, R"({"cpu":"test"})", now(), now()};
}

class StoreTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto opened = Store::open_in(m_dir.path());
    ASSERT_TRUE(opened) << opened.error().message;
    m_store.emplace(std::move(*opened));
    ASSERT_TRUE(m_store->record_host(make_host(k_key.host_id)));
  }

  std::int64_t record(const RunRecord& run) {
    auto id = m_store->record_run(run);
    EXPECT_TRUE(id) << id.error().message;
    return id.value_or(-1);
  }

  culprit::testing::TempDir m_dir;
  std::optional<Store> m_store;
};

} // namespace culprit::store::testing
