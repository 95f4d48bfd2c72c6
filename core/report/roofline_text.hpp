#pragma once
// The roofline in what people read: where each case stands against the bound its work and the
// device's peaks allow, how a change moved it, and a log-log chart of both.

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/evidence/evidence.hpp"

namespace culprit::report {

// How a change moved a case against its roofline. The figures come from the levels the
// comparison shows (its estimator's, else the medians) and its ratio, so that they agree with the
// row beside them: after = before x (after's bound / before's bound) / ratio, its interval from
// the ratio's.
struct RooflineMove {
  std::string case_name;
  double before = 0;
  double after = 0;
  std::array<double, 2> after_ci{0, 0};
  std::string limiter_before;
  std::string limiter_after;
};

// The move of one case between two commits, given the ratio (head / base) and its interval;
// none when either side has no roofline.
std::optional<RooflineMove> roofline_move(const evidence::Evidence& evidence,
                                          const std::string& base, const std::string& head,
                                          const std::string& case_name, double ratio,
                                          const std::array<double, 2>& ci,
                                          std::optional<std::array<double, 2>> levels = {});

// "12.4% of its compute bound [12.1%, 12.8%]"
std::string fraction_text(double fraction, const std::string& limiter,
                          std::optional<std::array<double, 2>> ci = {});
// "41.2% -> 27.1% of its compute bound [25.9%, 28.4%]; compute-bound before and after"
std::string move_text(const RooflineMove& move);
// "Intel Xeon: 331.0 GFLOP/s FP32, 29.40 GB/s (measured on this host: ...)"
std::string peaks_text(const evidence::EvidencePeaks& peaks);

// What a report says of the roofline: the peaks; for a run, a row per case (achieved, FLOPs per
// byte, share of the bound with its interval, limit); for a comparison or a bisection, how each
// compared case moved (base to head, and each culprit's parent to culprit); and why a case has
// none. Cells are plain text; renderers escape them.
struct RooflineSection {
  std::vector<std::string> peaks;
  std::vector<std::array<std::string, 5>> rows; // case, achieved, FLOP/byte, of the bound, limit
  std::vector<std::pair<std::string, std::string>> moves; // what moved, move_text
  std::vector<std::pair<std::string, std::string>> notes; // case, why none
  [[nodiscard]] bool empty() const {
    return peaks.empty() && rows.empty() && moves.empty() && notes.empty();
  }
};
RooflineSection roofline_section(const evidence::Evidence& evidence);

// For the terminal after `run`: the peaks, then per case its achieved rate, the bound and its
// share of it; with notes (-v), each reason for having no roofline once, with its cases. Empty
// when there is nothing to print.
std::string render_roofline_table(const evidence::Evidence& evidence, bool notes);
// For the terminal after `compare`: one line per case whose roofline both sides have.
std::string render_roofline_moves(const evidence::Evidence& evidence);

// A log-log roofline chart (SVG): FLOP/s over FLOPs per byte, the memory slope and the compute
// ceiling of each device, and each case's point; a case measured at two commits is drawn at both,
// joined by an arrow from base to head. Cases that move no FLOPs (intensity 0) cannot sit on a
// log axis and are left out. Empty when no measurement has a roofline with FLOPs.
std::string roofline_svg(const evidence::Evidence& evidence);

} // namespace culprit::report
