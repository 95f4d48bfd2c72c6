#include "cli/context.hpp"

#include "core/util/fs.hpp"

namespace culprit::cli {

Result<git::Repository> open_repository(const GlobalOptions& global) {
  return git::Repository::open(global.repo.empty() ? "." : global.repo);
}

Result<std::filesystem::path> repository_cache(const GlobalOptions& global,
                                               const git::Repository& repo) {
  const auto root =
      cache_root(global.cache_dir.empty() ? std::nullopt
                                          : std::optional<std::filesystem::path>(global.cache_dir));
  auto dir = root / repo.id();
  CULPRIT_TRY(ensure_writable_dir(dir, "cache directory"));
  return dir;
}

Result<store::Location> store_location(const GlobalOptions& global, const git::Repository& repo) {
  CULPRIT_TRY_ASSIGN(auto cache, repository_cache(global, repo));
  std::optional<std::string> from_recipe;
  const auto path = recipe_path(global, repo);
  std::error_code ec;
  if (!global.store && !path.empty() && std::filesystem::exists(path, ec)) {
    CULPRIT_TRY_ASSIGN(const auto recipe, culprit::recipe::load_recipe(path));
    from_recipe = recipe.store.url;
  }
  CULPRIT_TRY_ASSIGN(auto url, store::choose_store_url(global.store, from_recipe));
  return store::Location{.cache_dir = std::move(cache), .url = std::move(url)};
}

std::filesystem::path recipe_path(const GlobalOptions& global, const git::Repository& repo) {
  if (!global.config.empty())
    return global.config;
  if (repo.is_bare())
    return {};
  return repo.workdir() / recipe::k_config_file_name;
}

Result<recipe::Recipe> load_recipe(const GlobalOptions& global, const git::Repository& repo,
                                   const recipe::RecipeOverrides& overrides, RecipeUse use) {
  const auto path = recipe_path(global, repo);
  recipe::Recipe recipe;
  std::error_code ec;
  if (!global.config.empty() || (!path.empty() && std::filesystem::exists(path, ec))) {
    CULPRIT_TRY_ASSIGN(recipe, culprit::recipe::load_recipe(path));
  }
  recipe::RecipeOverrides effective = overrides;
  if (use == RecipeUse::build && !overrides.run_command &&
      std::holds_alternative<std::string>(recipe.run.command) &&
      std::get<std::string>(recipe.run.command).empty())
    effective.run_command = "true"; // building needs no run command
  auto merged = recipe::apply_overrides(std::move(recipe), effective);
  if (!merged && !path.empty() && !std::filesystem::exists(path, ec) && global.config.empty())
    return usage_error("{} (there is no {} yet: 'culprit init' writes one)", merged.error().message,
                       path.string());
  return merged;
}

} // namespace culprit::cli
