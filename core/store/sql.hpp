#pragma once
// One thin RAII layer over the two databases the store can live in: the embedded SQLite file in
// the cache dir, and a PostgreSQL server a team shares. A Database owns its connection, a
// Statement its prepared statement, a Transaction rolls back unless committed. Every failure
// becomes an Error (ExitCode::infrastructure) whose message names the store (a PostgreSQL URL
// without its password) and says what to do.
//
// Statements are written once for both: parameters are ?1, ?2, ... (the PostgreSQL connection
// reads them as $1, $2, ...), and the SQL keeps to what both understand (INSERT ... ON CONFLICT,
// RETURNING, CASE rather than SQLite's two-argument max). Where they differ, dialect() says which
// one is there.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/util/error.hpp"

namespace culprit::store::sql {

enum class Dialect : std::uint8_t { sqlite, postgres };

// What to do about a file that is damaged or not a culprit store: move it away (the command
// spelled out) and culprit starts a new one.
std::string damaged_store_advice(const std::filesystem::path& file);

// Text as the store keeps it on either backend: UTF-8 without NUL, as PostgreSQL takes it, with
// each byte that is not part of UTF-8 and each NUL replaced by U+FFFD, as evidence writes them;
// so a case whose name is not UTF-8 has one name in either store and everywhere it is shown.
// None when `text` is so already (it is bound as it is).
std::optional<std::string> stored_text(std::string_view text);

// A backend's prepared statement (internal: Statement is the interface).
class Cursor {
public:
  Cursor() = default;
  Cursor(const Cursor&) = delete;
  Cursor& operator=(const Cursor&) = delete;
  Cursor(Cursor&&) = delete;
  Cursor& operator=(Cursor&&) = delete;
  virtual ~Cursor() = default;

  virtual void bind_int64(int index, std::int64_t value) = 0;
  virtual void bind_double(int index, double value) = 0;
  virtual void bind_text(int index, std::string_view text) = 0;
  virtual void bind_null(int index) = 0;
  virtual Result<bool> step() = 0;
  virtual void reset() = 0;
  [[nodiscard]] virtual bool is_null(int column) const = 0;
  [[nodiscard]] virtual std::int64_t column_int64(int column) const = 0;
  [[nodiscard]] virtual double column_double(int column) const = 0;
  [[nodiscard]] virtual std::string_view column_view(int column) const = 0;
};

// A backend's connection (internal: Database is the interface).
class Connection {
public:
  Connection() = default;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  Connection(Connection&&) = delete;
  Connection& operator=(Connection&&) = delete;
  virtual ~Connection() = default;

  virtual Status execute(std::string_view sql) = 0;
  virtual Result<std::unique_ptr<Cursor>> prepare(std::string_view sql) = 0;
  [[nodiscard]] virtual int changes() const = 0;
  // Rolls back the open transaction, if any; never fails loudly (a destructor calls it).
  virtual void rollback() = 0;
  [[nodiscard]] virtual Dialect dialect() const = 0;
  // The store as messages name it: the file, or the URL without its password.
  [[nodiscard]] virtual const std::string& name() const = 0;
};

class Statement;

class Database {
public:
  // Opens (creating if needed) the SQLite file for reading and writing. SQLite opens lazily: a
  // file that is not a database is only noticed by the first statement. `what` is what messages
  // call the database ("results store", "history ledger").
  static Result<Database> open_sqlite(const std::filesystem::path& file,
                                      std::string_view what = "results store");
  // Connects to a PostgreSQL server (a postgresql:// URL, core/store/location.hpp). An
  // unreachable server or a refused login is one line with what to do.
  static Result<Database> open_postgres(std::string_view url,
                                        std::string_view what = "results store");

  // Runs one or more statements that return no rows (schema, pragmas).
  Status execute(std::string_view sql) { return m_connection->execute(sql); }
  Result<Statement> prepare(std::string_view sql);
  // The value of a pragma that returns one integer, e.g. "user_version" (SQLite only).
  Result<std::int64_t> pragma_integer(std::string_view pragma);

  // Rows changed by the last INSERT, UPDATE or DELETE.
  [[nodiscard]] int changes() const { return m_connection->changes(); }
  [[nodiscard]] Dialect dialect() const { return m_connection->dialect(); }
  [[nodiscard]] const std::string& name() const { return m_connection->name(); }
  // The SQLite file; empty on PostgreSQL.
  [[nodiscard]] const std::filesystem::path& file() const { return m_file; }
  [[nodiscard]] Connection& connection() const { return *m_connection; }

private:
  Database(std::unique_ptr<Connection> connection, std::filesystem::path file)
      : m_connection(std::move(connection)), m_file(std::move(file)) {}
  std::unique_ptr<Connection> m_connection;
  std::filesystem::path m_file;
};

// A prepared statement. Parameters are bound by 1-based index; columns are read by 0-based
// index, as in SQLite's C API. A Statement must not outlive its Database.
class Statement {
public:
  Statement& bind(int index, std::int64_t value) {
    m_cursor->bind_int64(index, value);
    return *this;
  }
  Statement& bind(int index, int value) { return bind(index, std::int64_t{value}); }
  Statement& bind(int index, bool value) { return bind(index, std::int64_t{value ? 1 : 0}); }
  Statement& bind(int index, double value) {
    m_cursor->bind_double(index, value);
    return *this;
  }
  Statement& bind(int index, std::string_view text) {
    m_cursor->bind_text(index, text);
    return *this;
  }
  Statement& bind(int index, const std::string& text) {
    return bind(index, std::string_view(text));
  }
  Statement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, std::nullopt_t) {
    m_cursor->bind_null(index);
    return *this;
  }
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
  Result<bool> step() { return m_cursor->step(); }
  // Steps until done (for statements that return no rows).
  Status run();
  // Makes the statement ready to run again; keeps the bindings unless they are bound anew.
  void reset() { m_cursor->reset(); }

  [[nodiscard]] bool is_null(int column) const { return m_cursor->is_null(column); }
  [[nodiscard]] std::int64_t column_int64(int column) const {
    return m_cursor->column_int64(column);
  }
  [[nodiscard]] double column_double(int column) const { return m_cursor->column_double(column); }
  [[nodiscard]] bool column_bool(int column) const { return column_int64(column) != 0; }
  [[nodiscard]] std::string column_text(int column) const {
    return std::string(column_view(column));
  }
  // The text without a copy: valid until the statement steps, resets or goes.
  [[nodiscard]] std::string_view column_view(int column) const {
    return m_cursor->column_view(column);
  }
  [[nodiscard]] std::optional<std::int64_t> column_optional_int64(int column) const;
  [[nodiscard]] std::optional<double> column_optional_double(int column) const;
  [[nodiscard]] std::optional<std::string> column_optional_text(int column) const;

private:
  friend class Database;
  explicit Statement(std::unique_ptr<Cursor> cursor) : m_cursor(std::move(cursor)) {}
  std::unique_ptr<Cursor> m_cursor;
};

// BEGIN ... COMMIT, rolled back by the destructor unless commit() succeeded.
//  - deferred: reads (and writes that need no lock up front).
//  - immediate: writes. SQLite takes its write lock up front (waiting under busy_timeout):
//    upgrading a read transaction to a write one under WAL can fail at once with SQLITE_BUSY.
//    PostgreSQL needs nothing more than BEGIN: rows, not the file, are locked.
//  - serialized: a read, then writes that depend on it (a migration, a regression's state), which
//    must not interleave with another process's. SQLite's write lock does that; on PostgreSQL the
//    transaction takes one advisory lock that every serialized transaction takes.
class Transaction {
public:
  enum class Kind : std::uint8_t { deferred, immediate, serialized };
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

} // namespace culprit::store::sql
