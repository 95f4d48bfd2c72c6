// The PostgreSQL backend of core/store/sql.hpp, on libpq. Statements are prepared on the server
// once per connection and text; values travel as text (a double in its shortest form that reads
// back exactly, as the server writes float8 too). A connection lost between transactions (the
// server restarted) is made again at the next statement; one lost inside a transaction fails
// that transaction, which then rolls back whole.
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/core.h>
#include <libpq-fe.h>

#include "core/store/location.hpp"
#include "core/store/sql.hpp"
#include "core/util/error.hpp"
#include "core/util/text.hpp"

namespace culprit::store::sql {
namespace {

struct ResultFree {
  void operator()(PGresult* result) const { PQclear(result); }
};
using PgResult = std::unique_ptr<PGresult, ResultFree>;

// libpq's messages end in a newline and may span lines ("connection to server ... failed:
// FATAL: ..."): one line.
std::string one_line(std::string_view message) {
  std::string out;
  for (const char c : trim(message))
    out += c == '\n' || c == '\t' ? ' ' : c;
  return out;
}

std::string advice(std::string_view state) {
  if (state.starts_with("08") || state == "57P01" || state == "57P02" || state == "57P03")
    return "the connection to the server was lost; run the same command again once the server "
           "is back (nothing recorded before is lost)";
  if (state.starts_with("28"))
    return "check the user and password (in the URL, ~/.pgpass or PGPASSWORD)";
  if (state == "40001" || state == "40P01")
    return "another culprit process wrote the same rows at the same time; run the command again";
  if (state.starts_with("53"))
    return "the server is out of disk space, memory or connections; ask its administrator";
  if (state == "42P01" || state == "42703") // an undefined table or column
    return "the database's tables are not those of a culprit store; check the URL's database";
  return "this is a bug in culprit if it persists; please report it";
}

// Rewrites ?N to $N outside quoted text.
std::string postgres_parameters(std::string_view sql) {
  std::string out;
  out.reserve(sql.size());
  char quote = 0;
  for (const char c : sql) {
    if (quote != 0) {
      if (c == quote)
        quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '?') {
      out += '$';
      continue;
    }
    out += c;
  }
  return out;
}

class PostgresConnection;

class PostgresCursor final : public Cursor {
public:
  PostgresCursor(PostgresConnection& connection, std::string sql)
      : m_connection(&connection), m_sql(std::move(sql)) {}

  void bind_int64(int index, std::int64_t value) override { set(index, fmt::format("{}", value)); }
  void bind_double(int index, double value) override { set(index, fmt::format("{}", value)); }
  // The server takes text in UTF-8 without NUL (a parameter is a C string): a run's message that
  // quotes a benchmark's raw bytes is stored as stored_text makes it rather than refused with the
  // run.
  void bind_text(int index, std::string_view text) override {
    auto stored = stored_text(text);
    set(index, stored ? std::move(*stored) : std::string(text));
  }
  void bind_null(int index) override { set(index, std::nullopt); }
  Result<bool> step() override;
  void reset() override {
    m_result.reset();
    m_row = -1;
  }
  [[nodiscard]] bool is_null(int column) const override {
    return PQgetisnull(m_result.get(), m_row, column) != 0;
  }
  [[nodiscard]] std::int64_t column_int64(int column) const override {
    const auto text = column_view(column);
    if (text == "t")
      return 1; // a boolean
    std::int64_t value = 0;
    std::from_chars(text.data(), text.data() + text.size(), value);
    return value;
  }
  [[nodiscard]] double column_double(int column) const override {
    const auto text = column_view(column);
    double value = 0;
    std::from_chars(text.data(), text.data() + text.size(), value);
    return value;
  }
  [[nodiscard]] std::string_view column_view(int column) const override {
    if (m_result == nullptr || m_row < 0 || PQgetisnull(m_result.get(), m_row, column) != 0)
      return {};
    return {PQgetvalue(m_result.get(), m_row, column),
            static_cast<std::size_t>(PQgetlength(m_result.get(), m_row, column))};
  }

private:
  void set(int index, std::optional<std::string> value) {
    if (index < 1)
      return;
    if (static_cast<std::size_t>(index) > m_values.size())
      m_values.resize(static_cast<std::size_t>(index));
    m_values[static_cast<std::size_t>(index) - 1] = std::move(value);
  }

  PostgresConnection* m_connection;
  std::string m_sql;
  std::vector<std::optional<std::string>> m_values;
  PgResult m_result;
  int m_row = -1;
};

class PostgresConnection final : public Connection {
public:
  PostgresConnection(PGconn* connection, std::string name, std::string what)
      : m_connection(connection), m_name(std::move(name)), m_what(std::move(what)) {}
  PostgresConnection(const PostgresConnection&) = delete;
  PostgresConnection& operator=(const PostgresConnection&) = delete;
  PostgresConnection(PostgresConnection&&) = delete;
  PostgresConnection& operator=(PostgresConnection&&) = delete;
  ~PostgresConnection() override { PQfinish(m_connection); }

  Status execute(std::string_view sql) override {
    return retried([&]() -> Status {
      const PgResult result(PQexec(m_connection, std::string(sql).c_str()));
      CULPRIT_TRY(check(result.get(), "a statement"));
      // COMMIT of a transaction that failed inside rolls it back and says so only here.
      if (std::string_view(PQcmdStatus(result.get())) == "ROLLBACK" && sql == "COMMIT")
        return infra_error("{} {}: the transaction was rolled back by the server; run the "
                           "command again",
                           m_what, m_name);
      return {};
    });
  }

  Result<std::unique_ptr<Cursor>> prepare(std::string_view sql) override {
    return std::make_unique<PostgresCursor>(*this, postgres_parameters(sql));
  }

  [[nodiscard]] int changes() const override { return m_changes; }
  void rollback() override {
    if (PQstatus(m_connection) == CONNECTION_OK &&
        PQtransactionStatus(m_connection) != PQTRANS_IDLE)
      PQclear(PQexec(m_connection, "ROLLBACK"));
  }
  [[nodiscard]] Dialect dialect() const override { return Dialect::postgres; }
  [[nodiscard]] const std::string& name() const override { return m_name; }

  // Runs the prepared text with the values; the server prepares it on first use.
  Result<PgResult> run(const std::string& sql,
                       const std::vector<std::optional<std::string>>& values) {
    return retried([&]() -> Result<PgResult> { return run_once(sql, values); });
  }

private:
  Result<PgResult> run_once(const std::string& sql,
                            const std::vector<std::optional<std::string>>& values) {
    auto it = m_prepared.find(sql);
    if (it == m_prepared.end()) {
      auto statement_name = fmt::format("culprit_{}", m_prepared.size());
      const PgResult prepared(
          PQprepare(m_connection, statement_name.c_str(), sql.c_str(), 0, nullptr));
      CULPRIT_TRY(check(prepared.get(), "preparing a statement"));
      it = m_prepared.emplace(sql, std::move(statement_name)).first;
    }
    std::vector<const char*> pointers;
    pointers.reserve(values.size());
    for (const auto& value : values)
      pointers.push_back(value ? value->c_str() : nullptr);
    PgResult result(PQexecPrepared(m_connection, it->second.c_str(),
                                   static_cast<int>(pointers.size()), pointers.data(), nullptr,
                                   nullptr, 0));
    CULPRIT_TRY(check(result.get(), "a statement"));
    const std::string_view tuples = PQcmdTuples(result.get());
    m_changes = 0;
    std::from_chars(tuples.data(), tuples.data() + tuples.size(), m_changes);
    return result;
  }

  // Runs `attempt`; when it failed because the connection was lost (the server restarted) and
  // no transaction was open, connects again and runs it once more. Inside a transaction the
  // failure stands: the transaction is gone with the connection, and its caller rolls back.
  template <class Attempt> auto retried(Attempt attempt) -> decltype(attempt()) {
    CULPRIT_TRY(ensure_connected());
    const bool between_transactions = PQtransactionStatus(m_connection) == PQTRANS_IDLE;
    auto done = attempt();
    if (done || !between_transactions || PQstatus(m_connection) == CONNECTION_OK)
      return done;
    CULPRIT_TRY(ensure_connected());
    return attempt();
  }

  Status check(const PGresult* result, std::string_view doing) {
    const auto status = PQresultStatus(result);
    if (result != nullptr && (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK))
      return {};
    const char* state = result != nullptr ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
    const std::string message = result != nullptr && *PQresultErrorMessage(result) != '\0'
                                    ? one_line(PQresultErrorMessage(result))
                                    : one_line(PQerrorMessage(m_connection));
    // A lost connection has no SQLSTATE from the server: say it as such.
    const std::string_view code = state != nullptr                          ? state
                                  : PQstatus(m_connection) != CONNECTION_OK ? "08006"
                                                                            : "";
    return infra_error("{} {}: {} failed: {}; {}", m_what, m_name, doing, message, advice(code));
  }

  // A connection the server dropped (a restart) is made again between transactions; the
  // statements it had prepared are gone with it.
  Status ensure_connected() {
    if (PQstatus(m_connection) == CONNECTION_OK)
      return {};
    PQreset(m_connection);
    m_prepared.clear();
    if (PQstatus(m_connection) != CONNECTION_OK)
      return infra_error("cannot reach the {} {}: {}; {}", m_what, m_name,
                         one_line(PQerrorMessage(m_connection)), advice("08006"));
    return {};
  }

  PGconn* m_connection;
  std::string m_name;
  std::string m_what;                                      // "results store", "history ledger"
  std::unordered_map<std::string, std::string> m_prepared; // text -> server-side name
  int m_changes = 0;
};

Result<bool> PostgresCursor::step() {
  if (m_result == nullptr) {
    CULPRIT_TRY_ASSIGN(m_result, m_connection->run(m_sql, m_values));
    m_row = -1;
  }
  ++m_row;
  return m_row < PQntuples(m_result.get());
}

void ignore_notice(void* /*unused*/, const char* /*message*/) {}

// The password file libpq would read for `url` but ignore, saying so on stderr itself, outside
// culprit's messages: one that is not a plain file, or that others may read. libpq reads the file
// (passfile= in the URL, else PGPASSFILE, else ~/.pgpass) only when neither the URL nor
// PGPASSWORD gives a password.
std::optional<std::string> ignored_password_file(const std::string& url) {
  char* message = nullptr;
  const std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)> options(
      PQconninfoParse(url.c_str(), &message), PQconninfoFree);
  PQfreemem(message);
  if (options == nullptr)
    return std::nullopt;
  std::string file;
  for (const auto* option = options.get(); option->keyword != nullptr; ++option) {
    if (option->val == nullptr || *option->val == '\0')
      continue;
    if (std::string_view(option->keyword) == "password")
      return std::nullopt;
    if (std::string_view(option->keyword) == "passfile")
      file = option->val;
  }
  if (const char* password = std::getenv("PGPASSWORD"); password != nullptr && *password != '\0')
    return std::nullopt;
  if (const char* env = std::getenv("PGPASSFILE"); file.empty() && env != nullptr && *env != '\0')
    file = env;
  if (file.empty()) {
    const char* home = std::getenv("HOME");
    if (home == nullptr || *home == '\0') {
      const passwd* user = ::getpwuid(::geteuid());
      home = user != nullptr ? user->pw_dir : nullptr;
    }
    if (home == nullptr)
      return std::nullopt;
    file = (std::filesystem::path(home) / ".pgpass").string();
  }
  struct stat status{};
  if (::stat(file.c_str(), &status) != 0)
    return std::nullopt;
  if (S_ISREG(status.st_mode) && (status.st_mode & (S_IRWXG | S_IRWXO)) == 0)
    return std::nullopt;
  return file;
}

// A password file no one can have: libpq looks for it, finds nothing and says nothing.
constexpr const char* k_no_password_file = "/dev/null/culprit-reads-no-password-file";

} // namespace

Result<Database> Database::open_postgres(std::string_view url, std::string_view what) {
  CULPRIT_TRY(store::check_store_url(url));
  const std::string text(url);
  const std::string name = store::masked_url(url);
  const auto ignored_file = ignored_password_file(text);
  // Later keywords override earlier ones, and the URL's own expand into place: a
  // connect_timeout in the URL wins over this default. The password file libpq would ignore
  // aloud is not looked for: a refused login says why instead.
  std::vector<const char*> keywords = {"connect_timeout", "fallback_application_name",
                                       "client_encoding", "dbname"};
  std::vector<const char*> values = {"10", "culprit", "UTF8", text.c_str()};
  if (ignored_file) {
    keywords.push_back("passfile");
    values.push_back(k_no_password_file);
  }
  keywords.push_back(nullptr);
  values.push_back(nullptr);
  PGconn* raw = PQconnectdbParams(keywords.data(), values.data(), 1);
  if (raw == nullptr)
    return infra_error("cannot reach the {} {}: out of memory", what, name);
  auto connection = std::make_unique<PostgresConnection>(raw, name, std::string(what));
  if (PQstatus(raw) != CONNECTION_OK) {
    const std::string message = store::without_secrets(one_line(PQerrorMessage(raw)), text);
    const bool login = message.find("authentication") != std::string::npos ||
                       message.find("password") != std::string::npos;
    std::string why = login ? advice("28000")
                            : "check that the server is running and that the URL names its "
                              "host, port and database";
    if (login && ignored_file)
      why += fmt::format(" (libpq reads the password file {0} only when no one else may read it "
                         "and it is a plain file: chmod 600 {0})",
                         *ignored_file);
    return infra_error("cannot reach the {} {}: {}; {}", what, name, message, why);
  }
  PQsetNoticeProcessor(raw, ignore_notice, nullptr);
  return Database(std::move(connection), {});
}

} // namespace culprit::store::sql
