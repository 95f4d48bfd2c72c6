#include "core/store/sqlite.hpp"

#include <climits>
#include <cstddef>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <sqlite3.h>

#include <fmt/core.h>

#include "core/store/sql.hpp"
#include "core/util/error.hpp"

namespace culprit::store::sql {
namespace {

std::string advice(int code, const std::filesystem::path& file) {
  switch (code & 0xff) {
  case SQLITE_CORRUPT:
  case SQLITE_NOTADB:
    return damaged_store_advice(file);
  case SQLITE_BUSY:
  case SQLITE_LOCKED:
    return "another culprit process holds the store for too long; wait for it or stop it";
  case SQLITE_FULL:
    return "the disk is full; free some space or choose another --cache-dir";
  case SQLITE_READONLY:
  case SQLITE_PERM:
  case SQLITE_CANTOPEN:
  case SQLITE_AUTH:
    return "check that the file and its directory are writable, or choose another --cache-dir";
  case SQLITE_IOERR:
    return "reading or writing the file failed; check the disk, or choose another --cache-dir";
  default:
    return "this is a bug in culprit if it persists; please report it";
  }
}

int checked_size(std::string_view text) {
  return text.size() > static_cast<std::size_t>(INT_MAX) ? -1 : static_cast<int>(text.size());
}

// Statements done with, by their text, ready to be prepared again without parsing: a history of
// thousands of cases runs the same few queries hundreds of thousands of times.
class IdleStatements {
public:
  IdleStatements() = default;
  IdleStatements(const IdleStatements&) = delete;
  IdleStatements& operator=(const IdleStatements&) = delete;
  IdleStatements(IdleStatements&&) = delete;
  IdleStatements& operator=(IdleStatements&&) = delete;
  ~IdleStatements() {
    for (auto& [sql, statements] : m_statements)
      for (auto* statement : statements)
        sqlite3_finalize(statement);
  }

  sqlite3_stmt* take(const std::string& sql) {
    const auto it = m_statements.find(sql);
    if (it == m_statements.end() || it->second.empty())
      return nullptr;
    auto* statement = it->second.back();
    it->second.pop_back();
    return statement;
  }

  void put(const std::string& sql, sqlite3_stmt* statement) {
    // A few of each text (statements open at once, nested), and a bound on the texts.
    constexpr std::size_t k_each = 4;
    constexpr std::size_t k_texts = 256;
    auto it = m_statements.find(sql);
    if (it == m_statements.end() && m_statements.size() < k_texts)
      it = m_statements.emplace(sql, std::vector<sqlite3_stmt*>{}).first;
    if (it == m_statements.end() || it->second.size() >= k_each) {
      sqlite3_finalize(statement);
      return;
    }
    it->second.push_back(statement);
  }

private:
  std::unordered_map<std::string, std::vector<sqlite3_stmt*>> m_statements;
};

class SqliteConnection;

class SqliteCursor final : public Cursor {
public:
  SqliteCursor(const SqliteConnection& connection, sqlite3_stmt* statement, IdleStatements* idle,
               std::string sql)
      : m_connection(&connection), m_statement(statement), m_idle(idle), m_sql(std::move(sql)) {}
  SqliteCursor(const SqliteCursor&) = delete;
  SqliteCursor& operator=(const SqliteCursor&) = delete;
  SqliteCursor(SqliteCursor&&) = delete;
  SqliteCursor& operator=(SqliteCursor&&) = delete;
  // Gives the statement back to the connection's idle ones (reset, its bindings cleared).
  ~SqliteCursor() override {
    sqlite3_reset(m_statement);
    sqlite3_clear_bindings(m_statement);
    m_idle->put(m_sql, m_statement);
  }

  void bind_int64(int index, std::int64_t value) override {
    check_bind(sqlite3_bind_int64(m_statement, index, value));
  }
  void bind_double(int index, double value) override {
    check_bind(sqlite3_bind_double(m_statement, index, value));
  }
  // Text goes in as stored_text makes it, as on PostgreSQL: one name for one case on either.
  void bind_text(int index, std::string_view text) override {
    const auto stored = stored_text(text);
    if (stored)
      text = *stored;
    // An empty string_view may have a null data(); SQLite would bind that as NULL.
    const char* data = text.data() == nullptr ? "" : text.data();
    check_bind(sqlite3_bind_text(m_statement, index, data, checked_size(text), SQLITE_TRANSIENT));
  }
  void bind_null(int index) override { check_bind(sqlite3_bind_null(m_statement, index)); }
  Result<bool> step() override;
  void reset() override {
    sqlite3_reset(m_statement);
    m_bind_error = 0;
  }
  [[nodiscard]] bool is_null(int column) const override {
    return sqlite3_column_type(m_statement, column) == SQLITE_NULL;
  }
  [[nodiscard]] std::int64_t column_int64(int column) const override {
    return sqlite3_column_int64(m_statement, column);
  }
  [[nodiscard]] double column_double(int column) const override {
    return sqlite3_column_double(m_statement, column);
  }
  [[nodiscard]] std::string_view column_view(int column) const override {
    const auto* text = sqlite3_column_text(m_statement, column);
    const int size = sqlite3_column_bytes(m_statement, column);
    if (text == nullptr)
      return {};
    return {reinterpret_cast<const char*>(text), static_cast<std::size_t>(size)};
  }

private:
  void check_bind(int code) {
    if (code != SQLITE_OK && m_bind_error == 0)
      m_bind_error = code;
  }
  const SqliteConnection* m_connection;
  sqlite3_stmt* m_statement;
  IdleStatements* m_idle;
  std::string m_sql;
  int m_bind_error = 0; // the first failed bind, reported by the next step()
};

class SqliteConnection final : public Connection {
public:
  SqliteConnection(sqlite3* db, std::filesystem::path file, std::string what)
      : m_db(db), m_file(std::move(file)), m_name(m_file.string()), m_what(std::move(what)) {}
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;
  SqliteConnection(SqliteConnection&&) = delete;
  SqliteConnection& operator=(SqliteConnection&&) = delete;
  ~SqliteConnection() override {
    m_idle.reset(); // its statements are finalized before the connection closes
    sqlite3_close_v2(m_db);
  }

  Status execute(std::string_view sql) override {
    const std::string text(sql);
    const int code = sqlite3_exec(m_db, text.c_str(), nullptr, nullptr, nullptr);
    if (code != SQLITE_OK)
      return std::unexpected(error(code, "a statement"));
    return {};
  }

  Result<std::unique_ptr<Cursor>> prepare(std::string_view sql) override {
    std::string text(sql);
    if (auto* idle = m_idle->take(text))
      return std::make_unique<SqliteCursor>(*this, idle, m_idle.get(), std::move(text));
    sqlite3_stmt* raw = nullptr;
    // The length is passed, so the text need not be terminated.
    // NOLINTNEXTLINE(bugprone-suspicious-stringview-data-usage)
    const int code = sqlite3_prepare_v2(m_db, sql.data(), checked_size(sql), &raw, nullptr);
    if (code != SQLITE_OK) {
      sqlite3_finalize(raw);
      return std::unexpected(error(code, "preparing a statement"));
    }
    return std::make_unique<SqliteCursor>(*this, raw, m_idle.get(), std::move(text));
  }

  [[nodiscard]] int changes() const override { return sqlite3_changes(m_db); }
  void rollback() override { sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr); }
  [[nodiscard]] Dialect dialect() const override { return Dialect::sqlite; }
  [[nodiscard]] const std::string& name() const override { return m_name; }
  [[nodiscard]] sqlite3* handle() const { return m_db; }

  // An Error for the result code `code` of a call on this connection: the file, SQLite's
  // message, and what to do (move a corrupt file away, free disk space, check permissions).
  [[nodiscard]] Error error(int code, std::string_view doing) const {
    const char* message = m_db != nullptr ? sqlite3_errmsg(m_db) : sqlite3_errstr(code);
    return Error{.code = ExitCode::infrastructure,
                 .message = fmt::format("{} {}: {} failed: {}; {}", m_what, m_name, doing, message,
                                        advice(code, m_file))};
  }

private:
  sqlite3* m_db;
  std::filesystem::path m_file;
  std::string m_name;
  std::string m_what; // "results store", "history ledger"
  std::unique_ptr<IdleStatements> m_idle = std::make_unique<IdleStatements>();
};

Result<bool> SqliteCursor::step() {
  if (m_bind_error != 0)
    return std::unexpected(m_connection->error(m_bind_error, "binding a value"));
  const int code = sqlite3_step(m_statement);
  if (code == SQLITE_ROW)
    return true;
  if (code == SQLITE_DONE)
    return false;
  return std::unexpected(m_connection->error(code, "a statement"));
}

} // namespace

std::string damaged_store_advice(const std::filesystem::path& file) {
  return fmt::format("the file is damaged or not a culprit store; move it away (mv {0} {0}.bad) "
                     "and culprit starts a new one",
                     file.string());
}

Result<Database> Database::open_sqlite(const std::filesystem::path& file, std::string_view what) {
  sqlite3* raw = nullptr;
  const int code =
      sqlite3_open_v2(file.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (raw == nullptr)
    return infra_error("cannot open the {} {}: out of memory", what, file.string());
  auto connection = std::make_unique<SqliteConnection>(raw, file, std::string(what));
  if (code != SQLITE_OK)
    return std::unexpected(connection->error(code, "open"));
  sqlite3_extended_result_codes(raw, 1);
  return Database(std::move(connection), file);
}

sqlite3* sqlite_handle(const Database& db) {
  const auto* connection = dynamic_cast<const SqliteConnection*>(&db.connection());
  return connection == nullptr ? nullptr : connection->handle();
}

} // namespace culprit::store::sql
