#pragma once
// The recipe flags (culprit(1), RECIPE OPTIONS), shared by the commands that build or measure.

#include <CLI/CLI.hpp>

#include "core/recipe/recipe.hpp"

namespace culprit::cli {

enum class FlagSet { build, measure };

// Adds --build and --artifacts, and for FlagSet::measure also --run, --format, --metric, --case,
// --threshold, --confidence, --min-runs, --max-runs, --warmup, --timeout, --budget, --seed,
// --statistic, --duet, --no-duet, --cpus, --executor, --parallel, --parallel-runs and the
// roofline's --peak-gflops, --peak-tensor-gflops, --peak-gbps and --peak-device. Parsed values
// land in `overrides`, which must outlive parsing.
void add_recipe_flags(CLI::App& app, recipe::RecipeOverrides& overrides, FlagSet set);

} // namespace culprit::cli
