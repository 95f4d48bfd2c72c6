// Commits whose text is not UTF-8: a finished bisection keeps its evidence in every output, with
// the author and subject decoded by the commit's `encoding` header, and bytes of a character set
// nobody knows replaced rather than refused. (git itself turns undeclared Latin-1 into UTF-8 when
// it commits, so a commit of raw bytes carries an encoding header.)

#include <fstream>
#include <sstream>

#include <gmock/gmock.h>

#include "core/evidence/evidence.hpp"
#include "core/util/escape.hpp"
#include "tests/reliability/reliability_support.hpp"

namespace culprit::testing {
namespace {

using ::testing::HasSubstr;

struct EncodedCulprit {
  const char* encoding; // the commit's i18n.commitEncoding
  const char* author;   // bytes in that encoding
  const char* subject;
  const char* author_utf8; // what the evidence must say
  const char* subject_utf8;
};

class CommitEncodings : public ::testing::TestWithParam<EncodedCulprit> {};

TEST_P(CommitEncodings, ABisectionWritesEveryOutputWithTheTextDecoded) {
  const auto& param = GetParam();
  TempDir temp("culprit-encoding");
  StepProject project(temp / "project", {.commits = 3, .step_at = 1, .step = 1.0});
  auto& repo = project.repo();
  repo.git({"config", "i18n.commitEncoding", param.encoding});
  repo.write("value", "13.000000\n");
  repo.write("NOTES", "slower\n");
  const auto culprit = repo.commit(param.subject, param.author);
  repo.write("NOTES", "after\n");
  const auto bad = repo.commit("after the change");
  const auto before = snapshot(project.dir());

  const auto json = temp / "out.json";
  const auto result =
      run_culprit({"--cache-dir", (temp / "cache").string(), "bisect", "--good", project.good(),
                   "--bad", bad, "--json", json.string(), "--markdown", (temp / "out.md").string(),
                   "--html", (temp / "out.html").string(), "--junit", (temp / "out.xml").string()},
                  project.dir());
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_THAT(result.out, HasSubstr(param.author_utf8));
  auto evidence = evidence::load_evidence(json);
  ASSERT_TRUE(evidence) << evidence.error().message;
  ASSERT_TRUE(evidence->bisect.has_value());
  ASSERT_EQ(evidence->bisect->culprits.size(), 1U);
  EXPECT_EQ(evidence->bisect->culprits[0].commit, culprit);
  EXPECT_THAT(evidence->bisect->culprits[0].author, HasSubstr(param.author_utf8));
  EXPECT_EQ(evidence->bisect->culprits[0].subject, param.subject_utf8);
  for (const auto* file : {"out.md", "out.html", "out.xml"}) {
    const auto text = read_all(temp / file);
    EXPECT_EQ(valid_utf8(text), text) << file << " is not UTF-8";
    EXPECT_THAT(text, HasSubstr(culprit.substr(0, 12))) << file;
  }
  const auto report = run_culprit({"report", json.string(), "--format", "markdown"}, temp.path());
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_TRUE(before == snapshot(project.dir()));
}

INSTANTIATE_TEST_SUITE_P(
    Encodings, CommitEncodings,
    ::testing::Values(EncodedCulprit{"ISO-8859-1", "J\xfcrgen M\xfcller",
                                     "Schneller \xfc"
                                     "ber alles",
                                     "J\xc3\xbcrgen M\xc3\xbcller",
                                     "Schneller \xc3\xbc"
                                     "ber alles"},
                      EncodedCulprit{"x-no-such-charset", "J\xfcrgen M\xfcller", "caf\xe9 slower",
                                     "J\xef\xbf\xbdrgen", "caf\xef\xbf\xbd slower"}),
    [](const auto& param_info) {
      return std::string(param_info.param.encoding) == "ISO-8859-1" ? "Latin1" : "UnknownCharset";
    });

TEST(ToUtf8, DecodesByTheNamedCharacterSetAndReplacesWhatItCannot) {
  EXPECT_EQ(to_utf8("M\xfcller", "ISO-8859-1"), "M\xc3\xbcller");
  EXPECT_EQ(to_utf8("M\xfcller", "latin1"), "M\xc3\xbcller");
  EXPECT_EQ(to_utf8("\x82\xa0", "Shift_JIS"), "\xe3\x81\x82");
  EXPECT_EQ(to_utf8("M\xc3\xbcller", ""), "M\xc3\xbcller");
  EXPECT_EQ(to_utf8("M\xfcller", "UTF-8"), "M\xef\xbf\xbdller");
  EXPECT_EQ(to_utf8("M\xfcller", "no-such-charset"), "M\xef\xbf\xbdller");
  EXPECT_EQ(valid_utf8("\xc0\xaf ok \xed\xa0\x80"),
            "\xef\xbf\xbd\xef\xbf\xbd ok \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
}

} // namespace
} // namespace culprit::testing
