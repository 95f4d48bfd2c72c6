#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/recipe/command_template.hpp"
#include "core/recipe/init_recipe.hpp"
#include "core/recipe/recipe.hpp"
#include "tests/support/temp_dir.hpp"
#include <fstream>

namespace culprit {
namespace {

using ::testing::HasSubstr;

const recipe::TemplateValues k_values{"/cache/slot 0/src", "/cache/build", "0123abcd",
                                      "v1.2;rm -rf ~"};

TEST(CommandTemplate, ExpandsPlaceholdersAndQuotesWhatTheShellWouldInterpret) {
  auto text = recipe::expand_template("cmake -S {src} -B {build} && echo {commit} {rev}", k_values,
                                      recipe::Quoting::shell);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text, "cmake -S '/cache/slot 0/src' -B /cache/build && echo 0123abcd "
                   "'v1.2;rm -rf ~'");
}

TEST(CommandTemplate, ArgumentVectorsGetValuesVerbatim) {
  auto argv =
      recipe::expand_template(std::vector<std::string>{"{build}/bench", "--rev={rev}"}, k_values);
  ASSERT_TRUE(argv);
  EXPECT_EQ((*argv)[0], "/cache/build/bench");
  EXPECT_EQ((*argv)[1], "--rev=v1.2;rm -rf ~");
}

TEST(CommandTemplate, ShellSyntaxAndDoubledBracesPassThrough) {
  EXPECT_EQ(recipe::expand_template("echo ${HOME} ${build} {{src}} f() { :; }", k_values,
                                    recipe::Quoting::shell)
                .value(),
            "echo ${HOME} ${build} {src} f() { :; }");
}

TEST(CommandTemplate, UnknownPlaceholdersAreNamed) {
  auto text = recipe::expand_template("{bulid}/bench", k_values, recipe::Quoting::shell);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code, ExitCode::usage);
  EXPECT_THAT(text.error().message, HasSubstr("unknown placeholder {bulid}"));
}

TEST(CommandTemplate, ShellQuoteSurvivesTheShell) {
  EXPECT_EQ(recipe::quote_for_sh("plain-path/x.y"), "plain-path/x.y");
  EXPECT_EQ(recipe::quote_for_sh("it's"), "'it'\\''s'");
  EXPECT_EQ(recipe::quote_for_sh(""), "''");
  EXPECT_EQ(recipe::template_environment(k_values).at("CULPRIT_REV"), "v1.2;rm -rf ~");
}

TEST(InitRecipe, GuessesTheProjectAndWritesARecipeThatParses) {
  testing::TempDir dir;
  for (const auto* kind : {"none", "cmake", "make"}) {
    std::filesystem::remove(dir / "CMakeLists.txt");
    std::filesystem::remove(dir / "Makefile");
    if (std::string(kind) == "cmake")
      std::ofstream(dir / "CMakeLists.txt") << "target_link_libraries(b benchmark::benchmark)\n";
    if (std::string(kind) == "make")
      std::ofstream(dir / "Makefile") << "all:\n\tcc -o bench b.c\n";
    const auto guess = recipe::guess_project(dir.path());
    const auto recipe = recipe::parse_recipe(recipe::initial_recipe(guess), "culprit.toml");
    ASSERT_TRUE(recipe) << kind << ": " << recipe.error().message;
    ASSERT_TRUE(recipe::apply_overrides(*recipe, {})) << kind;
    if (std::string(kind) == "cmake") {
      EXPECT_EQ(guess.kind, "CMake");
      EXPECT_EQ(recipe->run.format, "gbench");
      EXPECT_THAT(recipe->build.command, HasSubstr("cmake --build {build}"));
    }
    if (std::string(kind) == "make") {
      EXPECT_EQ(guess.kind, "Makefile");
    }
  }
}

} // namespace
} // namespace culprit
