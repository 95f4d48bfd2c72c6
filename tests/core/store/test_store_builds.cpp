#include <gtest/gtest.h>

#include "tests/core/store/store_fixture.hpp"

namespace culprit::store::testing {
namespace {

BuildRecord make_build(std::string key, bool ok) {
  BuildRecord build;
  build.build_key = std::move(key);
  build.commit_id = "c-" + build.build_key;
  build.tree_id = "t-" + build.build_key;
  build.ok = ok;
  build.seconds = 3.25;
  build.log_path = "/cache/logs/" + build.build_key + ".log";
  if (ok)
    build.artifact_id = "artifact-" + build.build_key;
  build.created = now();
  return build;
}

TEST_F(StoreTest, BuildsAreFoundByKey) {
  const auto build = make_build("k1", true);
  ASSERT_TRUE(m_store->record_build(build));
  auto found = m_store->find_build("k1");
  ASSERT_TRUE(found);
  ASSERT_TRUE(found->has_value());
  const auto& stored = **found;
  EXPECT_EQ(stored.build_key, "k1");
  EXPECT_EQ(stored.commit_id, build.commit_id);
  EXPECT_EQ(stored.tree_id, build.tree_id);
  EXPECT_TRUE(stored.ok);
  EXPECT_DOUBLE_EQ(stored.seconds, 3.25);
  EXPECT_EQ(stored.log_path, build.log_path);
  EXPECT_EQ(stored.artifact_id, build.artifact_id);
  EXPECT_EQ(stored.created, build.created);
  EXPECT_FALSE(m_store->find_build("k2")->has_value());
}

TEST_F(StoreTest, FailedBuildsAreListedAndCanBeForgotten) {
  ASSERT_TRUE(m_store->record_build(make_build("good", true)));
  ASSERT_TRUE(m_store->record_build(make_build("bad", false)));
  auto failed = m_store->failed_builds();
  ASSERT_TRUE(failed);
  ASSERT_EQ(failed->size(), 1U);
  EXPECT_EQ(failed->front().build_key, "bad");
  EXPECT_EQ(failed->front().artifact_id, std::nullopt);

  EXPECT_FALSE(m_store->forget_failed_build("good").value());
  EXPECT_TRUE(m_store->find_build("good")->has_value());
  EXPECT_TRUE(m_store->forget_failed_build("bad").value());
  EXPECT_FALSE(m_store->find_build("bad")->has_value());
  EXPECT_FALSE(m_store->forget_failed_build("bad").value());
}

TEST_F(StoreTest, ARebuildReplacesTheBuild) {
  ASSERT_TRUE(m_store->record_build(make_build("k", false)));
  ASSERT_TRUE(m_store->record_build(make_build("k", true)));
  EXPECT_TRUE((*m_store->find_build("k"))->ok);
  EXPECT_TRUE(m_store->failed_builds()->empty());
}

TEST_F(StoreTest, ABuildThatContradictsItselfIsRefused) {
  auto build = make_build("k", false);
  build.artifact_id = "something";
  EXPECT_FALSE(m_store->record_build(build));
  build = make_build("k", true);
  build.artifact_id.reset();
  EXPECT_FALSE(m_store->record_build(build));
}

TEST_F(StoreTest, HostsKeepTheirFirstSightingAndUpdateTheRest) {
  const auto first = now() - std::chrono::hours(24);
  ASSERT_TRUE(m_store->record_host({"h", R"({"v":1})", first, first}));
  const auto later = first + std::chrono::hours(2);
  ASSERT_TRUE(m_store->record_host({"h", R"({"v":2})", later, later}));
  auto host = m_store->find_host("h");
  ASSERT_TRUE(host);
  ASSERT_TRUE(host->has_value());
  EXPECT_EQ((*host)->first_seen, first);
  EXPECT_EQ((*host)->last_seen, later);
  EXPECT_EQ((*host)->fingerprint, R"({"v":2})");
  EXPECT_FALSE(m_store->find_host("other")->has_value());
}

} // namespace
} // namespace culprit::store::testing
