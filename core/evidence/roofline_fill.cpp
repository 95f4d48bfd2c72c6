#include "core/evidence/roofline_fill.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/measure/case_select.hpp"
#include "core/recipe/work_expression.hpp"
#include "core/roofline/roofline.hpp"

namespace culprit::evidence {
namespace {

// The value of one [roofline.cases] expression for a case, or an error that says which.
Result<std::optional<double>> evaluate(const std::string& text, const std::string& glob,
                                       std::string_view what,
                                       const std::map<std::string, std::string>& axes) {
  if (text.empty())
    return std::nullopt;
  auto expression = recipe::WorkExpression::parse(text);
  if (expression) {
    auto value = expression->evaluate(axes);
    if (value)
      return std::optional(*value);
    expression = std::unexpected(value.error());
  }
  return usage_error("[roofline.cases] '{}' {}: {}", glob, what, expression.error().message);
}

} // namespace

std::map<std::string, std::string> axes_in_name(const std::string& case_name) {
  std::map<std::string, std::string> axes;
  const auto slash = case_name.find('/');
  if (slash == std::string::npos)
    return axes;
  std::string_view rest(case_name);
  rest.remove_prefix(slash + 1);
  while (!rest.empty()) {
    const auto end = rest.find_first_of(",/");
    const auto part = rest.substr(0, end);
    if (const auto equals = part.find('='); equals != std::string_view::npos && equals > 0)
      axes.emplace(std::string(part.substr(0, equals)), std::string(part.substr(equals + 1)));
    if (end == std::string_view::npos)
      break;
    rest.remove_prefix(end + 1);
  }
  return axes;
}

CaseWork work_of(const std::string& case_name, const std::optional<parsers::CaseInfo>& info,
                 const recipe::RooflineRecipe& recipe) {
  CaseWork work;
  const auto axes = info && !info->axes.empty() ? info->axes : axes_in_name(case_name);
  const auto rule = std::ranges::find_if(recipe.cases, [&](const recipe::RooflineCaseWork& entry) {
    return measure::case_matches(case_name, {entry.glob});
  });
  if (rule != recipe.cases.end()) {
    auto flops = evaluate(rule->flops, rule->glob, "flops", axes);
    auto bytes = evaluate(rule->bytes, rule->glob, "bytes", axes);
    if (!flops || !bytes) {
      work.reason = (!flops ? flops : bytes).error().message;
      return work;
    }
    work.flops = *flops;
    work.bytes = *bytes;
    work.source = "culprit.toml";
  }
  // What the expressions leave out, the output may give.
  if (info) {
    if (!work.flops && info->flops)
      work.flops = info->flops;
    if (!work.bytes && info->bytes)
      work.bytes = info->bytes;
    if (work.source.empty() && (work.flops || work.bytes))
      work.source = "output";
  }
  const bool flops = work.flops && *work.flops > 0;
  const bool bytes = work.bytes && *work.bytes > 0;
  if (!flops && !bytes)
    work.reason = "no work counted: the output gives neither FLOPs nor the bytes this case "
                  "moves (Google Benchmark's bytes_per_second counts only beside a FLOP "
                  "counter), and no [roofline.cases] glob gives them";
  else if (!bytes)
    work.reason = "its FLOPs are known but not the bytes it moves: give bytes in "
                  "[roofline.cases]";
  if (!work.reason.empty()) {
    work.flops.reset();
    work.bytes.reset();
  } else if (!work.flops) {
    work.flops = 0.0; // bytes alone: a kernel that only moves memory
  }
  return work;
}

Status fill_roofline(Evidence& evidence, RooflineInputs& inputs) {
  for (auto& m : evidence.measurements) {
    const store::MeasurementKey key{m.artifact_id, inputs.recipe_hash,
                                    m.host_id.empty() ? inputs.host_id : m.host_id};
    CULPRIT_TRY_ASSIGN(const auto info, inputs.store.case_work(key, m.case_name));
    const auto work = work_of(m.case_name, info, inputs.recipe);
    if (!work.reason.empty()) {
      // Saying "no work" of every case of a benchmark that gives none would be noise.
      if (info || !inputs.recipe.cases.empty())
        m.roofline_note = "no roofline: " + work.reason;
      continue;
    }
    if (m.unit != "s") {
      m.roofline_note = fmt::format("no roofline: its metric {} is in {}, not a time", m.metric,
                                    m.unit.empty() ? std::string("no unit") : m.unit);
      continue;
    }
    if (!(m.summary.median > 0)) {
      m.roofline_note = "no roofline: its median time is not positive";
      continue;
    }
    CULPRIT_TRY_ASSIGN(const auto device, inputs.store.device(key));
    CULPRIT_TRY_ASSIGN(const auto answer, inputs.peaks.peaks_for(device, m.metric));
    if (!answer.peaks) {
      m.roofline_note = "no roofline: " + answer.reason;
      continue;
    }
    const auto& peaks = *answer.peaks;
    auto point =
        roofline::roofline_point(*work.flops, *work.bytes, m.summary.median, peaks, answer.unit);
    if (!point) {
      m.roofline_note = "no roofline: " + point.error().message;
      continue;
    }
    EvidenceRoofline r;
    r.flops = point->flops;
    r.bytes = point->bytes;
    r.intensity = point->arithmetic_intensity;
    r.achieved_flops_per_second = point->achieved_flops_per_second;
    r.achieved_bytes_per_second = point->achieved_bytes_per_second;
    r.bound_flops_per_second = point->bound_flops_per_second;
    r.bound_seconds = point->bound_seconds;
    r.limiter = std::string(to_string(point->limiter));
    r.fraction = point->fraction_of_bound;
    const auto& ci = m.summary.ci;
    r.fraction_ci = ci[0] > 0 && ci[1] >= ci[0]
                        ? std::array{point->bound_seconds / ci[1], point->bound_seconds / ci[0]}
                        : std::array{r.fraction, r.fraction};
    r.work = work.source;
    r.device = peaks.device;
    m.roofline = r;
    m.roofline_note.clear();
    const auto compute = answer.unit == roofline::ComputeUnit::tensor ? "tensor" : "vector";
    if (std::ranges::none_of(evidence.roofline_peaks, [&](const EvidencePeaks& p) {
          return p.device == peaks.device && p.compute == compute;
        }))
      evidence.roofline_peaks.push_back({.device = peaks.device,
                                         .compute = compute,
                                         .flops_per_second = peaks.flops_per_second,
                                         .tensor_flops_per_second = peaks.tensor_flops_per_second,
                                         .bytes_per_second = peaks.bytes_per_second,
                                         .source = peaks.source});
  }
  return {};
}

} // namespace culprit::evidence
