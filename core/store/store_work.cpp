// The roofline model's inputs in the store: the work of each case per measurement, the device a
// measurement ran on, and the peaks of each host's devices.

#include <cmath>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/store/store.hpp"
#include "core/store/store_detail.hpp"
#include "core/util/json_text.hpp"

namespace culprit::store {

namespace {

nlohmann::json gpu_json(const parsers::GpuProperties& gpu) {
  return {{"sm_count", gpu.sm_count},
          {"sm_clock_mhz", gpu.sm_clock_mhz},
          {"memory_clock_mhz", gpu.memory_clock_mhz},
          {"memory_bus_bits", gpu.memory_bus_bits},
          {"compute_major", gpu.compute_major},
          {"compute_minor", gpu.compute_minor}};
}

std::optional<parsers::GpuProperties> gpu_from_json(const std::string& text) {
  const auto json = nlohmann::json::parse(text, nullptr, false);
  if (!json.is_object())
    return std::nullopt;
  parsers::GpuProperties gpu;
  gpu.sm_count = json.value("sm_count", 0);
  gpu.sm_clock_mhz = json.value("sm_clock_mhz", 0.0);
  gpu.memory_clock_mhz = json.value("memory_clock_mhz", 0.0);
  gpu.memory_bus_bits = json.value("memory_bus_bits", 0);
  gpu.compute_major = json.value("compute_major", 0);
  gpu.compute_minor = json.value("compute_minor", 0);
  return gpu;
}

} // namespace

Status record_work(sql::Database& db, const RunRecord& run) {
  if (!run.cases.empty()) {
    CULPRIT_TRY_ASSIGN(auto insert,
                       db.prepare("INSERT INTO case_work (artifact_id, recipe_hash, case_name, "
                                  "flops, bytes, axes) VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT "
                                  "(artifact_id, recipe_hash, case_name) DO UPDATE SET flops = "
                                  "excluded.flops, bytes = excluded.bytes, axes = excluded.axes"));
    for (const auto& info : run.cases) {
      const auto valid = [](const std::optional<double>& amount) {
        return amount && std::isfinite(*amount) && *amount >= 0 ? amount : std::nullopt;
      };
      insert.reset();
      insert.bind_all(run.artifact_id, run.recipe_hash, info.case_name, valid(info.flops),
                      valid(info.bytes), json_text(nlohmann::json(info.axes)));
      CULPRIT_TRY(insert.run());
    }
  }
  if (run.device) {
    CULPRIT_TRY_ASSIGN(auto insert,
                       db.prepare("INSERT INTO devices (artifact_id, recipe_hash, host_id, "
                                  "backend, name, gpu) VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON "
                                  "CONFLICT (artifact_id, recipe_hash, host_id) DO UPDATE SET "
                                  "backend = excluded.backend, name = excluded.name, gpu = "
                                  "excluded.gpu"));
    const std::optional<std::string> gpu =
        run.device->gpu ? std::optional(json_text(gpu_json(*run.device->gpu))) : std::nullopt;
    insert.bind_all(run.artifact_id, run.recipe_hash, run.host_id, run.device->backend,
                    run.device->name, gpu);
    CULPRIT_TRY(insert.run());
  }
  return {};
}

Result<std::optional<parsers::CaseInfo>> Store::case_work(const MeasurementKey& key,
                                                          std::string_view case_name) {
  CULPRIT_TRY_ASSIGN(auto query,
                     m_db.prepare("SELECT flops, bytes, axes FROM case_work WHERE artifact_id = ?1 "
                                  "AND recipe_hash = ?2 AND case_name = ?3"));
  query.bind_all(key.artifact_id, key.recipe_hash, case_name);
  CULPRIT_TRY_ASSIGN(const bool found, query.step());
  if (!found)
    return std::nullopt;
  parsers::CaseInfo info;
  info.case_name = std::string(case_name);
  info.flops = query.column_optional_double(0);
  info.bytes = query.column_optional_double(1);
  const auto axes = nlohmann::json::parse(query.column_text(2), nullptr, false);
  if (axes.is_object())
    for (const auto& [name, value] : axes.items())
      if (value.is_string())
        info.axes.emplace(name, value.get<std::string>());
  return info;
}

Result<std::optional<parsers::DeviceInfo>> Store::device(const MeasurementKey& key) {
  CULPRIT_TRY_ASSIGN(auto query,
                     m_db.prepare("SELECT backend, name, gpu FROM devices WHERE artifact_id = ?1 "
                                  "AND recipe_hash = ?2 AND host_id = ?3"));
  query.bind_all(key.artifact_id, key.recipe_hash, key.host_id);
  CULPRIT_TRY_ASSIGN(const bool found, query.step());
  if (!found)
    return std::nullopt;
  parsers::DeviceInfo device{
      .backend = query.column_text(0), .name = query.column_text(1), .gpu = {}};
  if (const auto gpu = query.column_optional_text(2))
    device.gpu = gpu_from_json(*gpu);
  return device;
}

Status Store::save_peaks(const PeakRecord& peaks) {
  CULPRIT_TRY_ASSIGN(auto insert,
                     m_db.prepare("INSERT INTO peaks (host_id, scope, device, flops_per_second, "
                                  "tensor_flops_per_second, bytes_per_second, source, measured) "
                                  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (host_id, "
                                  "scope) DO UPDATE SET device = excluded.device, "
                                  "flops_per_second = excluded.flops_per_second, "
                                  "tensor_flops_per_second = excluded.tensor_flops_per_second, "
                                  "bytes_per_second = excluded.bytes_per_second, source = "
                                  "excluded.source, measured = excluded.measured"));
  insert.bind_all(peaks.host_id, peaks.scope, peaks.device, peaks.flops_per_second,
                  peaks.tensor_flops_per_second, peaks.bytes_per_second, peaks.source,
                  to_micros(peaks.measured));
  return insert.run();
}

Result<std::optional<PeakRecord>> Store::find_peaks(std::string_view host_id,
                                                    std::string_view scope) {
  CULPRIT_TRY_ASSIGN(auto query,
                     m_db.prepare("SELECT device, flops_per_second, tensor_flops_per_second, "
                                  "bytes_per_second, source, measured FROM peaks WHERE "
                                  "host_id = ?1 AND scope = ?2"));
  query.bind_all(host_id, scope);
  CULPRIT_TRY_ASSIGN(const bool found, query.step());
  if (!found)
    return std::nullopt;
  return PeakRecord{.host_id = std::string(host_id),
                    .scope = std::string(scope),
                    .device = query.column_text(0),
                    .flops_per_second = query.column_double(1),
                    .tensor_flops_per_second = query.column_optional_double(2),
                    .bytes_per_second = query.column_double(3),
                    .source = query.column_text(4),
                    .measured = from_micros(query.column_int64(5))};
}

} // namespace culprit::store
