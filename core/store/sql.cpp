// What the two backends of core/store/sql.hpp share: statements' conveniences and transactions.
#include "core/store/sql.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/core.h>

#include "core/util/error.hpp"
#include "core/util/escape.hpp"

namespace culprit::store::sql {
namespace {

// The advisory lock every serialized transaction on PostgreSQL takes ("CULP").
constexpr std::int64_t k_serialized_lock = 0x43554c50;

} // namespace

std::optional<std::string> stored_text(std::string_view text) {
  if (std::ranges::all_of(text, [](char c) { return c != '\0' && (c & 0x80) == 0; }))
    return std::nullopt;
  auto valid = valid_utf8(text);
  for (std::size_t at = valid.find('\0'); at != std::string::npos; at = valid.find('\0', at))
    valid.replace(at, 1, "\xEF\xBF\xBD");
  if (valid == text)
    return std::nullopt;
  return valid;
}

Result<Statement> Database::prepare(std::string_view sql) {
  CULPRIT_TRY_ASSIGN(auto cursor, m_connection->prepare(sql));
  return Statement(std::move(cursor));
}

Result<std::int64_t> Database::pragma_integer(std::string_view pragma) {
  if (dialect() != Dialect::sqlite)
    return infra_error("internal error: PRAGMA {} asked of the PostgreSQL store {}", pragma,
                       name());
  CULPRIT_TRY_ASSIGN(auto statement, prepare(fmt::format("PRAGMA {}", pragma)));
  CULPRIT_TRY_ASSIGN(const bool has_row, statement.step());
  if (!has_row)
    return infra_error("results store {}: PRAGMA {} returned nothing", name(), pragma);
  return statement.column_int64(0);
}

Status Statement::run() {
  for (;;) {
    CULPRIT_TRY_ASSIGN(const bool has_row, step());
    if (!has_row)
      return {};
  }
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
  if (db.dialect() == Dialect::sqlite) {
    CULPRIT_TRY(db.execute(kind == Kind::deferred ? "BEGIN DEFERRED" : "BEGIN IMMEDIATE"));
    return Transaction(db);
  }
  CULPRIT_TRY(db.execute("BEGIN"));
  Transaction transaction(db);
  if (kind == Kind::serialized)
    CULPRIT_TRY(db.execute(fmt::format("SELECT pg_advisory_xact_lock({})", k_serialized_lock)));
  return transaction;
}

Status Transaction::commit() {
  if (m_db == nullptr)
    return infra_error("internal error: commit of a transaction that is no longer open");
  auto committed = m_db->execute("COMMIT");
  // A failed COMMIT (SQLITE_BUSY, a serialization failure) leaves the transaction open; the
  // destructor rolls it back.
  if (committed)
    m_db = nullptr;
  return committed;
}

Transaction::~Transaction() {
  if (m_db != nullptr)
    m_db->connection().rollback();
}

} // namespace culprit::store::sql
