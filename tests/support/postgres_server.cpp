#include "tests/support/postgres_server.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "core/store/sql.hpp"
#include "tests/support/support_script.hpp"

namespace culprit::testing {
namespace {

Result<exec::ExecResult> run_postgres_script(const std::string& command,
                                             const std::filesystem::path& dir) {
  return run_support_script("postgres-server.sh", command, dir, exec::Seconds{120});
}

} // namespace

PostgresServer* PostgresServer::shared(std::string* why_not) {
  static std::unique_ptr<PostgresServer> server;
  static std::string failure;
  if (server != nullptr)
    return server.get();
  if (!failure.empty()) {
    *why_not = failure;
    return nullptr;
  }
  std::unique_ptr<PostgresServer> started(new PostgresServer);
  auto ran = run_postgres_script("start", started->m_dir.path());
  if (!ran)
    failure = ran.error().message;
  else if (!ran->succeeded())
    failure = last_line(ran->err).empty() ? "postgres-server.sh start failed" : last_line(ran->err);
  if (failure.empty()) {
    std::istringstream lines(ran->out);
    for (std::string line; std::getline(lines, line);) {
      constexpr std::string_view k_prefix = "URL=postgresql://culprit:";
      if (!line.starts_with(k_prefix))
        continue;
      const auto rest = line.substr(k_prefix.size());
      const auto at = rest.rfind('@');
      const auto slash = rest.find('/', at);
      started->m_password = rest.substr(0, at);
      started->m_host_port = rest.substr(at + 1, slash - at - 1);
    }
    if (started->m_host_port.empty())
      failure = "postgres-server.sh start printed no URL line";
  }
  if (!failure.empty()) {
    *why_not = failure;
    return nullptr;
  }
  server = std::move(started);
  return server.get();
}

PostgresServer::~PostgresServer() {
  const auto stopped = run_postgres_script("stop", m_dir.path());
  if (!stopped || !stopped->succeeded())
    std::fprintf(stderr, "postgres-server: stop %s failed\n", m_dir.path().c_str());
}

std::string PostgresServer::url(std::string_view database) const {
  return fmt::format("postgresql://culprit:{}@{}/{}", m_password, m_host_port, database);
}

Result<std::string> PostgresServer::fresh_database() {
  const auto name = fmt::format("culprit_test_{}_{}", ::getpid(), ++m_databases);
  CULPRIT_TRY_ASSIGN(auto db, store::sql::Database::open_postgres(url()));
  CULPRIT_TRY(db.execute(fmt::format("CREATE DATABASE {}", name)));
  return url(name);
}

Status PostgresServer::restart() {
  CULPRIT_TRY_ASSIGN(const auto ran, run_postgres_script("restart", m_dir.path()));
  if (!ran.succeeded())
    return infra_error("postgres-server.sh restart failed: {}", last_line(ran.err));
  return {};
}

bool postgres_required() {
  const char* value = std::getenv("CULPRIT_REQUIRE_POSTGRES");
  return value != nullptr && std::string_view(value) == "1";
}

} // namespace culprit::testing
