// What the evidence records of a measurement, from the runs in the store.

#include "core/evidence/fill.hpp"

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/fake_measure.hpp"

namespace culprit::evidence {
namespace {

// Runs of one case recorded as a counting instrument would, one value each.
void record_counts(testing::FakeRig& rig, const measure::Subject& subject,
                   const std::vector<double>& values) {
  for (const double value : values) {
    store::RunRecord run;
    run.artifact_id = subject.artifact_id;
    run.build_key = subject.build_key;
    run.commit_id = subject.commit;
    run.recipe_hash = "fake-recipe";
    run.host_id = "fake-host";
    run.started = store::now();
    run.samples = {
        {"kernel", "gpu_instructions", "", parsers::Direction::lower_is_better, {value}}};
    ASSERT_TRUE(rig.store().record_run(run));
  }
}

double cv_of(const std::vector<double>& values) {
  testing::FakeRig rig;
  const auto subject = testing::FakeRig::subject("c0");
  record_counts(rig, subject, values);
  const measure::SelectedCase selected{{"kernel", "gpu_instructions"}, "", {}};
  const auto entry = measurement_entry(rig.sampler(), subject, selected, 0, 0.95, 1);
  EXPECT_TRUE(entry) << entry.error().message;
  if (!entry)
    return -1;
  EXPECT_EQ(entry->runs.size(), values.size());
  return entry->summary.cv;
}

// Counts near the largest double overflow the sums of a mean and a variance: the spread of the
// run medians is still a number, the same as that of the counts scaled down.
TEST(EvidenceFill, TheSpreadOfCountsNearTheLargestDoubleIsANumber) {
  EXPECT_EQ(cv_of({1.7e308, 1.7e308, 1.7e308}), 0.0);
  const double huge = cv_of({1.0e308, 1.2e308, 1.4e308});
  EXPECT_TRUE(std::isfinite(huge)) << huge;
  EXPECT_GT(huge, 0.1);
  EXPECT_NEAR(huge, cv_of({1.0, 1.2, 1.4}), 1e-12);
}

// A spread is never negative, whatever the sign of the values' mean.
TEST(EvidenceFill, TheSpreadOfValuesBelowZeroIsNotNegative) {
  EXPECT_EQ(cv_of({-5, -5, -5}), 0.0);
  EXPECT_FALSE(std::signbit(cv_of({-5, -5, -5})));
  EXPECT_NEAR(cv_of({-1.0, -1.2, -1.4}), cv_of({1.0, 1.2, 1.4}), 1e-12);
}

} // namespace
} // namespace culprit::evidence
