// The bad-input table: flags, config files, revisions and benchmark outputs that culprit must
// refuse with the right exit code and one line that says what to do, leaving the user's
// repository and culprit's cache as they were (or, when runs were made, the store sound and free
// of any run that counts).

#include <fstream>

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <gmock/gmock.h>

#include "tests/reliability/reliability_support.hpp"
#include "tests/support/fake_slurm.hpp"

namespace culprit::testing {
namespace {

using ::testing::HasSubstr;

// What a refused command may leave behind.
enum class Leaves {
  nothing,      // repository and cache byte for byte as they were
  failed_runs,  // runs were made and failed: repository untouched, store sound, no run counts
  measurements, // the benchmark had to run to show the mistake: its runs are kept, store sound
};

struct BadInput {
  const char* name;
  std::vector<std::string> args; // {cache}, {tmp}, {good}, {bad}, {config}, {script} expand
  int exit_code;
  const char* message;     // part of the one error line
  const char* config = ""; // when set: written to {config}, and --config {config} is passed
  const char* script = ""; // when set: written to {script}, a benchmark for --run
  Leaves leaves = Leaves::nothing;
  // When set: PATH is a directory of its own holding what this lists, '|'-separated: "tools" (the
  // basic tools), the Slurm stand-ins by name, and "+MODE" or "+MODE=TEXT" files that steer them
  // (tests/support/fake_slurm.hpp).
  const char* slurm = "";
  const char* evidence = "";  // when set: written to {evidence}, an evidence file for `report`
  bool stdout_full = false;   // standard output goes to a full device ({full})
  std::size_t max_line = 400; // the error line is at most this long: values are quoted short
};

void PrintTo(const BadInput& input, std::ostream* os) {
  *os << input.name;
}

// A culprit.toml that is valid but for one line, given in its place.
#define RECIPE_WITH(BUILD, RUN, DECIDE)                                                            \
  "[build]\ncommand = \"cp {src}/bench.sh {src}/value {build}/\"\n" BUILD                          \
  "\n[run]\ncommand = \"sh {build}/bench.sh {build}/value\"\nformat = \"culprit\"\n" RUN           \
  "\n[decide]\nmin_runs = 3\nmax_runs = 6\n" DECIDE "\n"

// An evidence file as `culprit compare --json` writes it, trimmed to the keys it needs, with one
// comparison whose ratio and interval are COMPARISON, and BISECT after it.
#define EVIDENCE_WITH(KIND, COMPARISON, BISECT)                                                    \
  "{\"schema\": \"culprit.evidence/2\", \"kind\": \"" KIND "\", \"status\": \"slower\", "          \
  "\"tool\": {\"version\": \"1\"}, \"command\": [\"culprit\"], \"created\": "                      \
  "\"2026-01-01T00:00:00Z\", "                                                                     \
  "\"repo\": {\"path\": \"\", \"head\": \"\"}, \"settings\": {\"build\": \"b\", \"run\": \"r\", "  \
  "\"format\": \"culprit\", \"metric\": \"time\", \"threshold\": 0.02, \"confidence\": 0.95, "     \
  "\"seed\": 1}, \"builds\": [], \"measurements\": [], \"comparisons\": [{\"base\": \"a\", "       \
  "\"head\": \"b\", \"case\": \"k\", " COMPARISON                                                  \
  ", \"p_value\": 0.01, \"verdict\": \"slower\"}]" BISECT "}"
#define GOOD_RATIO "\"ratio\": 1.1, \"ci\": [1.05, 1.15]"

// Benchmark scripts for --run "sh {script}".
#define SAMPLE_LINE(VALUE)                                                                         \
  "echo '{\"type\":\"sample\",\"case\":\"k\",\"metric\":\"time\",\"unit\":\"ms\","                 \
  "\"direction\":\"lower\",\"value\":" VALUE "}'\n"

const BadInput k_table[] = {
    // Flags.
    {"NoCommand", {}, 2, "run 'culprit --help'"},
    {"UnknownCommand", {"frobnicate"}, 2, "culprit --help"},
    {"UnknownFlag", {"run", "HEAD", "--frobnicate"}, 2, "culprit --help"},
    {"BadColor", {"--color", "purple", "env"}, 2, "culprit --help"},
    {"RunWithoutRevision", {"run"}, 2, "revision"},
    {"BisectWithoutBad", {"bisect", "--good", "{good}"}, 2, "--bad"},
    {"ThresholdOver100Percent", {"run", "HEAD", "--threshold", "150%"}, 2, "threshold"},
    {"ThresholdNotANumber", {"run", "HEAD", "--threshold", "fast"}, 2, "threshold"},
    {"ConfidenceAboveOne", {"run", "HEAD", "--confidence", "1.5"}, 2, "confidence"},
    {"MinRunsZero", {"run", "HEAD", "--min-runs", "0"}, 2, "min"},
    {"MinRunsAboveMaxRuns", {"run", "HEAD", "--min-runs", "9", "--max-runs", "4"}, 2, "max"},
    {"UnknownFormat", {"run", "HEAD", "--format", "xml"}, 2, "xml"},
    {"NegativeTimeout", {"run", "HEAD", "--timeout", "-1"}, 2, "timeout"},
    {"NegativeWarmup", {"run", "HEAD", "--warmup", "-1"}, 2, "warmup"},
    {"SeedNotANumber", {"run", "HEAD", "--seed", "abc"}, 2, "seed"},
    {"RepoMissing", {"--repo", "{tmp}/nowhere", "run", "HEAD"}, 2, "nowhere"},
    {"RepoNotARepository", {"--repo", "{tmp}", "run", "HEAD"}, 2, "git"},
    {"CacheDirIsAFile", {"--cache-dir", "{tmp}/a-file", "run", "HEAD"}, 2, "--cache-dir"},
    {"ConfigMissing", {"--config", "{tmp}/missing.toml", "run", "HEAD"}, 2, "missing.toml"},
    {"CaseGlobMatchesNothing",
     {"run", "HEAD", "--case", "nomatch*"},
     2,
     "the cases are: kernel",
     "",
     "",
     Leaves::measurements},
    {"MetricNobodyReports",
     {"run", "HEAD", "--metric", "joules"},
     2,
     "joules",
     "",
     "",
     Leaves::measurements},
    {"CsvWithoutColumns", {"run", "HEAD", "--format", "csv"}, 2, "column"},
    {"JsonIntoMissingDirectory",
     {"run", "HEAD", "--json", "{tmp}/no/such/dir/x.json"},
     2,
     "x.json"},
    {"StatisticNonsense",
     {"compare", "{good}", "{bad}", "--statistic", "nonsense"},
     2,
     "unknown statistic 'nonsense': use auto, median, mean, min, max or a percentile p1 to p99"},
    {"StatisticP0", {"compare", "{good}", "{bad}", "--statistic", "p0"}, 2, "write min"},
    {"StatisticP100", {"compare", "{good}", "{bad}", "--statistic", "p100"}, 2, "write max"},
    {"StatisticP101",
     {"compare", "{good}", "{bad}", "--statistic", "p101"},
     2,
     "'p101' is not a percentile: write p1 to p99"},
    {"DuetOnOneCpu",
     {"compare", "{good}", "{bad}", "--duet", "--cpus", "0"},
     2,
     "(--cpus, [run] cpus) are one, 0: list at least two"},
    {"DuetOfGpuRuns",
     {"compare", "{good}", "{bad}", "--duet", "--format", "nvbench"},
     2,
     "these runs time a GPU, which both would share"},
    {"DuetOnSlurm",
     {"compare", "{good}", "{bad}", "--duet", "--executor", "slurm"},
     2,
     "duets run on this machine only"},

    // Config files.
    {"ConfigNotToml", {"run", "HEAD"}, 2, "culprit.toml", "[build\ncommand = 1\n"},
    {"ConfigUnknownKey", {"run", "HEAD"}, 2, "comand", RECIPE_WITH("comand = \"make\"", "", "")},
    {"ConfigUnknownTable", {"run", "HEAD"}, 2, "deploy", RECIPE_WITH("", "", "[deploy]\nx = 1")},
    {"ConfigWrongType", {"run", "HEAD"}, 2, "timeout", RECIPE_WITH("", "timeout = \"soon\"", "")},
    {"ConfigThresholdTooBig",
     {"run", "HEAD"},
     2,
     "threshold",
     RECIPE_WITH("", "", "threshold = 2.0")},
    {"ConfigUnknownFormat",
     {"run", "HEAD"},
     2,
     "xml",
     "[build]\ncommand = \"true\"\n[run]\ncommand = \"true\"\nformat = \"xml\"\n"},
    {"ConfigRegexInvalid",
     {"run", "HEAD"},
     2,
     "(unclosed",
     "[build]\ncommand = \"true\"\n[run]\ncommand = \"true\"\nformat = \"regex\"\npattern = "
     "\"(unclosed\"\n"},
    {"ConfigNoRunCommand", {"run", "HEAD"}, 2, "run", "[build]\ncommand = \"true\"\n"},
    {"ConfigEmpty", {"run", "HEAD"}, 2, "command", " "},
    {"ConfigBinaryGarbage",
     {"run", "HEAD"},
     2,
     "culprit.toml",
     "\x7f"
     "ELF\x01\x01\x01\xff\xfe\n"},
    {"ConfigArtifactDotDot",
     {"build", "HEAD"},
     2,
     "..",
     RECIPE_WITH("artifacts = [\"../../etc/passwd\"]", "", "")},
    {"ConfigArtifactAbsolute",
     {"build", "HEAD"},
     2,
     "absolute",
     RECIPE_WITH("artifacts = [\"/etc/passwd\"]", "", "")},
    {"ConfigIsADirectory", {"--config", "{tmp}", "run", "HEAD"}, 2, "--config"},
    {"ConfigStatisticP0",
     {"compare", "{good}", "{bad}"},
     2,
     "write min",
     RECIPE_WITH("", "", "statistic = \"p0\"")},
    {"ConfigStatisticNotAString",
     {"compare", "{good}", "{bad}"},
     2,
     "[decide] statistic must be a string",
     RECIPE_WITH("", "", "statistic = 10")},
    {"ConfigPeakZero",
     {"run", "HEAD"},
     2,
     "[roofline] peak_gflops (--peak-gflops) is 0",
     RECIPE_WITH("", "", "\n[roofline]\npeak_gflops = 0")},
    {"ConfigPeakAbsurd",
     {"run", "HEAD"},
     2,
     "more than any device reaches",
     RECIPE_WITH("", "", "\n[roofline]\npeak_gbps = 1e9")},
    {"ConfigWorkExpression",
     {"run", "HEAD"},
     2,
     "[roofline.cases] 'k' flops: the work expression '2*' does not parse",
     RECIPE_WITH("", "", "\n[roofline.cases]\n\"k\" = { flops = \"2*\" }")},
    {"PeakFlagNaN", {"run", "HEAD", "--peak-gflops", "nan"}, 2, "(--peak-gflops) is nan"},
    {"PeakFlagNegative", {"run", "HEAD", "--peak-gbps", "-1"}, 2, "(--peak-gbps) is -1"},
    {"ConfigDuetSometimes",
     {"compare", "{good}", "{bad}"},
     2,
     "[run] duet must be true, false or \"auto\"",
     RECIPE_WITH("", "duet = \"sometimes\"", "")},
    {"ConfigDuetOnOneCpu",
     {"compare", "{good}", "{bad}"},
     2,
     "(--cpus, [run] cpus) are one, 0",
     RECIPE_WITH("", "duet = true\ncpus = [0]", "")},

    // Revisions.
    {"RunUnknownRevision", {"run", "no-such-branch"}, 2, "no-such-branch"},
    {"CompareUnknownRevision", {"compare", "{good}", "no-such-tag"}, 2, "no-such-tag"},
    {"BuildEmptyRevision", {"build", ""}, 2, "revision"},
    {"RunBeyondTheFirstCommit", {"run", "HEAD~100"}, 2, "HEAD~100"},
    {"RunATreeNotACommit", {"run", "HEAD^{tree}"}, 2, "commit"},
    {"BisectSameCommit", {"bisect", "--good", "HEAD", "--bad", "{bad}"}, 2, "same commit"},
    {"BisectSwapped", {"bisect", "--good", "{bad}", "--bad", "{good}"}, 2, "swap"},
    {"BisectUnrelated", {"bisect", "--good", "orphan", "--bad", "{bad}"}, 2, "ancestor"},
    {"RevisionThatIsShell", {"run", "$(touch pwned)"}, 2, "pwned"},

    // Benchmark outputs.
    {"BenchmarkPrintsNothing",
     {"run", "HEAD", "--run", "sh {script}"},
     4,
     "no sample record",
     "",
     "exit 0\n",
     Leaves::failed_runs},
    {"BenchmarkPrintsGarbage",
     {"run", "HEAD", "--run", "sh {script}", "--format", "culprit"},
     4,
     "line 1, column",
     "",
     "echo '{not json'\n",
     Leaves::failed_runs},
    {"BenchmarkPrintsNaN",
     {"run", "HEAD", "--run", "sh {script}"},
     4,
     "value",
     "",
     SAMPLE_LINE("NaN"),
     Leaves::failed_runs},
    {"BenchmarkPrintsNegativeTime",
     {"run", "HEAD", "--run", "sh {script}"},
     4,
     "value",
     "",
     SAMPLE_LINE("-1"),
     Leaves::failed_runs},
    {"BenchmarkNotGbench",
     {"run", "HEAD", "--run", "sh {script}", "--format", "gbench"},
     4,
     "Google Benchmark",
     "",
     "echo '{\"benchmarks\": 3}'\n",
     Leaves::failed_runs},
    {"BenchmarkFormatUnknowable",
     {"run", "HEAD", "--run", "sh {script}", "--format", "auto"},
     4,
     "give --format",
     "",
     "echo 'kernel took 3 ms'\n",
     Leaves::failed_runs},
    {"BenchmarkExitsNonZero",
     {"run", "HEAD", "--run", "sh {script}"},
     4,
     "status 3",
     "",
     SAMPLE_LINE("1") "exit 3\n",
     Leaves::failed_runs},
    {"BenchmarkCommandMissing",
     {"run", "HEAD", "--run", "{tmp}/no-such-bench"},
     4,
     "no-such-bench",
     "",
     "",
     Leaves::failed_runs},
    {"RegexWithoutPattern", {"run", "HEAD", "--format", "regex"}, 2, "pattern"},
    // Slurm: every case exits 4 before a run counts.
    {"SlurmToolsMissing",
     {"run", "HEAD", "--executor", "slurm"},
     4,
     "install Slurm's client tools",
     "",
     "",
     Leaves::failed_runs,
     "tools"},
    {"SrunMissing",
     {"run", "HEAD", "--executor", "slurm"},
     4,
     "cannot start a Slurm step",
     "",
     "",
     Leaves::failed_runs,
     "tools|salloc|scancel"},
    {"SlurmUnknownPartition",
     {"run", "HEAD", "--executor", "slurm"},
     4,
     "Invalid partition name specified",
     "",
     "",
     Leaves::failed_runs,
     "tools|salloc|srun|scancel|+refuse"},
    {"SlurmJobRefused",
     {"run", "HEAD", "--executor", "slurm"},
     4,
     "Requested node configuration is not available",
     "",
     "",
     Leaves::failed_runs,
     "tools|salloc|srun|scancel|+refuse=salloc: error: Job submit/allocate failed: Requested node "
     "configuration is not available"},
    {"SlurmWorkerLeftNoResults",
     {"run", "HEAD", "--executor", "slurm"},
     4,
     "node.json",
     "",
     "",
     Leaves::failed_runs,
     "tools|salloc|srun|scancel|+skip_worker"},
    {"SlurmWorkerResultsCut",
     {"run", "HEAD", "--executor", "slurm"},
     4,
     "cut line",
     "",
     "",
     Leaves::failed_runs,
     "tools|salloc|srun|scancel|+cut"},
    {"ParallelZero", {"run", "HEAD", "--parallel", "0"}, 2, "--parallel: '0' is out of range"},
    {"UnknownExecutor", {"run", "HEAD", "--executor", "kubernetes"}, 2, "unknown executor"},

    // Found by trying to break culprit from the outside.
    {"BudgetSpentBeforeAnyRun",
     {"run", "HEAD", "--fresh", "--budget", "1e-9"},
     3,
     "the time budget ran out before the benchmark reported anything",
     "",
     "",
     Leaves::measurements},
    {"BudgetSpentBeforeACompareRan",
     {"compare", "{good}", "{bad}", "--fresh", "--budget", "1e-9"},
     3,
     "raise --budget",
     "",
     "",
     Leaves::measurements},
    {"JsonToAFullDisk",
     {"run", "HEAD", "--min-runs", "3", "--max-runs", "3", "--json", "{full}"},
     4,
     "No space left on device",
     "",
     "",
     Leaves::measurements},
    {"MarkdownToAFullDisk",
     {"run", "HEAD", "--min-runs", "3", "--max-runs", "3", "--markdown", "{full}"},
     4,
     "No space left on device",
     "",
     "",
     Leaves::measurements},
    {.name = "CompareJsonToAFullStandardOutput",
     .args = {"compare", "{good}", "{bad}", "--min-runs", "3", "--max-runs", "3", "--json", "-"},
     .exit_code = 4,
     .message = "cannot write to standard output: No space left on device",
     .leaves = Leaves::measurements,
     .stdout_full = true},
    {.name = "ReportHtmlToAFullStandardOutput",
     .args = {"report", "{evidence}", "--format", "html"},
     .exit_code = 4,
     .message = "cannot write to standard output",
     .evidence = EVIDENCE_WITH("compare", GOOD_RATIO, ""),
     .stdout_full = true},
    {"TimeoutOfTenBillionSeconds", {"run", "HEAD", "--timeout", "1e10"}, 2, "at most 604800"},
    {"ConfigRunTimeoutOfTenBillionSeconds",
     {"run", "HEAD"},
     2,
     "at most 604800 seconds",
     RECIPE_WITH("", "timeout = 1e10", "")},
    {"ConfigBuildTimeoutOfTenBillionSeconds",
     {"build", "HEAD"},
     2,
     "[build] timeout must be more than 0 and at most 604800",
     RECIPE_WITH("timeout = 1e10", "", "")},
    {"BudgetOfTenBillionSeconds", {"run", "HEAD", "--budget", "1e10"}, 2, "--budget"},
    {"JsonAndHtmlOntoOneFile",
     {"run", "HEAD", "--json", "{tmp}/out", "--html", "{tmp}/out"},
     2,
     "--json and --html both name"},
    {"JsonAndMarkdownOntoStandardOutput",
     {"run", "HEAD", "--json", "-", "--markdown", "-"},
     2,
     "would both write to standard output"},
    {"ReportOutputOntoItsJson",
     {"report", "{evidence}", "-o", "{tmp}/r", "--markdown", "{tmp}/r"},
     2,
     "both name",
     "",
     "",
     Leaves::nothing,
     "",
     EVIDENCE_WITH("compare", GOOD_RATIO, "")},
    {"ImportOfAnEndlessDevice",
     {"import", "/dev/zero", "--commit", "HEAD"},
     2,
     "holds more than 64 MiB",
     "",
     "",
     Leaves::measurements},
    {"EveryZero", {"track", "{good}..{bad}", "--every", "0"}, 2, "give a whole number from 1 to"},
    {"AnchorsTooMany",
     {"track", "{good}..{bad}", "--anchors", "101"},
     2,
     "give a whole number from 0 to 100"},
    {"RunsZero", {"track", "{good}..{bad}", "--runs", "0"}, 2, "give a whole number from 1 to"},
    {"SeedNegative", {"run", "HEAD", "--seed", "-1"}, 2, "--seed: '-1' is not a whole number"},
    {"SeedWithAnExponent", {"run", "HEAD", "--seed", "1e23"}, 2, "--seed: '1e23'"},
    {"SeedPastTheLargest",
     {"run", "HEAD", "--seed", "18446744073709551616"},
     2,
     "from 0 to 9223372036854775807"},
    {"ConfigSeedNegative",
     {"run", "HEAD"},
     2,
     "from 0 to 9223372036854775807",
     RECIPE_WITH("", "", "seed = -1")},
    {"ConfigKeyOfAMegabyte",
     {"run", "HEAD"},
     2,
     "bytes in all",
     RECIPE_WITH("{megabyte} = 1", "", ""),
     "",
     Leaves::nothing,
     "",
     "",
     false,
     300},
    {"RevisionOfAHundredKilobytes",
     {"run", "{100k}"},
     2,
     "bytes in all",
     "",
     "",
     Leaves::nothing,
     "",
     "",
     false,
     300},
    {"RevisionWithANewline", {"run", "HEAD\nrm -rf ~"}, 2, "HEAD\\nrm -rf"},
    {"RevisionWithEscapes", {"run", "\x1b[2J\x07x"}, 2, "\\x1b[2J\\x07x"},
    {"GbenchNaN",
     {"run", "HEAD", "--run", "sh {script}", "--format", "gbench"},
     4,
     "found NaN",
     "",
     "echo '{\"context\": {}, \"benchmarks\": [{\"name\": \"k\", \"run_type\": \"iteration\", "
     "\"real_time\": NaN, \"cpu_time\": 1, \"time_unit\": \"ns\"}]}'\n",
     Leaves::failed_runs},
    {"EvidenceWithANegativeRatio",
     {"report", "{evidence}"},
     2,
     "'comparisons[0].ratio' in the evidence is -1",
     "",
     "",
     Leaves::nothing,
     "",
     EVIDENCE_WITH("compare", "\"ratio\": -1, \"ci\": [1.05, 1.15]", "")},
    {"EvidenceWithAnIntervalUpsideDown",
     {"report", "{evidence}"},
     2,
     "'comparisons[0].ci",
     "",
     "",
     Leaves::nothing,
     "",
     EVIDENCE_WITH("compare", "\"ratio\": 1.1, \"ci\": [5, -5]", "")},
    {"EvidenceOfAnUnknownKind",
     {"report", "{evidence}"},
     2,
     "'kind' in the evidence is 'benchmark'",
     "",
     "",
     Leaves::nothing,
     "",
     EVIDENCE_WITH("benchmark", GOOD_RATIO, "")},
    {"EvidenceOfABisectionWithoutItsBisect",
     {"report", "{evidence}"},
     2,
     "'bisect' in the evidence is missing",
     "",
     "",
     Leaves::nothing,
     "",
     EVIDENCE_WITH("bisect", GOOD_RATIO, "")},

    // Round 3: numbers, stores, flags and messages.
    {"RatioPastWhatANumberHolds",
     {"compare", "{good}", "{bad}", "--run", "sh {script} {build}/value", "--min-runs", "3",
      "--max-runs", "3"},
     4,
     "a ratio no number holds",
     "",
     "case $(cat \"$1\") in 10.*) v=1e-300 ;; *) v=1e300 ;; esac\n"
     "echo '{\"type\":\"sample\",\"case\":\"k\",\"metric\":\"time\",\"unit\":\"ns\","
     "\"direction\":\"lower\",\"value\":'$v'}'\n",
     Leaves::measurements},
    {"EvidenceCountPastAWholeNumber",
     {"report", "{evidence}"},
     2,
     "'bisect.commits_in_range' in the evidence is 1e+30, not a whole number from",
     "",
     "",
     Leaves::nothing,
     "",
     EVIDENCE_WITH("bisect", GOOD_RATIO,
                   ", \"bisect\": {\"good\": \"a\", \"bad\": \"b\", \"commits_in_range\": 1e30, "
                   "\"steps\": [], \"culprits\": []}")},
    {"EvidenceCountWithAFraction",
     {"report", "{evidence}"},
     2,
     "'bisect.rounds' in the evidence is 2.5, not a whole number",
     "",
     "",
     Leaves::nothing,
     "",
     EVIDENCE_WITH("bisect", GOOD_RATIO,
                   ", \"bisect\": {\"good\": \"a\", \"bad\": \"b\", \"commits_in_range\": 3, "
                   "\"rounds\": 2.5, \"steps\": [], \"culprits\": []}")},
    {"EvidenceCountThatIsTrue",
     {"report", "{evidence}"},
     2,
     "'bisect.commits_in_range' in the evidence has the wrong type (boolean)",
     "",
     "",
     Leaves::nothing,
     "",
     EVIDENCE_WITH("bisect", GOOD_RATIO,
                   ", \"bisect\": {\"good\": \"a\", \"bad\": \"b\", \"commits_in_range\": true, "
                   "\"steps\": [], \"culprits\": []}")},
    {"FlagGivenTwiceTakesTheLast",
     {"run", "HEAD", "--format", "csv", "--format", "xml"},
     2,
     "unknown format 'xml'"},
    {"GlobalFlagGivenTwiceTakesTheLast",
     {"--repo", "{tmp}", "--repo", "{tmp}/nowhere", "run", "HEAD"},
     2,
     "nowhere does not exist"},
    {"ConfigMinRunsZero",
     {"run", "HEAD"},
     2,
     "[decide] min_runs must be a whole number from 2 to 1000000",
     "[build]\ncommand = \"true\"\n[run]\ncommand = \"true\"\n[decide]\nmin_runs = 0\n"},
    {"ConfigEmptyCasePattern",
     {"run", "HEAD"},
     2,
     "[run] cases holds an empty pattern, which matches no case; give a glob such as",
     RECIPE_WITH("", "cases = [\"\"]", "")},
    {"ConfigEnvValueWithANul",
     {"run", "HEAD"},
     2,
     "[run] env.A: the value holds a NUL character",
     RECIPE_WITH("", "env = { A = \"x\\u0000y\" }", "")},
};

// The PATH directory a row's `slurm` asks for.
std::filesystem::path fake_cluster(const std::filesystem::path& dir, std::string_view spec) {
  const auto bin = dir / "slurm-bin";
  std::vector<std::string> programs;
  while (!spec.empty()) {
    const auto bar = spec.find('|');
    const auto item = std::string(spec.substr(0, bar));
    spec = bar == std::string_view::npos ? std::string_view{} : spec.substr(bar + 1);
    if (item == "tools") {
      link_basic_tools(bin);
    } else if (item.starts_with('+')) {
      const auto equals = item.find('=');
      std::filesystem::create_directories(bin);
      std::ofstream(bin /
                    item.substr(1, equals == std::string::npos ? std::string::npos : equals - 1))
          << (equals == std::string::npos ? "" : item.substr(equals + 1) + "\n");
    } else {
      programs.push_back(item);
    }
  }
  install_fake_slurm(bin, programs);
  return bin;
}

class BadInputTable : public ::testing::TestWithParam<BadInput> {
protected:
  static void SetUpTestSuite() {
    s_temp = std::make_unique<TempDir>("culprit-bad-input");
    s_project = std::make_unique<StepProject>(*s_temp / "project",
                                              StepProjectOptions{.commits = 3, .step_at = 2});
    auto& repo = s_project->repo();
    auto branch = repo.git({"rev-parse", "--abbrev-ref", "HEAD"});
    branch.erase(branch.find_last_not_of('\n') + 1);
    repo.git({"checkout", "-q", "--orphan", "orphan"});
    repo.write("NOTES", "another history\n");
    repo.commit("an unrelated root");
    repo.git({"checkout", "-q", "-f", branch});
    // A warm cache: the build of HEAD and a few runs of it are there before every case.
    const auto warm = run_culprit(
        {"--cache-dir", cache().string(), "run", "HEAD", "--min-runs", "3", "--max-runs", "3"},
        s_project->dir());
    ASSERT_EQ(warm.exit_code, 0) << warm.err;
  }
  static void TearDownTestSuite() {
    s_project.reset();
    s_temp.reset();
  }
  static std::filesystem::path cache() { return *s_temp / "cache"; }

  static std::unique_ptr<TempDir> s_temp;
  static std::unique_ptr<StepProject> s_project;
};

std::unique_ptr<TempDir> BadInputTable::s_temp;
std::unique_ptr<StepProject> BadInputTable::s_project;

std::string expand(std::string text, const std::map<std::string, std::string>& values) {
  for (const auto& [name, value] : values) {
    for (auto at = text.find(name); at != std::string::npos;
         at = text.find(name, at + value.size()))
      text.replace(at, name.size(), value);
  }
  return text;
}

void write_text(const std::filesystem::path& file, std::string_view text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
}

// A device that refuses every write with ENOSPC, like /dev/full: a node of its own in `dir` when
// this process may make one, so that a culprit that replaced the file it writes could never
// replace the system's /dev/full.
std::filesystem::path full_device(const std::filesystem::path& dir) {
  const auto node = dir / "full";
  if (::mknod(node.c_str(), S_IFCHR | 0666, ::makedev(1, 7)) == 0)
    return node;
  return "/dev/full";
}

TEST_P(BadInputTable, IsRefusedWithOneLineAndLeavesNothingBehind) {
  const BadInput& input = GetParam();
  TempDir tmp("culprit-bad-case");
  write_text(tmp / "a-file", "not a directory\n");
  const auto full = full_device(tmp.path());
  const std::map<std::string, std::string> values = {
      {"{cache}", cache().string()},
      {"{tmp}", tmp.path().string()},
      {"{good}", s_project->good()},
      {"{bad}", s_project->bad()},
      {"{config}", (tmp / "culprit.toml").string()},
      {"{script}", (tmp / "bench.sh").string()},
      {"{evidence}", (tmp / "evidence.json").string()},
      {"{full}", full.string()},
      {"{100k}", std::string(100'000, 'r')},
      {"{megabyte}", std::string(std::size_t{1} << 20, 'k')}};
  std::vector<std::string> args;
  if (std::ranges::find(input.args, "--cache-dir") == input.args.end())
    args = {"--cache-dir", cache().string()};
  if (*input.config != '\0') {
    write_text(tmp / "culprit.toml", expand(input.config, values));
    args.insert(args.end(), {"--config", (tmp / "culprit.toml").string()});
  }
  if (*input.script != '\0')
    write_text(tmp / "bench.sh", input.script);
  if (*input.evidence != '\0')
    write_text(tmp / "evidence.json", input.evidence);
  for (const auto& arg : input.args)
    args.push_back(expand(arg, values));
  const auto repo_before = snapshot(s_project->dir());
  const auto cache_before = snapshot_or_empty(cache());
  const auto health_before = inspect_store(cache());

  std::map<std::string, std::string> env;
  if (*input.slurm != '\0')
    env["PATH"] = fake_cluster(tmp.path(), input.slurm).string();
  const auto result =
      run_culprit(args, s_project->dir(), env, input.stdout_full ? full : std::filesystem::path());

  EXPECT_EQ(result.exit_code, input.exit_code) << result.out << result.err;
  const auto line = one_error_line(result);
  EXPECT_THAT(line, HasSubstr(expand(input.message, values)));
  EXPECT_LE(line.size(), input.max_line);
  // A refused command says nothing else: no line of stderr but culprit's own (a newline in a
  // value it quotes is escaped).
  if (input.exit_code == 2) {
    for (const auto& text : lines_starting(result.err, ""))
      EXPECT_TRUE(text.starts_with("culprit: ")) << "a line of its own on stderr: " << text;
  }
  const auto repo_after = snapshot(s_project->dir());
  EXPECT_TRUE(repo_before == repo_after) << changed_paths(repo_before, repo_after);
  EXPECT_FALSE(std::filesystem::exists(s_project->dir() / "pwned"));
  const auto health = inspect_store(cache());
  EXPECT_EQ(health.integrity, "ok");
  EXPECT_EQ(health.ok_runs_without_samples, 0);
  if (input.leaves == Leaves::nothing) {
    const auto cache_after = snapshot_or_empty(cache());
    EXPECT_TRUE(cache_before == cache_after) << changed_paths(cache_before, cache_after);
  } else if (input.leaves == Leaves::failed_runs) {
    EXPECT_EQ(health.ok_runs, health_before.ok_runs) << "a failed run counted";
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, BadInputTable, ::testing::ValuesIn(k_table),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

} // namespace
} // namespace culprit::testing
