#pragma once
// What every report format shows, worked out once from the evidence: the verdict line, the
// comparisons it rests on, the bisection path in commit order, the command that reproduces it
// and the environment. Renderers lay this out; none of them decides anything on its own.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/evidence/evidence.hpp"

namespace culprit::report {

// How much the summary says (the command's -q and -v): quiet leaves out the roofline, noise and
// reuse lines; verbose adds the roofline table's notes.
enum class Detail : std::uint8_t { quiet, normal, verbose };

struct RenderOptions {
  // Text format: ANSI colours for verdicts (the caller decides: a terminal, no NO_COLOR).
  bool color = false;
  Detail detail = Detail::normal; // the summary only
  // Where the evidence is, as the summary of a bisection names it ("standard output" for --json
  // -); empty leaves the place out.
  std::string evidence_file;
  // The bisected range as git lists it, oldest first (as git::Repository::range gives it). When
  // empty, the order of the bisection path is inferred from the probes and their verdicts.
  std::vector<std::string> commit_order;
};

// One commit on the bisection path.
struct PathPoint {
  std::string commit;
  std::string role;      // good | bad | skip | intermediate | unresolved
  bool endpoint = false; // the good or bad end given to bisect
  bool culprit = false;
  int probe = 0; // the step number (1-based) for probed commits; 0 for the end points
  const evidence::EvidenceStep* step = nullptr;
};

struct ReportView {
  std::string title;            // "culprit compare", "culprit bisect", ...
  std::string headline;         // the verdict in one line, plain text
  std::string confidence_label; // "95% CI"
  // The comparisons the verdict rests on: all of a compare; good against bad for a bisect.
  std::vector<const evidence::EvidenceComparison*> cases;
  std::vector<PathPoint> path;   // bisect only, oldest first
  bool path_order_known = false; // from RenderOptions::commit_order rather than inferred
  std::vector<std::pair<std::string, std::string>> environment; // label, value
  std::string reproduce; // the evidence's command line, shell-quoted
};

ReportView make_view(const evidence::Evidence& evidence, const RenderOptions& options = {});

// The measurement of `case_name` at `commit`, or null.
const evidence::EvidenceMeasurement* find_measurement(const evidence::Evidence& evidence,
                                                      std::string_view commit,
                                                      std::string_view case_name);

// The figure of one side of a comparison, formatted with its unit: the level the comparison
// itself compared (its estimator's, e.g. the median of the runs' minima) when the evidence has it,
// else the median of that side's measurement; "-" when neither is there.
enum class Side { base, head };
std::string compared_level(const evidence::Evidence& evidence,
                           const evidence::EvidenceComparison& comparison, Side side);

// The share of a culprit's change of a case at the ends of what the data allow: the ends of its
// own interval over the ends of the whole change's (the bisection's comparison of the ends), the
// widest pairing. None when the share is unknown or the whole change's interval holds no change.
std::optional<std::array<double, 2>> share_bounds(const evidence::Evidence& evidence,
                                                  const evidence::EvidenceCulpritCase& moved);
// format_share with those bounds.
std::string share_text(const evidence::Evidence& evidence,
                       const evidence::EvidenceCulpritCase& moved);

// The median of each run, in run order.
std::vector<double> run_medians(const evidence::EvidenceMeasurement& measurement);

// "+8.1% (95% CI +6.2% to +10.0%)"
// A culprit's change of a case: change_with_ci, named by its metric when counts located it
// ("instructions +50.8% (exact)" when they did not vary).
std::string culprit_change(const evidence::EvidenceCulpritCase& moved,
                           std::string_view confidence_label);
// The counter diff of a culprit's case in one line, the counts a reader looks at first:
// "counts: instructions +0.1%, L1 data misses +3.2%, LL data misses +210%, branch mispredictions
// -1.0%, estimated cycles +4.0%" (with "of the whole program NAME" when the counts are not the
// case's own); "counts: none (why)" when there are none; empty without counters.
std::string counters_line(const evidence::EvidenceCulpritCase& moved);
// A count's name for people: "LL data misses" for ll_misses_data.
std::string count_label(std::string_view metric);
// Its change in time when counts located it, one line each, with its verdict at the threshold:
// "in time: time +2.4% (95% CI [+1.6%, +3.1%]): inconclusive at 2.0%".
std::vector<std::string> in_time_lines(const evidence::Evidence& evidence,
                                       const evidence::EvidenceCulpritCase& moved,
                                       std::string_view confidence_label);
std::string change_with_ci(double ratio, const std::array<double, 2>& ci,
                           std::string_view confidence_label);

// The cases of a bisection: bisect.cases, else the cases of its comparisons and culprits.
std::vector<std::string> bisect_cases(const evidence::Evidence& evidence);

} // namespace culprit::report

namespace culprit::report {

// Facts about a culprit's hints, one phrase each, plain text.
// "3 files changed, +120 -4"
std::string diffstat_line(const evidence::EvidenceDiffstat& diffstat);
// "1.2 MiB -> 1.3 MiB (+80.0 KiB), 3 files" or "byte-identical to the parent's (1.2 MiB)"
std::string artifacts_line(const evidence::EvidenceArtifacts& artifacts);
// "1.2 KiB -> 1.5 KiB (+300 B)", "new, 1.5 KiB", "removed, 1.2 KiB"
std::string size_change_line(const evidence::EvidenceSizeChange& change);
// The kernel rows whose resources differ (added, removed or changed).
std::vector<const evidence::EvidenceKernelChange*>
changed_kernels(const evidence::EvidenceHints& hints);

} // namespace culprit::report
