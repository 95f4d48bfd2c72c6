#include "core/host/noise_probe.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace culprit::host {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

NoiseProfile with_duet(double spread_duet, double spread_apart, bool one_sided) {
  NoiseProfile profile;
  profile.seconds = 5;
  profile.interference.one_sided = one_sided;
  profile.interference.slow_tail = one_sided;
  profile.duet = DuetProfile{
      .cpus = {0, 1}, .same_state = 0.9, .spread_apart = spread_apart, .spread_duet = spread_duet};
  return profile;
}

TEST(NoiseAdvice, AQuietMachineNeedsNothing) {
  const auto advice = noise_advice(with_duet(0.001, 0.001, false));
  ASSERT_EQ(advice.size(), 1U);
  EXPECT_THAT(advice[0], HasSubstr("quiet enough"));
}

// 0.0101% against 0.0100% is noise in the noise: advising against duets on it (as `env --noise`
// once did, printing "0.0% apart, against 0.0%") tells the user nothing true.
TEST(NoiseAdvice, DuetsAreJudgedOnlyOnADifferenceAVerdictWouldFeel) {
  for (const auto& [duet, apart] : {std::pair{0.000101, 0.0001}, std::pair{0.004, 0.002}})
    EXPECT_THAT(noise_advice(with_duet(duet, apart, true)),
                Not(Contains(HasSubstr("disturb each other"))))
        << duet << " against " << apart;
  EXPECT_THAT(noise_advice(with_duet(0.00001, 0.001, true)),
              Not(Contains(HasSubstr("duets help"))));

  EXPECT_THAT(noise_advice(with_duet(0.03, 0.01, false)),
              Contains(AllOf(HasSubstr("disturb each other"), HasSubstr("(3% apart, against 1%"),
                             HasSubstr("prefer duet = false"))));
  EXPECT_THAT(noise_advice(with_duet(0.004, 0.05, true)),
              Contains(AllOf(HasSubstr("duets help here"), HasSubstr("differ by 0.4% where"),
                             HasSubstr("differ by 5%"))));
  // Duets help only against one-sided interference: a quiet machine gains nothing from them.
  EXPECT_THAT(noise_advice(with_duet(0.004, 0.05, false)), Not(Contains(HasSubstr("duets help"))));
}

} // namespace
} // namespace culprit::host
