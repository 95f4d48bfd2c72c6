#include "core/history/store_copy.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "core/history/ledger.hpp"
#include "core/store/sql.hpp"
#include "core/store/store.hpp"
#include "core/util/format.hpp"

namespace culprit::history {
namespace {

enum class Kind : std::uint8_t { integer, real, text };

struct Column {
  std::string_view name;
  Kind kind;
};

// A table copied row by row: its columns, the key a row is known by in the target (none: every
// column), and the order of the rows (the target keeps the source's order of insertion).
struct Table {
  std::string_view name;
  std::vector<Column> columns;
  std::vector<std::string_view> key;
  std::string_view order;
};

constexpr Kind I = Kind::integer;
constexpr Kind R = Kind::real;
constexpr Kind T = Kind::text;

std::vector<Table> store_tables() {
  return {
      {"hosts",
       {{"host_id", T}, {"fingerprint", T}, {"first_seen", I}, {"last_seen", I}},
       {"host_id"},
       "host_id"},
      {"case_work",
       {{"artifact_id", T},
        {"recipe_hash", T},
        {"case_name", T},
        {"flops", R},
        {"bytes", R},
        {"axes", T}},
       {"artifact_id", "recipe_hash", "case_name"},
       "artifact_id, recipe_hash, case_name"},
      {"devices",
       {{"artifact_id", T},
        {"recipe_hash", T},
        {"host_id", T},
        {"backend", T},
        {"name", T},
        {"gpu", T}},
       {"artifact_id", "recipe_hash", "host_id"},
       "artifact_id, recipe_hash, host_id"},
      {"peaks",
       {{"host_id", T},
        {"scope", T},
        {"device", T},
        {"flops_per_second", R},
        {"tensor_flops_per_second", R},
        {"bytes_per_second", R},
        {"source", T},
        {"measured", I}},
       {"host_id", "scope"},
       "host_id, scope"},
  };
}

std::vector<Table> ledger_tables() {
  return {
      {"tracked",
       {{"commit_id", T},
        {"host_id", T},
        {"recipe_hash", T},
        {"artifact_id", T},
        {"source", T},
        {"file", T},
        {"commit_time", I},
        {"tracked_at", I}},
       {"commit_id", "host_id", "recipe_hash"},
       "rowid"},
      {"sessions",
       {{"commit_id", T},
        {"host_id", T},
        {"recipe_hash", T},
        {"session", T},
        {"artifact_id", T},
        {"measured_at", I}},
       {"commit_id", "host_id", "recipe_hash", "session"},
       "rowid"},
      {"imports",
       {{"commit_id", T}, {"host_id", T}, {"content_hash", T}, {"file", T}, {"imported_at", I}},
       {"commit_id", "host_id", "content_hash"},
       "imported_at, commit_id, host_id, content_hash"},
      {"handled",
       {{"host_id", T},
        {"case_name", T},
        {"metric", T},
        {"before_id", T},
        {"after_id", T},
        {"outcome", T},
        {"culprit", T},
        {"handled_at", I}},
       {"host_id", "case_name", "metric", "before_id", "after_id"},
       "rowid"},
      {"regressions",
       {{"id", T},
        {"host_id", T},
        {"culprit", T},
        {"subject", T},
        {"author", T},
        {"state", T},
        {"cases", T},
        {"owners", T},
        {"evidence", T},
        {"first_seen", I},
        {"last_seen", I},
        {"fixed_by", T},
        {"range_before", T},
        {"range_after", T}},
       {"id"},
       "rowid"},
  };
}

// A regression's events, copied with their regression (copy_regressions), never apart.
const Table& event_table() {
  static const Table table = {
      "regression_events",
      {{"regression", T}, {"at", I}, {"state", T}, {"who", T}, {"note", T}, {"commit_id", T}},
      {},
      "at, rowid"};
  return table;
}

const std::vector<Column>& run_columns() {
  static const std::vector<Column> columns = {
      {"artifact_id", T}, {"build_key", T},   {"commit_id", T},    {"recipe_hash", T},
      {"host_id", T},     {"started", I},     {"wall_seconds", R}, {"user_seconds", R},
      {"sys_seconds", R}, {"max_rss_kib", I}, {"exit_code", I},    {"signal", I},
      {"timed_out", I},   {"status", T},      {"warmup", I},       {"gpu_throttled", I},
      {"message", T},     {"session", T},     {"block", T},        {"duet", I}};
  return columns;
}

const std::vector<Column>& sample_columns() {
  static const std::vector<Column> columns = {{"case_name", T}, {"metric", T}, {"unit", T},
                                              {"direction", T}, {"idx", I},    {"value", R}};
  return columns;
}

std::string names(const std::vector<Column>& columns) {
  std::vector<std::string_view> out;
  out.reserve(columns.size());
  for (const auto& column : columns)
    out.push_back(column.name);
  return fmt::format("{}", fmt::join(out, ", "));
}

std::string placeholders(std::size_t count, std::size_t first = 1) {
  std::vector<std::string> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i)
    out.push_back(fmt::format("?{}", first + i));
  return fmt::format("{}", fmt::join(out, ", "));
}

// Binds column `from_column` of the source row to parameter `to_parameter`, as its kind.
void bind_value(store::sql::Statement& to, int to_parameter, const store::sql::Statement& from,
                int from_column, Kind kind) {
  if (from.is_null(from_column)) {
    to.bind(to_parameter, std::nullopt);
    return;
  }
  switch (kind) {
  case Kind::integer:
    to.bind(to_parameter, from.column_int64(from_column));
    return;
  case Kind::real:
    to.bind(to_parameter, from.column_double(from_column));
    return;
  case Kind::text:
    to.bind(to_parameter, from.column_view(from_column));
    return;
  }
}

// A query that finds a row by its key: the condition, with parameters numbered from 1 (no gap:
// PostgreSQL types a parameter by where it is used), and the positions of the key's columns.
struct Match {
  std::string condition;
  std::vector<std::size_t> columns;
};

Match match(const std::vector<Column>& columns, const std::vector<std::string_view>& key) {
  Match out;
  std::vector<std::string> terms;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (!key.empty() && std::ranges::find(key, columns[i].name) == key.end())
      continue;
    out.columns.push_back(i);
    terms.push_back(fmt::format("{} = ?{}", columns[i].name, out.columns.size()));
  }
  out.condition = fmt::format("{}", fmt::join(terms, " AND "));
  return out;
}

// Binds the key's columns of the source row (its columns from `first_column` on).
void bind_key(store::sql::Statement& exists, const Match& key, const store::sql::Statement& row,
              const std::vector<Column>& columns, int first_column) {
  exists.reset();
  int parameter = 0;
  for (const auto i : key.columns)
    bind_value(exists, ++parameter, row, first_column + static_cast<int>(i), columns[i].kind);
}

// What copy_table also copies for each source row it reads, in its transaction; `present` says
// whether the target held that row already.
using CopyAlso = std::function<Status(const store::sql::Statement& row, bool present)>;

// Copies a table whose rows are known by their key: one transaction for the table, with what
// `also` copies for each row.
Status copy_table(store::sql::Database& from, store::sql::Database& to, const Table& table,
                  CopyCounts& counts, const CopyAlso& also = {}) {
  const auto columns = names(table.columns);
  CULPRIT_TRY_ASSIGN(auto read, from.prepare(fmt::format("SELECT {} FROM {} ORDER BY {}", columns,
                                                         table.name, table.order)));
  CULPRIT_TRY_ASSIGN(auto transaction, store::sql::Transaction::begin(to));
  const auto key = match(table.columns, table.key);
  CULPRIT_TRY_ASSIGN(
      auto exists, to.prepare(fmt::format("SELECT 1 FROM {} WHERE {}", table.name, key.condition)));
  CULPRIT_TRY_ASSIGN(auto insert,
                     to.prepare(fmt::format("INSERT INTO {} ({}) VALUES ({})", table.name, columns,
                                            placeholders(table.columns.size()))));
  for (;;) {
    CULPRIT_TRY_ASSIGN(const bool has_row, read.step());
    if (!has_row)
      break;
    bind_key(exists, key, read, table.columns, 0);
    insert.reset();
    for (std::size_t i = 0; i < table.columns.size(); ++i)
      bind_value(insert, static_cast<int>(i) + 1, read, static_cast<int>(i), table.columns[i].kind);
    CULPRIT_TRY_ASSIGN(const bool present, exists.step());
    if (present) {
      ++counts.rows_present;
    } else {
      CULPRIT_TRY(insert.run());
      ++counts.rows_copied;
    }
    if (also)
      CULPRIT_TRY(also(read, present));
  }
  return transaction.commit();
}

// The regressions, each with its events, in one transaction: a record the target did not hold
// comes over whole, and one it held keeps its own events (another history's grafted on would tell
// two stories of one record); the source's events of it count as there already.
Status copy_regressions(store::sql::Database& from, store::sql::Database& to, const Table& table,
                        CopyCounts& counts) {
  const auto& events = event_table();
  CULPRIT_TRY_ASSIGN(auto read_events,
                     from.prepare(fmt::format("SELECT {} FROM {} WHERE "
                                              "regression = ?1 ORDER BY {}",
                                              names(events.columns), events.name, events.order)));
  CULPRIT_TRY_ASSIGN(auto insert, to.prepare(fmt::format("INSERT INTO {} ({}) VALUES ({})",
                                                         events.name, names(events.columns),
                                                         placeholders(events.columns.size()))));
  const auto copy_events = [&](const store::sql::Statement& regression, bool present) -> Status {
    read_events.reset();
    read_events.bind(1, regression.column_view(0)); // id, the first column
    for (;;) {
      CULPRIT_TRY_ASSIGN(const bool has_row, read_events.step());
      if (!has_row)
        return {};
      if (present) {
        ++counts.rows_present;
        continue;
      }
      insert.reset();
      for (std::size_t i = 0; i < events.columns.size(); ++i)
        bind_value(insert, static_cast<int>(i) + 1, read_events, static_cast<int>(i),
                   events.columns[i].kind);
      CULPRIT_TRY(insert.run());
      ++counts.rows_copied;
    }
  };
  return copy_table(from, to, table, counts, copy_events);
}

// The runs, in batches of options.batch a transaction, each with its samples.
Status copy_runs(store::sql::Database& from, store::sql::Database& to, const CopyOptions& options,
                 CopyCounts& counts) {
  const auto& columns = run_columns();
  // A run is known by these (their positions in run_columns(), as parameters).
  const std::vector<std::string_view> identity = {"artifact_id", "build_key", "recipe_hash",
                                                  "host_id",     "started",   "wall_seconds"};
  const auto key = match(columns, identity);
  CULPRIT_TRY_ASSIGN(
      auto read, from.prepare(fmt::format("SELECT id, {} FROM runs ORDER BY id", names(columns))));
  CULPRIT_TRY_ASSIGN(auto read_samples,
                     from.prepare(fmt::format("SELECT {} FROM samples WHERE run_id = ?1 ORDER "
                                              "BY case_name, metric, idx",
                                              names(sample_columns()))));
  bool more = true;
  while (more) {
    CULPRIT_TRY_ASSIGN(auto transaction, store::sql::Transaction::begin(to));
    CULPRIT_TRY_ASSIGN(auto exists,
                       to.prepare(fmt::format("SELECT 1 FROM runs WHERE {}", key.condition)));
    CULPRIT_TRY_ASSIGN(auto insert,
                       to.prepare(fmt::format("INSERT INTO runs ({}) VALUES ({}) RETURNING id",
                                              names(columns), placeholders(columns.size()))));
    CULPRIT_TRY_ASSIGN(
        auto insert_sample,
        to.prepare(fmt::format("INSERT INTO samples (run_id, {}) VALUES (?1, {})",
                               names(sample_columns()), placeholders(sample_columns().size(), 2))));
    int in_batch = 0;
    while (in_batch < options.batch) {
      CULPRIT_TRY_ASSIGN(const bool has_row, read.step());
      if (!has_row) {
        more = false;
        break;
      }
      ++in_batch;
      bind_key(exists, key, read, columns, 1);
      insert.reset();
      for (std::size_t i = 0; i < columns.size(); ++i)
        bind_value(insert, static_cast<int>(i) + 1, read, static_cast<int>(i) + 1, columns[i].kind);
      CULPRIT_TRY_ASSIGN(const bool present, exists.step());
      if (present) {
        ++counts.runs_present;
        continue;
      }
      CULPRIT_TRY_ASSIGN(const bool inserted, insert.step());
      if (!inserted)
        return infra_error("results store {}: copying a run returned no id", to.name());
      const auto run_id = insert.column_int64(0);
      insert.reset();
      read_samples.reset();
      read_samples.bind(1, read.column_int64(0));
      for (;;) {
        CULPRIT_TRY_ASSIGN(const bool has_sample, read_samples.step());
        if (!has_sample)
          break;
        insert_sample.reset();
        insert_sample.bind(1, run_id);
        for (std::size_t i = 0; i < sample_columns().size(); ++i)
          bind_value(insert_sample, static_cast<int>(i) + 2, read_samples, static_cast<int>(i),
                     sample_columns()[i].kind);
        CULPRIT_TRY(insert_sample.run());
      }
      ++counts.runs_copied;
    }
    CULPRIT_TRY(transaction.commit());
    if (options.on_batch && !options.on_batch(counts))
      return fail(
          ExitCode::interrupted,
          fmt::format("interrupted after {}; the same command goes on from there",
                      counted(static_cast<std::size_t>(counts.runs_copied + counts.runs_present),
                              "run", "runs")));
  }
  return {};
}

bool same_place(const store::Location& a, const store::Location& b) {
  if (a.shared() || b.shared())
    return a.url == b.url;
  std::error_code error;
  return std::filesystem::equivalent(a.cache_dir, b.cache_dir, error);
}

} // namespace

Result<CopyCounts> copy_store(const store::Location& from, const store::Location& to,
                              const CopyOptions& options) {
  if (same_place(from, to))
    return usage_error("{} and {} are the same store; name two different ones", from.describe(),
                       to.describe());
  CULPRIT_TRY_ASSIGN(auto source, store::Store::open_at(from));
  CULPRIT_TRY_ASSIGN(auto source_ledger, Ledger::open_at(from));
  // Either part of the target may refuse (a newer culprit's, a damaged one): both are asked
  // before either is made, so that a refused copy leaves the target as it was.
  CULPRIT_TRY(store::Store::check_at(to));
  CULPRIT_TRY(Ledger::check_at(to));
  CULPRIT_TRY_ASSIGN(auto target, store::Store::open_at(to));
  CULPRIT_TRY_ASSIGN(auto target_ledger, Ledger::open_at(to));
  CopyCounts counts;
  // Hosts first: a run names its host.
  for (const auto& table : store_tables())
    CULPRIT_TRY(copy_table(source.database(), target.database(), table, counts));
  CULPRIT_TRY(copy_runs(source.database(), target.database(), options, counts));
  for (const auto& table : ledger_tables())
    CULPRIT_TRY(
        table.name == "regressions"
            ? copy_regressions(source_ledger.database(), target_ledger.database(), table, counts)
            : copy_table(source_ledger.database(), target_ledger.database(), table, counts));
  return counts;
}

std::string copy_summary(const CopyCounts& counts, std::string_view from, std::string_view to) {
  const auto count = [](std::int64_t n, std::string_view one, std::string_view many) {
    return counted(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)), one, many);
  };
  return fmt::format("copied {} and {} from {} to {} ({} and {} {} there already)",
                     count(counts.runs_copied, "run", "runs"),
                     count(counts.rows_copied, "other row", "other rows"), from, to,
                     count(counts.runs_present, "run", "runs"),
                     count(counts.rows_present, "row", "rows"),
                     counts.runs_present + counts.rows_present == 1 ? "was" : "were");
}

} // namespace culprit::history
