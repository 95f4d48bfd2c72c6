#include "core/measure/sampler.hpp"

#include <algorithm>
#include <random>

#include <fmt/format.h>

#include "core/command_template.hpp"
#include "core/hash.hpp"
#include "core/interrupt.hpp"
#include "core/parsers/output_format.hpp"

namespace culprit {
namespace {

store::RunStatus status_of(const ExecResult& result) {
  if (result.timed_out)
    return store::RunStatus::timeout;
  if (!result.succeeded())
    return store::RunStatus::failed;
  return store::RunStatus::ok;
}

} // namespace

Sampler::Sampler(Executor& executor, store::Store& store, SamplerOptions options)
    : m_executor(executor), m_store(store), m_options(std::move(options)),
      m_started(std::chrono::steady_clock::now()) {}

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

Result<bool> Sampler::ensure(std::span<const Want> wants) {
  if (m_executor.ships_batches())
    return ensure_batched(wants);
  struct Need {
    const Subject* subject;
    std::size_t missing;
    int failures_in_a_row = 0;
  };
  std::vector<Need> needs;
  for (const auto& want : wants) {
    CULPRIT_TRY_ASSIGN(const auto have, counted_runs(*want.subject));
    if (have < want.runs)
      needs.push_back({want.subject, want.runs - have});
  }
  while (!needs.empty()) {
    // One round: every subject that still needs runs gets one, in a seeded random order.
    std::mt19937_64 rng(std::hash<std::string>{}(
        Hasher().add(std::to_string(m_options.seed)).add(std::to_string(m_rounds++)).hex()));
    std::shuffle(needs.begin(), needs.end(), rng);
    for (auto& need : needs) {
      if (budget_exhausted())
        return false;
      const auto& subject = *need.subject;
      if (!m_warmed[subject.artifact_id]) {
        for (int i = 0; i < m_options.warmup; ++i)
          CULPRIT_TRY(run_once(subject, true));
        m_warmed[subject.artifact_id] = true;
      }
      CULPRIT_TRY_ASSIGN(const auto status, run_once(subject, false));
      if (status == store::RunStatus::ok) {
        --need.missing;
        need.failures_in_a_row = 0;
        continue;
      }
      if (++need.failures_in_a_row >= k_max_failures_in_a_row)
        return infra_error("{} runs of {} in a row failed; the last: {}", k_max_failures_in_a_row,
                           subject.commit.substr(0, 12), m_last_message);
    }
    std::erase_if(needs, [](const Need& need) { return need.missing == 0; });
  }
  return true;
}

Result<ExecRequest> Sampler::request_for(const Subject& subject) const {
  const TemplateValues values{subject.artifact_dir.string(), subject.artifact_dir.string(),
                              subject.commit, subject.rev};
  ExecRequest request;
  if (const auto* shell = std::get_if<std::string>(&m_options.run.command)) {
    CULPRIT_TRY_ASSIGN(auto command, expand_template(*shell, values, Quoting::shell));
    request.command = std::move(command);
  } else {
    CULPRIT_TRY_ASSIGN(
        auto argv,
        expand_template(std::get<std::vector<std::string>>(m_options.run.command), values));
    request.command = std::move(argv);
  }
  request.cwd = m_options.scratch_dir;
  request.env = m_options.run.env;
  for (auto& [name, value] : template_environment(values))
    request.env[name] = value;
  request.timeout = m_options.run.timeout;
  request.cpus = m_options.run.cpus;
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

void Sampler::fill_record(store::RunRecord& record, const ExecRequest& request,
                          const ExecResult& ran) const {
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
  if (record.status == store::RunStatus::ok) {
    ParseOptions parse = m_options.parse;
    if (parse.time.case_name.empty())
      parse.time.case_name = command_name(request); // the `time` format's case: the program
    auto parsed = parse_run_output(ran, parse);
    if (!parsed) {
      record.status = store::RunStatus::parse_error;
      record.message = parsed.error().message;
    } else if (parsed->samples.empty()) {
      record.status = store::RunStatus::parse_error;
      record.message = "the benchmark printed no samples";
    } else {
      record.samples = std::move(parsed->samples);
    }
  } else {
    const auto tail = ran.err.size() > 300 ? ran.err.substr(ran.err.size() - 300) : ran.err;
    record.message = fmt::format("the benchmark {}{}{}", describe_outcome(ran, request),
                                 tail.empty() ? "" : ": ", tail);
  }
  std::replace(record.message.begin(), record.message.end(), '\n', ' ');
}

Result<store::RunStatus> Sampler::run_once(const Subject& subject, bool warmup) {
  if (interrupt_requested())
    return fail(ExitCode::interrupted, "interrupted; everything measured so far is kept");
  CULPRIT_TRY_ASSIGN(const auto request, request_for(subject));
  auto record = record_for(subject, warmup);
  std::optional<host::GpuSnapshot> before;
  if (m_options.gpu != nullptr)
    before = m_options.gpu->snapshot();
  auto ran = m_executor.run(request);
  if (!ran) {
    if (ran.error().code != ExitCode::interrupted)
      return std::unexpected(ran.error()); // could not run at all: not the benchmark's fault
    record.status = store::RunStatus::interrupted;
    record.message = ran.error().message;
    // On the way out: the interrupt is what the caller must hear about, with a word when even
    // the record of the interrupted run could not be stored.
    if (auto stored = m_store.record_run(record); !stored)
      return std::unexpected(
          Error{ExitCode::interrupted, fmt::format("{} (the interrupted run was not recorded: {})",
                                                   ran.error().message, stored.error().message)});
    return std::unexpected(ran.error());
  }
  fill_record(record, request, *ran);
  if (before && before->available) {
    const auto finding = host::throttled_between(*before, m_options.gpu->snapshot());
    record.gpu_throttled = finding.throttled;
    if (finding.throttled) {
      ++m_throttled;
      if (record.message.empty())
        record.message = "GPU throttled: " + finding.why;
    }
  }
  m_last_message = record.message;
  CULPRIT_TRY(m_store.record_run(record));
  ++m_runs_made;
  if (m_on_run)
    m_on_run({&subject, warmup, record.status, record.message, m_runs_made});
  return record.status;
}

} // namespace culprit
