#pragma once
// Synthetic evidence for tests of the renderers and of `culprit report`: fixed values, so that
// rendering them gives the same bytes every time (the golden files in tests/fixtures/report/).

#include <string>
#include <vector>

#include "core/evidence/evidence.hpp"

namespace culprit::testing {

// A compare of four cases: one slower, one faster, one the same, one inconclusive.
evidence::Evidence compare_sample();
// A bisection over 40 commits with two culprits (a staircase: good, intermediate, bad), two
// skipped probes, hints (diffstat, ptxas table, artifact and symbol sizes) and a warning.
evidence::Evidence bisect_sample();
// The commits of bisect_sample()'s range, oldest first, as git::Repository::range gives them.
std::vector<std::string> bisect_sample_order();
// A bisection whose commit subject, author, files, case, kernel names, warnings, host and
// command hold markup and terminal control sequences.
evidence::Evidence malicious_sample();
// A run of one revision: measurements, no comparisons.
evidence::Evidence run_sample();
// A compare that failed: no comparisons, a warning that says why.
evidence::Evidence failed_sample();
// A track session on two Slurm allocations that resumed an interrupted one: anchors, a commit
// that did not build, and a noisy case.
evidence::Evidence track_sample();
// compare_sample() with the roofline: sgemm compute-bound and saxpy memory-bound on an A100's
// peaks, softmax without (a note says why).
evidence::Evidence roofline_sample();

// The commit id of the bisect sample's i-th commit (0 = good, 40 = bad).
std::string sample_commit(int i);

} // namespace culprit::testing
