// Runs and samples: recording a run atomically, and the queries of the measurement loop.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "core/parsers/metric.hpp"
#include "core/store/records.hpp"
#include "core/store/sql.hpp"
#include "core/store/store.hpp"
#include "core/store/store_detail.hpp"
#include "core/util/error.hpp"

namespace culprit::store {
namespace {

// The SQL condition that selects runs (aliased r) by freshness, with its parameters numbered
// from `first`.
std::string freshness_clause(const Freshness& freshness, int first) {
  std::string clause;
  if (freshness.started_after)
    clause += fmt::format(" AND r.started >= ?{}", first++);
  if (freshness.session)
    clause += fmt::format(" AND r.session = ?{}", first);
  if (freshness.unlabeled)
    clause += " AND r.session IS NULL";
  return clause;
}

// How many parameters freshness_clause uses.
int freshness_parameters(const Freshness& freshness) {
  return (freshness.started_after ? 1 : 0) + (freshness.session ? 1 : 0);
}

void bind_freshness(sql::Statement& statement, const Freshness& freshness, int first) {
  if (freshness.started_after)
    statement.bind(first++, to_micros(*freshness.started_after));
  if (freshness.session)
    statement.bind(first, *freshness.session);
}

// Prepares `sql`, whose "{}" stands for the condition that selects the measurement's runs
// (aliased r; parameters ?1 to ?3) and their freshness (parameters from `first_free` on), and
// binds those.
Result<sql::Statement> measurement_query(sql::Database& db, std::string_view sql,
                                         const MeasurementKey& key, const Freshness& freshness,
                                         int first_free) {
  const auto condition =
      fmt::format("r.artifact_id = ?1 AND r.recipe_hash = ?2 AND r.host_id = ?3{}",
                  freshness_clause(freshness, first_free));
  CULPRIT_TRY_ASSIGN(auto query, db.prepare(fmt::format(fmt::runtime(sql), condition)));
  query.bind_all(key.artifact_id, key.recipe_hash, key.host_id);
  bind_freshness(query, freshness, first_free);
  return query;
}

parsers::Direction read_direction(const sql::Statement& row, int column) {
  return parsers::parse_direction(row.column_text(column))
      .value_or(parsers::Direction::lower_is_better);
}

Status check_samples(const RunRecord& run) {
  for (const auto& samples : run.samples) {
    if (samples.case_name.empty() || samples.metric.empty())
      return infra_error("internal error: a run of artifact {} has a sample without a case or "
                         "metric name; it was not recorded",
                         run.artifact_id);
    for (const double value : samples.values)
      if (!std::isfinite(value))
        return infra_error("internal error: case {} metric {} has a non-finite sample {}; the "
                           "run was not recorded",
                           samples.case_name, samples.metric, value);
  }
  return {};
}

constexpr std::string_view k_run_columns =
    "r.id, r.artifact_id, r.build_key, r.commit_id, r.recipe_hash, r.host_id, r.started, "
    "r.wall_seconds, r.user_seconds, r.sys_seconds, r.max_rss_kib, r.exit_code, r.signal, "
    "r.timed_out, r.status, r.warmup, r.gpu_throttled, r.message, r.session, r.block, r.duet";

RunRecord read_run(const sql::Statement& row) {
  RunRecord run;
  run.id = row.column_int64(0);
  run.artifact_id = row.column_text(1);
  run.build_key = row.column_text(2);
  run.commit_id = row.column_text(3);
  run.recipe_hash = row.column_text(4);
  run.host_id = row.column_text(5);
  run.started = from_micros(row.column_int64(6));
  run.wall_seconds = row.column_double(7);
  run.user_seconds = row.column_double(8);
  run.sys_seconds = row.column_double(9);
  run.max_rss_kib = row.column_optional_int64(10);
  const auto to_int = [](std::optional<std::int64_t> value) -> std::optional<int> {
    if (!value)
      return std::nullopt;
    return static_cast<int>(*value);
  };
  run.exit_code = to_int(row.column_optional_int64(11));
  run.signal = to_int(row.column_optional_int64(12));
  run.timed_out = row.column_bool(13);
  run.status = parse_run_status(row.column_text(14)).value_or(RunStatus::failed);
  run.warmup = row.column_bool(15);
  run.gpu_throttled = row.column_bool(16);
  run.message = row.column_text(17);
  run.session = row.column_optional_text(18);
  run.block = row.column_optional_text(19);
  run.duet = row.column_bool(20);
  return run;
}

// The INSERT of `rows` samples in one statement: a run's samples go in a few statements rather
// than one each, which a server across a network answers in as many round trips.
std::string insert_samples_sql(std::size_t rows) {
  std::string sql =
      "INSERT INTO samples (run_id, case_name, metric, unit, direction, idx, value) VALUES ";
  for (std::size_t row = 0; row < rows; ++row)
    sql +=
        fmt::format("{}(?{}, ?{}, ?{}, ?{}, ?{}, ?{}, ?{})", row == 0 ? "" : ", ", 7 * row + 1,
                    7 * row + 2, 7 * row + 3, 7 * row + 4, 7 * row + 5, 7 * row + 6, 7 * row + 7);
  return sql;
}

Status insert_samples(sql::Database& db, const RunRecord& run, std::int64_t run_id) {
  struct Row {
    const parsers::CaseSamples* samples;
    std::int64_t index;
    double value;
  };
  std::vector<Row> rows;
  // A case and metric reported in two pieces continues its index rather than colliding.
  std::map<std::pair<std::string_view, std::string_view>, std::int64_t> next_index;
  for (const auto& samples : run.samples) {
    auto& index = next_index[{samples.case_name, samples.metric}];
    for (const double value : samples.values)
      rows.push_back({&samples, index++, value});
  }
  // 64 rows of 7 parameters: well within SQLite's limit on parameters (32766).
  constexpr std::size_t k_rows = 64;
  for (std::size_t first = 0; first < rows.size(); first += k_rows) {
    const auto count = std::min(k_rows, rows.size() - first);
    CULPRIT_TRY_ASSIGN(auto insert, db.prepare(insert_samples_sql(count)));
    for (std::size_t i = 0; i < count; ++i) {
      const auto& row = rows[first + i];
      const auto at = static_cast<int>(7 * i);
      insert.bind(at + 1, run_id);
      insert.bind(at + 2, row.samples->case_name);
      insert.bind(at + 3, row.samples->metric);
      insert.bind(at + 4, row.samples->unit);
      insert.bind(at + 5, to_string(row.samples->direction));
      insert.bind(at + 6, row.index);
      insert.bind(at + 7, row.value);
    }
    CULPRIT_TRY(insert.run());
  }
  return {};
}

// The statement is finalized on return: one left on a row would hold a read snapshot open past
// the commit and keep the WAL from being checkpointed.
Status check_host_known(sql::Database& db, const RunRecord& run) {
  CULPRIT_TRY_ASSIGN(auto host, db.prepare("SELECT 1 FROM hosts WHERE host_id = ?1"));
  host.bind(1, run.host_id);
  CULPRIT_TRY_ASSIGN(const bool host_known, host.step());
  if (!host_known)
    return infra_error("internal error: run of artifact {} names host {}, which is not recorded; "
                       "record the host first",
                       run.artifact_id, run.host_id);
  return {};
}

} // namespace

namespace {

Result<std::int64_t> insert_run(sql::Database& db, const RunRecord& run) {
  CULPRIT_TRY(check_host_known(db, run));
  CULPRIT_TRY_ASSIGN(
      auto insert,
      db.prepare("INSERT INTO runs (artifact_id, build_key, commit_id, recipe_hash, host_id, "
                 "started, wall_seconds, user_seconds, sys_seconds, max_rss_kib, exit_code, "
                 "signal, timed_out, status, warmup, gpu_throttled, message, session, block, duet) "
                 "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
                 "?17, ?18, ?19, ?20) RETURNING id"));
  insert.bind_all(run.artifact_id, run.build_key, run.commit_id, run.recipe_hash, run.host_id,
                  to_micros(run.started), run.wall_seconds, run.user_seconds, run.sys_seconds,
                  run.max_rss_kib, run.exit_code, run.signal, run.timed_out, to_string(run.status),
                  run.warmup, run.gpu_throttled, run.message, run.session, run.block, run.duet);
  CULPRIT_TRY_ASSIGN(const bool inserted, insert.step());
  if (!inserted)
    return infra_error("results store {}: recording a run returned no id", db.name());
  const auto run_id = insert.column_int64(0);
  insert.reset();
  CULPRIT_TRY(insert_samples(db, run, run_id));
  if (run.status == RunStatus::ok)
    CULPRIT_TRY(record_work(db, run));
  return run_id;
}

} // namespace

Result<std::int64_t> Store::record_run(const RunRecord& run) {
  CULPRIT_TRY(check_samples(run));
  CULPRIT_TRY_ASSIGN(auto transaction, sql::Transaction::begin(m_db));
  CULPRIT_TRY_ASSIGN(const auto run_id, insert_run(m_db, run));
  CULPRIT_TRY(transaction.commit());
  return run_id;
}

Result<std::vector<std::int64_t>> Store::record_runs(std::span<const RunRecord> runs) {
  for (const auto& run : runs)
    CULPRIT_TRY(check_samples(run));
  CULPRIT_TRY_ASSIGN(auto transaction, sql::Transaction::begin(m_db));
  std::vector<std::int64_t> ids;
  ids.reserve(runs.size());
  for (const auto& run : runs) {
    CULPRIT_TRY_ASSIGN(const auto run_id, insert_run(m_db, run));
    ids.push_back(run_id);
  }
  CULPRIT_TRY(transaction.commit());
  return ids;
}

namespace {

// Entries (with case_name and metric) kept sorted by case and metric as the rows of several runs
// come by, each run's rows in that order: a cursor moves forward through the entries and goes
// back to the start for the next run, so a run of rows in order costs one comparison a row.
template <class Entry> class SortedMerge {
public:
  explicit SortedMerge(std::vector<Entry>& entries) : m_entries(entries) {}
  void restart() { m_cursor = 0; }
  // The entry of (case_name, metric), made by `make` when there is none; true when it was made.
  template <class Make>
  std::pair<Entry&, bool> find(std::string_view case_name, std::string_view metric,
                               const Make& make) {
    const auto before = [&](const Entry& entry) {
      return std::tie(entry.case_name, entry.metric) < std::tie(case_name, metric);
    };
    if (m_cursor > 0 && !before(m_entries[m_cursor - 1]))
      m_cursor = 0; // out of order: look from the start
    while (m_cursor < m_entries.size() && before(m_entries[m_cursor]))
      ++m_cursor;
    const bool found = m_cursor < m_entries.size() && m_entries[m_cursor].case_name == case_name &&
                       m_entries[m_cursor].metric == metric;
    if (!found)
      m_entries.insert(m_entries.begin() + static_cast<std::ptrdiff_t>(m_cursor), make());
    return {m_entries[m_cursor], !found};
  }

private:
  std::vector<Entry>& m_entries;
  std::size_t m_cursor = 0;
};

// Adds the sample of one row (run id, value, unit, direction, block, duet from `first` on) to the
// runs of its case and metric.
Status add_counted_sample(const sql::Statement& query, int first, CaseRuns& runs,
                          std::string_view store_name, std::string_view case_name,
                          std::string_view metric, std::string_view artifact_id) {
  const auto run_id = query.column_int64(first);
  if (runs.run_ids.empty()) {
    runs.unit = query.column_text(first + 2);
    runs.direction = read_direction(query, first + 3);
  } else if (query.column_text(first + 2) != runs.unit) {
    return infra_error("results store {}: case {} metric {} of artifact {} was stored in two "
                       "units ({} and {}); measure it afresh with --fresh",
                       store_name, case_name, metric, artifact_id, runs.unit,
                       query.column_text(first + 2));
  }
  if (runs.run_ids.empty() || runs.run_ids.back() != run_id) {
    runs.run_ids.push_back(run_id);
    runs.blocks.push_back(query.column_optional_text(first + 4));
    runs.duets.push_back(query.column_bool(first + 5));
    runs.samples.emplace_back();
  }
  runs.samples.back().push_back(query.column_double(first + 1));
  return {};
}

} // namespace

Result<CaseRuns> Store::counted_runs(const MeasurementKey& key, std::string_view case_name,
                                     std::string_view metric, const Freshness& freshness) {
  CULPRIT_TRY_ASSIGN(auto query,
                     measurement_query(m_db,
                                       "SELECT r.id, s.value, s.unit, s.direction, r.block, r.duet "
                                       "FROM runs r JOIN "
                                       "samples s ON s.run_id = r.id WHERE {} AND r.status = 'ok' "
                                       "AND r.warmup = 0 AND s.case_name = ?4 AND s.metric = ?5 "
                                       "ORDER BY r.started, r.id, s.idx",
                                       key, freshness, 6));
  query.bind(4, case_name).bind(5, metric);
  CaseRuns result;
  for (;;) {
    CULPRIT_TRY_ASSIGN(const bool has_row, query.step());
    if (!has_row)
      return result;
    CULPRIT_TRY(add_counted_sample(query, 0, result, name(), case_name, metric, key.artifact_id));
  }
}

Result<std::vector<CaseMetricRuns>> Store::counted_runs_between(const MeasurementKey& key,
                                                                std::string_view first_case,
                                                                std::string_view last_case,
                                                                const Freshness& freshness) {
  // In the order of the runs, then of the samples' key within each run: both come from indexes,
  // so SQLite sorts nothing.
  CULPRIT_TRY_ASSIGN(
      auto query,
      measurement_query(m_db,
                        "SELECT s.case_name, s.metric, r.id, s.value, s.unit, s.direction, "
                        "r.block, r.duet FROM runs r JOIN samples s ON s.run_id = r.id WHERE {} "
                        "AND r.status = 'ok' AND r.warmup = 0 AND s.case_name BETWEEN ?4 AND ?5 "
                        "ORDER BY r.started, r.id, s.case_name, s.metric, s.idx",
                        key, freshness, 6));
  query.bind(4, first_case).bind(5, last_case);
  std::vector<CaseMetricRuns> result;
  SortedMerge<CaseMetricRuns> merge(result);
  std::int64_t run = -1;
  for (;;) {
    CULPRIT_TRY_ASSIGN(const bool has_row, query.step());
    if (!has_row)
      return result;
    if (query.column_int64(2) != run) {
      run = query.column_int64(2);
      merge.restart();
    }
    const auto case_name = query.column_view(0);
    const auto metric = query.column_view(1);
    auto& entry = merge
                      .find(case_name, metric,
                            [&] {
                              return CaseMetricRuns{.case_name = std::string(case_name),
                                                    .metric = std::string(metric),
                                                    .runs = {}};
                            })
                      .first;
    CULPRIT_TRY(add_counted_sample(query, 2, entry.runs, name(), entry.case_name, entry.metric,
                                   key.artifact_id));
  }
}

Result<std::vector<CaseMetric>> Store::measured_cases(const MeasurementKey& key,
                                                      const Freshness& freshness,
                                                      std::span<const std::string> only) {
  // The names travel as one JSON array, in the parameter after the freshness clause's (a gap in
  // the numbers would leave PostgreSQL a parameter of no type).
  const int names = 4 + freshness_parameters(freshness);
  const auto names_table = m_db.dialect() == sql::Dialect::sqlite
                               ? fmt::format("SELECT value FROM json_each(?{})", names)
                               : fmt::format("SELECT json_array_elements_text(?{}::json)", names);
  const auto only_sql = fmt::format(
      "SELECT s.case_name, s.metric, min(s.unit), min(s.direction) FROM runs r JOIN samples s ON "
      "s.run_id = r.id WHERE {{}} AND r.status = 'ok' AND r.warmup = 0 AND s.case_name IN ({}) "
      "GROUP BY s.case_name, s.metric ORDER BY s.case_name, s.metric",
      names_table);
  CULPRIT_TRY_ASSIGN(
      auto query,
      measurement_query(m_db,
                        only.empty()
                            ? "SELECT s.case_name, s.metric, s.unit, s.direction FROM runs r "
                              "JOIN samples s ON s.run_id = r.id WHERE {} AND r.status = 'ok' "
                              "AND r.warmup = 0 ORDER BY r.started, r.id, s.case_name, s.metric"
                            : std::string_view(only_sql),
                        key, freshness, 4));
  if (!only.empty())
    query.bind(names, nlohmann::json(std::vector<std::string>(only.begin(), only.end())).dump());
  std::vector<CaseMetric> cases;
  if (!only.empty()) {
    for (;;) {
      CULPRIT_TRY_ASSIGN(const bool has_row, query.step());
      if (!has_row)
        return cases;
      cases.push_back({query.column_text(0), query.column_text(1), query.column_text(2),
                       read_direction(query, 3)});
    }
  }
  // Every sample comes by, in the order of the samples' key within each run (no sort in SQLite,
  // which a grouping needs: ten times slower with thousands of cases); each case and metric is
  // kept once, with the least unit and direction as the grouping gave them.
  SortedMerge<CaseMetric> merge(cases);
  for (;;) {
    CULPRIT_TRY_ASSIGN(const bool has_row, query.step());
    if (!has_row)
      return cases;
    const auto case_name = query.column_view(0);
    const auto metric = query.column_view(1);
    const auto unit = query.column_view(2);
    const auto direction = query.column_view(3);
    auto [entry, inserted] = merge.find(case_name, metric, [&] {
      return CaseMetric{std::string(case_name), std::string(metric), std::string(unit),
                        read_direction(query, 3)};
    });
    if (!inserted && unit < entry.unit)
      entry.unit = unit;
    if (!inserted && direction < to_string(entry.direction))
      entry.direction = read_direction(query, 3);
  }
}

Result<RunCounts> Store::count_runs(const MeasurementKey& key, const Freshness& freshness) {
  CULPRIT_TRY_ASSIGN(auto query,
                     measurement_query(m_db,
                                       "SELECT coalesce(sum(CASE WHEN r.status = 'ok' AND "
                                       "r.warmup = 0 THEN 1 ELSE 0 END), 0), coalesce(sum(CASE "
                                       "WHEN r.warmup = 1 THEN 1 ELSE 0 END), 0), coalesce(sum("
                                       "CASE WHEN r.status != 'ok' AND r.warmup = 0 THEN 1 ELSE "
                                       "0 END), 0) FROM runs r WHERE {}",
                                       key, freshness, 4));
  CULPRIT_TRY(query.step());
  return RunCounts{.counted = query.column_int64(0),
                   .warmup = query.column_int64(1),
                   .failed = query.column_int64(2)};
}

Result<std::vector<std::string>> Store::counted_blocks(const MeasurementKey& key,
                                                       const Freshness& freshness) {
  CULPRIT_TRY_ASSIGN(auto query,
                     measurement_query(m_db,
                                       "SELECT r.block FROM runs r WHERE {} AND r.status = 'ok' "
                                       "AND r.warmup = 0 AND r.block IS NOT NULL GROUP BY r.block "
                                       "ORDER BY min(r.started), min(r.id)",
                                       key, freshness, 4));
  std::vector<std::string> blocks;
  for (;;) {
    CULPRIT_TRY_ASSIGN(const bool has_row, query.step());
    if (!has_row)
      return blocks;
    blocks.push_back(query.column_text(0));
  }
}

Result<std::vector<RunRecord>> Store::load_runs(std::string_view artifact_id,
                                                const Freshness& freshness) {
  const auto condition = fmt::format("r.artifact_id = ?1{}", freshness_clause(freshness, 2));
  CULPRIT_TRY_ASSIGN(auto runs_query,
                     m_db.prepare(fmt::format("SELECT {} FROM runs r WHERE {} ORDER BY "
                                              "r.started, r.id",
                                              k_run_columns, condition)));
  runs_query.bind(1, artifact_id);
  bind_freshness(runs_query, freshness, 2);
  std::vector<RunRecord> runs;
  std::unordered_map<std::int64_t, std::size_t> position;
  for (;;) {
    CULPRIT_TRY_ASSIGN(const bool has_row, runs_query.step());
    if (!has_row)
      break;
    runs.push_back(read_run(runs_query));
    position.emplace(runs.back().id, runs.size() - 1);
  }

  CULPRIT_TRY_ASSIGN(auto samples_query,
                     m_db.prepare(fmt::format(
                         "SELECT s.run_id, s.case_name, s.metric, s.unit, s.direction, s.value "
                         "FROM samples s JOIN runs r ON r.id = s.run_id WHERE {} ORDER BY "
                         "s.run_id, s.case_name, s.metric, s.idx",
                         condition)));
  samples_query.bind(1, artifact_id);
  bind_freshness(samples_query, freshness, 2);
  for (;;) {
    CULPRIT_TRY_ASSIGN(const bool has_row, samples_query.step());
    if (!has_row)
      return runs;
    const auto found = position.find(samples_query.column_int64(0));
    if (found == position.end())
      continue; // recorded after the runs were read
    auto& run_samples = runs[found->second].samples;
    auto case_name = samples_query.column_text(1);
    auto metric = samples_query.column_text(2);
    if (run_samples.empty() || run_samples.back().case_name != case_name ||
        run_samples.back().metric != metric)
      run_samples.push_back({std::move(case_name),
                             std::move(metric),
                             samples_query.column_text(3),
                             read_direction(samples_query, 4),
                             {}});
    run_samples.back().values.push_back(samples_query.column_double(5));
  }
}

} // namespace culprit::store
