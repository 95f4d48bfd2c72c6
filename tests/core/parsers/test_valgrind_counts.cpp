// The expected numbers come from Valgrind's own readers of the same files: cg_annotate 3.19 for
// cachegrind.out, callgrind_annotate 3.19 (--inclusive=yes for inclusive costs, --threshold=100
// for every function) for the callgrind files. tests/fixtures/valgrind/README.md says how the
// files were made.

#include "core/parsers/valgrind_counts.hpp"

#include <map>
#include <string>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/core/parsers/parser_test_support.hpp"

namespace culprit::parsers {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using Events = std::map<std::string, double>;

std::filesystem::path callgrind_fixture(std::string_view name) {
  return testing::source_dir() / "tests/fixtures/valgrind" / name;
}

std::vector<ValgrindCounts> parse_fixture(std::string_view name,
                                          const ValgrindOptions& options = {}) {
  auto parsed = read_valgrind_counts(callgrind_fixture(name), options);
  EXPECT_TRUE(parsed) << parsed.error().message;
  return parsed ? std::move(*parsed) : std::vector<ValgrindCounts>{};
}

// Events in the order of Cachegrind's events: line.
Events cachegrind_events(double ir, double i1mr, double ilmr, double dr, double d1mr, double dlmr,
                         double dw, double d1mw, double dlmw, double bc, double bcm, double bi,
                         double bim) {
  return {{"Ir", ir},     {"I1mr", i1mr}, {"ILmr", ilmr}, {"Dr", dr},     {"D1mr", d1mr},
          {"DLmr", dlmr}, {"Dw", dw},     {"D1mw", d1mw}, {"DLmw", dlmw}, {"Bc", bc},
          {"Bcm", bcm},   {"Bi", bi},     {"Bim", bim}};
}

// Events in the order of Callgrind's events: line (Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw ...).
Events callgrind_events(double ir, double dr, double dw, double i1mr, double d1mr, double d1mw,
                        double ilmr, double dlmr, double dlmw, double bc, double bcm) {
  return cachegrind_events(ir, i1mr, ilmr, dr, d1mr, dlmr, dw, d1mw, dlmw, bc, bcm, 0, 0);
}

const ValgrindFunctionCounts* find_function(const ValgrindCounts& counts, std::string_view name) {
  for (const auto& function : counts.functions) {
    if (function.name == name)
      return &function;
  }
  return nullptr;
}

TEST(ValgrindCounts, CachegrindTotalsAreTheSummaryLine) {
  const auto parts = parse_fixture("cachegrind.out");
  ASSERT_EQ(parts.size(), 1U);
  const auto& counts = parts[0];
  EXPECT_EQ(counts.name, "");
  EXPECT_EQ(counts.trigger, "");
  EXPECT_FALSE(counts.part);
  // cg_annotate: PROGRAM TOTALS.
  EXPECT_EQ(counts.events, cachegrind_events(104519, 543, 543, 11750, 168, 168, 6364, 394, 394,
                                             18781, 1356, 79, 49));
  EXPECT_TRUE(counts.functions.empty());
}

TEST(ValgrindCounts, MetricsFollowTheTableAndTheCycleModel) {
  const auto parts = parse_fixture("cachegrind.out");
  ASSERT_EQ(parts.size(), 1U);
  // L1 misses 543 + 168 + 394 = 1105, all of them LL misses too: 0 LL hits, 1105 RAM hits;
  // L1 hits = 104519 + 11750 + 6364 - 1105 = 121528.
  const Events expected = {{"instructions", 104519},
                           {"data_reads", 11750},
                           {"data_writes", 6364},
                           {"branches", 18781 + 79},
                           {"l1_misses_instr", 543},
                           {"l1_misses_data", 168 + 394},
                           {"ll_misses_instr", 543},
                           {"ll_misses_data", 168 + 394},
                           {"branch_mispredictions", 1356 + 49},
                           {"estimated_cycles", 121528 + 35 * 1105}};
  EXPECT_EQ(parts[0].counts, expected);
}

TEST(ValgrindCounts, EstimatedCyclesWeighLlHitsByFive) {
  const auto metrics =
      valgrind_metrics(cachegrind_events(1000, 10, 4, 300, 20, 5, 100, 10, 1, 0, 0, 0, 0));
  // L1 misses 40, RAM hits 10, LL hits 30, L1 hits 1400 - 40 = 1360.
  EXPECT_EQ(metrics.at("estimated_cycles"), 1360 + 5 * 30 + 35 * 10);
}

TEST(ValgrindCounts, MetricsWithoutTheirEventsAreLeftOut) {
  const auto metrics = valgrind_metrics({{"Ir", 42}});
  EXPECT_EQ(metrics, (Events{{"instructions", 42}}));
  EXPECT_TRUE(valgrind_metrics({{"sysCount", 3}}).empty());
}

TEST(ValgrindCounts, CachegrindFunctionsMatchingAPattern) {
  ValgrindOptions options;
  options.function_pattern = "bm_case_*";
  const auto parts = parse_fixture("cachegrind.out", options);
  ASSERT_EQ(parts.size(), 1U);
  ASSERT_EQ(parts[0].functions.size(), 2U);
  const auto& a = parts[0].functions[0];
  EXPECT_EQ(a.name, "bm_case_a");
  EXPECT_EQ(a.self, cachegrind_events(28677, 0, 0, 4097, 0, 0, 0, 0, 0, 4096, 9, 0, 0));
  EXPECT_EQ(a.inclusive, a.self); // Cachegrind records no calls
  const auto& b = parts[0].functions[1];
  EXPECT_EQ(b.name, "bm_case_b");
  EXPECT_EQ(b.self, cachegrind_events(3077, 0, 0, 514, 0, 0, 512, 0, 0, 512, 20, 0, 0));

  options.function_pattern = "main";
  const auto main = parse_fixture("cachegrind.out", options);
  ASSERT_EQ(main[0].functions.size(), 1U);
  EXPECT_EQ(main[0].functions[0].self,
            cachegrind_events(32860, 13, 13, 5, 0, 0, 4143, 255, 255, 4097, 11, 0, 0));
}

TEST(ValgrindCounts, EachCallgrindDumpIsACase) {
  const auto a = parse_fixture("callgrind.out.1");
  ASSERT_EQ(a.size(), 1U);
  EXPECT_EQ(a[0].name, "case_a");
  EXPECT_EQ(a[0].trigger, "Client Request: case_a");
  EXPECT_EQ(a[0].part, 1);
  // totals:, the sum of the cost lines. callgrind_annotate's PROGRAM TOTALS is summary:
  // (28690 Ir), which also holds the instructions of the client request.
  EXPECT_EQ(a[0].events, callgrind_events(28680, 4098, 2, 1, 0, 0, 1, 0, 0, 4096, 9));
  EXPECT_EQ(a[0].counts.at("instructions"), 28680);

  const auto b = parse_fixture("callgrind.out.2");
  ASSERT_EQ(b.size(), 1U);
  EXPECT_EQ(b[0].name, "case_b");
  EXPECT_EQ(b[0].part, 2);
  EXPECT_EQ(b[0].events, callgrind_events(3080, 515, 514, 0, 0, 0, 0, 0, 0, 512, 20));

  const auto end = parse_fixture("callgrind.out");
  ASSERT_EQ(end.size(), 1U);
  EXPECT_EQ(end[0].name, "");
  EXPECT_EQ(end[0].trigger, "Program termination");
  EXPECT_EQ(end[0].part, 3);
  EXPECT_EQ(end[0].events, callgrind_events(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
  EXPECT_EQ(end[0].counts.at("estimated_cycles"), 0);
}

TEST(ValgrindCounts, CallgrindFunctionsSelfAndInclusive) {
  ValgrindOptions options;
  options.function_pattern = "*";
  const auto parts = parse_fixture("callgrind.out.1", options);
  ASSERT_EQ(parts.size(), 1U);
  const auto* a = find_function(parts[0], "bm_case_a");
  ASSERT_NE(a, nullptr);
  // callgrind_annotate, with and without --inclusive=yes.
  EXPECT_EQ(a->self, callgrind_events(28677, 4097, 0, 0, 0, 0, 0, 0, 0, 4096, 9));
  EXPECT_EQ(a->inclusive, a->self);
  const auto* main = find_function(parts[0], "main");
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(main->self, callgrind_events(3, 1, 2, 1, 0, 0, 1, 0, 0, 0, 0));
  // Its own 3 and the 28677 of its call; callgrind_annotate --inclusive=yes prints 28690, the
  // cost of the call to main, which holds the client request's instructions as summary: does.
  EXPECT_EQ(main->inclusive.at("Ir"), 28680);
  double self_total = 0;
  for (const auto& function : parts[0].functions)
    self_total += function.self.at("Ir");
  EXPECT_EQ(self_total, parts[0].events.at("Ir"));
}

TEST(ValgrindCounts, ToggledCollectionWithInstructionPositions) {
  // --toggle-collect='bm_case_*' --dump-instr=yes: positions "instr line", hexadecimal
  // addresses, relative and repeated subpositions.
  ValgrindOptions options;
  options.function_pattern = "bm_case_?";
  const auto parts = parse_fixture("callgrind.toggle.out", options);
  ASSERT_EQ(parts.size(), 1U);
  EXPECT_EQ(parts[0].events, callgrind_events(31754, 4611, 512, 0, 0, 0, 0, 0, 0, 4608, 30));
  ASSERT_EQ(parts[0].functions.size(), 2U);
  EXPECT_EQ(parts[0].functions[0].name, "bm_case_b"); // the order of the file
  EXPECT_EQ(parts[0].functions[0].inclusive,
            callgrind_events(3077, 514, 512, 0, 0, 0, 0, 0, 0, 512, 20));
  EXPECT_EQ(parts[0].functions[1].name, "bm_case_a");
  EXPECT_EQ(parts[0].functions[1].inclusive,
            callgrind_events(28677, 4097, 0, 0, 0, 0, 0, 0, 0, 4096, 10));

  options.function_pattern = "main";
  const auto main = parse_fixture("callgrind.toggle.out", options);
  ASSERT_EQ(main[0].functions.size(), 1U);
  EXPECT_EQ(main[0].functions[0].self.at("Ir"), 0);
  EXPECT_EQ(main[0].functions[0].inclusive.at("Ir"), 31754);
}

TEST(ValgrindCounts, TextAndFileReadAlike) {
  ValgrindOptions options;
  options.function_pattern = "bm_*";
  for (const auto* name : {"cachegrind.out", "callgrind.out.1", "callgrind.toggle.out"}) {
    const auto from_file = parse_fixture(name, options);
    const auto from_text =
        parse_valgrind_counts(testing::read_file(callgrind_fixture(name)), name, options);
    ASSERT_TRUE(from_text) << from_text.error().message;
    ASSERT_EQ(from_text->size(), from_file.size());
    EXPECT_EQ((*from_text)[0].events, from_file[0].events);
    EXPECT_EQ((*from_text)[0].functions.size(), from_file[0].functions.size());
  }
}

TEST(ValgrindCounts, SeveralPartsInOneFile) {
  const auto parsed = parse_valgrind_counts("# callgrind format\n"
                                            "version: 1\n"
                                            "part: 1\n"
                                            "desc: Trigger: Client Request: first\n"
                                            "events: Ir Dr\n"
                                            "fn=(1) f\n"
                                            "3 10 2\n"
                                            "+1 5\n"
                                            "totals: 15 2\n"
                                            "part: 2\n"
                                            "desc: Trigger: Client Request: second\n"
                                            "fn=(1)\n"
                                            "4 7 1\n"
                                            "totals: 7 1\n");
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->size(), 2U);
  EXPECT_EQ((*parsed)[0].name, "first");
  EXPECT_EQ((*parsed)[0].events, (Events{{"Ir", 15}, {"Dr", 2}}));
  EXPECT_EQ((*parsed)[1].name, "second");
  EXPECT_EQ((*parsed)[1].part, 2);
  EXPECT_EQ((*parsed)[1].events, (Events{{"Ir", 7}, {"Dr", 1}}));
}

// CALLGRIND_DUMP_STATS_AT("") writes "Client Request: " (the blank trimmed away), which is a
// named dump whose name is empty; CALLGRIND_DUMP_STATS writes "Client Request", a dump without a
// name; the program's end is neither.
TEST(ValgrindCounts, ADumpNamedWithNothingIsToldFromADumpWithoutAName) {
  const auto dump = [](std::string_view trigger) {
    auto parsed = parse_valgrind_counts(fmt::format("# callgrind format\n"
                                                    "desc: Trigger: {}\n"
                                                    "events: Ir\n"
                                                    "fn=f\n"
                                                    "1 4\n"
                                                    "totals: 4\n",
                                                    trigger));
    EXPECT_TRUE(parsed) << parsed.error().message;
    return parsed ? parsed->front() : ValgrindCounts{};
  };
  const auto empty = dump("Client Request: ");
  EXPECT_TRUE(empty.named);
  EXPECT_EQ(empty.name, "");
  const auto blank = dump("Client Request:    ");
  EXPECT_TRUE(blank.named);
  EXPECT_EQ(blank.name, "");
  const auto named = dump("Client Request: case_a");
  EXPECT_TRUE(named.named);
  EXPECT_EQ(named.name, "case_a");
  const auto unnamed = dump("Client Request");
  EXPECT_FALSE(unnamed.named);
  EXPECT_EQ(unnamed.name, "");
  EXPECT_FALSE(dump("Program termination").named);
}

TEST(ValgrindCounts, CallgrindWithoutTotalsIsSummed) {
  const auto parsed = parse_valgrind_counts("# callgrind format\n"
                                            "events: Ir\n"
                                            "fn=f\n"
                                            "1 4\n"
                                            "cfn=g\n"
                                            "calls=2 10\n"
                                            "1 100\n"
                                            "fn=g\n"
                                            "10 100\n");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ((*parsed)[0].events, (Events{{"Ir", 104}}));
}

TEST(ValgrindCounts, SamplesFromCounts) {
  const auto samples = valgrind_samples("case_a", {{"instructions", 28680}, {"branches", 4096}});
  ASSERT_EQ(samples.size(), 2U);
  EXPECT_EQ(samples[0].case_name, "case_a");
  EXPECT_EQ(samples[0].metric, "instructions");
  EXPECT_EQ(samples[0].unit, "");
  EXPECT_EQ(samples[0].direction, Direction::lower_is_better);
  EXPECT_THAT(samples[0].values, ElementsAre(28680));
  EXPECT_EQ(samples[1].metric, "branches");

  const auto& descriptors = valgrind_metric_descriptors();
  ASSERT_EQ(descriptors.size(), 10U);
  EXPECT_EQ(descriptors.front().name, "instructions");
  EXPECT_EQ(descriptors.back().name, "estimated_cycles");
}

TEST(ValgrindCounts, NamePatterns) {
  EXPECT_TRUE(valgrind_name_matches("*", ""));
  EXPECT_TRUE(valgrind_name_matches("*BM_sgemm*", "void BM_sgemm<float>(benchmark::State&)"));
  EXPECT_TRUE(valgrind_name_matches("bm_case_?", "bm_case_a"));
  EXPECT_FALSE(valgrind_name_matches("bm_case_?", "bm_case_ab"));
  EXPECT_FALSE(valgrind_name_matches("bm_case", "bm_case_a"));
  EXPECT_TRUE(valgrind_name_matches("a*b*c", "aXbYbZc"));
  EXPECT_FALSE(valgrind_name_matches("a*b*c", "aXbYbZ"));
  EXPECT_TRUE(valgrind_name_matches("f\\*", "f*"));
  EXPECT_FALSE(valgrind_name_matches("f\\*", "fx"));
  EXPECT_TRUE(valgrind_name_matches("**a**", "a"));
}

void expect_error(std::string_view text, std::string_view what) {
  const auto parsed = parse_valgrind_counts(text, "profile");
  ASSERT_FALSE(parsed) << "parsed: " << text;
  EXPECT_EQ(parsed.error().code, ExitCode::infrastructure);
  EXPECT_THAT(parsed.error().message, HasSubstr(what)) << text;
  EXPECT_THAT(parsed.error().message, Not(HasSubstr("\n")));
}

TEST(ValgrindCounts, BadInputIsAOneLineError) {
  expect_error("", "no events: line");
  expect_error("desc: nothing here\ncmd: ./x\n", "no events: line");
  expect_error("fn=f\n1 2 3\n", "line 2: a cost line before the events: line");
  expect_error("events: Ir Dr\nfn=f\n1 2 x\nsummary: 2 0\n", "\"x\" is not a non-negative");
  expect_error("events: Ir Dr\nfn=f\n1 2 -3\nsummary: 2 0\n", "\"-3\" is not a non-negative");
  expect_error("events: Ir Dr\nfn=f\n1 2 3 4\nsummary: 2 3\n", "more counts than the 2 events");
  expect_error("events: Ir\nfn=f\n1 99999999999999999999999\n", "is not a non-negative");
  expect_error("events: Ir\nfn=f\n1 2\n", "no summary: line at the end");
  expect_error("events: Ir\nfn=f\n1 2\nsummary: 3\n", "add up to 2 Ir but the summary: line");
  expect_error("creator: callgrind-3.19.0\nevents: Ir\nsummary: 2\nfn=f\n1 2\n",
               "no totals: line at the end");
  expect_error("events: Ir\nsummary: 1 2\n", "more counts than the 1 events");
  expect_error("events:\n", "names no events");
  expect_error("events: Ir\nfn=f\n1 2\nevents: Dr\n", "an events: line after cost lines");
  expect_error("summary: 3\nevents: Ir\n", "a summary: line before the events: line");
  expect_error("events: Ir\n!garbage\n", "neither a header line");
  expect_error("events: Ir\nfn=(7)\n", "(7) names no function defined before it");
  expect_error("events: Ir\nfn=(7x\n", "not a compressed name");
  expect_error("positions: instr line\nevents: Ir\nfn=f\n0x1g 3 4\n", "\"0x1g\" is not a position");
  expect_error("# callgrind format\nevents: Ir\nfn=f\ncfn=g\ncalls=1 2\n", "after a calls= line");
  expect_error("# callgrind format\nevents: Ir\nfn=f\ncfn=g\ncalls=1 2\nfn=g\n1 2\n",
               "must be followed by the cost line");
  expect_error("# callgrind format\nevents: Ir\ncalls=x\n", "does not start with a call count");
  expect_error("# callgrind format\npart: z\n", "is not a dump number");
}

TEST(ValgrindCounts, CutShortFilesAreErrorsNotCrashes) {
  for (const auto* name : {"cachegrind.out", "callgrind.out.1", "callgrind.toggle.out"}) {
    const auto text = testing::read_file(callgrind_fixture(name));
    ASSERT_TRUE(parse_valgrind_counts(text, name));
    // Any cut before the last line's end loses part of the totals or of the costs they add up.
    for (std::size_t size = 0; size + 1 < text.size(); ++size) {
      const auto parsed = parse_valgrind_counts(std::string_view(text).substr(0, size), name);
      ASSERT_FALSE(parsed) << name << " cut to " << size << " bytes parsed";
      ASSERT_THAT(parsed.error().message, Not(HasSubstr("\n")));
    }
  }
}

TEST(ValgrindCounts, EveryDumpOfARunInOrder) {
  const auto dumps = read_callgrind_dumps(callgrind_fixture("callgrind.out"));
  ASSERT_TRUE(dumps) << dumps.error().message;
  ASSERT_EQ(dumps->size(), 3U);
  EXPECT_EQ((*dumps)[0].name, "case_a");
  EXPECT_EQ((*dumps)[1].name, "case_b");
  EXPECT_EQ((*dumps)[2].trigger, "Program termination");
  EXPECT_EQ((*dumps)[1].counts.at("instructions"), 3080);

  const auto none = read_callgrind_dumps(callgrind_fixture("callgrind.none"));
  ASSERT_FALSE(none);
  EXPECT_THAT(none.error().message, HasSubstr("Callgrind wrote no profile"));
}

TEST(ValgrindCounts, MissingFileIsAnError) {
  const auto parsed = read_valgrind_counts(callgrind_fixture("no-such-profile.out"));
  ASSERT_FALSE(parsed);
  EXPECT_THAT(parsed.error().message, HasSubstr("cannot open the Valgrind profile"));
}

} // namespace
} // namespace culprit::parsers
