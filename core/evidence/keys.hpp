#pragma once
// The key table of the evidence (culprit-evidence(5)): for each object of the document, the key
// that spells each member and what a reader may expect of it. The writer (evidence.cpp) and the
// reader (read.cpp) both walk these tables, so a key is spelled once. A dotted name ("repo.path")
// is a key of a nested object that has no struct of its own.

#include <string_view>
#include <tuple>
#include <type_traits>

#include "core/evidence/evidence.hpp"

namespace culprit::evidence::keys {

enum class Presence {
  required, // always written; a document without it is refused
  optional, // always written (null when empty); a document may lack it
  omitted,  // written only when it holds something; absent reads as empty
};

// How a value is spelled where nlohmann's own conversion is not the spelling.
enum class Spelling {
  plain,
  null_for_empty, // a list of strings whose empty ones are written as null (a run in no block)
};

template <class S, class T> struct Key {
  std::string_view name;
  T S::* member;
  Presence presence = Presence::required;
  Spelling spelling = Spelling::plain;
};

template <class S, class T> constexpr Key<S, T> required(std::string_view name, T S::* member) {
  return {name, member, Presence::required};
}

template <class S, class T> constexpr Key<S, T> optional(std::string_view name, T S::* member) {
  return {name, member, Presence::optional};
}

template <class S, class T>
constexpr Key<S, T> omitted(std::string_view name, T S::* member,
                            Spelling spelling = Spelling::plain) {
  return {name, member, Presence::omitted, spelling};
}

constexpr auto keys_of(std::type_identity<EvidenceSettings> /*unused*/) {
  using S = EvidenceSettings;
  return std::tuple{required("build", &S::build),
                    required("run", &S::run),
                    required("format", &S::format),
                    required("metric", &S::metric),
                    required("threshold", &S::threshold),
                    required("confidence", &S::confidence),
                    required("seed", &S::seed),
                    optional("classify_confidence", &S::classify_confidence),
                    optional("explained_share", &S::explained_share),
                    optional("budget", &S::budget),
                    optional("min_runs", &S::min_runs),
                    optional("max_runs", &S::max_runs),
                    optional("warmup", &S::warmup),
                    optional("cases", &S::cases),
                    optional("direction", &S::direction),
                    optional("statistic", &S::statistic),
                    optional("duet", &S::duet),
                    optional("instrument", &S::instrument),
                    optional("cwd", &S::cwd),
                    omitted("store", &S::store)};
}

constexpr auto keys_of(std::type_identity<EvidenceBuild> /*unused*/) {
  using S = EvidenceBuild;
  return std::tuple{required("commit", &S::commit), required("key", &S::key),
                    required("ok", &S::ok),         required("seconds", &S::seconds),
                    optional("status", &S::status), optional("artifact_id", &S::artifact_id),
                    optional("log", &S::log),       optional("message", &S::message)};
}

constexpr auto keys_of(std::type_identity<EvidenceSummary> /*unused*/) {
  using S = EvidenceSummary;
  return std::tuple{required("median", &S::median), required("ci", &S::ci),
                    optional("mean", &S::mean),     optional("min", &S::min),
                    optional("cv", &S::cv),         optional("outliers", &S::outliers)};
}

constexpr auto keys_of(std::type_identity<EvidenceSpeedStates> /*unused*/) {
  using S = EvidenceSpeedStates;
  return std::tuple{required("fast", &S::fast), required("slow", &S::slow),
                    required("slow_share", &S::slow_share), optional("separation", &S::separation),
                    optional("slow_stretch", &S::slow_stretch)};
}

constexpr auto keys_of(std::type_identity<EvidenceDrift> /*unused*/) {
  using S = EvidenceDrift;
  return std::tuple{required("change", &S::change), optional("tau", &S::tau),
                    required("p_value", &S::p_value)};
}

constexpr auto keys_of(std::type_identity<EvidenceInterference> /*unused*/) {
  using S = EvidenceInterference;
  return std::tuple{required("one_sided", &S::one_sided), optional("skewness", &S::skewness),
                    optional("spread", &S::spread),       optional("summary", &S::summary),
                    optional("states", &S::states),       optional("drift", &S::drift)};
}

constexpr auto keys_of(std::type_identity<EvidenceRoofline> /*unused*/) {
  using S = EvidenceRoofline;
  return std::tuple{required("flops", &S::flops),
                    required("bytes", &S::bytes),
                    required("intensity", &S::intensity),
                    required("achieved_flops_per_second", &S::achieved_flops_per_second),
                    required("achieved_bytes_per_second", &S::achieved_bytes_per_second),
                    required("bound_flops_per_second", &S::bound_flops_per_second),
                    required("bound_seconds", &S::bound_seconds),
                    required("limiter", &S::limiter),
                    required("fraction", &S::fraction),
                    required("fraction_ci", &S::fraction_ci),
                    optional("work", &S::work),
                    optional("device", &S::device)};
}

constexpr auto keys_of(std::type_identity<EvidencePeaks> /*unused*/) {
  using S = EvidencePeaks;
  return std::tuple{required("device", &S::device),
                    optional("compute", &S::compute),
                    required("flops_per_second", &S::flops_per_second),
                    optional("tensor_flops_per_second", &S::tensor_flops_per_second),
                    required("bytes_per_second", &S::bytes_per_second),
                    optional("source", &S::source)};
}

constexpr auto keys_of(std::type_identity<EvidenceMeasurement> /*unused*/) {
  using S = EvidenceMeasurement;
  return std::tuple{required("commit", &S::commit),
                    required("case", &S::case_name),
                    required("metric", &S::metric),
                    required("unit", &S::unit),
                    optional("direction", &S::direction),
                    optional("artifact_id", &S::artifact_id),
                    optional("reused_from", &S::reused_from),
                    omitted("host_id", &S::host_id),
                    required("runs", &S::runs),
                    omitted("blocks", &S::blocks, Spelling::null_for_empty),
                    omitted("duets", &S::duets),
                    required("summary", &S::summary),
                    optional("interference", &S::interference),
                    omitted("roofline", &S::roofline),
                    omitted("roofline_note", &S::roofline_note)};
}

constexpr auto keys_of(std::type_identity<EvidenceEstimator> /*unused*/) {
  using S = EvidenceEstimator;
  return std::tuple{required("statistic", &S::statistic),
                    optional("setting", &S::setting),
                    optional("reason", &S::reason),
                    optional("method", &S::method),
                    optional("blocks", &S::blocks),
                    optional("duets", &S::duets),
                    optional("interval_confidence", &S::interval_confidence),
                    optional("base_level", &S::base_level),
                    optional("head_level", &S::head_level)};
}

constexpr auto keys_of(std::type_identity<EvidenceSlowRuns> /*unused*/) {
  using S = EvidenceSlowRuns;
  return std::tuple{required("share", &S::share),         required("runs", &S::runs),
                    required("compared", &S::compared),   required("fast", &S::fast),
                    required("slow", &S::slow),           required("mixed", &S::mixed),
                    required("slow_used", &S::slow_used), optional("summary", &S::summary)};
}

constexpr auto keys_of(std::type_identity<EvidenceTail> /*unused*/) {
  using S = EvidenceTail;
  return std::tuple{required("statistic", &S::statistic), required("ratio", &S::ratio),
                    required("ci", &S::ci), required("p_value", &S::p_value),
                    required("verdict", &S::verdict)};
}

constexpr auto keys_of(std::type_identity<EvidenceReuse> /*unused*/) {
  using S = EvidenceReuse;
  return std::tuple{required("blocks", &S::blocks), required("base_unpaired", &S::base_unpaired),
                    required("head_unpaired", &S::head_unpaired)};
}

constexpr auto keys_of(std::type_identity<EvidenceComparison> /*unused*/) {
  using S = EvidenceComparison;
  return std::tuple{required("base", &S::base),
                    required("head", &S::head),
                    required("case", &S::case_name),
                    optional("metric", &S::metric),
                    optional("unit", &S::unit),
                    optional("direction", &S::direction),
                    required("ratio", &S::ratio),
                    required("ci", &S::ci),
                    required("p_value", &S::p_value),
                    required("verdict", &S::verdict),
                    optional("base_runs", &S::base_runs),
                    optional("head_runs", &S::head_runs),
                    optional("min_detectable", &S::min_detectable),
                    optional("note", &S::note),
                    optional("estimator", &S::estimator),
                    optional("tail", &S::tail),
                    optional("reuse", &S::reuse),
                    omitted("slow_runs", &S::slow_runs)};
}

constexpr auto keys_of(std::type_identity<EvidenceStep> /*unused*/) {
  using S = EvidenceStep;
  return std::tuple{required("commit", &S::commit),
                    omitted("case", &S::case_name),
                    required("classified", &S::classified),
                    optional("position", &S::position),
                    optional("ci", &S::ci),
                    optional("runs", &S::runs),
                    omitted("host_id", &S::host_id),
                    omitted("statistic", &S::statistic),
                    optional("note", &S::note)};
}

constexpr auto keys_of(std::type_identity<EvidenceFileStat> /*unused*/) {
  using S = EvidenceFileStat;
  return std::tuple{required("path", &S::path),           optional("old_path", &S::old_path),
                    optional("kind", &S::kind),           required("insertions", &S::insertions),
                    required("deletions", &S::deletions), optional("binary", &S::binary)};
}

constexpr auto keys_of(std::type_identity<EvidenceDiffstat> /*unused*/) {
  using S = EvidenceDiffstat;
  return std::tuple{required("files", &S::files), required("insertions", &S::insertions),
                    required("deletions", &S::deletions), optional("by_file", &S::by_file)};
}

constexpr auto keys_of(std::type_identity<EvidenceKernelResources> /*unused*/) {
  using S = EvidenceKernelResources;
  return std::tuple{required("registers", &S::registers),
                    optional("barriers", &S::barriers),
                    required("spill_store_bytes", &S::spill_store_bytes),
                    required("spill_load_bytes", &S::spill_load_bytes),
                    optional("stack_bytes", &S::stack_bytes),
                    optional("shared_bytes", &S::shared_bytes),
                    optional("constant_bytes", &S::constant_bytes)};
}

constexpr auto keys_of(std::type_identity<EvidenceKernelChange> /*unused*/) {
  using S = EvidenceKernelChange;
  return std::tuple{required("name", &S::name),       optional("arch", &S::arch),
                    required("change", &S::change),   optional("parent", &S::parent),
                    optional("culprit", &S::culprit), optional("description", &S::description)};
}

constexpr auto keys_of(std::type_identity<EvidenceSizeChange> /*unused*/) {
  using S = EvidenceSizeChange;
  return std::tuple{required("name", &S::name), optional("artifact", &S::artifact),
                    optional("parent_bytes", &S::parent_bytes),
                    optional("culprit_bytes", &S::culprit_bytes)};
}

constexpr auto keys_of(std::type_identity<EvidenceArtifacts> /*unused*/) {
  using S = EvidenceArtifacts;
  return std::tuple{
      required("parent_bytes", &S::parent_bytes), required("culprit_bytes", &S::culprit_bytes),
      optional("parent_files", &S::parent_files), optional("culprit_files", &S::culprit_files),
      optional("identical", &S::identical),       optional("changed", &S::changed)};
}

// Every part of the hints is optional: a culprit may have been found where git or the build
// cache could say little about it.
constexpr auto keys_of(std::type_identity<EvidenceHints> /*unused*/) {
  using S = EvidenceHints;
  return std::tuple{optional("diffstat", &S::diffstat), optional("kernels", &S::kernels),
                    optional("artifacts", &S::artifacts), optional("symbols", &S::symbols),
                    optional("notes", &S::notes)};
}

constexpr auto keys_of(std::type_identity<EvidenceCounterChange> /*unused*/) {
  using S = EvidenceCounterChange;
  return std::tuple{required("metric", &S::metric), required("parent", &S::parent),
                    required("culprit", &S::culprit)};
}

constexpr auto keys_of(std::type_identity<EvidenceCounters> /*unused*/) {
  using S = EvidenceCounters;
  return std::tuple{required("case", &S::case_name), required("changes", &S::changes),
                    omitted("note", &S::note)};
}

constexpr auto keys_of(std::type_identity<EvidenceCulpritCase> /*unused*/) {
  using S = EvidenceCulpritCase;
  return std::tuple{required("case", &S::name),      required("ratio", &S::ratio),
                    required("ci", &S::ci),          optional("share", &S::share),
                    omitted("metric", &S::metric),   omitted("exact", &S::exact),
                    omitted("in_time", &S::in_time), omitted("counters", &S::counters)};
}

constexpr auto keys_of(std::type_identity<EvidenceCulprit> /*unused*/) {
  using S = EvidenceCulprit;
  return std::tuple{required("commit", &S::commit),       required("parent", &S::parent),
                    required("subject", &S::subject),     required("author", &S::author),
                    optional("email", &S::email),         required("date", &S::date),
                    required("files", &S::files),         required("owners", &S::owners),
                    required("cases", &S::cases),         optional("hints", &S::hints),
                    omitted("regression", &S::regression)};
}

constexpr auto keys_of(std::type_identity<EvidenceBisect> /*unused*/) {
  using S = EvidenceBisect;
  return std::tuple{required("good", &S::good),
                    required("bad", &S::bad),
                    required("commits_in_range", &S::commits_in_range),
                    optional("rounds", &S::rounds),
                    optional("parallel", &S::parallel),
                    optional("cases", &S::cases),
                    required("steps", &S::steps),
                    required("culprits", &S::culprits),
                    optional("candidates", &S::candidates),
                    optional("candidate_subjects", &S::candidate_subjects),
                    omitted("note", &S::note)};
}

constexpr auto keys_of(std::type_identity<EvidenceTrackNoise> /*unused*/) {
  using S = EvidenceTrackNoise;
  return std::tuple{required("case", &S::case_name), required("summary", &S::summary),
                    required("affected", &S::affected), required("measured", &S::measured)};
}

constexpr auto keys_of(std::type_identity<EvidenceTrack> /*unused*/) {
  using S = EvidenceTrack;
  return std::tuple{required("session", &S::session),
                    required("resumed", &S::resumed),
                    required("selected", &S::selected),
                    required("measured", &S::measured),
                    required("runs", &S::runs),
                    required("runs_made", &S::runs_made),
                    required("already_tracked", &S::already_tracked),
                    required("failed_builds", &S::failed_builds),
                    required("anchors_wanted", &S::anchors_wanted),
                    required("anchors", &S::anchors),
                    required("noise", &S::noise)};
}

// The document itself. "tool.name" (always "culprit"), "host" and "executor" (JSON objects kept
// as they are) are written and read beside this table.
constexpr auto keys_of(std::type_identity<Evidence> /*unused*/) {
  using S = Evidence;
  return std::tuple{required("schema", &S::schema),
                    required("kind", &S::kind),
                    required("status", &S::status),
                    required("tool.version", &S::tool_version),
                    required("command", &S::command),
                    required("created", &S::created),
                    required("repo.path", &S::repo_path),
                    required("repo.head", &S::repo_head),
                    omitted("revisions", &S::revisions),
                    required("settings", &S::settings),
                    required("builds", &S::builds),
                    required("measurements", &S::measurements),
                    required("comparisons", &S::comparisons),
                    optional("warnings", &S::warnings),
                    omitted("roofline_peaks", &S::roofline_peaks),
                    omitted("bisect", &S::bisect),
                    omitted("track", &S::track)};
}

// The types that are JSON objects with a key table.
template <class T>
concept Object = requires { keys_of(std::type_identity<T>{}); };

// Calls visit(key) for each key of S's table, in its order, while visit returns true.
template <Object S, class F> constexpr bool for_each_key(F&& visit) {
  return std::apply([&](const auto&... key) { return (visit(key) && ...); },
                    keys_of(std::type_identity<S>{}));
}

template <class T> struct is_optional : std::false_type {};
template <class T> struct is_optional<std::optional<T>> : std::true_type {};
template <class T> struct is_object_list : std::false_type {};
template <Object T, class A> struct is_object_list<std::vector<T, A>> : std::true_type {};

} // namespace culprit::evidence::keys
