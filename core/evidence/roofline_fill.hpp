#pragma once
// The roofline in the evidence: for each measurement whose case has work (FLOPs and bytes of one
// call: from the benchmark's output, kept in the store, or from [roofline.cases]) and whose metric
// is a time, where its median stands against the bound that the device's peaks allow
// (core/roofline/roofline.hpp), with the interval the median's interval gives; for the others, why
// not.

#include <optional>
#include <string>

#include "core/evidence/evidence.hpp"
#include "core/parsers/metric.hpp"
#include "core/recipe/recipe.hpp"
#include "core/roofline/peaks.hpp"
#include "core/store/store.hpp"
#include "core/util/error.hpp"

namespace culprit::evidence {

// The work of one call of a case: FLOPs and bytes, and where they come from; or why none.
struct CaseWork {
  std::optional<double> flops;
  std::optional<double> bytes;
  std::string source; // output | culprit.toml
  std::string reason; // when there is no usable work
};

// From the first [roofline.cases] glob that matches the case (over its axes: those the output
// gave, else the name's "key=value" parts), else from the output. A case with FLOPs but no bytes,
// or with neither, has a reason and no work.
CaseWork work_of(const std::string& case_name, const std::optional<parsers::CaseInfo>& info,
                 const recipe::RooflineRecipe& recipe);

// "M=128,N=256" parts of a case name ("sgemm/M=128,N=256", "copy/T=F32/N=2^20") as axes.
std::map<std::string, std::string> axes_in_name(const std::string& case_name);

struct RooflineInputs {
  store::Store& store;
  std::string recipe_hash; // of the runs
  std::string host_id;     // where the runs were made, unless a measurement names its own
  const recipe::RooflineRecipe& recipe;
  roofline::PeakResolver& peaks;
};

// Fills measurements[].roofline (or roofline_note) and roofline_peaks. Asks for the peaks only
// when some case has work, so a benchmark without work never costs a CPU measurement.
Status fill_roofline(Evidence& evidence, RooflineInputs& inputs);

} // namespace culprit::evidence
