// Reading evidence back (culprit(1), EVIDENCE): every key typed and named in its errors, then the
// invariants of core/evidence/check.cpp. The writer is core/evidence/evidence.cpp.
#include "core/evidence/evidence.hpp"

#include "core/util/fs.hpp"

namespace culprit {
namespace {

using nlohmann::json;

// Reads typed values out of a JSON object, naming the key path in every error.
class Reader {
public:
  Reader(const json& node, std::string path) : m_node(node), m_path(std::move(path)) {}

  [[nodiscard]] std::string where(std::string_view key) const {
    return m_path.empty() ? std::string(key) : m_path + "." + std::string(key);
  }

  template <class T> Status get(std::string_view key, T& out, bool required = true) const {
    const auto it = m_node.find(key);
    if (it == m_node.end() || it->is_null()) {
      if (required)
        return usage_error("the evidence lacks '{}'; it was not written by this version of "
                           "culprit, or it was edited",
                           where(key));
      return {};
    }
    try {
      out = it->template get<T>();
    } catch (const json::exception&) {
      return usage_error("'{}' in the evidence has the wrong type ({})", where(key),
                         it->type_name());
    }
    return {};
  }

  template <class T> Status get_optional(std::string_view key, std::optional<T>& out) const {
    T value{};
    const auto it = m_node.find(key);
    if (it == m_node.end() || it->is_null())
      return {};
    CULPRIT_TRY(get(key, value));
    out = value;
    return {};
  }

  // Calls `read(Reader, element)` for each element of the array at `key`.
  template <class T, class F>
  Status each(std::string_view key, std::vector<T>& out, F read, bool required = true) const {
    const auto it = m_node.find(key);
    if (it == m_node.end()) {
      if (required)
        return usage_error("the evidence lacks '{}'", where(key));
      return {};
    }
    if (!it->is_array())
      return usage_error("'{}' in the evidence must be an array", where(key));
    out.clear();
    for (std::size_t i = 0; i < it->size(); ++i) {
      const auto& element = (*it)[i];
      const auto path = fmt::format("{}[{}]", where(key), i);
      if (!element.is_object())
        return usage_error("'{}' in the evidence must be an object", path);
      T value;
      CULPRIT_TRY(read(Reader(element, path), value));
      out.push_back(std::move(value));
    }
    return {};
  }

  [[nodiscard]] Result<Reader> child(std::string_view key) const {
    const auto it = m_node.find(key);
    if (it == m_node.end() || !it->is_object())
      return usage_error("the evidence lacks the object '{}'", where(key));
    return Reader(*it, where(key));
  }

  [[nodiscard]] const json& node() const { return m_node; }

private:
  const json& m_node;
  std::string m_path;
};

Status read_build(const Reader& r, EvidenceBuild& b) {
  CULPRIT_TRY(r.get("commit", b.commit));
  CULPRIT_TRY(r.get("key", b.key));
  CULPRIT_TRY(r.get("ok", b.ok));
  CULPRIT_TRY(r.get("seconds", b.seconds));
  CULPRIT_TRY(r.get("status", b.status, false));
  CULPRIT_TRY(r.get("artifact_id", b.artifact_id, false));
  CULPRIT_TRY(r.get("log", b.log, false));
  return r.get("message", b.message, false);
}

// Calls read(child reader, value) when `key` holds an object; null or absent leaves `out` empty.
template <class T, class F>
Status read_optional_object(const Reader& r, std::string_view key, std::optional<T>& out, F read) {
  const auto it = r.node().find(key);
  if (it == r.node().end() || it->is_null())
    return {};
  CULPRIT_TRY_ASSIGN(const auto child, r.child(key));
  T value;
  CULPRIT_TRY(read(child, value));
  out = std::move(value);
  return {};
}

Status read_states(const Reader& r, EvidenceSpeedStates& s) {
  CULPRIT_TRY(r.get("fast", s.fast));
  CULPRIT_TRY(r.get("slow", s.slow));
  CULPRIT_TRY(r.get("slow_share", s.slow_share));
  CULPRIT_TRY(r.get("separation", s.separation, false));
  return r.get("slow_stretch", s.slow_stretch, false);
}

Status read_drift(const Reader& r, EvidenceDrift& d) {
  CULPRIT_TRY(r.get("change", d.change));
  CULPRIT_TRY(r.get("tau", d.tau, false));
  return r.get("p_value", d.p_value);
}

Status read_interference(const Reader& r, EvidenceInterference& i) {
  CULPRIT_TRY(r.get("one_sided", i.one_sided));
  CULPRIT_TRY(r.get("skewness", i.skewness, false));
  CULPRIT_TRY(r.get("spread", i.spread, false));
  CULPRIT_TRY(r.get("summary", i.summary, false));
  CULPRIT_TRY(read_optional_object(r, "states", i.states, read_states));
  return read_optional_object(r, "drift", i.drift, read_drift);
}

Status read_estimator(const Reader& r, EvidenceEstimator& e) {
  CULPRIT_TRY(r.get("statistic", e.statistic));
  CULPRIT_TRY(r.get("setting", e.setting, false));
  CULPRIT_TRY(r.get("reason", e.reason, false));
  CULPRIT_TRY(r.get("method", e.method, false));
  CULPRIT_TRY(r.get("blocks", e.blocks, false));
  CULPRIT_TRY(r.get("duets", e.duets, false));
  CULPRIT_TRY(r.get("interval_confidence", e.interval_confidence, false));
  CULPRIT_TRY(r.get("base_level", e.base_level, false));
  return r.get("head_level", e.head_level, false);
}

Status read_tail(const Reader& r, EvidenceTail& t) {
  CULPRIT_TRY(r.get("statistic", t.statistic));
  CULPRIT_TRY(r.get("ratio", t.ratio));
  CULPRIT_TRY(r.get("ci", t.ci));
  CULPRIT_TRY(r.get("p_value", t.p_value));
  return r.get("verdict", t.verdict);
}

Status read_roofline(const Reader& r, EvidenceRoofline& o) {
  CULPRIT_TRY(r.get("flops", o.flops));
  CULPRIT_TRY(r.get("bytes", o.bytes));
  CULPRIT_TRY(r.get("intensity", o.intensity));
  CULPRIT_TRY(r.get("achieved_flops_per_second", o.achieved_flops_per_second));
  CULPRIT_TRY(r.get("achieved_bytes_per_second", o.achieved_bytes_per_second));
  CULPRIT_TRY(r.get("bound_flops_per_second", o.bound_flops_per_second));
  CULPRIT_TRY(r.get("bound_seconds", o.bound_seconds));
  CULPRIT_TRY(r.get("limiter", o.limiter));
  CULPRIT_TRY(r.get("fraction", o.fraction));
  CULPRIT_TRY(r.get("fraction_ci", o.fraction_ci));
  CULPRIT_TRY(r.get("work", o.work, false));
  return r.get("device", o.device, false);
}

Status read_peaks(const Reader& r, EvidencePeaks& p) {
  CULPRIT_TRY(r.get("device", p.device));
  CULPRIT_TRY(r.get("compute", p.compute, false));
  CULPRIT_TRY(r.get("flops_per_second", p.flops_per_second));
  CULPRIT_TRY(r.get_optional("tensor_flops_per_second", p.tensor_flops_per_second));
  CULPRIT_TRY(r.get("bytes_per_second", p.bytes_per_second));
  return r.get("source", p.source, false);
}

Status read_reuse(const Reader& r, EvidenceReuse& u) {
  CULPRIT_TRY(r.get("blocks", u.blocks));
  CULPRIT_TRY(r.get("base_unpaired", u.base_unpaired));
  return r.get("head_unpaired", u.head_unpaired);
}

Status read_measurement(const Reader& r, EvidenceMeasurement& m) {
  CULPRIT_TRY(r.get("commit", m.commit));
  CULPRIT_TRY(r.get("case", m.case_name));
  CULPRIT_TRY(r.get("metric", m.metric));
  CULPRIT_TRY(r.get("unit", m.unit));
  CULPRIT_TRY(r.get("direction", m.direction, false));
  CULPRIT_TRY(r.get("artifact_id", m.artifact_id, false));
  CULPRIT_TRY(r.get("reused_from", m.reused_from, false));
  CULPRIT_TRY(r.get("host_id", m.host_id, false));
  CULPRIT_TRY(r.get("runs", m.runs));
  json blocks;
  CULPRIT_TRY(r.get("blocks", blocks, false));
  if (!blocks.is_null()) {
    if (!blocks.is_array())
      return usage_error("'{}' in the evidence has the wrong type ({})", r.where("blocks"),
                         blocks.type_name());
    for (const auto& block : blocks) {
      if (!block.is_null() && !block.is_string())
        return usage_error("'{}' in the evidence holds a {}, not a block name or null",
                           r.where("blocks"), block.type_name());
      m.blocks.push_back(block.is_null() ? std::string() : block.get<std::string>());
    }
  }
  CULPRIT_TRY(r.get("duets", m.duets, false));
  CULPRIT_TRY_ASSIGN(const auto summary, r.child("summary"));
  CULPRIT_TRY(summary.get("median", m.summary.median));
  CULPRIT_TRY(summary.get("ci", m.summary.ci));
  CULPRIT_TRY(summary.get("mean", m.summary.mean, false));
  CULPRIT_TRY(summary.get("min", m.summary.min, false));
  CULPRIT_TRY(summary.get("cv", m.summary.cv, false));
  CULPRIT_TRY(summary.get("outliers", m.summary.outliers, false));
  CULPRIT_TRY(read_optional_object(r, "roofline", m.roofline, read_roofline));
  CULPRIT_TRY(r.get("roofline_note", m.roofline_note, false));
  return read_optional_object(r, "interference", m.interference, read_interference);
}

Status read_comparison(const Reader& r, EvidenceComparison& c) {
  CULPRIT_TRY(r.get("base", c.base));
  CULPRIT_TRY(r.get("head", c.head));
  CULPRIT_TRY(r.get("case", c.case_name));
  CULPRIT_TRY(r.get("metric", c.metric, false));
  CULPRIT_TRY(r.get("unit", c.unit, false));
  CULPRIT_TRY(r.get("direction", c.direction, false));
  CULPRIT_TRY(r.get("ratio", c.ratio));
  CULPRIT_TRY(r.get("ci", c.ci));
  CULPRIT_TRY(r.get("p_value", c.p_value));
  CULPRIT_TRY(r.get("verdict", c.verdict));
  CULPRIT_TRY(r.get("base_runs", c.base_runs, false));
  CULPRIT_TRY(r.get("head_runs", c.head_runs, false));
  CULPRIT_TRY(r.get_optional("min_detectable", c.min_detectable));
  CULPRIT_TRY(read_optional_object(r, "estimator", c.estimator, read_estimator));
  CULPRIT_TRY(read_optional_object(r, "tail", c.tail, read_tail));
  CULPRIT_TRY(read_optional_object(r, "reuse", c.reuse, read_reuse));
  return r.get("note", c.note, false);
}

Status read_step(const Reader& r, EvidenceStep& s) {
  CULPRIT_TRY(r.get("commit", s.commit));
  CULPRIT_TRY(r.get("case", s.case_name, false));
  CULPRIT_TRY(r.get("classified", s.classified));
  CULPRIT_TRY(r.get_optional("position", s.position));
  CULPRIT_TRY(r.get_optional("ci", s.ci));
  CULPRIT_TRY(r.get("runs", s.runs, false));
  CULPRIT_TRY(r.get("host_id", s.host_id, false));
  CULPRIT_TRY(r.get("statistic", s.statistic, false));
  return r.get("note", s.note, false);
}

Status read_resources(const Reader& r, std::string_view key,
                      std::optional<EvidenceKernelResources>& out) {
  const auto it = r.node().find(key);
  if (it == r.node().end() || it->is_null())
    return {};
  CULPRIT_TRY_ASSIGN(const auto child, r.child(key));
  EvidenceKernelResources res;
  CULPRIT_TRY(child.get("registers", res.registers));
  CULPRIT_TRY(child.get("barriers", res.barriers, false));
  CULPRIT_TRY(child.get("spill_store_bytes", res.spill_store_bytes));
  CULPRIT_TRY(child.get("spill_load_bytes", res.spill_load_bytes));
  CULPRIT_TRY(child.get("stack_bytes", res.stack_bytes, false));
  CULPRIT_TRY(child.get("shared_bytes", res.shared_bytes, false));
  CULPRIT_TRY(child.get("constant_bytes", res.constant_bytes, false));
  out = res;
  return {};
}

Status read_size(const Reader& r, EvidenceSizeChange& s) {
  CULPRIT_TRY(r.get("name", s.name));
  CULPRIT_TRY(r.get("artifact", s.artifact, false));
  CULPRIT_TRY(r.get_optional("parent_bytes", s.parent_bytes));
  return r.get_optional("culprit_bytes", s.culprit_bytes);
}

Status read_file_stat(const Reader& r, EvidenceFileStat& f) {
  CULPRIT_TRY(r.get("path", f.path));
  CULPRIT_TRY(r.get("old_path", f.old_path, false));
  CULPRIT_TRY(r.get("kind", f.kind, false));
  CULPRIT_TRY(r.get("insertions", f.insertions));
  CULPRIT_TRY(r.get("deletions", f.deletions));
  return r.get("binary", f.binary, false);
}

Status read_kernel(const Reader& r, EvidenceKernelChange& k) {
  CULPRIT_TRY(r.get("name", k.name));
  CULPRIT_TRY(r.get("arch", k.arch, false));
  CULPRIT_TRY(r.get("change", k.change));
  CULPRIT_TRY(read_resources(r, "parent", k.parent));
  CULPRIT_TRY(read_resources(r, "culprit", k.culprit));
  return r.get("description", k.description, false);
}

// Every part of the hints is optional: a culprit may have been found where git or the build
// cache could say little about it.
Status read_hints(const Reader& r, EvidenceHints& h) {
  if (const auto it = r.node().find("diffstat"); it != r.node().end() && !it->is_null()) {
    CULPRIT_TRY_ASSIGN(const auto d, r.child("diffstat"));
    EvidenceDiffstat diffstat;
    CULPRIT_TRY(d.get("files", diffstat.files));
    CULPRIT_TRY(d.get("insertions", diffstat.insertions));
    CULPRIT_TRY(d.get("deletions", diffstat.deletions));
    CULPRIT_TRY(d.each("by_file", diffstat.by_file, read_file_stat, false));
    h.diffstat = std::move(diffstat);
  }
  CULPRIT_TRY(r.each("kernels", h.kernels, read_kernel, false));
  if (const auto it = r.node().find("artifacts"); it != r.node().end() && !it->is_null()) {
    CULPRIT_TRY_ASSIGN(const auto a, r.child("artifacts"));
    EvidenceArtifacts artifacts;
    CULPRIT_TRY(a.get("parent_bytes", artifacts.parent_bytes));
    CULPRIT_TRY(a.get("culprit_bytes", artifacts.culprit_bytes));
    CULPRIT_TRY(a.get("parent_files", artifacts.parent_files, false));
    CULPRIT_TRY(a.get("culprit_files", artifacts.culprit_files, false));
    CULPRIT_TRY(a.get("identical", artifacts.identical, false));
    CULPRIT_TRY(a.each("changed", artifacts.changed, read_size, false));
    h.artifacts = std::move(artifacts);
  }
  CULPRIT_TRY(r.each("symbols", h.symbols, read_size, false));
  return r.get("notes", h.notes, false);
}

Status read_culprit_case(const Reader& r, EvidenceCulpritCase& c) {
  CULPRIT_TRY(r.get("case", c.name));
  CULPRIT_TRY(r.get("ratio", c.ratio));
  CULPRIT_TRY(r.get("ci", c.ci));
  return r.get_optional("share", c.share);
}

Status read_culprit(const Reader& r, EvidenceCulprit& c) {
  CULPRIT_TRY(r.get("commit", c.commit));
  CULPRIT_TRY(r.get("parent", c.parent));
  CULPRIT_TRY(r.get("subject", c.subject));
  CULPRIT_TRY(r.get("author", c.author));
  CULPRIT_TRY(r.get("email", c.email, false));
  CULPRIT_TRY(r.get("date", c.date));
  CULPRIT_TRY(r.get("files", c.files));
  CULPRIT_TRY(r.get("owners", c.owners));
  CULPRIT_TRY(r.each("cases", c.cases, read_culprit_case));
  if (const auto it = r.node().find("hints"); it != r.node().end() && !it->is_null()) {
    CULPRIT_TRY_ASSIGN(const auto hints_reader, r.child("hints"));
    EvidenceHints hints;
    CULPRIT_TRY(read_hints(hints_reader, hints));
    c.hints = std::move(hints);
  }
  return {};
}

Status read_bisect(const Reader& r, EvidenceBisect& b) {
  CULPRIT_TRY(r.get("good", b.good));
  CULPRIT_TRY(r.get("bad", b.bad));
  CULPRIT_TRY(r.get("commits_in_range", b.commits_in_range));
  CULPRIT_TRY(r.get("rounds", b.rounds, false));
  CULPRIT_TRY(r.get("parallel", b.parallel, false));
  CULPRIT_TRY(r.get("cases", b.cases, false));
  CULPRIT_TRY(r.each("steps", b.steps, read_step));
  CULPRIT_TRY(r.each("culprits", b.culprits, read_culprit));
  return r.get("candidates", b.candidates, false);
}

} // namespace

Result<Evidence> evidence_from_json(const nlohmann::json& doc) {
  if (!doc.is_object())
    return usage_error("the evidence is not a JSON object; give a file that culprit wrote with "
                       "--json");
  Evidence e;
  const Reader r(doc, "");
  CULPRIT_TRY(r.get("schema", e.schema));
  if (e.schema != k_evidence_schema)
    return usage_error("the evidence has schema '{}', and this culprit reads '{}'; render it with "
                       "the culprit that wrote it",
                       e.schema, k_evidence_schema);
  CULPRIT_TRY(r.get("kind", e.kind));
  CULPRIT_TRY(r.get("status", e.status));
  CULPRIT_TRY_ASSIGN(const auto tool, r.child("tool"));
  CULPRIT_TRY(tool.get("version", e.tool_version));
  CULPRIT_TRY(r.get("command", e.command));
  CULPRIT_TRY(r.get("created", e.created));
  CULPRIT_TRY_ASSIGN(const auto repo, r.child("repo"));
  CULPRIT_TRY(repo.get("path", e.repo_path));
  CULPRIT_TRY(repo.get("head", e.repo_head));
  if (const auto it = doc.find("host"); it != doc.end() && it->is_object())
    e.host = *it;
  if (const auto it = doc.find("executor"); it != doc.end() && it->is_object())
    e.executor = *it;
  CULPRIT_TRY_ASSIGN(const auto settings, r.child("settings"));
  auto& s = e.settings;
  CULPRIT_TRY(settings.get("build", s.build));
  CULPRIT_TRY(settings.get("run", s.run));
  CULPRIT_TRY(settings.get("format", s.format));
  CULPRIT_TRY(settings.get("metric", s.metric));
  CULPRIT_TRY(settings.get("threshold", s.threshold));
  CULPRIT_TRY(settings.get("confidence", s.confidence));
  CULPRIT_TRY(settings.get("seed", s.seed));
  CULPRIT_TRY(settings.get_optional("classify_confidence", s.classify_confidence));
  CULPRIT_TRY(settings.get_optional("explained_share", s.explained_share));
  CULPRIT_TRY(settings.get_optional("budget", s.budget));
  CULPRIT_TRY(settings.get("min_runs", s.min_runs, false));
  CULPRIT_TRY(settings.get("max_runs", s.max_runs, false));
  CULPRIT_TRY(settings.get("warmup", s.warmup, false));
  CULPRIT_TRY(settings.get("cases", s.cases, false));
  CULPRIT_TRY(settings.get("direction", s.direction, false));
  CULPRIT_TRY(settings.get("statistic", s.statistic, false));
  CULPRIT_TRY(settings.get("duet", s.duet, false));
  CULPRIT_TRY(r.each("builds", e.builds, read_build));
  CULPRIT_TRY(r.each("measurements", e.measurements, read_measurement));
  CULPRIT_TRY(r.each("comparisons", e.comparisons, read_comparison));
  CULPRIT_TRY(r.get("warnings", e.warnings, false));
  CULPRIT_TRY(r.each("roofline_peaks", e.roofline_peaks, read_peaks, false));
  if (const auto it = doc.find("bisect"); it != doc.end() && !it->is_null()) {
    if (!it->is_object())
      return usage_error("'bisect' in the evidence must be an object");
    EvidenceBisect bisect;
    CULPRIT_TRY(read_bisect(Reader(*it, "bisect"), bisect));
    e.bisect = std::move(bisect);
  }
  CULPRIT_TRY(check_evidence(e));
  return e;
}

Result<Evidence> load_evidence(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    return usage_error("no evidence file at {}; give the path that --json wrote", file.string());
  auto text = read_file(file);
  if (!text)
    return usage_error("{}", text.error().message);
  json doc;
  try {
    doc = json::parse(*text);
  } catch (const json::parse_error& e) {
    return usage_error("{} is not JSON (at byte {}); give a file that culprit wrote with --json",
                       file.string(), e.byte);
  }
  return evidence_from_json(doc);
}

} // namespace culprit
