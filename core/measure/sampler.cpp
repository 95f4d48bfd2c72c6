#include "core/measure/sampler.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <random>
#include <set>

#include <fmt/format.h>

#include "core/git/hash.hpp"
#include "core/measure/instrument.hpp"
#include "core/parsers/ncu_csv.hpp"
#include "core/parsers/output_format.hpp"
#include "core/parsers/perf_stat.hpp"
#include "core/recipe/command_template.hpp"
#include "core/util/escape.hpp"
#include "core/util/fs.hpp"
#include "core/util/interrupt.hpp"

namespace culprit::measure {
namespace {

store::RunStatus status_of(const exec::ExecResult& result) {
  if (result.timed_out)
    return store::RunStatus::timeout;
  if (!result.succeeded())
    return store::RunStatus::failed;
  return store::RunStatus::ok;
}

// Unique to one sampler: block ids never collide across processes or samplers of one process.
std::string block_prefix() {
  static std::atomic<std::uint64_t> counter{0};
  std::random_device device;
  return fmt::format("{:08x}{:08x}{:x}", device(), device(), counter++);
}

} // namespace

Sampler::Sampler(exec::Executor& executor, store::Store& store, SamplerOptions options)
    : m_executor(executor), m_store(store), m_options(std::move(options)),
      m_started(std::chrono::steady_clock::now()), m_block_prefix(block_prefix()) {}

bool Sampler::budget_exhausted() const {
  if (!m_options.budget)
    return false;
  return std::chrono::steady_clock::now() - m_started >= *m_options.budget;
}

store::MeasurementKey Sampler::key_of(const Subject& subject) const {
  return {subject.artifact_id, m_options.recipe_hash, m_options.host_id};
}

Result<std::size_t> Sampler::counted_runs(const Subject& subject) {
  CULPRIT_TRY_ASSIGN(const auto counts, m_store.count_runs(key_of(subject), m_options.freshness));
  return static_cast<std::size_t>(counts.counted);
}

Result<store::CaseRuns> Sampler::runs(const Subject& subject, const CaseKey& key,
                                      std::size_t first_n) {
  CULPRIT_TRY_ASSIGN(auto runs, m_store.counted_runs(key_of(subject), key.case_name, key.metric,
                                                     m_options.freshness));
  if (first_n > 0 && runs.samples.size() > first_n) {
    runs.samples.resize(first_n);
    runs.run_ids.resize(first_n);
  }
  return runs;
}

Result<std::vector<store::CaseMetric>> Sampler::cases(const Subject& subject) {
  return m_store.measured_cases(key_of(subject), m_options.freshness);
}

std::string Sampler::next_block_id() {
  return fmt::format("{}-{}", m_block_prefix, m_blocks++);
}

std::vector<const Subject*> Sampler::shuffled(std::vector<const Subject*> subjects) {
  std::mt19937_64 rng(std::hash<std::string>{}(
      git::Hasher().add(std::to_string(m_options.seed)).add(std::to_string(m_rounds++)).hex()));
  std::shuffle(subjects.begin(), subjects.end(), rng);
  return subjects;
}

std::vector<std::string> Sampler::output_warnings() const {
  auto warnings = m_output_warnings;
  if (m_output_warnings_left_out > 0)
    warnings.push_back(fmt::format("the benchmark's output said {} more things not listed here",
                                   m_output_warnings_left_out));
  return warnings;
}

bool Sampler::can_duet() const {
  return !m_options.duet_cpus[0].empty() && !m_options.duet_cpus[1].empty() &&
         !m_executor.ships_batches();
}

Status Sampler::count_failure(const Subject& subject, store::RunStatus status) {
  auto& failures = m_failures_in_a_row[subject.artifact_id];
  if (status == store::RunStatus::ok) {
    failures = 0;
    return {};
  }
  if (++failures >= k_max_failures_in_a_row)
    return infra_error("{} runs of {} in a row failed; the last: {}", k_max_failures_in_a_row,
                       subject.commit.substr(0, 12), m_last_message);
  return {};
}

Result<std::optional<std::vector<store::RunStatus>>>
Sampler::run_round(const std::vector<const Subject*>& subjects, bool duet) {
  const std::string block = next_block_id();
  for (const auto* subject : subjects) {
    if (m_warmed[subject->artifact_id])
      continue;
    for (int i = 0; i < m_options.warmup; ++i) {
      if (budget_exhausted())
        return std::nullopt;
      CULPRIT_TRY(run_once(*subject, true));
    }
    m_warmed[subject->artifact_id] = true;
  }
  if (duet && subjects.size() == 2 && can_duet()) {
    if (budget_exhausted())
      return std::nullopt;
    return run_duet(*subjects[0], *subjects[1], block);
  }
  std::vector<store::RunStatus> statuses;
  for (const auto* subject : subjects) {
    if (budget_exhausted())
      return std::nullopt;
    CULPRIT_TRY_ASSIGN(const auto status, run_once(*subject, false, block));
    statuses.push_back(status);
  }
  return statuses;
}

Result<bool> Sampler::ensure(std::span<const RunsWanted> wants) {
  if (m_executor.ships_batches())
    return ensure_batched(wants);
  std::vector<std::pair<const Subject*, std::size_t>> needs; // subject, runs missing
  for (const auto& want : wants) {
    CULPRIT_TRY_ASSIGN(const auto have, counted_runs(*want.subject));
    if (have < want.runs)
      needs.emplace_back(want.subject, want.runs - have);
  }
  while (!needs.empty()) {
    std::vector<const Subject*> round;
    round.reserve(needs.size());
    for (const auto& need : needs)
      round.push_back(need.first);
    round = shuffled(std::move(round));
    CULPRIT_TRY_ASSIGN(const auto statuses, run_round(round, false));
    if (!statuses)
      return false;
    for (std::size_t i = 0; i < round.size(); ++i) {
      if ((*statuses)[i] != store::RunStatus::ok)
        continue;
      for (auto& need : needs)
        if (need.first == round[i])
          --need.second;
    }
    std::erase_if(needs, [](const auto& need) { return need.second == 0; });
  }
  return true;
}

Result<bool> Sampler::ensure_blocks(const BlocksWanted& want) {
  if (m_executor.ships_batches())
    return ensure_blocks_batched(want);
  CULPRIT_TRY_ASSIGN(std::size_t have, complete_blocks(want.group));
  while (have < want.blocks) {
    CULPRIT_TRY_ASSIGN(const auto statuses, run_round(shuffled(want.group), want.duet));
    if (!statuses)
      return false;
    if (std::ranges::all_of(*statuses,
                            [](store::RunStatus status) { return status == store::RunStatus::ok; }))
      ++have;
  }
  return true;
}

Result<std::size_t> Sampler::complete_blocks(std::span<const Subject* const> group) {
  std::optional<std::vector<std::string>> common;
  std::set<std::string> artifacts;
  for (const auto* subject : group) {
    if (!artifacts.insert(subject->artifact_id).second)
      return infra_error("internal error: two subjects of one block share artifacts {}",
                         subject->artifact_id.substr(0, 12));
    CULPRIT_TRY_ASSIGN(auto blocks, m_store.counted_blocks(key_of(*subject), m_options.freshness));
    if (!common) {
      common = std::move(blocks);
      continue;
    }
    const std::set<std::string> these(blocks.begin(), blocks.end());
    std::erase_if(*common, [&](const std::string& block) { return !these.contains(block); });
  }
  return common ? common->size() : 0;
}

Result<BlockRuns> Sampler::block_runs(std::span<const Subject* const> group, const CaseKey& key,
                                      std::size_t first_n) {
  BlockRuns result;
  if (group.empty())
    return result;
  std::vector<store::CaseRuns> sides;
  std::vector<std::map<std::string, std::size_t>> index(group.size()); // block -> run index
  for (std::size_t s = 0; s < group.size(); ++s) {
    CULPRIT_TRY_ASSIGN(auto runs, m_store.counted_runs(key_of(*group[s]), key.case_name, key.metric,
                                                       m_options.freshness));
    for (std::size_t i = 0; i < runs.blocks.size(); ++i)
      if (runs.blocks[i])
        index[s].emplace(*runs.blocks[i], i); // the first run of a block, should there be two
    sides.push_back(std::move(runs));
  }
  result.runs.resize(group.size());
  for (std::size_t i = 0; i < sides[0].blocks.size(); ++i) {
    if (first_n > 0 && result.blocks.size() >= first_n)
      break;
    const auto& block = sides[0].blocks[i];
    if (!block || index[0].at(*block) != i)
      continue;
    bool complete = true;
    for (std::size_t s = 1; s < group.size() && complete; ++s)
      complete = index[s].contains(*block);
    if (!complete)
      continue;
    result.blocks.push_back(*block);
    result.duets.push_back(sides[0].duets[i]);
    for (std::size_t s = 0; s < group.size(); ++s)
      result.runs[s].push_back(sides[s].samples[index[s].at(*block)]);
  }
  return result;
}

Result<exec::ExecRequest> Sampler::request_for(const Subject& subject) const {
  // Under Valgrind the artifacts' path, in the run's arguments and environment, has one length
  // wherever the cache is, so that counts do not depend on it (see k_counted_path_length).
  const auto artifacts = m_options.run.instrument == recipe::Instrument::valgrind
                             ? fixed_length_path(subject.artifact_dir)
                             : subject.artifact_dir.string();
  const recipe::TemplateValues values{artifacts, artifacts, subject.commit, subject.rev};
  exec::ExecRequest request;
  if (const auto* shell = std::get_if<std::string>(&m_options.run.command)) {
    CULPRIT_TRY_ASSIGN(auto command,
                       recipe::expand_template(*shell, values, recipe::Quoting::shell));
    request.command = std::move(command);
  } else {
    CULPRIT_TRY_ASSIGN(
        auto argv,
        recipe::expand_template(std::get<std::vector<std::string>>(m_options.run.command), values));
    request.command = std::move(argv);
  }
  request.cwd =
      m_options.run.cwd == recipe::RunCwd::artifacts ? subject.artifact_dir : m_options.scratch_dir;
  request.contain = true; // a benchmark leaves nothing running for the next run
  request.env = m_options.run.env;
  for (auto& [name, value] : recipe::template_environment(values))
    request.env[name] = value;
  request.timeout = m_options.run.timeout;
  request.cpus = m_options.run.cpus;
  if (m_options.run.instrument == recipe::Instrument::valgrind)
    return under_valgrind(std::move(request), m_options.instrument_program,
                          next_counts_dir(m_options.scratch_dir));
  if (m_options.run.instrument == recipe::Instrument::perf ||
      m_options.run.instrument == recipe::Instrument::ncu) {
    const auto dir = next_counts_dir(m_options.scratch_dir);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
      return infra_error("cannot make {} for the run's counts: {}", dir.string(), ec.message());
    if (m_options.run.instrument == recipe::Instrument::ncu)
      return under_ncu(std::move(request), m_options.instrument_program, dir / "ncu.csv");
    return under_perf(std::move(request), m_options.instrument_program, dir / "perf.csv");
  }
  return request;
}

store::RunRecord Sampler::record_for(const Subject& subject, bool warmup) const {
  store::RunRecord record;
  record.artifact_id = subject.artifact_id;
  record.build_key = subject.build_key;
  record.commit_id = subject.commit;
  record.recipe_hash = m_options.recipe_hash;
  record.host_id = m_options.host_id;
  record.warmup = warmup;
  record.session = m_options.session;
  record.started = store::now();
  return record;
}

std::optional<Error> Sampler::fill_record(store::RunRecord& record,
                                          const exec::ExecRequest& request,
                                          const exec::ExecResult& ran) {
  std::optional<Error> wrong_command;
  if (ran.started_micros)
    record.started = store::from_micros(*ran.started_micros);
  record.wall_seconds = ran.wall.count();
  record.user_seconds = ran.user.count();
  record.sys_seconds = ran.sys.count();
  record.max_rss_kib = ran.max_rss_kb;
  if (ran.signal != 0)
    record.signal = ran.signal;
  else
    record.exit_code = ran.exit_code;
  record.timed_out = ran.timed_out;
  record.status = status_of(ran);
  const auto perf_file = perf_counts_file(request);
  const auto ncu_file = ncu_counts_file(request);
  const auto counted = perf_file  ? std::optional(perf_file->parent_path())
                       : ncu_file ? std::optional(ncu_file->parent_path())
                                  : counts_dir(request);
  if (record.status == store::RunStatus::ok) {
    parsers::ParseOptions parse = m_options.parse;
    if (parse.time.case_name.empty()) // the `time` format's case: the program
      parse.time.case_name = exec::command_name(counted ? unwrapped(request) : request);
    auto parsed = parsers::parse_run_output(ran, parse);
    std::vector<parsers::IterationRow> rows;
    if (!parsed) {
      record.status = store::RunStatus::parse_error;
      record.message = parsed.error().message;
      if (parsed.error().code == ExitCode::usage)
        wrong_command = parsed.error();
    } else if (parsed->samples.empty()) {
      record.status = store::RunStatus::parse_error;
      record.message = "the benchmark printed no samples";
    } else {
      for (auto& warning : parsed->warnings) {
        if (std::ranges::find(m_output_warnings, warning) != m_output_warnings.end())
          continue;
        if (m_output_warnings.size() < k_max_output_warnings)
          m_output_warnings.push_back(std::move(warning));
        else
          ++m_output_warnings_left_out;
      }
      rows = std::move(parsed->iteration_rows);
      record.samples = std::move(parsed->samples);
      record.cases = std::move(parsed->cases);
      record.device = std::move(parsed->device);
    }
    if (counted && record.status == store::RunStatus::ok) {
      auto counts = instrument_samples(request, parse.time.case_name, rows);
      if (counts) {
        record.samples.insert(record.samples.end(), std::make_move_iterator(counts->begin()),
                              std::make_move_iterator(counts->end()));
      } else {
        record.status = store::RunStatus::parse_error;
        record.message = counts.error().message;
        if (counts.error().code == ExitCode::usage)
          wrong_command = counts.error(); // counters that are not there: no run can succeed
      }
    }
  } else if (counts_dir(request)) {
    auto failure = valgrind_failure(ran, request);
    record.message = std::move(failure.message);
    if (failure.unsupported_instruction) // no run of this program can succeed under Valgrind
      wrong_command = Error{ExitCode::infrastructure, record.message};
  } else {
    const auto tail = ran.err.size() > 300 ? ran.err.substr(ran.err.size() - 300) : ran.err;
    record.message = fmt::format("the benchmark {}{}{}", instrumented_outcome(ran, request),
                                 tail.empty() ? "" : ": ", tail);
  }
  if (counted) {
    std::error_code ignored;
    std::filesystem::remove_all(*counted, ignored);
  }
  std::replace(record.message.begin(), record.message.end(), '\n', ' ');
  // Under an instrument that scales the timeout the program does the same work every run, so one
  // that timed out would time out again, each time after the scaled limit: it is not tried again.
  if (ran.timed_out && timeout_scale(request) && !wrong_command)
    wrong_command =
        Error{ExitCode::infrastructure,
              fmt::format("{}; a run that times out under {} is not tried again: give the "
                          "program a longer --timeout (run.timeout), or measure time "
                          "(--instrument time)",
                          record.message, counts_dir(request) ? "Valgrind" : "ncu")};
  return wrong_command;
}

Result<store::RunStatus> Sampler::record_outcome(const Subject& subject, store::RunRecord record,
                                                 const exec::ExecRequest& request,
                                                 const Result<exec::ExecResult>& ran,
                                                 const std::optional<host::GpuSnapshot>& before) {
  if (!ran) {
    if (ran.error().code != ExitCode::interrupted)
      return std::unexpected(ran.error()); // could not run at all: not the benchmark's fault
    record.status = store::RunStatus::interrupted;
    record.message = ran.error().message;
    record.block.reset();
    // On the way out: the interrupt is what the caller must hear about, with a word when even
    // the record of the interrupted run could not be stored.
    if (auto stored = m_store.record_run(record); !stored)
      return std::unexpected(
          Error{ExitCode::interrupted, fmt::format("{} (the interrupted run was not recorded: {})",
                                                   ran.error().message, stored.error().message)});
    return std::unexpected(ran.error());
  }
  const auto wrong_command = fill_record(record, request, *ran);
  if (before && before->available) {
    const auto finding = host::throttled_between(*before, m_options.gpu->snapshot());
    record.gpu_throttled = finding.throttled;
    if (finding.throttled) {
      ++m_throttled;
      if (record.message.empty())
        record.message = "GPU throttled: " + finding.why;
    }
  }
  if (record.status != store::RunStatus::ok)
    m_last_message = record.message;
  CULPRIT_TRY(m_store.record_run(record));
  ++m_runs_made;
  if (m_on_run)
    m_on_run(
        {&subject, record.warmup, record.status, record.message, m_runs_made, record.wall_seconds});
  if (wrong_command)
    return std::unexpected(*wrong_command);
  if (!record.warmup)
    CULPRIT_TRY(count_failure(subject, record.status));
  return record.status;
}

Result<store::RunStatus> Sampler::run_once(const Subject& subject, bool warmup,
                                           const std::optional<std::string>& block) {
  if (interrupt_requested())
    return fail(ExitCode::interrupted, "interrupted; everything measured so far is kept");
  CULPRIT_TRY_ASSIGN(const auto request, request_for(subject));
  auto record = record_for(subject, warmup);
  record.block = block;
  std::optional<host::GpuSnapshot> before;
  if (m_options.gpu != nullptr)
    before = m_options.gpu->snapshot();
  const auto artifacts = artifact_state(subject);
  const auto ran = m_executor.run(request);
  CULPRIT_TRY_ASSIGN(const auto status,
                     record_outcome(subject, std::move(record), request, ran, before));
  CULPRIT_TRY(check_artifacts(subject, artifacts));
  return status;
}

std::optional<TreeState> Sampler::artifact_state(const Subject& subject) {
  if (subject.artifact_dir.empty())
    return std::nullopt;
  const auto key = subject.artifact_dir.string();
  if (const auto it = m_artifact_states.find(key); it != m_artifact_states.end())
    return it->second;
  auto state = tree_state(subject.artifact_dir);
  if (state)
    m_artifact_states.emplace(key, *state);
  return state;
}

Status Sampler::check_artifacts(const Subject& subject, const std::optional<TreeState>& before) {
  if (!before)
    return {};
  const auto after = tree_state(subject.artifact_dir);
  const auto changed = after ? first_difference(*before, *after) : std::optional<std::string>(".");
  if (!changed)
    return {};
  return infra_error(
      "the benchmark changed its artifacts ({}/{}), which every run of this build shares: "
      "write files elsewhere ({}); the build is made again next time",
      subject.artifact_dir.string(), terminal_safe(*changed),
      m_options.run.cwd == recipe::RunCwd::artifacts
          ? "with [run] cwd = \"artifacts\" a run starts among them: write to $TMPDIR, or "
            "start in a scratch directory of its own with cwd = \"scratch\""
          : "a run starts in a scratch directory of its own");
}

Result<std::vector<store::RunStatus>> Sampler::run_duet(const Subject& first, const Subject& second,
                                                        const std::string& block) {
  if (interrupt_requested())
    return fail(ExitCode::interrupted, "interrupted; everything measured so far is kept");
  // The CPU sets change sides from one block to the next.
  const std::size_t swap = m_blocks % 2;
  std::array<exec::ExecRequest, 2> requests;
  std::array<const Subject*, 2> subjects = {&first, &second};
  for (std::size_t i = 0; i < 2; ++i) {
    CULPRIT_TRY_ASSIGN(requests[i], request_for(*subjects[i]));
    requests[i].cpus = m_options.duet_cpus[(i + swap) % 2];
  }
  std::optional<host::GpuSnapshot> before;
  if (m_options.gpu != nullptr)
    before = m_options.gpu->snapshot();
  const std::array artifacts = {artifact_state(first), artifact_state(second)};
  const auto outcomes = m_executor.run_together(requests);
  std::vector<store::RunStatus> statuses;
  std::optional<Error> stop;
  for (std::size_t i = 0; i < 2; ++i) {
    auto record = record_for(*subjects[i], false);
    record.block = block;
    record.duet = true;
    auto status = record_outcome(*subjects[i], std::move(record), requests[i], outcomes[i], before);
    if (!status) {
      if (!stop)
        stop = status.error();
      continue;
    }
    statuses.push_back(*status);
  }
  if (stop)
    return std::unexpected(*stop);
  for (std::size_t i = 0; i < 2; ++i)
    CULPRIT_TRY(check_artifacts(*subjects[i], artifacts[i]));
  return statuses;
}

} // namespace culprit::measure
