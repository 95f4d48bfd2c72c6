// The Sampler's batch path: runs planned and shipped as one batch to an executor that runs them
// elsewhere (a Slurm allocation), imported in one transaction once they are back.
#include <algorithm>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "core/git/hash.hpp"
#include "core/measure/sampler.hpp"
#include "core/util/interrupt.hpp"

namespace culprit::measure {

Status Sampler::use_device(const exec::BatchDevice& device) {
  if (!m_recorded_hosts.contains(device.host_id)) {
    const auto now = store::now();
    CULPRIT_TRY(m_store.record_host({device.host_id, device.host_json, now, now}));
    m_recorded_hosts.insert(device.host_id);
  }
  m_options.host_id = device.host_id;
  return {};
}

// The batch of these rounds: every subject's warm-up runs at the start (a batch is a fresh process
// on a node that may have idled), then each round's runs under a block id of its own.
Result<std::optional<BatchPlan>>
Sampler::plan_rounds(const std::vector<std::vector<const Subject*>>& rounds) {
  if (rounds.empty())
    return std::nullopt;
  BatchPlan plan;
  auto add = [&](const Subject& subject, bool warmup,
                 const std::optional<std::string>& block) -> Status {
    CULPRIT_TRY_ASSIGN(auto request, request_for(subject));
    plan.requests.push_back(std::move(request));
    plan.subjects.push_back(&subject);
    plan.warmups.push_back(warmup);
    plan.blocks.push_back(block);
    return {};
  };
  std::set<std::string> warmed;
  for (const auto& round : rounds) {
    for (const auto* subject : round) {
      if (warmed.insert(subject->artifact_id).second) {
        for (int i = 0; i < m_options.warmup; ++i)
          CULPRIT_TRY(add(*subject, true, std::nullopt));
      }
    }
  }
  for (const auto& round : rounds) {
    const auto block = next_block_id();
    for (const auto* subject : round)
      CULPRIT_TRY(add(*subject, false, block));
  }
  return plan;
}

Result<std::optional<BatchPlan>> Sampler::plan_batch(std::span<const RunsWanted> wants) {
  if (interrupt_requested())
    return fail(ExitCode::interrupted, "interrupted; everything measured so far is kept");
  CULPRIT_TRY_ASSIGN(const auto device, m_executor.device());
  if (device)
    CULPRIT_TRY(use_device(*device));
  std::vector<std::pair<const Subject*, std::size_t>> needs; // subject, runs missing
  for (const auto& want : wants) {
    CULPRIT_TRY_ASSIGN(const auto have, counted_runs(*want.subject));
    if (have < want.runs)
      needs.emplace_back(want.subject, want.runs - have);
  }
  // The same rounds as the one-run-at-a-time path: each a fresh seeded shuffle of what is left.
  std::vector<std::vector<const Subject*>> rounds;
  while (!needs.empty()) {
    std::vector<const Subject*> round;
    for (auto& need : needs) {
      round.push_back(need.first);
      --need.second;
    }
    rounds.push_back(shuffled(std::move(round)));
    std::erase_if(needs, [](const auto& need) { return need.second == 0; });
  }
  return plan_rounds(rounds);
}

Result<std::optional<BatchPlan>> Sampler::plan_batch(const BlocksWanted& want) {
  if (interrupt_requested())
    return fail(ExitCode::interrupted, "interrupted; everything measured so far is kept");
  CULPRIT_TRY_ASSIGN(const auto device, m_executor.device());
  if (device)
    CULPRIT_TRY(use_device(*device));
  CULPRIT_TRY_ASSIGN(const std::size_t have, complete_blocks(want.group));
  std::vector<std::vector<const Subject*>> rounds;
  for (std::size_t block = have; block < want.blocks; ++block)
    rounds.push_back(shuffled(want.group));
  return plan_rounds(rounds);
}

Status Sampler::import_batch(const BatchPlan& plan,
                             std::vector<Result<exec::ExecResult>> outcomes) {
  // The device that ran the batch: the allocation may have changed under a retry.
  if (const auto ran_on = m_executor.batch_device())
    CULPRIT_TRY(use_device(*ran_on));
  std::vector<store::RunRecord> records;
  std::optional<Error> stop;
  std::optional<Error> wrong_command; // the output says the run command is wrong
  for (std::size_t i = 0; i < outcomes.size() && i < plan.requests.size(); ++i) {
    if (!outcomes[i]) {
      stop = outcomes[i].error();
      break;
    }
    auto record = record_for(*plan.subjects[i], plan.warmups[i]);
    record.block = plan.blocks[i];
    if (auto wrong = fill_record(record, plan.requests[i], *outcomes[i]); wrong && !wrong_command)
      wrong_command = std::move(wrong);
    records.push_back(std::move(record));
  }
  if (stop && stop->code != ExitCode::interrupted)
    return std::unexpected(*stop); // the batch could not run: nothing of it is imported
  CULPRIT_TRY(m_store.record_runs(records));
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto& record = records[i];
    ++m_runs_made;
    if (m_on_run)
      m_on_run({plan.subjects[i], record.warmup, record.status, record.message, m_runs_made});
  }
  if (stop)
    return std::unexpected(*stop);
  if (wrong_command)
    return std::unexpected(*wrong_command);
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (records[i].warmup)
      continue;
    if (records[i].status != store::RunStatus::ok)
      m_last_message = records[i].message;
    CULPRIT_TRY(count_failure(*plan.subjects[i], records[i].status));
  }
  return {};
}

Result<bool> Sampler::ensure_batched(std::span<const RunsWanted> wants) {
  while (true) {
    if (budget_exhausted())
      return false;
    CULPRIT_TRY_ASSIGN(auto plan, plan_batch(wants));
    if (!plan)
      return true;
    auto outcomes = m_executor.run_batch(plan->requests);
    CULPRIT_TRY(import_batch(*plan, std::move(outcomes)));
  }
}

Result<bool> Sampler::ensure_blocks_batched(const BlocksWanted& want) {
  while (true) {
    if (budget_exhausted())
      return false;
    CULPRIT_TRY_ASSIGN(auto plan, plan_batch(want));
    if (!plan)
      return true;
    auto outcomes = m_executor.run_batch(plan->requests);
    CULPRIT_TRY(import_batch(*plan, std::move(outcomes)));
  }
}

Result<bool> ensure_lanes(std::span<LaneWants> lanes) {
  // Lanes that run here (the local executor) go one after the other: measurements on one machine
  // at once would disturb each other.
  for (auto& lane : lanes) {
    if (!lane.sampler->executor().ships_batches()) {
      CULPRIT_TRY_ASSIGN(const bool complete, lane.blocks
                                                  ? lane.sampler->ensure_blocks(*lane.blocks)
                                                  : lane.sampler->ensure(lane.wants));
      if (!complete)
        return false;
    }
  }
  std::vector<LaneWants*> shipping;
  for (auto& lane : lanes) {
    if (lane.sampler->executor().ships_batches())
      shipping.push_back(&lane);
  }
  while (!shipping.empty()) {
    // Devices first (a lane without an allocation asks for one), all lanes at once.
    std::vector<Status> found(shipping.size());
    {
      std::vector<std::jthread> threads;
      threads.reserve(shipping.size());
      for (std::size_t i = 0; i < shipping.size(); ++i)
        threads.emplace_back([&, i] {
          auto device = shipping[i]->sampler->executor().device();
          if (!device)
            found[i] = std::unexpected(device.error());
        });
    }
    for (const auto& status : found)
      CULPRIT_TRY(status);
    std::vector<LaneWants*> busy;
    std::vector<BatchPlan> plans;
    for (auto* lane : shipping) {
      if (lane->sampler->budget_exhausted())
        return false;
      CULPRIT_TRY_ASSIGN(auto plan, lane->blocks ? lane->sampler->plan_batch(*lane->blocks)
                                                 : lane->sampler->plan_batch(lane->wants));
      if (plan) {
        busy.push_back(lane);
        plans.push_back(std::move(*plan));
      }
    }
    if (busy.empty())
      return true;
    std::vector<std::vector<Result<exec::ExecResult>>> outcomes(busy.size());
    {
      std::vector<std::jthread> threads;
      threads.reserve(busy.size());
      for (std::size_t i = 0; i < busy.size(); ++i)
        threads.emplace_back(
            [&, i] { outcomes[i] = busy[i]->sampler->executor().run_batch(plans[i].requests); });
    }
    // Every lane's finished runs are imported before an error is reported.
    Status first_error;
    for (std::size_t i = 0; i < busy.size(); ++i) {
      auto imported = busy[i]->sampler->import_batch(plans[i], std::move(outcomes[i]));
      if (!imported && first_error)
        first_error = std::move(imported);
    }
    CULPRIT_TRY(first_error);
    shipping = std::move(busy);
  }
  return true;
}

} // namespace culprit::measure
