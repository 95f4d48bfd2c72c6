#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/util/escape.hpp"
#include "core/util/format.hpp"

namespace culprit::report {
namespace {

TEST(Escape, TerminalSafeShowsControlCharactersAndKeepsText) {
  EXPECT_EQ(terminal_safe("plain text, ünïcödé µs ±"), "plain text, ünïcödé µs ±");
  EXPECT_EQ(terminal_safe("a\x1b[31mred\x1b[0m"), "a\\x1b[31mred\\x1b[0m");
  EXPECT_EQ(terminal_safe("tab\tnew\nline\r"), "tab\\tnew\\nline\\r");
  EXPECT_EQ(terminal_safe("del\x7f"), "del\\x7f");
  // C1 controls (CSI as one code point), bidirectional overrides, invalid UTF-8.
  EXPECT_EQ(terminal_safe("\xc2\x9b"
                          "2J"),
            "\\u{009b}2J");
  EXPECT_EQ(terminal_safe("abc\xe2\x80\xae"
                          "cba"),
            "abc\\u{202e}cba");
  EXPECT_EQ(terminal_safe("bad \xff\xfe byte"), "bad \\xff\\xfe byte");
  EXPECT_EQ(terminal_safe("\xc0\xaf"), "\\xc0\\xaf"); // an overlong '/'
}

TEST(Escape, AnExcerptIsShortPrintableAndSaysHowLongTheValueWas) {
  EXPECT_EQ(excerpt("HEAD~3"), "HEAD~3");
  EXPECT_EQ(excerpt("HEAD\nrm -rf ~"), "HEAD\\nrm -rf ~");
  const std::string megabyte(std::size_t{1} << 20, 'k');
  EXPECT_EQ(excerpt(megabyte), std::string(80, 'k') + "... (1048576 bytes in all)");
  // Never cut inside a character or an escape.
  EXPECT_EQ(excerpt(std::string(79, 'a') + "\x1b[2J", 80),
            std::string(79, 'a') + "... (83 bytes in all)");
  EXPECT_EQ(excerpt(std::string(79, 'a') + "\xc3\xbc", 80),
            std::string(79, 'a') + "... (81 bytes in all)");
  EXPECT_EQ(excerpt(std::string(78, 'a') + "\xc3\xbc", 80), std::string(78, 'a') + "\xc3\xbc");
}

// A table cell: cut as an excerpt is, without its note.
TEST(Escape, ATerminalCellIsCutBeforeACharacterOrEscapeThatWouldPassItsWidth) {
  EXPECT_EQ(terminal_safe("sgemm/M=128", 40), "sgemm/M=128");
  EXPECT_EQ(terminal_safe(std::string(10, 'a') + "\x1b[2J", 12), std::string(10, 'a'));
  EXPECT_EQ(terminal_safe(std::string(10, 'a') + "\xc3\xbc", 11), std::string(10, 'a'));
  EXPECT_EQ(terminal_safe(std::string(10, 'a') + "\xc3\xbc", 12),
            std::string(10, 'a') + "\xc3\xbc");
}

TEST(Escape, CsvFieldsAreQuotedOnlyWhenTheyMustBe) {
  EXPECT_EQ(csv_field("gemm/M=128"), "gemm/M=128");
  EXPECT_EQ(csv_field("gemm,\"tall\""), "\"gemm,\"\"tall\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
}

TEST(Escape, HtmlEscapesMarkupAndQuotes) {
  EXPECT_EQ(html_escape("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
  EXPECT_EQ(html_escape("\x1b[31m"), "\\x1b[31m");
}

TEST(Escape, MarkdownTextEscapesMarkupCharacters) {
  EXPECT_EQ(markdown_text("<script> | **x** _y_ [l](u) `c` #h ~s~ \\"),
            "&lt;script> \\| \\*\\*x\\*\\* \\_y\\_ \\[l\\](u) \\`c\\` \\#h \\~s\\~ \\\\");
  EXPECT_EQ(markdown_text("1.5% of 4.12 ms"), "1.5% of 4.12 ms");
}

TEST(Escape, MarkdownCodeSpansFenceAroundBackticksAndEscapePipesInTables) {
  EXPECT_EQ(markdown_code("a.cu"), "`a.cu`");
  EXPECT_EQ(markdown_code("a`b"), "``a`b``");
  EXPECT_EQ(markdown_code("`x`"), "`` `x` ``");
  EXPECT_EQ(markdown_code("a|b", InTable::yes), "`a\\|b`");
  EXPECT_EQ(markdown_code("a|b"), "`a|b`");
  EXPECT_EQ(markdown_code(""), "` `");
  EXPECT_EQ(markdown_fence("no ticks"), "```");
  EXPECT_EQ(markdown_fence("has ```` four"), "`````");
}

TEST(Escape, ShellQuotingRoundTripsThroughTheShell) {
  EXPECT_EQ(shell_quote("sgemm/M=64"), "sgemm/M=64");
  EXPECT_EQ(shell_quote("two words"), "'two words'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("$(rm -rf /)"), "'$(rm -rf /)'");
  EXPECT_EQ(shell_quote("a\x1b[31m'"), "$'a\\x1b[31m\\''");
  EXPECT_EQ(shell_command({"culprit", "bisect", "--case", "sgemm/*"}),
            "culprit bisect --case 'sgemm/*'");
}

// The words /bin/sh makes of `command`, each in brackets.
std::string words_by_the_shell(const std::string& command) {
  const auto script = "set -- " + command + "; for w in \"$@\"; do printf '[%s]' \"$w\"; done";
  std::string out;
  if (FILE* pipe = popen(script.c_str(), "r")) { // popen runs it with /bin/sh -c
    char buffer[256];
    while (const auto n = fread(buffer, 1, sizeof buffer, pipe))
      out.append(buffer, n);
    pclose(pipe);
  }
  return out;
}

TEST(Escape, ASimpleCommandSplitsIntoTheWordsTheShellWouldPass) {
  for (const std::string command :
       {"/tmp/b/bench --benchmark_format=json", "  bench\t-x  'two words'  ",
        "'/tmp/my dir/bench' --out=a,b:c@d%e+f", "b \"quoted words\" x'y'\"z\"", "b ''"}) {
    const auto words = simple_command_words(command);
    ASSERT_TRUE(words) << command;
    std::string bracketed;
    for (const auto& w : *words)
      bracketed += "[" + w + "]";
    EXPECT_EQ(bracketed, words_by_the_shell(command)) << command;
  }
  EXPECT_EQ(simple_command_words("bench 'two words' x"),
            (std::vector<std::string>{"bench", "two words", "x"}));
  // What only a shell does: pipes, redirections, lists, variables, globs, escapes, assignments,
  // built-ins that act on the shell, unbalanced quotes.
  for (const std::string command : {"bench | tee out",
                                    "bench > out",
                                    "bench; other",
                                    "bench && other",
                                    "bench $HOME",
                                    "bench \"$HOME\"",
                                    "bench *.json",
                                    "bench a\\ b",
                                    "X=1 bench",
                                    "cd dir",
                                    "exec bench",
                                    "eval bench",
                                    "echo hi",
                                    "time bench",
                                    "bench 'open",
                                    "bench `date`",
                                    "bench ~/x",
                                    "bench # comment",
                                    "",
                                    "  ",
                                    "(bench)",
                                    "bench &"})
    EXPECT_FALSE(simple_command_words(command)) << command;
}

TEST(Escape, GithubCommandsEscapeAsTheActionsToolkitDoes) {
  EXPECT_EQ(github_message("100% a\r\nb: c, d"), "100%25 a%0D%0Ab: c, d");
  EXPECT_EQ(github_property("100% a\nb: c, d"), "100%25 a%0Ab%3A c%2C d");
  EXPECT_EQ(github_message("\x1b[31m::error::x"), "\\x1b[31m::error::x");
}

TEST(Format, NumbersReadTheSameInEveryReport) {
  EXPECT_EQ(format_ratio(1.08123), "1.081");
  EXPECT_EQ(format_ratio_ci({1.0621, 1.1}), "[1.062, 1.100]");
  EXPECT_EQ(format_change(1.081), "+8.1%");
  EXPECT_EQ(format_change(0.951), "-4.9%");
  EXPECT_EQ(format_change(0.99999), "+0.0%");
  EXPECT_EQ(format_percent(0.02), "2%");
  EXPECT_EQ(format_percent(0.955), "95.5%");
  EXPECT_EQ(format_p_value(0.0004), "4.0e-04");
  EXPECT_EQ(format_p_value(1e-9), "<1e-06");
  EXPECT_EQ(format_p_value(0.61), "0.6100");
  EXPECT_EQ(format_quantity(0.00412, "s"), "4.120 ms");
  EXPECT_EQ(format_quantity(182e-6, "s"), "182.0 µs");
  EXPECT_EQ(format_quantity(3.5e-9, "s"), "3.500 ns");
  EXPECT_EQ(format_quantity(69e-9, "s"), "69.00 ns")
      << "an interval [65.30 ns, 69.00 ns] reads alike";
  EXPECT_EQ(format_quantity(1e-3, "s"), "1.000 ms");
  EXPECT_EQ(format_quantity(9.9996e-3, "s"), "10.00 ms") << "rounding up adds no digit";
  EXPECT_EQ(format_quantity(999.97e-6, "s"), "1.000 ms") << "nor a fourth digit of µs";
  EXPECT_EQ(format_quantity(4.1234e-3, "s", 3), "4.12 ms");
  EXPECT_EQ(format_quantity(12.5, "s"), "12.50 s");
  EXPECT_EQ(format_quantity(1.5e9, "B/s"), "1.500e+09 B/s");
  EXPECT_EQ(format_significant(0), "0");
  EXPECT_EQ(format_significant(-2.5), "-2.500");
  EXPECT_EQ(format_significant(1234.4), "1234");
  EXPECT_EQ(format_significant(2e-4), "2.000e-04");
  EXPECT_EQ(format_quantity(12345, "items"), "12345 items");
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(4404019), "4.2 MiB");
  EXPECT_EQ(format_byte_delta(8192), "+8.0 KiB");
  EXPECT_EQ(format_byte_delta(-12), "-12 B");
  EXPECT_TRUE(same_commit("0123456789abcdef", "0123456"));
  EXPECT_FALSE(same_commit("0123456789abcdef", "012345"));
  EXPECT_FALSE(same_commit("", ""));
}

// The spread of a measurement reads alike in the summary and the text report: one decimal, never
// a negative zero (a mean below zero), never "nan%".
TEST(Format, ACoefficientOfVariationIsAPercentageThatIsNeverNegativeOrNan) {
  EXPECT_EQ(format_cv(0.006), "0.6%");
  EXPECT_EQ(format_cv(0.0123), "1.2%");
  EXPECT_EQ(format_cv(0), "0.0%");
  EXPECT_EQ(format_cv(-0.0), "0.0%");
  EXPECT_EQ(format_cv(-1e-9), "0.0%");
  EXPECT_EQ(format_cv(-0.05), "5.0%");
  EXPECT_EQ(format_cv(std::numeric_limits<double>::quiet_NaN()), "n/a");
  EXPECT_EQ(format_cv(-std::numeric_limits<double>::quiet_NaN()), "n/a");
  EXPECT_EQ(format_cv(std::numeric_limits<double>::infinity()), "n/a");
}

} // namespace
} // namespace culprit::report
