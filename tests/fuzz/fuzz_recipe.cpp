// libFuzzer target: culprit.toml, read and then checked as the commands check it.

#include "core/recipe/recipe.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto recipe = culprit::recipe::parse_recipe(culprit::fuzz::as_text(data, size), "culprit.toml");
  culprit::fuzz::check_result(recipe);
  if (recipe) {
    auto checked = culprit::recipe::apply_overrides(*recipe, {});
    culprit::fuzz::check_result(checked);
    if (checked) {
      (void)culprit::recipe::build_recipe_hash(checked->build);
      (void)culprit::recipe::run_recipe_hash(checked->run);
    }
  }
  return 0;
}
