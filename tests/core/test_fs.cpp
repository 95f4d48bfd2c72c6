#include <fstream>

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/fs.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

using ::testing::HasSubstr;

TEST(AtomicWrite, ReplacesAFileWhole) {
  testing::TempDir dir;
  std::ofstream(dir / "out.json") << "old";
  ASSERT_TRUE(write_file_atomic(dir / "out.json", "new contents"));
  EXPECT_EQ(read_file(dir / "out.json").value(), "new contents");
}

// A device is written where it is, never replaced by a regular file, and a device that refuses
// the bytes (a full disk) is an error that says so.
TEST(AtomicWrite, ADeviceIsWrittenInPlaceAndAFullOneIsAnError) {
  testing::TempDir dir;
  // A node of our own like /dev/full (1, 7) when this process may make one; else the system's.
  std::filesystem::path full = dir / "full";
  if (::mknod(full.c_str(), S_IFCHR | 0666, ::makedev(1, 7)) != 0)
    full = "/dev/full";
  const auto written = write_file_atomic(full, "evidence");
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().code, ExitCode::infrastructure);
  EXPECT_THAT(written.error().message, HasSubstr("No space left on device"));
  struct stat info = {};
  ASSERT_EQ(::stat(full.c_str(), &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode)) << "the device was replaced";

  ASSERT_TRUE(write_file_atomic("/dev/null", "discarded"));
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
}

TEST(ReadFile, ReadsUpToItsLimitAndRefusesMoreSayingTheLimit) {
  testing::TempDir dir;
  std::ofstream(dir / "small") << std::string(1000, 'x');
  EXPECT_EQ(read_file(dir / "small", 1000).value().size(), 1000U);
  const auto big = read_file(dir / "small", 999);
  ASSERT_FALSE(big);
  EXPECT_THAT(big.error().message, HasSubstr("holds more than 999 bytes"));
  // A device that never ends is refused at the limit, with bounded memory.
  const auto endless = read_file("/dev/zero", std::size_t{1} << 20);
  ASSERT_FALSE(endless);
  EXPECT_THAT(endless.error().message, HasSubstr("holds more than 1 MiB"));
}

} // namespace
} // namespace culprit
