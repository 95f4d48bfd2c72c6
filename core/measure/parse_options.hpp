#pragma once
// The parser options a run recipe asks for.

#include "core/parsers/output_format.hpp"
#include "core/recipe/recipe.hpp"
#include "core/util/error.hpp"

namespace culprit::measure {

// Errors (usage): csv without a column, regex without a pattern or with an invalid one (or the
// wrong groups), a direction that is neither lower nor higher.
Result<parsers::ParseOptions> parse_options_for(const recipe::RunRecipe& run);

} // namespace culprit::measure
