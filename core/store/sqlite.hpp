#pragma once
// A thin RAII layer over SQLite's C API: a Database owns its connection, a Statement its
// prepared statement, a Transaction rolls back unless committed. Every failure becomes an Error
// (ExitCode::infrastructure) whose message names the database file and says what to do.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/util/error.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace culprit::sqlite {

class Statement;

// What to do about a file that is damaged or not a culprit store: move it away (the command
// spelled out) and culprit starts a new one.
std::string damaged_store_advice(const std::filesystem::path& file);

class Database {
public:
  // Opens (creating if needed) the database file for reading and writing. SQLite opens lazily:
  // a file that is not a database is only noticed by the first statement.
  static Result<Database> open(const std::filesystem::path& file);

  // Runs one or more statements that return no rows (schema, pragmas).
  Status execute(std::string_view sql);
  Result<Statement> prepare(std::string_view sql);
  // The value of a pragma that returns one integer, e.g. "user_version".
  Result<std::int64_t> pragma_integer(std::string_view pragma);

  [[nodiscard]] std::int64_t last_insert_rowid() const;
  [[nodiscard]] int changes() const;
  [[nodiscard]] const std::filesystem::path& file() const { return m_file; }
  [[nodiscard]] sqlite3* handle() const { return m_db.get(); }

  // An Error for the result code `code` of a call on this connection: the file, SQLite's
  // message, and what to do (move a corrupt file away, free disk space, check permissions).
  [[nodiscard]] Error error(int code, std::string_view doing) const;

  // Statements done with, by their text, ready to be prepared again without parsing: a history
  // of thousands of cases runs the same few queries hundreds of thousands of times.
  class Idle {
  public:
    Idle() = default;
    Idle(const Idle&) = delete;
    Idle& operator=(const Idle&) = delete;
    ~Idle();
    sqlite3_stmt* take(const std::string& sql);
    void put(const std::string& sql, sqlite3_stmt* statement);

  private:
    std::unordered_map<std::string, std::vector<sqlite3_stmt*>> m_statements;
  };

private:
  struct Closer {
    void operator()(sqlite3* db) const;
  };
  Database(std::unique_ptr<sqlite3, Closer> db, std::filesystem::path file)
      : m_db(std::move(db)), m_file(std::move(file)) {}

  std::unique_ptr<sqlite3, Closer> m_db;
  std::filesystem::path m_file;
  // Declared after m_db, so that its statements are finalized before the connection closes.
  std::unique_ptr<Idle> m_idle = std::make_unique<Idle>();
};

// A prepared statement. Parameters are bound by 1-based index; columns are read by 0-based
// index, as in SQLite's C API. A Statement must not outlive its Database.
class Statement {
public:
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, int value) { return bind(index, std::int64_t{value}); }
  Statement& bind(int index, bool value) { return bind(index, std::int64_t{value ? 1 : 0}); }
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view text);
  Statement& bind(int index, const std::string& text) {
    return bind(index, std::string_view(text));
  }
  Statement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, std::nullopt_t);
  template <class T> Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind(index, std::nullopt);
  }
  // Binds the arguments to parameters 1, 2, ... in order.
  template <class... Args> Statement& bind_all(const Args&... args) {
    int index = 0;
    (bind(++index, args), ...);
    return *this;
  }

  // Advances to the next row: true when a row is there, false when the statement is done.
  Result<bool> step();
  // Steps until done (for statements that return no rows).
  Status run();
  // Makes the statement ready to run again; keeps the bindings unless they are bound anew.
  void reset();

  [[nodiscard]] bool is_null(int column) const;
  [[nodiscard]] std::int64_t column_int64(int column) const;
  [[nodiscard]] double column_double(int column) const;
  [[nodiscard]] bool column_bool(int column) const { return column_int64(column) != 0; }
  [[nodiscard]] std::string column_text(int column) const;
  // The text without a copy: valid until the statement steps, resets or goes.
  [[nodiscard]] std::string_view column_view(int column) const;
  [[nodiscard]] std::optional<std::int64_t> column_optional_int64(int column) const;
  [[nodiscard]] std::optional<double> column_optional_double(int column) const;
  [[nodiscard]] std::optional<std::string> column_optional_text(int column) const;

private:
  friend class Database;
  // Gives the statement back to the connection's idle ones (reset, its bindings cleared), or
  // finalizes it when there is no place for it.
  struct Finalizer {
    Database::Idle* idle = nullptr;
    std::string sql;
    void operator()(sqlite3_stmt* statement) const;
  };
  Statement(const Database& db, sqlite3_stmt* statement, Finalizer finalizer)
      : m_db(&db), m_statement(statement, std::move(finalizer)) {}
  void check_bind(int code);

  const Database* m_db;
  std::unique_ptr<sqlite3_stmt, Finalizer> m_statement;
  int m_bind_error = 0; // the first failed bind, reported by the next step()
};

// BEGIN ... COMMIT, rolled back by the destructor unless commit() succeeded. Writers begin
// IMMEDIATE so that the write lock is taken (or waited for, under busy_timeout) up front:
// upgrading a read transaction to a write one under WAL can fail at once with SQLITE_BUSY.
class Transaction {
public:
  enum class Kind : std::uint8_t { deferred, immediate };
  static Result<Transaction> begin(Database& db, Kind kind = Kind::immediate);
  Status commit();
  ~Transaction();
  Transaction(Transaction&& other) noexcept : m_db(std::exchange(other.m_db, nullptr)) {}
  Transaction& operator=(Transaction&&) = delete;
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

private:
  explicit Transaction(Database& db) : m_db(&db) {}
  Database* m_db; // null once committed, rolled back or moved from
};

} // namespace culprit::sqlite
