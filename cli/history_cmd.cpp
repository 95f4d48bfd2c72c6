// culprit history: per-case series with CIs and change points, as text, JSON, CSV, Markdown or
// HTML.

#include <array>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "cli/command.hpp"
#include "cli/context.hpp"
#include "cli/flag_checks.hpp"
#include "cli/output.hpp"
#include "cli/report_outputs.hpp"
#include "core/evidence/roofline_fill.hpp"
#include "core/history/git_support.hpp"
#include "core/history/series.hpp"
#include "core/host/fingerprint.hpp"
#include "core/report/history.hpp"
#include "core/roofline/peaks.hpp"
#include "core/util/fs.hpp"

namespace culprit::cli {
namespace {

bool utf8_terminal() {
  for (const char* name : {"LC_ALL", "LC_CTYPE", "LANG"}) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0')
      continue;
    std::string text(value);
    for (auto& c : text)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text.find("utf-8") != std::string::npos || text.find("utf8") != std::string::npos;
  }
  return false;
}

class HistoryCommand final : public Command {
public:
  void add_flags(CLI::App& sub) override {
    sub.add_option("range", m_range, "only commits of OLD..NEW (default: every tracked commit)");
    sub.add_option("--case", m_cases, "cases to show (globs; default: the recipe's, or all)");
    sub.add_option("--metric", m_metric,
                   "the metric (default: the recipe's, the instrument's count, else each case's "
                   "primary one)");
    sub.add_option_function<std::string>(
           "--instrument",
           [this](const std::string& text) { m_instrument = recipe::parse_instrument(text); },
           "what the series was tracked with: time, or a counting instrument whose count it then "
           "shows (default: the recipe's)")
        ->check(CLI::IsMember(recipe::instrument_names()));
    sub.add_option("--host", m_host, "only the points of this host id (or a prefix of it)");
    sub.add_flag("--all-hosts", m_all_hosts, "show the points of several hosts in one series");
    sub.add_option("--threshold", m_threshold, "the smallest change that matters (2% or 0.02)");
    sub.add_option("--confidence", m_confidence, "of the intervals (default: the recipe's)")
        ->check(number_between(0.5, 1, "0.95"));
    sub.add_option("--seed", m_seed, "of the bootstrap and the permutation test")
        ->check(whole_number(0, recipe::k_max_seed));
    sub.add_flag("--ascii", m_ascii, "draw the trend lines in ASCII");
    sub.add_flag("--roofline", m_roofline,
                 "show each point's share of its roofline bound (percent) instead of its time");
    sub.add_option("--json", m_json,
                   "write the series and change points as JSON to FILE ('-': stdout)")
        ->option_text("FILE")
        ->group("Output");
    sub.add_option("--csv", m_csv, "write the series as CSV to FILE ('-': stdout)")
        ->option_text("FILE")
        ->group("Output");
    sub.add_option("--markdown", m_markdown,
                   "write Markdown to FILE, charts beside it as SVG ('-': stdout, no charts)")
        ->option_text("FILE")
        ->group("Output");
    sub.add_option("--html", m_html, "write a self-contained HTML page to FILE ('-': stdout)")
        ->option_text("FILE")
        ->group("Output");
  }

  int run(const GlobalOptions& global) override {
    const std::array<NamedOutput, 4> outputs = {
        NamedOutput{"--json", m_json}, NamedOutput{"--csv", m_csv},
        NamedOutput{"--markdown", m_markdown}, NamedOutput{"--html", m_html}};
    if (auto writable = check_outputs(outputs); !writable)
      return print_failure(writable.error());
    auto repo = open_repository(global);
    if (!repo)
      return print_failure(repo.error());
    auto options = history_options(global, *repo);
    if (!options)
      return print_failure(options.error());
    auto cache = store_location(global, *repo);
    if (!cache)
      return print_failure(cache.error());
    auto history = load(*repo, *cache, *options);
    if (!history)
      return print_failure(history.error());
    const auto labels = report::commit_labels(*repo, *history);
    std::vector<history::Regression> regressions;
    if (!m_html.empty()) {
      auto ledger = history::Ledger::open_at(*cache);
      if (!ledger)
        return print_failure(ledger.error());
      auto held = ledger->regressions();
      if (!held)
        return print_failure(held.error());
      regressions = std::move(*held);
    }
    history::RepositoryGraph graph(*repo);
    const auto places = history::place_regressions(*history, regressions, graph);
    if (auto written = write_outputs(*history, labels, regressions, places); !written)
      return print_failure(written.error());
    // The text for people: on standard error when an output goes to standard output, so that
    // `--json - | jq` reads JSON alone.
    const bool any_output = m_json.size() + m_csv.size() + m_markdown.size() + m_html.size() > 0;
    if (global.verbosity != Verbosity::quiet || !any_output) {
      const auto text = report::render_text(*history, labels,
                                            m_ascii || !utf8_terminal() ? report::Glyphs::ascii
                                                                        : report::Glyphs::unicode);
      if (any_to_stdout(outputs))
        write_stderr(text);
      else if (auto shown = write_stdout(text); !shown)
        return print_failure(shown.error());
    }
    return 0;
  }

private:
  static std::string this_host_id() {
    static const std::string id = host::host_id(host::probe_host());
    return id;
  }

  Result<history::HistoryOptions> history_options(const GlobalOptions& global,
                                                  const git::Repository& repo) const {
    history::HistoryOptions options;
    recipe::DecideOptions decide;
    recipe::RunRecipe run;
    const auto path = recipe_path(global, repo);
    std::error_code ec;
    if (!global.config.empty() || std::filesystem::exists(path, ec)) {
      CULPRIT_TRY_ASSIGN(const auto recipe, culprit::recipe::load_recipe(path));
      options.case_globs = recipe.run.cases;
      run = recipe.run;
      decide = recipe.decide;
      m_roofline_recipe = recipe.roofline;
      m_cpus = recipe.run.cpus;
    }
    if (!m_cases.empty())
      options.case_globs = m_cases;
    // The deciding flags and the metric go the recipe's way: the same parsing, the same bounds,
    // and the instrument's count by default, as compare decides on it.
    recipe::RecipeOverrides flags;
    if (!m_metric.empty()) {
      flags.metric = m_metric;
      run.metric = m_metric;
    }
    flags.instrument = m_instrument;
    if (m_instrument)
      run.instrument = *m_instrument;
    options.metric = recipe::instrument_metric(run, flags);
    if (!m_threshold.empty())
      flags.threshold = m_threshold;
    flags.confidence = m_confidence;
    flags.seed = m_seed;
    CULPRIT_TRY_ASSIGN(decide, recipe::apply_decide_overrides(std::move(decide), flags));
    options.decide_by(decide);
    options.all_hosts = m_all_hosts;
    return options;
  }

  Result<history::History> load(const git::Repository& repo, const store::Location& cache,
                                history::HistoryOptions options) const {
    CULPRIT_TRY_ASSIGN(auto ledger, history::Ledger::open_at(cache));
    CULPRIT_TRY_ASSIGN(auto tracked, ledger.tracked());
    if (tracked.empty())
      return usage_error("nothing is tracked yet; run 'culprit track OLD..NEW' or 'culprit import "
                         "FILE --commit REV' first");
    if (!m_range.empty()) {
      CULPRIT_TRY_ASSIGN(const auto commits, history::range_commits(repo, m_range));
      std::set<std::string> wanted;
      for (const auto& c : commits)
        wanted.insert(c.id);
      std::erase_if(tracked, [&](const auto& p) { return !wanted.contains(p.commit); });
      if (tracked.empty())
        return usage_error("no commit of {} is tracked; run 'culprit track {}' first", m_range,
                           m_range);
    }
    if (!m_host.empty()) {
      std::set<std::string> hosts;
      for (const auto& p : tracked)
        if (p.host_id.starts_with(m_host))
          hosts.insert(p.host_id);
      if (hosts.size() != 1)
        return usage_error("--host {} names {} of the tracked hosts; give more of a host id",
                           m_host, hosts.empty() ? "none" : "several");
      options.host = *hosts.begin();
    }
    CULPRIT_TRY_ASSIGN(const auto points, history::choose_points(tracked, options));
    CULPRIT_TRY_ASSIGN(auto store, store::Store::open_at(cache));
    // One peak resolver per host: this machine's CPU may be measured, another's only read.
    std::map<std::string, std::unique_ptr<roofline::PeakResolver>> resolvers;
    if (m_roofline)
      options.roofline = [&](const history::TrackedPoint& point, const std::string& case_name,
                             const std::string& metric) -> Result<history::RooflineBound> {
        auto& resolver = resolvers[point.host_id];
        if (!resolver)
          resolver = std::make_unique<roofline::PeakResolver>(
              store, roofline::PeakSetup{.recipe = m_roofline_recipe,
                                         .host_id = point.host_id,
                                         .cpus = m_cpus,
                                         .gpu_names = {},
                                         .this_host = point.host_id == this_host_id()});
        const store::MeasurementKey key{point.artifact_id, point.recipe_hash, point.host_id};
        CULPRIT_TRY_ASSIGN(const auto info, store.case_work(key, case_name));
        const auto work = evidence::work_of(case_name, info, m_roofline_recipe);
        if (!work.reason.empty())
          return history::RooflineBound{.seconds = {}, .reason = work.reason};
        CULPRIT_TRY_ASSIGN(const auto device, store.device(key));
        CULPRIT_TRY_ASSIGN(const auto answer, resolver->peaks_for(device, metric));
        if (!answer.peaks)
          return history::RooflineBound{.seconds = {}, .reason = answer.reason};
        auto bound =
            roofline::roofline_point(*work.flops, *work.bytes, 1.0, *answer.peaks, answer.unit);
        if (!bound)
          return history::RooflineBound{.seconds = {}, .reason = bound.error().message};
        return history::RooflineBound{.seconds = bound->bound_seconds, .reason = {}};
      };
    return history::load_history(store, points, options);
  }

  Status write_outputs(const history::History& history, const report::CommitLabels& labels,
                       const std::vector<history::Regression>& regressions,
                       const std::vector<history::RegressionPlace>& places) const {
    if (!m_json.empty())
      CULPRIT_TRY(write_output(m_json, report::json_pieces(history)));
    if (!m_csv.empty())
      CULPRIT_TRY(write_output(m_csv, report::render_csv(history)));
    if (!m_html.empty())
      CULPRIT_TRY(write_output(m_html, report::render_html(history, labels, regressions, places)));
    if (!m_markdown.empty()) {
      // On standard output there is nowhere beside it for the charts: the page goes without them.
      const bool to_stdout = m_markdown == "-";
      const std::filesystem::path file(m_markdown);
      const auto markdown =
          report::render_markdown(history, labels, to_stdout ? "" : file.stem().string());
      for (const auto& [name, svg] : markdown.charts)
        CULPRIT_TRY(write_file_atomic(file.parent_path() / name, svg));
      CULPRIT_TRY(write_output(m_markdown, markdown.markdown));
    }
    return {};
  }

  std::string m_range;
  std::vector<std::string> m_cases;
  std::string m_metric;
  std::optional<recipe::Instrument> m_instrument;
  std::string m_host;
  bool m_all_hosts = false;
  std::string m_threshold;
  std::optional<double> m_confidence;
  std::optional<std::uint64_t> m_seed;
  bool m_ascii = false;
  bool m_roofline = false;
  // Read from the recipe (history_options, const): how the roofline reads the cases.
  mutable recipe::RooflineRecipe m_roofline_recipe;
  mutable std::vector<int> m_cpus;
  std::string m_json;
  std::string m_csv;
  std::string m_markdown;
  std::string m_html;
};

} // namespace

std::unique_ptr<Command> make_history_command() {
  return std::make_unique<HistoryCommand>();
}

} // namespace culprit::cli
