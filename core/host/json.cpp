#include "core/host/json.hpp"

#include <nlohmann/json.hpp>

namespace culprit::host {

nlohmann::json render_json(const HostFingerprint& host, const std::vector<NoiseWarning>& warnings) {
  auto json = to_json(host);
  auto& list = json["warnings"] = nlohmann::json::array();
  for (const auto& warning : warnings)
    list.push_back({{"id", warning.id}, {"message", warning.message}});
  return json;
}

nlohmann::json noise_json(const NoiseProfile& profile) {
  const auto& i = profile.interference;
  nlohmann::json doc = {{"seconds", profile.seconds},
                        {"iteration_seconds", profile.iteration_seconds},
                        {"iterations", profile.iterations},
                        {"cpu", profile.cpu ? nlohmann::json(*profile.cpu) : nlohmann::json()},
                        {"one_sided", i.one_sided},
                        {"skewness", i.skewness},
                        {"spread", i.spread},
                        {"states", nullptr},
                        {"drift", nullptr},
                        {"duet", nullptr},
                        {"advice", profile.advice}};
  if (const auto& states = i.states)
    doc["states"] = {{"fast_seconds", states->fast},
                     {"slow_seconds", states->slow},
                     {"slow_share", states->slow_share},
                     {"separation", states->separation},
                     {"stretch_seconds", profile.switch_seconds}};
  if (const auto& drift = i.drift)
    doc["drift"] = {{"change", drift->change}, {"tau", drift->tau}, {"p_value", drift->p_value}};
  if (const auto& d = profile.duet)
    doc["duet"] = {{"cpus", d->cpus},
                   {"same_state", d->same_state},
                   {"spread_side_by_side", d->spread_duet},
                   {"spread_one_after_the_other", d->spread_apart}};
  return doc;
}

} // namespace culprit::host
