#pragma once
// Evidence: the JSON document that records everything a verdict rests on
// (culprit-evidence(5)). The structs below are the schema: writers fill them, renderers read them,
// and the key table of core/evidence/keys.hpp is the only place that spells a key; to_json and
// evidence_from_json walk it. Keys are stable: new ones may be added, none is ever renamed.

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/recipe/recipe.hpp"
#include "core/util/error.hpp"

namespace culprit::evidence {

inline constexpr std::string_view k_evidence_schema = "culprit.evidence/2";

struct EvidenceSettings {
  std::string build;
  std::string run;
  std::string format;
  std::string metric;
  double threshold = recipe::DecideOptions{}.threshold;
  double confidence = recipe::DecideOptions{}.confidence;
  std::uint64_t seed = recipe::DecideOptions{}.seed;
  // A bisection's probe classification level and the share of a change its culprits must
  // explain before it stops warning; the time budget in seconds (none: unbounded). Absent from
  // evidence written before they were recorded.
  std::optional<double> classify_confidence;
  std::optional<double> explained_share;
  std::optional<double> budget;
  int min_runs = 0;
  int max_runs = 0;
  int warmup = 0;
  std::vector<std::string> cases;
  std::string direction;  // "regression" or "improvement" for bisect
  std::string statistic;  // the setting: auto, median, min, ... (empty in older evidence)
  std::string duet;       // the setting: auto, on, off (empty in older evidence)
  std::string instrument; // time or valgrind (empty in older evidence: time)
  std::string cwd;        // where runs started: scratch or artifacts (empty in older evidence)
  // The shared store the runs are in, its URL without the password; empty (and absent) for the
  // cache dir's SQLite files.
  std::string store;
};

struct EvidenceBuild {
  std::string commit;
  std::string key;
  bool ok = false;
  double seconds = 0;
  std::string status; // built | cached | failed | failed (cached)
  std::string artifact_id;
  std::string log;
  std::string message;
};

struct EvidenceSummary {
  double median = 0;
  std::array<double, 2> ci{0, 0};
  double mean = 0;
  double min = 0;
  double cv = 0; // coefficient of variation of the run medians
  int outliers = 0;
};

// What the samples of one side say about interference (stats/interference.hpp).
struct EvidenceSpeedStates {
  double fast = 0;         // typical value in the fast state, in the measurement's unit
  double slow = 0;         // typical value in the slow state
  double slow_share = 0;   // share of the samples in the slow state
  double separation = 0;   // Ashman's D
  double slow_stretch = 0; // mean length of a slow stretch, in consecutive samples
};

struct EvidenceDrift {
  double change = 0; // relative change from the first run to the last
  double tau = 0;    // Kendall's tau of run order against the runs' level
  double p_value = 1;
};

struct EvidenceInterference {
  bool one_sided = false;
  std::optional<EvidenceSpeedStates> states;
  double skewness = 0; // Kelly's, of the log samples oriented so that interference is positive
  double spread = 0;   // q90 / q10 - 1
  std::optional<EvidenceDrift> drift;
  std::string summary; // the line for people; empty when there is nothing to say
};

// Where a case stands against its roofline (core/roofline/roofline.hpp), from the median time of
// one call and the work of one call; `device` names its peaks in Evidence::roofline_peaks.
struct EvidenceRoofline {
  double flops = 0;     // of one call
  double bytes = 0;     // of one call
  double intensity = 0; // FLOPs per byte
  double achieved_flops_per_second = 0;
  double achieved_bytes_per_second = 0;
  double bound_flops_per_second = 0;       // the roof at this intensity
  double bound_seconds = 0;                // the least time one call can take
  std::string limiter;                     // compute | memory
  double fraction = 0;                     // bound_seconds / the median time: 1 is the roof
  std::array<double, 2> fraction_ci{0, 0}; // from the interval of the median
  std::string work;                        // where flops and bytes come from: output | culprit.toml
  std::string device;
};

// The peaks a roofline used, and where they come from.
struct EvidencePeaks {
  std::string device;
  std::string compute; // vector | tensor: which FLOP/s peak bounds the cases
  double flops_per_second = 0;
  std::optional<double> tensor_flops_per_second;
  double bytes_per_second = 0;
  std::string source;
};

struct EvidenceMeasurement {
  std::string commit;
  std::string case_name;
  std::string metric;
  std::string unit;
  std::string direction; // lower | higher
  std::string artifact_id;
  std::string reused_from; // a commit whose byte-identical artifacts were measured instead
  std::string host_id;     // the device the runs come from, when a driver measured on several
  std::vector<std::vector<double>> runs;
  // Per run, when the runs were made in blocks (stats/paired.hpp): the block it belongs to
  // (empty: none) and whether the block ran as a duet. Empty vectors: no run was in a block.
  std::vector<std::string> blocks;
  std::vector<bool> duets;
  EvidenceSummary summary;
  std::optional<EvidenceInterference> interference;
  std::optional<EvidenceRoofline> roofline;
  std::string roofline_note; // why there is no roofline, when there is none and it was asked
};

// How a comparison was judged: the statistic of each run, why it was chosen, and the pairing.
struct EvidenceEstimator {
  std::string statistic; // min, median, p10, ...
  std::string setting;   // what was asked: auto or a statistic
  std::string reason;
  std::string method;             // paired_signed_rank | two_level_bootstrap
  int blocks = 0;                 // blocks of interleaved runs compared
  int duets = 0;                  // of which ran as duets
  double interval_confidence = 0; // the level the interval has
  // The median over the compared blocks of each side's run statistic: the figures the ratio
  // compares, in the comparison's unit.
  double base_level = 0;
  double head_level = 0;
};

// Whole runs in the slow state (stats/slow_runs.hpp): which blocks the comparison used.
struct EvidenceSlowRuns {
  double share = 0; // of the runs looked at, slow from their first sample to their last
  int runs = 0;     // runs looked at, both sides
  int compared = 0; // blocks compared
  int fast = 0;     // of which every run was fast
  int slow = 0;     // blocks whose runs were all slow (compared when slow_used)
  int mixed = 0;    // blocks whose runs were in different states: left out
  bool slow_used = false;
  std::string summary; // for people
};

// A change of the slow side of each run, beside a verdict made with the fast side.
struct EvidenceTail {
  std::string statistic; // p90 of a time, p10 of a throughput
  double ratio = 1;
  std::array<double, 2> ci{1, 1};
  double p_value = 1;
  std::string verdict;
};

// What a comparison took from the store: blocks that earlier commands made (paired, so they
// count), and each side's stored runs that were not paired with the other side, left out.
struct EvidenceReuse {
  int blocks = 0;
  int base_unpaired = 0;
  int head_unpaired = 0;
};

struct EvidenceComparison {
  std::string base;
  std::string head;
  std::string case_name;
  std::string metric;
  std::string unit;
  std::string direction;
  double ratio = 1;
  std::array<double, 2> ci{1, 1};
  double p_value = 1;
  std::string verdict; // slower | faster | same | inconclusive
  int base_runs = 0;
  int head_runs = 0;
  std::optional<double> min_detectable; // the smallest change these data could resolve
  std::string note;
  std::optional<EvidenceEstimator> estimator;
  std::optional<EvidenceTail> tail;
  std::optional<EvidenceReuse> reuse;
  std::optional<EvidenceSlowRuns> slow_runs;
};

struct EvidenceStep {
  std::string commit;
  std::string classified;         // good | bad | skip | intermediate | unresolved
  std::optional<double> position; // 0 = like good, 1 = like bad
  std::optional<std::array<double, 2>> ci;
  int runs = 0;
  std::string note;
  std::string host_id;   // the device the probe was classified on, when there were several lanes
  std::string statistic; // of each run, that placed the probe ("median", "min"); empty if none
  std::string case_name; // the case bisected (empty in evidence from before it was recorded)
};

// What changed between a culprit and its parent, as facts read from git and the build cache
// (core/evidence/culprit_hints.hpp says how each is found). Every part is optional: what could not
// be read is left out, and `notes` says why in one line each.
struct EvidenceFileStat {
  std::string path;
  std::string old_path; // differs from path for renames
  std::string kind;     // added | modified | deleted | renamed | type_changed
  int insertions = 0;
  int deletions = 0;
  bool binary = false;
};

struct EvidenceDiffstat {
  int files = 0;
  int insertions = 0;
  int deletions = 0;
  std::vector<EvidenceFileStat> by_file;
};

struct EvidenceKernelResources {
  int registers = 0;
  int barriers = 0;
  std::int64_t spill_store_bytes = 0;
  std::int64_t spill_load_bytes = 0;
  std::int64_t stack_bytes = 0;
  std::int64_t shared_bytes = 0;
  std::int64_t constant_bytes = 0;
};

// One row of the ptxas resource table of the culprit against its parent.
struct EvidenceKernelChange {
  std::string name; // the short demangled name
  std::string arch;
  std::string change; // added | removed | changed | unchanged
  std::optional<EvidenceKernelResources> parent;
  std::optional<EvidenceKernelResources> culprit;
  std::string description; // "registers 56 -> 32, spill stores 0 -> 52 B"
};

// The size of one artifact file or one symbol in the parent's and the culprit's build; absent
// on the side that lacks it.
struct EvidenceSizeChange {
  std::string name;
  std::string artifact; // for a symbol: the artifact file that holds it
  std::optional<std::int64_t> parent_bytes;
  std::optional<std::int64_t> culprit_bytes;
};

struct EvidenceArtifacts {
  std::int64_t parent_bytes = 0;
  std::int64_t culprit_bytes = 0;
  int parent_files = 0;
  int culprit_files = 0;
  bool identical = false;                  // the same artifact id: byte-identical builds
  std::vector<EvidenceSizeChange> changed; // the files whose size changed most
};

struct EvidenceHints {
  std::optional<EvidenceDiffstat> diffstat;
  std::vector<EvidenceKernelChange> kernels; // empty when either build log has no ptxas report
  std::optional<EvidenceArtifacts> artifacts;
  std::vector<EvidenceSizeChange> symbols; // the symbols whose size changed most
  std::vector<std::string> notes;
};

// One count of a culprit's parent and of the culprit (core/bisect/counters.hpp).
struct EvidenceCounterChange {
  std::string metric;
  double parent = 0;
  double culprit = 0;
};

// What a culprit and its parent executed on a simulated CPU: the counter diff.
struct EvidenceCounters {
  std::string case_name; // the counted case: the culprit's, or the whole program's
  std::vector<EvidenceCounterChange> changes;
  std::string note; // why there are no changes, when there are none
};

// How a culprit moved one case: the commit against its parent.
struct EvidenceCulpritCase {
  std::string name;
  double ratio = 1;
  std::array<double, 2> ci{1, 1};
  std::optional<double> share; // of the case's total change between good and bad
  // What located it: a count ("instructions", under a counting instrument) or a time; empty in
  // evidence from before it was recorded.
  std::string metric{};
  bool exact{false}; // counts that did not vary: a zero-width interval, without a bootstrap
  // The culprit against its parent in time, when counts located it: the case, or every timed
  // case when the counts are of the whole program.
  std::vector<EvidenceComparison> in_time{};
  std::optional<EvidenceCounters> counters{}; // when Valgrind counted the culprit and its parent
};

// One commit is one culprit, with every case it moved.
struct EvidenceCulprit {
  std::string commit;
  std::string parent;
  std::string subject;
  std::string author;
  std::string email;
  std::string date;
  std::vector<std::string> files;
  std::vector<std::string> owners;
  std::vector<EvidenceCulpritCase> cases; // in the order they were found; never empty
  std::optional<EvidenceHints> hints{};
  // The regression record triage keeps for it (core/history/regressions.hpp); empty elsewhere.
  std::string regression{};
};

// Adds `culprit` to `culprits`: its cases join those of an entry for the same commit, or it is
// a new entry at the end.
void add_culprit(std::vector<EvidenceCulprit>& culprits, EvidenceCulprit culprit);

struct EvidenceBisect {
  std::string good;
  std::string bad;
  int commits_in_range = 0;
  int rounds = 0;   // of probes, `parallel` at a time
  int parallel = 1; // probes per round (K)
  std::vector<std::string> cases;
  std::vector<EvidenceStep> steps;
  std::vector<EvidenceCulprit> culprits;
  std::vector<std::string> candidates; // when skips or the budget leave more than one
  // The subject of each candidate, in the same order (from the repository, like a culprit's).
  std::vector<std::string> candidate_subjects;
  // Why the search ended as it did, when there is more to say than the status: the culprit was
  // located by counts but not confirmed in time, the budget ran out, ... (empty when nothing).
  std::string note;
  // `commit` and its subject, when the evidence has it: "1a2b3c4d5e6f subject".
  [[nodiscard]] std::string candidate_line(std::size_t i, std::size_t id_length = 12) const;
};

// A case whose runs showed interference in a track session.
struct EvidenceTrackNoise {
  std::string case_name;
  std::string summary; // the interference, as the noise: line says it
  int affected = 0;    // commits whose runs showed it
  int measured = 0;    // commits measured
};

// What a track session did (kind "track"); its runs are in the store, under `session`, and
// `culprit history` shows them.
struct EvidenceTrack {
  std::string session;     // the label its runs are stored under
  bool resumed = false;    // it went on with an interrupted session of the same command
  int selected = 0;        // commits the selection (--every, --since) kept
  int measured = 0;        // new commits measured (anchors not counted)
  int runs = 0;            // counted runs per commit
  int runs_made = 0;       // new runs, warm-ups included
  int already_tracked = 0; // commits of the selection tracked before, left alone
  int failed_builds = 0;
  int anchors_wanted = 0;           // --anchors
  std::vector<std::string> anchors; // tracked before and measured again in this session
  std::vector<EvidenceTrackNoise> noise;
};

struct Evidence {
  std::string schema{k_evidence_schema};
  std::string kind;   // run | compare | bisect | track | triage
  std::string status; // measured | no_change | slower | faster | inconclusive | culprit_found |
                      // not_reproduced | failed | interrupted (check.cpp's k_statuses)
  std::string tool_version;
  std::vector<std::string> command;
  std::string created;
  std::string repo_path;
  std::string repo_head;
  // The revisions as the command was given them, in its order: run [REV], compare [BASE, HEAD],
  // bisect [GOOD, BAD]. The summary names them as the user did (empty in older evidence).
  std::vector<std::string> revisions;
  nlohmann::json host = nlohmann::json::object(); // the host fingerprint as `culprit env` gives it
  // Where builds and runs happened: {"kind": "local"}, or for Slurm {"kind": "slurm", "parallel":
  // K, "retries": N, "jobs": [{"job_id", "node", "gpus", "host_id", "batches", "runs", "ended"}]}.
  nlohmann::json executor = nlohmann::json::object();
  EvidenceSettings settings;
  std::vector<EvidenceBuild> builds;
  std::vector<EvidenceMeasurement> measurements;
  std::vector<EvidenceComparison> comparisons;
  std::optional<EvidenceBisect> bisect;
  std::optional<EvidenceTrack> track;
  std::vector<std::string> warnings;
  std::vector<EvidencePeaks> roofline_peaks; // those the measurements' rooflines used
};

nlohmann::json to_json(const Evidence& evidence);
// Reads evidence back; a document of another schema, one that lacks a key, or one that breaks an
// invariant (check_evidence) is a usage error that names the key path (e.g.
// "comparisons[2].ratio").
Result<Evidence> evidence_from_json(const nlohmann::json& json);
// The invariants of evidence that culprit writes: a known kind and status, a bisect object in a
// bisection's evidence, known verdicts and classifications, ratios that are positive numbers,
// intervals whose lower end is not above the upper one, p-values in [0, 1], finite samples. A
// usage error names the first key that breaks one.
Status check_evidence(const Evidence& evidence);
Result<Evidence> load_evidence(const std::filesystem::path& file);
// The document as JSON, before it is read as evidence: what a triage document has beyond the
// common part (change_points, findings, regressions) is kept. Not a file, or not JSON, is a usage
// error.
Result<nlohmann::json> load_evidence_json(const std::filesystem::path& file);
// Written atomically: readers see the old file or the whole new one.
Status save_evidence(const Evidence& evidence, const std::filesystem::path& file);

} // namespace culprit::evidence
