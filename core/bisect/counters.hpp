#pragma once
// The counter diff of a culprit: what it and its parent executed on a simulated CPU
// (--instrument valgrind's counts), as the first hint of why it moved. A kernel developer who
// reads "time +9%, instructions +0.1%, last-level data misses +210%" knows where to look.
//
// Counts come from a sampler under the counting instrument: the bisection's own when it located
// by counts (its runs are there already), else one run of each under Valgrind when it is
// installed (MeasureSession::counter_sampler). They are of the culprit's case when the program
// names its cases for Callgrind, else of the whole program.

#include <string>
#include <vector>

#include "core/bisect/bisect.hpp"
#include "core/measure/sampler.hpp"
#include "core/util/error.hpp"

namespace culprit::bisect {

// Adds to each culprit of `outcome` its CounterDiff, running what is missing on `counter` (one
// run of the culprit and of its parent). A culprit whose counts could not be had gets a diff
// with a note that says why and no changes; only an interrupt or a failing store is an error.
Status count_culprits(BisectOutcome& outcome, measure::Sampler& counter);

} // namespace culprit::bisect
