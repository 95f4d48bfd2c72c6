#include "core/host/cpus.hpp"

#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/temp_dir.hpp"

namespace culprit::host {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A sysfs tree where CPUs 0 and 1 are hyper-threads of core 0, and 2 and 3 of core 1.
class SmtTopology : public ::testing::Test {
protected:
  void SetUp() override {
    for (int cpu = 0; cpu < 4; ++cpu) {
      const auto dir =
          root.path() / "sys/devices/system/cpu" / ("cpu" + std::to_string(cpu)) / "topology";
      std::filesystem::create_directories(dir);
      std::ofstream(dir / "core_id") << cpu / 2 << "\n";
      std::ofstream(dir / "physical_package_id") << "0\n";
    }
  }
  testing::TempDir root{"culprit-cpus"};
};

TEST_F(SmtTopology, TwoCpusOnDifferentCoresAreChosen) {
  const auto cpus = duet_cpus({}, {0, 1, 2, 3}, root.path());
  ASSERT_TRUE(cpus) << cpus.error().message;
  EXPECT_THAT((*cpus)[0], ElementsAre(0));
  EXPECT_THAT((*cpus)[1], ElementsAre(2));
}

TEST_F(SmtTopology, SiblingsAreTakenWhenThereIsNothingElse) {
  const auto cpus = duet_cpus({}, {2, 3}, root.path());
  ASSERT_TRUE(cpus);
  EXPECT_THAT((*cpus)[0], ElementsAre(2));
  EXPECT_THAT((*cpus)[1], ElementsAre(3));
}

TEST(DuetCpus, TheRecipesCpusAreSplitInHalves) {
  const auto cpus = duet_cpus({4, 5, 6, 7, 8}, {});
  ASSERT_TRUE(cpus);
  EXPECT_THAT((*cpus)[0], ElementsAre(4, 5));
  EXPECT_THAT((*cpus)[1], ElementsAre(6, 7));
}

TEST(DuetCpus, OneCpuIsRefusedWithWhatToDo) {
  const auto from_recipe = duet_cpus({3}, {0, 1});
  ASSERT_FALSE(from_recipe);
  EXPECT_EQ(from_recipe.error().code, ExitCode::usage);
  EXPECT_THAT(from_recipe.error().message, HasSubstr("[run] cpus) are one, 3"));
  const auto from_machine = duet_cpus({}, {0});
  ASSERT_FALSE(from_machine);
  EXPECT_THAT(from_machine.error().message, HasSubstr("--no-duet"));
}

TEST(DuetCpus, ThisProcessMayRunSomewhere) {
  EXPECT_FALSE(allowed_cpus().empty());
}

} // namespace
} // namespace culprit::host
