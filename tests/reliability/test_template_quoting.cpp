// {rev} and the other placeholders in shell commands: whatever the value and wherever the recipe
// put the placeholder (bare, inside "...", inside '...'), /bin/sh sees the value itself, never
// syntax. Checked by running the expansion.

#include <gtest/gtest.h>

#include "core/recipe/command_template.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"

namespace culprit {
namespace {

const char* const k_values[] = {
    "plain",   "$(touch pwned)", "`touch pwned`", "a'b",       "a\"b", "back\\slash",
    "${HOME}", "; touch pwned",  "it's \"$x\"",   "new\nline", "",
};

TEST(TemplateQuoting, TheShellSeesTheValueWhereverThePlaceholderStands) {
  testing::TempDir temp("culprit-quoting");
  for (const char* value : k_values) {
    for (const char* text : {"printf %s {rev}", "printf %s \"{rev}\"", "printf %s '{rev}'",
                             "printf %s \"x{rev}x\"'x{rev}x'x{rev}x"}) {
      SCOPED_TRACE(::testing::Message() << text << " with " << value);
      recipe::TemplateValues values;
      values.rev = value;
      const auto command = recipe::expand_template(text, values, recipe::Quoting::shell);
      ASSERT_TRUE(command) << command.error().message;
      const auto ran = testing::run_process({"/bin/sh", "-c", *command}, temp.path());
      ASSERT_EQ(ran.exit_code, 0) << ran.err;
      const std::string expected =
          std::string_view(text).find('x') == std::string_view::npos
              ? std::string(value)
              : "x" + std::string(value) + "xx" + value + "xx" + value + "x";
      EXPECT_EQ(ran.out, expected) << *command;
      EXPECT_FALSE(std::filesystem::exists(temp / "pwned"));
    }
  }
}

} // namespace
} // namespace culprit
