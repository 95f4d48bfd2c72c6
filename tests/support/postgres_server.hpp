#pragma once
// A real PostgreSQL server on loopback for the tests and benchmarks of the shared store, started
// and stopped by scripts/postgres-server.sh (a cluster copied from one initdb, a free port, the
// user culprit logging in with a password). One per test process, started on first use and
// stopped at exit; each test takes an empty database of its own.

#include <memory>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "core/util/error.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit::testing {

class PostgresServer {
public:
  // The server of this process, started on first use; nullptr with *why_not set to one line when
  // it cannot start (no postgresql package, a server that failed).
  static PostgresServer* shared(std::string* why_not);

  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;
  PostgresServer(PostgresServer&&) = delete;
  PostgresServer& operator=(PostgresServer&&) = delete;

  // The URL of `database` on this server, with the password.
  [[nodiscard]] std::string url(std::string_view database = "postgres") const;
  // A new empty database; its URL.
  Result<std::string> fresh_database();
  // Stops the server (fast: connections are cut) and starts it again on the same port: what a
  // store sees when the server restarts under it.
  Status restart();
  [[nodiscard]] const std::string& password() const { return m_password; }

private:
  PostgresServer() = default;
  TempDir m_dir{"culprit-postgres"};
  std::string m_host_port; // 127.0.0.1:PORT
  std::string m_password;
  int m_databases = 0;
};

// True when CULPRIT_REQUIRE_POSTGRES=1 is in the environment: a missing server is then a
// failure, not a skip.
[[nodiscard]] bool postgres_required();

} // namespace culprit::testing

// In a test (or SetUp): skips with `why` when `server_ptr` is null, or fails instead when
// CULPRIT_REQUIRE_POSTGRES=1.
#define CULPRIT_POSTGRES_OR_SKIP(server_ptr, why)                                                  \
  do {                                                                                             \
    if ((server_ptr) == nullptr) {                                                                 \
      if (::culprit::testing::postgres_required())                                                 \
        GTEST_FAIL() << "CULPRIT_REQUIRE_POSTGRES=1 but no PostgreSQL server: " << (why);          \
      GTEST_SKIP() << "no PostgreSQL server: " << (why);                                           \
    }                                                                                              \
  } while (false)
