// Writing evidence as JSON (culprit(1), EVIDENCE); reading it back is
// core/evidence/read.cpp.
#include "core/evidence/evidence.hpp"

#include "core/util/fs.hpp"

namespace culprit {
namespace {

using nlohmann::json;

json pair_json(const std::array<double, 2>& pair) {
  return json::array({pair[0], pair[1]});
}

json summary_json(const EvidenceSummary& s) {
  return {{"median", s.median}, {"ci", pair_json(s.ci)}, {"mean", s.mean}, {"min", s.min},
          {"cv", s.cv},         {"outliers", s.outliers}};
}

template <class T> json optional_json(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

// A JSON array of each element as `element_json` writes it.
template <class T, class F> json array_json(const std::vector<T>& elements, F element_json) {
  json out = json::array();
  for (const auto& element : elements)
    out.push_back(element_json(element));
  return out;
}

json interference_json(const EvidenceInterference& i) {
  json doc = {{"one_sided", i.one_sided}, {"skewness", i.skewness}, {"spread", i.spread},
              {"summary", i.summary},     {"states", nullptr},      {"drift", nullptr}};
  if (i.states)
    doc["states"] = {{"fast", i.states->fast},
                     {"slow", i.states->slow},
                     {"slow_share", i.states->slow_share},
                     {"separation", i.states->separation},
                     {"slow_stretch", i.states->slow_stretch}};
  if (i.drift)
    doc["drift"] = {
        {"change", i.drift->change}, {"tau", i.drift->tau}, {"p_value", i.drift->p_value}};
  return doc;
}

json estimator_json(const EvidenceEstimator& e) {
  return {{"statistic", e.statistic},
          {"setting", e.setting},
          {"reason", e.reason},
          {"method", e.method},
          {"blocks", e.blocks},
          {"duets", e.duets},
          {"interval_confidence", e.interval_confidence},
          {"base_level", e.base_level},
          {"head_level", e.head_level}};
}

json tail_json(const EvidenceTail& t) {
  return {{"statistic", t.statistic},
          {"ratio", t.ratio},
          {"ci", pair_json(t.ci)},
          {"p_value", t.p_value},
          {"verdict", t.verdict}};
}

json roofline_json(const EvidenceRoofline& r) {
  return {{"flops", r.flops},
          {"bytes", r.bytes},
          {"intensity", r.intensity},
          {"achieved_flops_per_second", r.achieved_flops_per_second},
          {"achieved_bytes_per_second", r.achieved_bytes_per_second},
          {"bound_flops_per_second", r.bound_flops_per_second},
          {"bound_seconds", r.bound_seconds},
          {"limiter", r.limiter},
          {"fraction", r.fraction},
          {"fraction_ci", pair_json(r.fraction_ci)},
          {"work", r.work},
          {"device", r.device}};
}

json peaks_json(const EvidencePeaks& p) {
  return {{"device", p.device},
          {"compute", p.compute},
          {"flops_per_second", p.flops_per_second},
          {"tensor_flops_per_second", optional_json(p.tensor_flops_per_second)},
          {"bytes_per_second", p.bytes_per_second},
          {"source", p.source}};
}

json reuse_json(const EvidenceReuse& r) {
  return {
      {"blocks", r.blocks}, {"base_unpaired", r.base_unpaired}, {"head_unpaired", r.head_unpaired}};
}

json resources_json(const std::optional<EvidenceKernelResources>& r) {
  if (!r)
    return nullptr;
  return {{"registers", r->registers},
          {"barriers", r->barriers},
          {"spill_store_bytes", r->spill_store_bytes},
          {"spill_load_bytes", r->spill_load_bytes},
          {"stack_bytes", r->stack_bytes},
          {"shared_bytes", r->shared_bytes},
          {"constant_bytes", r->constant_bytes}};
}

json sizes_json(const std::vector<EvidenceSizeChange>& sizes) {
  json out = json::array();
  for (const auto& s : sizes)
    out.push_back({{"name", s.name},
                   {"artifact", s.artifact},
                   {"parent_bytes", optional_json(s.parent_bytes)},
                   {"culprit_bytes", optional_json(s.culprit_bytes)}});
  return out;
}

json hints_json(const EvidenceHints& h) {
  json doc = {{"notes", h.notes}, {"symbols", sizes_json(h.symbols)}};
  doc["diffstat"] = nullptr;
  if (h.diffstat) {
    json files = json::array();
    for (const auto& f : h.diffstat->by_file)
      files.push_back({{"path", f.path},
                       {"old_path", f.old_path},
                       {"kind", f.kind},
                       {"insertions", f.insertions},
                       {"deletions", f.deletions},
                       {"binary", f.binary}});
    doc["diffstat"] = {{"files", h.diffstat->files},
                       {"insertions", h.diffstat->insertions},
                       {"deletions", h.diffstat->deletions},
                       {"by_file", files}};
  }
  json kernels = json::array();
  for (const auto& k : h.kernels)
    kernels.push_back({{"name", k.name},
                       {"arch", k.arch},
                       {"change", k.change},
                       {"parent", resources_json(k.parent)},
                       {"culprit", resources_json(k.culprit)},
                       {"description", k.description}});
  doc["kernels"] = kernels;
  doc["artifacts"] = nullptr;
  if (h.artifacts)
    doc["artifacts"] = {
        {"parent_bytes", h.artifacts->parent_bytes}, {"culprit_bytes", h.artifacts->culprit_bytes},
        {"parent_files", h.artifacts->parent_files}, {"culprit_files", h.artifacts->culprit_files},
        {"identical", h.artifacts->identical},       {"changed", sizes_json(h.artifacts->changed)}};
  return doc;
}

json build_json(const EvidenceBuild& b) {
  return {{"commit", b.commit},   {"key", b.key},        {"ok", b.ok},
          {"seconds", b.seconds}, {"status", b.status},  {"artifact_id", b.artifact_id},
          {"log", b.log},         {"message", b.message}};
}

json measurement_json(const EvidenceMeasurement& m) {
  json item = {{"commit", m.commit},
               {"case", m.case_name},
               {"metric", m.metric},
               {"unit", m.unit},
               {"direction", m.direction},
               {"artifact_id", m.artifact_id},
               {"reused_from", m.reused_from},
               {"runs", m.runs},
               {"summary", summary_json(m.summary)}};
  if (!m.host_id.empty())
    item["host_id"] = m.host_id;
  if (!m.blocks.empty()) {
    json blocks = json::array();
    for (const auto& block : m.blocks)
      blocks.push_back(block.empty() ? json(nullptr) : json(block));
    item["blocks"] = std::move(blocks);
    item["duets"] = m.duets;
  }
  item["interference"] = m.interference ? interference_json(*m.interference) : json(nullptr);
  if (m.roofline)
    item["roofline"] = roofline_json(*m.roofline);
  if (!m.roofline_note.empty())
    item["roofline_note"] = m.roofline_note;
  return item;
}

json comparison_json(const EvidenceComparison& c) {
  json item = {{"base", c.base},       {"head", c.head},           {"case", c.case_name},
               {"metric", c.metric},   {"unit", c.unit},           {"direction", c.direction},
               {"ratio", c.ratio},     {"ci", pair_json(c.ci)},    {"p_value", c.p_value},
               {"verdict", c.verdict}, {"base_runs", c.base_runs}, {"head_runs", c.head_runs},
               {"note", c.note}};
  item["min_detectable"] = optional_json(c.min_detectable);
  item["estimator"] = c.estimator ? estimator_json(*c.estimator) : json(nullptr);
  item["tail"] = c.tail ? tail_json(*c.tail) : json(nullptr);
  item["reuse"] = c.reuse ? reuse_json(*c.reuse) : json(nullptr);
  return item;
}

json settings_json(const EvidenceSettings& s) {
  return {{"build", s.build},
          {"run", s.run},
          {"format", s.format},
          {"metric", s.metric},
          {"threshold", s.threshold},
          {"confidence", s.confidence},
          {"seed", s.seed},
          {"classify_confidence", optional_json(s.classify_confidence)},
          {"explained_share", optional_json(s.explained_share)},
          {"budget", optional_json(s.budget)},
          {"min_runs", s.min_runs},
          {"max_runs", s.max_runs},
          {"warmup", s.warmup},
          {"cases", s.cases},
          {"direction", s.direction},
          {"statistic", s.statistic},
          {"duet", s.duet}};
}

json step_json(const EvidenceStep& s) {
  json step = {
      {"commit", s.commit}, {"classified", s.classified}, {"runs", s.runs}, {"note", s.note}};
  step["position"] = optional_json(s.position);
  step["ci"] = s.ci ? pair_json(*s.ci) : json(nullptr);
  if (!s.case_name.empty())
    step["case"] = s.case_name;
  if (!s.host_id.empty())
    step["host_id"] = s.host_id;
  if (!s.statistic.empty())
    step["statistic"] = s.statistic;
  return step;
}

json culprit_json(const EvidenceCulprit& c) {
  json cases = json::array();
  for (const auto& moved : c.cases) {
    json item = {{"case", moved.name}, {"ratio", moved.ratio}, {"ci", pair_json(moved.ci)}};
    item["share"] = optional_json(moved.share);
    cases.push_back(std::move(item));
  }
  json culprit = {{"commit", c.commit}, {"parent", c.parent}, {"subject", c.subject},
                  {"author", c.author}, {"email", c.email},   {"date", c.date},
                  {"files", c.files},   {"owners", c.owners}, {"cases", std::move(cases)}};
  culprit["hints"] = c.hints ? hints_json(*c.hints) : json(nullptr);
  return culprit;
}

json bisect_json(const EvidenceBisect& b) {
  return {{"good", b.good},
          {"bad", b.bad},
          {"commits_in_range", b.commits_in_range},
          {"rounds", b.rounds},
          {"parallel", b.parallel},
          {"cases", b.cases},
          {"steps", array_json(b.steps, step_json)},
          {"culprits", array_json(b.culprits, culprit_json)},
          {"candidates", b.candidates}};
}

} // namespace

nlohmann::json to_json(const Evidence& e) {
  json doc = {{"schema", e.schema},
              {"kind", e.kind},
              {"status", e.status},
              {"tool", {{"name", "culprit"}, {"version", e.tool_version}}},
              {"command", e.command},
              {"created", e.created},
              {"repo", {{"path", e.repo_path}, {"head", e.repo_head}}},
              {"host", e.host},
              {"executor", e.executor},
              {"settings", settings_json(e.settings)},
              {"builds", array_json(e.builds, build_json)},
              {"measurements", array_json(e.measurements, measurement_json)},
              {"comparisons", array_json(e.comparisons, comparison_json)},
              {"warnings", e.warnings}};
  if (!e.roofline_peaks.empty())
    doc["roofline_peaks"] = array_json(e.roofline_peaks, peaks_json);
  if (e.bisect)
    doc["bisect"] = bisect_json(*e.bisect);
  return doc;
}

void add_culprit(std::vector<EvidenceCulprit>& culprits, EvidenceCulprit culprit) {
  const auto same =
      std::ranges::find_if(culprits, [&](const auto& c) { return c.commit == culprit.commit; });
  if (same == culprits.end()) {
    culprits.push_back(std::move(culprit));
    return;
  }
  for (auto& moved : culprit.cases)
    if (std::ranges::none_of(same->cases, [&](const auto& c) { return c.name == moved.name; }))
      same->cases.push_back(std::move(moved));
}

Status save_evidence(const Evidence& evidence, const std::filesystem::path& file) {
  return write_file_atomic(file, to_json(evidence).dump(2) + "\n");
}

} // namespace culprit
