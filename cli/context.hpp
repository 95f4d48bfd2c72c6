#pragma once
// What most commands need before they start: the repository, the per-repository cache
// directory, and the recipe (culprit.toml of the current tree or --config, then the flags).

#include <filesystem>

#include "cli/command.hpp"
#include "core/git/repository.hpp"
#include "core/recipe/recipe.hpp"
#include "core/store/location.hpp"
#include "core/util/error.hpp"

namespace culprit::cli {

enum class RecipeUse { build, build_and_run };

Result<git::Repository> open_repository(const GlobalOptions& global);
// Creates it when missing; an unwritable directory is a usage error that says what to do.
Result<std::filesystem::path> repository_cache(const GlobalOptions& global,
                                               const git::Repository& repo);
// Where the results live: --store, else $CULPRIT_STORE, else the recipe's [store] url, else the
// SQLite files of the repository's cache dir (created when missing).
Result<store::Location> store_location(const GlobalOptions& global, const git::Repository& repo);
// The recipe file in effect: --config, or culprit.toml at the top of the working tree.
std::filesystem::path recipe_path(const GlobalOptions& global, const git::Repository& repo);
Result<recipe::Recipe> load_recipe(const GlobalOptions& global, const git::Repository& repo,
                                   const recipe::RecipeOverrides& overrides, RecipeUse use);

} // namespace culprit::cli
