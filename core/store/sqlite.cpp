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

#include <sqlite3.h>

#include <fmt/core.h>

#include "core/util/error.hpp"

namespace culprit::sqlite {
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

} // namespace

std::string damaged_store_advice(const std::filesystem::path& file) {
  return fmt::format("the file is damaged or not a culprit store; move it away (mv {0} {0}.bad) "
                     "and culprit starts a new one",
                     file.string());
}

void Database::Closer::operator()(sqlite3* db) const {
  sqlite3_close_v2(db);
}
void Statement::Finalizer::operator()(sqlite3_stmt* statement) const {
  if (idle == nullptr) {
    sqlite3_finalize(statement);
    return;
  }
  sqlite3_reset(statement);
  sqlite3_clear_bindings(statement);
  idle->put(sql, statement);
}

Database::Idle::~Idle() {
  for (auto& [sql, statements] : m_statements)
    for (auto* statement : statements)
      sqlite3_finalize(statement);
}

sqlite3_stmt* Database::Idle::take(const std::string& sql) {
  const auto it = m_statements.find(sql);
  if (it == m_statements.end() || it->second.empty())
    return nullptr;
  auto* statement = it->second.back();
  it->second.pop_back();
  return statement;
}

void Database::Idle::put(const std::string& sql, sqlite3_stmt* statement) {
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

Result<Database> Database::open(const std::filesystem::path& file) {
  sqlite3* raw = nullptr;
  const int code =
      sqlite3_open_v2(file.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  Database db(std::unique_ptr<sqlite3, Closer>(raw), file);
  if (code != SQLITE_OK) {
    if (raw == nullptr)
      return infra_error("cannot open the results store {}: out of memory", file.string());
    return std::unexpected(db.error(code, "open"));
  }
  sqlite3_extended_result_codes(raw, 1);
  return db;
}

Error Database::error(int code, std::string_view doing) const {
  const char* message = m_db ? sqlite3_errmsg(m_db.get()) : sqlite3_errstr(code);
  return Error{.code = ExitCode::infrastructure,
               .message = fmt::format("results store {}: {} failed: {}; {}", m_file.string(), doing,
                                      message, advice(code, m_file))};
}

Status Database::execute(std::string_view sql) {
  const std::string text(sql);
  const int code = sqlite3_exec(m_db.get(), text.c_str(), nullptr, nullptr, nullptr);
  if (code != SQLITE_OK)
    return std::unexpected(error(code, "a statement"));
  return {};
}

Result<Statement> Database::prepare(std::string_view sql) {
  std::string text(sql);
  if (auto* idle = m_idle->take(text))
    return Statement(*this, idle, {.idle = m_idle.get(), .sql = std::move(text)});
  sqlite3_stmt* raw = nullptr;
  // The length is passed, so the text need not be terminated.
  // NOLINTNEXTLINE(bugprone-suspicious-stringview-data-usage)
  const int code = sqlite3_prepare_v2(m_db.get(), sql.data(), checked_size(sql), &raw, nullptr);
  if (code != SQLITE_OK) {
    sqlite3_finalize(raw);
    return std::unexpected(error(code, "preparing a statement"));
  }
  return Statement(*this, raw, {.idle = m_idle.get(), .sql = std::move(text)});
}

Result<std::int64_t> Database::pragma_integer(std::string_view pragma) {
  CULPRIT_TRY_ASSIGN(auto statement, prepare(fmt::format("PRAGMA {}", pragma)));
  CULPRIT_TRY_ASSIGN(const bool has_row, statement.step());
  if (!has_row)
    return infra_error("results store {}: PRAGMA {} returned nothing", m_file.string(), pragma);
  return statement.column_int64(0);
}

std::int64_t Database::last_insert_rowid() const {
  return sqlite3_last_insert_rowid(m_db.get());
}
int Database::changes() const {
  return sqlite3_changes(m_db.get());
}

void Statement::check_bind(int code) {
  if (code != SQLITE_OK && m_bind_error == 0)
    m_bind_error = code;
}

Statement& Statement::bind(int index, std::int64_t value) {
  check_bind(sqlite3_bind_int64(m_statement.get(), index, value));
  return *this;
}

Statement& Statement::bind(int index, double value) {
  check_bind(sqlite3_bind_double(m_statement.get(), index, value));
  return *this;
}

Statement& Statement::bind(int index, std::string_view text) {
  // An empty string_view may have a null data(); SQLite would bind that as NULL.
  const char* data = text.data() == nullptr ? "" : text.data();
  check_bind(
      sqlite3_bind_text(m_statement.get(), index, data, checked_size(text), SQLITE_TRANSIENT));
  return *this;
}

Statement& Statement::bind(int index, std::nullopt_t) {
  check_bind(sqlite3_bind_null(m_statement.get(), index));
  return *this;
}

Result<bool> Statement::step() {
  if (m_bind_error != 0)
    return std::unexpected(m_db->error(m_bind_error, "binding a value"));
  const int code = sqlite3_step(m_statement.get());
  if (code == SQLITE_ROW)
    return true;
  if (code == SQLITE_DONE)
    return false;
  return std::unexpected(m_db->error(code, "a statement"));
}

Status Statement::run() {
  for (;;) {
    CULPRIT_TRY_ASSIGN(const bool has_row, step());
    if (!has_row)
      return {};
  }
}

void Statement::reset() {
  sqlite3_reset(m_statement.get());
  m_bind_error = 0;
}

bool Statement::is_null(int column) const {
  return sqlite3_column_type(m_statement.get(), column) == SQLITE_NULL;
}

std::int64_t Statement::column_int64(int column) const {
  return sqlite3_column_int64(m_statement.get(), column);
}

double Statement::column_double(int column) const {
  return sqlite3_column_double(m_statement.get(), column);
}

std::string Statement::column_text(int column) const {
  return std::string(column_view(column));
}

std::string_view Statement::column_view(int column) const {
  const auto* text = sqlite3_column_text(m_statement.get(), column);
  const int size = sqlite3_column_bytes(m_statement.get(), column);
  if (text == nullptr)
    return {};
  return {reinterpret_cast<const char*>(text), static_cast<std::size_t>(size)};
}

std::optional<std::int64_t> Statement::column_optional_int64(int column) const {
  if (is_null(column))
    return std::nullopt;
  return column_int64(column);
}

std::optional<double> Statement::column_optional_double(int column) const {
  if (is_null(column))
    return std::nullopt;
  return column_double(column);
}

std::optional<std::string> Statement::column_optional_text(int column) const {
  if (is_null(column))
    return std::nullopt;
  return column_text(column);
}

Result<Transaction> Transaction::begin(Database& db, Kind kind) {
  CULPRIT_TRY(db.execute(kind == Kind::immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED"));
  return Transaction(db);
}

Status Transaction::commit() {
  if (m_db == nullptr)
    return infra_error("internal error: commit of a transaction that is no longer open");
  auto committed = m_db->execute("COMMIT");
  // A failed COMMIT (SQLITE_BUSY) leaves the transaction open; the destructor rolls it back.
  if (committed)
    m_db = nullptr;
  return committed;
}

Transaction::~Transaction() {
  if (m_db != nullptr)
    sqlite3_exec(m_db->handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

} // namespace culprit::sqlite
