// scripts/ports.sh, the ports of the servers the tests start (PostgreSQL, Slurm): free, distinct,
// and never among the ports the kernel gives outgoing connections. A client that connects again
// and again to a stopped server's port on loopback is, about once in 40,000 tries, given that
// same port as its own and connected to itself; the server then cannot start again on it.

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "tests/support/process.hpp"
#include "tests/support/source_tree.hpp"

namespace culprit {
namespace {

using testing::run_process;
using testing::source_dir;

TEST(ServerPorts, AreFreeDistinctAndNeverOnesTheKernelGivesOutgoingConnections) {
  std::ifstream range_file("/proc/sys/net/ipv4/ip_local_port_range");
  int first = 0;
  int last = 0;
  if (!(range_file >> first >> last))
    GTEST_SKIP() << "no /proc/sys/net/ipv4/ip_local_port_range here";
  const auto picked = run_process({"bash", "-c", "source \"$1\" && free_ports 400", "ports",
                                   (source_dir() / "scripts" / "ports.sh").string()},
                                  source_dir());
  ASSERT_EQ(picked.exit_code, 0) << picked.err;
  std::istringstream words(picked.out);
  std::set<int> ports;
  int count = 0;
  for (int port = 0; words >> port; ++count) {
    EXPECT_TRUE(port < first || port > last) << port << " is in " << first << "-" << last;
    EXPECT_GE(port, 1024);
    EXPECT_LE(port, 65535);
    ports.insert(port);
  }
  EXPECT_EQ(count, 400);
  EXPECT_EQ(ports.size(), 400U);
}

} // namespace
} // namespace culprit
