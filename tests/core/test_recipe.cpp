#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/recipe/recipe.hpp"

namespace culprit {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr std::string_view k_example = R"(
[build]
command = "cmake -S {src} -B {build} -G Ninja && cmake --build {build}"
artifacts = ["bench"]
env = { CC = "gcc" }

[run]
command = "{build}/bench --benchmark_format=json"
format = "gbench"
metric = "real_time"
cases = ["BM_Sgemm/*"]
timeout = 60

[decide]
threshold = 0.02
confidence = 0.95
min_runs = 5
max_runs = 40
)";

TEST(Recipe, ParsesTheDesignExample) {
  auto recipe = recipe::parse_recipe(k_example, "culprit.toml");
  ASSERT_TRUE(recipe) << recipe.error().message;
  EXPECT_THAT(recipe->build.command, HasSubstr("cmake --build {build}"));
  EXPECT_THAT(recipe->build.artifacts, ElementsAre("bench"));
  EXPECT_EQ(recipe->build.env.at("CC"), "gcc");
  EXPECT_EQ(std::get<std::string>(recipe->run.command), "{build}/bench --benchmark_format=json");
  EXPECT_EQ(recipe->run.format, "gbench");
  EXPECT_EQ(recipe->run.metric, "real_time");
  EXPECT_THAT(recipe->run.cases, ElementsAre("BM_Sgemm/*"));
  EXPECT_DOUBLE_EQ(recipe->run.timeout.count(), 60);
  EXPECT_DOUBLE_EQ(recipe->decide.threshold, 0.02);
  EXPECT_EQ(recipe->decide.max_runs, 40);
  EXPECT_TRUE(recipe::apply_overrides(*recipe, {}));
}

TEST(Recipe, RunCommandMayBeAnArgumentVector) {
  auto recipe =
      recipe::parse_recipe("[run]\ncommand = [\"{build}/bench\", \"--fast\"]\n", "x.toml");
  ASSERT_TRUE(recipe) << recipe.error().message;
  EXPECT_THAT(std::get<std::vector<std::string>>(recipe->run.command),
              ElementsAre("{build}/bench", "--fast"));
}

TEST(Recipe, UnknownKeysNameTheKeyItsLineAndTheKnownKeys) {
  auto recipe =
      recipe::parse_recipe("[build]\ncommand = \"make\"\n\ncomand = \"oops\"\n", "culprit.toml");
  ASSERT_FALSE(recipe);
  EXPECT_EQ(recipe.error().code, ExitCode::usage);
  EXPECT_THAT(recipe.error().message, HasSubstr("culprit.toml:4: unknown key 'comand' in [build]"));
  EXPECT_THAT(recipe.error().message, HasSubstr("known keys: command, artifacts"));
  auto section = recipe::parse_recipe("[bulid]\ncommand = \"make\"\n", "culprit.toml");
  ASSERT_FALSE(section);
  EXPECT_THAT(section.error().message, HasSubstr("culprit.toml:1: unknown section or key 'bulid'"));
}

// The executor's kind and build_on are one of two words, named with the line that got them wrong.
TEST(Recipe, AnUnknownExecutorIsRefusedAtItsLine) {
  auto kind = recipe::parse_recipe("[executor]\nkind = \"kubernetes\"\n", "culprit.toml");
  ASSERT_FALSE(kind);
  EXPECT_EQ(kind.error().code, ExitCode::usage);
  EXPECT_THAT(
      kind.error().message,
      HasSubstr(R"(culprit.toml:2: [executor] kind must be "local" (the default) or "slurm")"));
  auto build_on =
      recipe::parse_recipe("[executor]\nkind = \"slurm\"\nbuild_on = \"cloud\"\n", "x.toml");
  ASSERT_FALSE(build_on);
  EXPECT_THAT(build_on.error().message, HasSubstr("x.toml:3: [executor] build_on must be"));
  auto slurm =
      recipe::parse_recipe("[executor]\nkind = \"slurm\"\nbuild_on = \"slurm\"\n", "x.toml");
  ASSERT_TRUE(slurm) << slurm.error().message;
  EXPECT_EQ(slurm->executor.kind, recipe::ExecutorKind::slurm);
  EXPECT_EQ(slurm->executor.build_on, recipe::ExecutorKind::slurm);
  EXPECT_EQ(to_string(recipe::ExecutorKind::local), "local");
}

// A key read twice (the executor's srun_args and sbatch_args: a string or a list) is listed once.
TEST(Recipe, TheKnownKeysOfARefusalAreEachNamedOnce) {
  auto recipe = recipe::parse_recipe("[executor]\nsrun_arg = \"-p gpu\"\n", "culprit.toml");
  ASSERT_FALSE(recipe);
  EXPECT_THAT(recipe.error().message, HasSubstr("known keys: kind, srun_args, sbatch_args, "));
}

TEST(Recipe, WrongTypesNameTheKeyAndLine) {
  auto recipe = recipe::parse_recipe("[decide]\n\nmin_runs = \"five\"\n", "c.toml");
  ASSERT_FALSE(recipe);
  EXPECT_THAT(recipe.error().message,
              HasSubstr("c.toml:3: [decide] min_runs must be a whole number"));
  auto artifacts = recipe::parse_recipe("[build]\nartifacts = \"bench\"\n", "c.toml");
  ASSERT_FALSE(artifacts);
  EXPECT_THAT(artifacts.error().message, HasSubstr("c.toml:2: [build] artifacts must be an array"));
}

TEST(Recipe, SyntaxErrorsNameLineAndColumn) {
  auto recipe = recipe::parse_recipe("[build]\ncommand = \"unterminated\n", "c.toml");
  ASSERT_FALSE(recipe);
  EXPECT_EQ(recipe.error().code, ExitCode::usage);
  EXPECT_THAT(recipe.error().message, HasSubstr("c.toml:2:"));
}

TEST(Recipe, ErrorsStayOneLineWhateverTheFileHolds) {
  // toml++ quotes what it saw, here a newline; a quoted key and a glob may hold one too.
  for (const char* text : {"[build]\ncommand = \"make\"\nshell = fals\n",
                           "[build]\ncommand = \"make\"\n\"a\\nb\" = 1\n"}) {
    auto recipe = recipe::parse_recipe(text, "culprit.toml");
    ASSERT_FALSE(recipe) << text;
    EXPECT_EQ(recipe.error().message.find('\n'), std::string::npos) << recipe.error().message;
  }
  auto recipe = recipe::parse_recipe("[build]\ncommand = \"make\"\n[run]\ncommand = \"./bench\"\n",
                                     "culprit.toml");
  ASSERT_TRUE(recipe) << recipe.error().message;
  recipe::RecipeOverrides overrides;
  overrides.artifacts = std::vector<std::string>{"../a\nb"};
  auto checked = recipe::apply_overrides(*recipe, overrides);
  ASSERT_FALSE(checked);
  EXPECT_THAT(checked.error().message, HasSubstr("a\\x0ab"));
}

TEST(Recipe, ThresholdTakesPercentOrFraction) {
  EXPECT_DOUBLE_EQ(recipe::parse_threshold("2%").value(), 0.02);
  EXPECT_DOUBLE_EQ(recipe::parse_threshold("0.02").value(), 0.02);
  EXPECT_DOUBLE_EQ(recipe::parse_threshold("0.5%").value(), 0.005);
  EXPECT_FALSE(recipe::parse_threshold("2"));
  EXPECT_FALSE(recipe::parse_threshold("abc"));
  EXPECT_FALSE(recipe::parse_threshold("-1%"));
  EXPECT_FALSE(recipe::parse_threshold(""));
  EXPECT_FALSE(recipe::parse_threshold("nan"));
  auto from_file = recipe::parse_recipe("[decide]\nthreshold = \"5%\"\n", "c.toml");
  EXPECT_DOUBLE_EQ(from_file->decide.threshold, 0.05);
  auto bad = recipe::parse_recipe("[decide]\nthreshold = 5\n", "c.toml");
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message, HasSubstr("c.toml:2:"));
}

// --instrument on the command line over a recipe that decides on a time: the counts decide, since
// an instrumented run's times are the instrument's; a metric named with the flag, or a count the
// recipe names, still wins.
TEST(Recipe, ACountingInstrumentNamedOnTheCommandLineOutranksTheRecipesTime) {
  const auto metric_of = [](const std::string& metric, const recipe::RecipeOverrides& flags) {
    const auto recipe = recipe::parse_recipe("[build]\ncommand = \"make\"\n[run]\ncommand = "
                                             "\"./bench\"\nmetric = \"" +
                                                 metric + "\"\n",
                                             "c.toml");
    EXPECT_TRUE(recipe) << recipe.error().message;
    const auto merged = apply_overrides(*recipe, flags);
    return merged ? merged->run.metric : "error: " + merged.error().message;
  };
  recipe::RecipeOverrides ncu;
  ncu.instrument = recipe::Instrument::ncu;
  EXPECT_EQ(metric_of("gpu_time", ncu), "gpu_instructions");
  recipe::RecipeOverrides valgrind;
  valgrind.instrument = recipe::Instrument::valgrind;
  EXPECT_EQ(metric_of("time", valgrind), "instructions");
  recipe::RecipeOverrides named = ncu;
  named.metric = "gpu_time";
  EXPECT_EQ(metric_of("gpu_time", named), "gpu_time");
  EXPECT_EQ(metric_of("gpu_time", {}), "gpu_time");
  EXPECT_EQ(metric_of("dram_bytes_read", ncu), "dram_bytes_read");
}

TEST(Recipe, FlagsOverrideTheFileAndTheResultIsChecked) {
  auto recipe = recipe::parse_recipe(k_example, "culprit.toml").value();
  recipe::RecipeOverrides flags;
  flags.run_command = "./other";
  flags.threshold = "5%";
  flags.max_runs = 10;
  auto merged = recipe::apply_overrides(recipe, flags);
  ASSERT_TRUE(merged) << merged.error().message;
  EXPECT_EQ(std::get<std::string>(merged->run.command), "./other");
  EXPECT_DOUBLE_EQ(merged->decide.threshold, 0.05);
  EXPECT_EQ(merged->decide.max_runs, 10);

  recipe::RecipeOverrides inverted;
  inverted.min_runs = 10;
  inverted.max_runs = 5;
  auto bad = apply_overrides(recipe, inverted);
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message, HasSubstr("max_runs (5) is below min_runs (10)"));

  recipe::RecipeOverrides empty_build;
  empty_build.build_command = "  ";
  auto no_build = apply_overrides(recipe, empty_build);
  ASSERT_FALSE(no_build);
  EXPECT_THAT(no_build.error().message, HasSubstr("--build CMD"));

  recipe::RecipeOverrides format;
  format.format = "xml";
  EXPECT_THAT(apply_overrides(recipe, format).error().message, HasSubstr("unknown format 'xml'"));
}

TEST(Recipe, TheBisectionsLevelsAreDecideSettingsWithBounds) {
  auto defaults = recipe::parse_recipe(k_example, "culprit.toml").value();
  EXPECT_DOUBLE_EQ(defaults.decide.classify_confidence, 0.99);
  EXPECT_DOUBLE_EQ(defaults.decide.explained_share, 0.75);

  auto set = recipe::parse_recipe(std::string(k_example) + "classify_confidence = 0.995\n"
                                                           "explained_share = 0.9\n",
                                  "culprit.toml");
  ASSERT_TRUE(set) << set.error().message;
  auto checked = recipe::apply_overrides(*set, {});
  ASSERT_TRUE(checked) << checked.error().message;
  EXPECT_DOUBLE_EQ(checked->decide.classify_confidence, 0.995);
  EXPECT_DOUBLE_EQ(checked->decide.explained_share, 0.9);

  for (const auto& [line, message] :
       {std::pair{"classify_confidence = 0.4",
                  "classify_confidence 0.4 must lie between 0.5 and 1"},
        std::pair{"classify_confidence = 1.0", "classify_confidence 1 must lie between 0.5 and 1"},
        std::pair{"explained_share = 0.0", "explained_share 0 must lie in (0, 1]"},
        std::pair{"explained_share = 1.5", "explained_share 1.5 must lie in (0, 1]"}}) {
    auto recipe = recipe::parse_recipe(std::string(k_example) + line + "\n", "culprit.toml");
    ASSERT_TRUE(recipe) << line;
    auto bad = recipe::apply_overrides(*recipe, {});
    ASSERT_FALSE(bad) << line;
    EXPECT_EQ(bad.error().code, ExitCode::usage);
    EXPECT_THAT(bad.error().message, HasSubstr(message));
  }
}

TEST(Recipe, DecideOverridesAloneTakeTheSameFlagsAndBounds) {
  auto nan =
      recipe::parse_recipe(std::string(k_example) + "explained_share = nan\n", "culprit.toml");
  ASSERT_FALSE(nan);
  EXPECT_THAT(nan.error().message, HasSubstr("explained_share must be a finite number"));

  recipe::RecipeOverrides flags;
  flags.threshold = "5%";
  flags.confidence = 0.9;
  flags.seed = 7;
  auto decide = recipe::apply_decide_overrides(recipe::DecideOptions{}, flags);
  ASSERT_TRUE(decide) << decide.error().message;
  EXPECT_DOUBLE_EQ(decide->threshold, 0.05);
  EXPECT_DOUBLE_EQ(decide->confidence, 0.9);
  EXPECT_EQ(decide->seed, 7U);
  EXPECT_DOUBLE_EQ(decide->classify_confidence, recipe::DecideOptions{}.classify_confidence);

  // The recipe's bounds, not looser ones: a 30% interval is refused here as for compare.
  recipe::RecipeOverrides low;
  low.confidence = 0.3;
  auto refused = recipe::apply_decide_overrides(recipe::DecideOptions{}, low);
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().message, HasSubstr("confidence 0.3 must lie between 0.5 and 1"));
  recipe::RecipeOverrides typo;
  typo.threshold = "two";
  EXPECT_FALSE(recipe::apply_decide_overrides(recipe::DecideOptions{}, typo));
}

TEST(Recipe, HashesChangeWithWhatChangesTheProduct) {
  auto recipe = recipe::parse_recipe(k_example, "culprit.toml").value();
  auto other = recipe;
  other.build.timeout = std::chrono::seconds(5);
  other.decide.max_runs = 3;
  EXPECT_EQ(recipe::build_recipe_hash(recipe.build), build_recipe_hash(other.build));
  EXPECT_EQ(recipe::run_recipe_hash(recipe.run), run_recipe_hash(other.run));
  other.build.command += " -j2";
  other.run.env["X"] = "1";
  EXPECT_NE(recipe::build_recipe_hash(recipe.build), build_recipe_hash(other.build));
  EXPECT_NE(recipe::run_recipe_hash(recipe.run), run_recipe_hash(other.run));
}

} // namespace
} // namespace culprit

namespace culprit {
namespace {

TEST(RecipeRoofline, ParsesThePeaksTheComputeUnitAndTheWorkOfCases) {
  const std::string text = std::string(k_example) + R"toml(
[roofline]
peak_gflops = 19500
peak_gbps = 2039.0
device = "A100 SXM4 80GB"
compute = "vector"
threads = 1

[roofline.cases]
"sgemm/*" = { flops = "2*M*N*K", bytes = "4*(M*K+K*N+M*N)" }
"copy/*" = { bytes = 4096 }
)toml";
  auto recipe = recipe::parse_recipe(text, "culprit.toml");
  ASSERT_TRUE(recipe) << recipe.error().message;
  const auto& r = recipe->roofline;
  EXPECT_EQ(r.peak_gflops, 19500.0);
  EXPECT_EQ(r.peak_gbps, 2039.0);
  EXPECT_FALSE(r.peak_tensor_gflops);
  EXPECT_EQ(r.device, "A100 SXM4 80GB");
  EXPECT_EQ(r.threads, 1);
  ASSERT_EQ(r.cases.size(), 2U);
  EXPECT_EQ(r.cases[0].glob, "copy/*") << "toml++ keeps keys sorted";
  EXPECT_EQ(r.cases[0].bytes, "4096");
  EXPECT_EQ(r.cases[1].flops, "2*M*N*K");
  // The roofline changes what is said of runs, never a run.
  EXPECT_EQ(recipe::run_recipe_hash(recipe->run),
            recipe::run_recipe_hash(recipe::parse_recipe(k_example, "").value().run));
}

TEST(RecipeRoofline, BadPeaksAndExpressionsAreOneLineUsageErrors) {
  const auto fails = [](const std::string& table, std::string_view says) {
    const auto recipe = recipe::parse_recipe(std::string(k_example) + "\n" + table, "culprit.toml");
    Result<recipe::Recipe> checked = recipe ? recipe::apply_overrides(*recipe, {}) : recipe;
    ASSERT_FALSE(checked) << table;
    EXPECT_EQ(checked.error().code, ExitCode::usage) << table;
    EXPECT_THAT(checked.error().message, HasSubstr(says)) << table;
    EXPECT_EQ(checked.error().message.find('\n'), std::string::npos) << table;
  };
  fails("[roofline]\npeak_gflops = 0", "peak_gflops (--peak-gflops) is 0");
  fails("[roofline]\npeak_gflops = -5", "more than 0 and at most 1e+07");
  fails("[roofline]\npeak_gflops = nan", "must be a finite number");
  fails("[roofline]\npeak_gflops = 2e7", "more than any device reaches");
  fails("[roofline]\npeak_gbps = 200000", "peak_gbps (--peak-gbps) is 200000");
  fails("[roofline]\npeak_gbps = \"fast\"", "[roofline] peak_gbps must be a number");
  fails("[roofline]\ncompute = \"matrix\"", R"(must be "vector" or "tensor")");
  fails("[roofline]\nthreads = 0", "[roofline] threads must be a whole number from 1");
  fails("[roofline]\npeek_gflops = 1", "unknown key 'peek_gflops' in [roofline]");
  fails("[roofline.cases]\n\"a/*\" = { flops = \"2*M*\" }", "culprit.toml:");
  fails("[roofline.cases]\n\"a/*\" = { flops = \"2*M*\" }", "'a/*' flops: the work expression");
  fails("[roofline.cases]\n\"a/*\" = { flops = \"2*M*\" }", "does not parse at character");
  fails("[roofline.cases]\n\"a/*\" = { flopz = \"2\" }", "unknown key 'flopz'");
  fails("[roofline.cases]\n\"a/*\" = { }", "gives neither flops nor bytes");
  fails("[roofline.cases]\n\"a/*\" = \"2*M\"", "must be a table like");
  fails("[roofline.cases]\n\"a/*\" = { flops = true }", "must be an expression in quotes");
  fails("[roofline]\ncases = 3", "[roofline] cases must be a table");

  recipe::RecipeOverrides flags;
  flags.peak_gflops = -1;
  const auto flagged = recipe::apply_overrides(recipe::parse_recipe(k_example, "").value(), flags);
  ASSERT_FALSE(flagged);
  EXPECT_THAT(flagged.error().message, HasSubstr("(--peak-gflops) is -1"));
}

} // namespace
} // namespace culprit
