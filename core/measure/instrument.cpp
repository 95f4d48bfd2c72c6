#include "core/measure/instrument.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <sys/statvfs.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/host/capture.hpp"
#include "core/parsers/ncu_csv.hpp"
#include "core/parsers/perf_stat.hpp"
#include "core/parsers/valgrind_counts.hpp"
#include "core/util/escape.hpp"
#include "core/util/format.hpp"
#include "core/util/fs.hpp"

namespace culprit::measure {
namespace {

constexpr std::string_view k_out_flag = "--callgrind-out-file=";
constexpr std::string_view k_profile_prefix = "callgrind.out.";
// Google Benchmark's timed loop: State::StartKeepRunning() starts it, FinishKeepRunning() ends it.
constexpr std::string_view k_loop_start = "benchmark::State::StartKeepRunning*";
constexpr std::string_view k_loop_finish = "benchmark::State::FinishKeepRunning*";
constexpr std::string_view k_loop_trigger = "--dump-before=benchmark::State::FinishKeepRunning";

// Callgrind with the caches and branch predictor simulated, following every process the run
// starts, each writing a profile of its own (%p: its pid) and its messages to a log beside it.
std::vector<std::string> valgrind_argv(const std::filesystem::path& valgrind,
                                       const std::filesystem::path& dir) {
  return {valgrind.string(),
          "--tool=callgrind",
          "--cache-sim=yes",
          "--branch-sim=yes",
          "--trace-children=yes",
          "--dump-after=" + std::string(k_loop_start),
          "--dump-before=" + std::string(k_loop_finish),
          std::string(k_out_flag) + (dir / "callgrind.out.%p").string(),
          "--log-file=" + (dir / "valgrind.log.%p").string()};
}

// perf stat, CSV to a file of the run's own, every process the run starts counted with it.
std::vector<std::string> perf_argv(const std::filesystem::path& perf,
                                   const std::filesystem::path& file) {
  return {perf.string(), "stat",        "-x", ",",
          "-o",          file.string(), "-e", std::string(parsers::perf_events()),
          "--"};
}

// ncu, its CSV to a file of the run's own, every process the run starts profiled.
std::vector<std::string> ncu_argv(const std::filesystem::path& ncu,
                                  const std::filesystem::path& file) {
  return {ncu.string(),         "--csv",      "--print-units", "base",
          "--target-processes", "all",        "--metrics",     std::string(parsers::ncu_metrics()),
          "--log-file",         file.string()};
}

// The program a string command runs, as its words, when it is one simple command of a program
// found where the shell would find it: the instrument starts it itself, without a shell under it
// to simulate or count (under Valgrind, the shell's own start costs about as much as the
// program's). None: the command is run by /bin/sh -c.
std::optional<std::vector<std::string>> program_words(const exec::ExecRequest& request,
                                                      const std::string& command) {
  auto words = simple_command_words(command);
  if (!words || request.env.contains("PATH")) // the shell would search the run's own PATH
    return std::nullopt;
  const auto& program = words->front();
  std::filesystem::path file = program;
  if (program.find('/') == std::string::npos) {
    const auto found = host::find_on_path(program);
    if (!found)
      return std::nullopt; // a shell function or built-in, or nothing: the shell says which
    file = *found;
  } else if (file.is_relative()) {
    file = request.cwd / file;
  }
  // A file the kernel runs itself: a binary, or a script that names its interpreter. The shell
  // runs a text file without a #! line as a script of its own, which nothing else does.
  std::ifstream in(file, std::ios::binary);
  std::array<char, 4> magic{};
  in.read(magic.data(), magic.size());
  const std::string_view start(magic.data(), static_cast<std::size_t>(in.gcount()));
  if (!start.starts_with("\x7f"
                         "ELF") &&
      !start.starts_with("#!"))
    return std::nullopt;
  return words;
}

// `request`'s command after `wrapper` (a string command through /bin/sh -c unless it is one
// simple command of a program).
void wrap(exec::ExecRequest& request, std::vector<std::string> wrapper) {
  if (const auto* shell = std::get_if<std::string>(&request.command)) {
    if (auto words = program_words(request, *shell))
      wrapper.insert(wrapper.end(), words->begin(), words->end());
    else
      wrapper.insert(wrapper.end(), {"/bin/sh", "-c", *shell});
  } else {
    const auto& command = std::get<std::vector<std::string>>(request.command);
    wrapper.insert(wrapper.end(), command.begin(), command.end());
  }
  request.command = std::move(wrapper);
}

} // namespace

bool is_count_metric(std::string_view metric) {
  return parsers::is_valgrind_metric(metric) || parsers::is_perf_metric(metric) ||
         parsers::is_ncu_metric(metric);
}

Result<std::filesystem::path> find_perf() {
  const auto perf = host::find_on_path("perf");
  if (!perf)
    return usage_error("--instrument perf needs Linux perf, which is not on PATH: install it "
                       "(apt-get install linux-perf), or count on a simulated CPU "
                       "(--instrument valgrind)");
  // One count of a program that does nothing says whether the counters are there at all.
  host::CaptureOptions options;
  options.timeout = std::chrono::seconds(10);
  CULPRIT_TRY_ASSIGN(const auto probe,
                     host::capture_program({perf->string(), "stat", "-x", ",", "-e",
                                            std::string(parsers::perf_events()), "--", "true"},
                                           options));
  if (!probe.succeeded()) {
    auto last = probe.err.substr(0, probe.err.find('\n'));
    return usage_error("perf stat cannot count here ({}): allow it (sysctl "
                       "kernel.perf_event_paranoid=1) or count on a simulated CPU "
                       "(--instrument valgrind)",
                       last.empty() ? "it failed" : last.substr(0, 120));
  }
  if (auto parsed = parsers::parse_perf_stat(probe.err); !parsed)
    return std::unexpected(Error{ExitCode::usage, parsed.error().message});
  return *perf;
}

exec::ExecRequest under_perf(exec::ExecRequest request, const std::filesystem::path& perf,
                             const std::filesystem::path& file) {
  wrap(request, perf_argv(perf, file));
  return request;
}

std::optional<std::filesystem::path> perf_counts_file(const exec::ExecRequest& request) {
  const auto* argv = std::get_if<std::vector<std::string>>(&request.command);
  const auto size = perf_argv({}, {}).size();
  if (argv == nullptr || argv->size() <= size || (*argv)[1] != "stat" || (*argv)[4] != "-o" ||
      (*argv)[size - 1] != "--")
    return std::nullopt;
  return std::filesystem::path((*argv)[5]);
}

Result<std::filesystem::path> find_ncu(bool gpu) {
  const auto ncu = host::find_on_path("ncu");
  if (!ncu)
    return usage_error("--instrument ncu needs Nsight Compute's ncu, which is not on PATH: "
                       "install the CUDA toolkit's Nsight Compute (or add its directory to "
                       "PATH), or measure time (--instrument time)");
  if (!gpu)
    return usage_error("--instrument ncu profiles CUDA kernels, and nvidia-smi sees no GPU on "
                       "this machine: run on a GPU node, or use --instrument time");
  return *ncu;
}

exec::ExecRequest under_ncu(exec::ExecRequest request, const std::filesystem::path& ncu,
                            const std::filesystem::path& file) {
  wrap(request, ncu_argv(ncu, file));
  request.timeout = exec::Seconds(request.timeout.count() * k_ncu_slowdown);
  return request;
}

std::optional<std::filesystem::path> ncu_counts_file(const exec::ExecRequest& request) {
  const auto* argv = std::get_if<std::vector<std::string>>(&request.command);
  const auto size = ncu_argv({}, {}).size();
  if (argv == nullptr || argv->size() <= size || (*argv)[1] != "--csv" ||
      (*argv)[size - 2] != "--log-file")
    return std::nullopt;
  return std::filesystem::path((*argv)[size - 1]);
}

Result<std::filesystem::path> find_valgrind() {
  if (auto found = host::find_on_path("valgrind"))
    return *found;
  return usage_error("--instrument valgrind needs Valgrind, which is not on PATH: install it "
                     "(apt-get install valgrind), or measure time (--instrument time)");
}

std::filesystem::path next_counts_dir(const std::filesystem::path& scratch) {
  static std::atomic<std::uint64_t> s_runs{0};
  return scratch / fmt::format("counts-{}", ++s_runs);
}

Result<exec::ExecRequest> under_valgrind(exec::ExecRequest request,
                                         const std::filesystem::path& valgrind,
                                         const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return infra_error("cannot make {} for the run's Valgrind profiles: {}", dir.string(),
                       ec.message());
  wrap(request, valgrind_argv(valgrind, dir));
  request.timeout = exec::Seconds(request.timeout.count() * k_valgrind_slowdown);
  // A Google Benchmark program: one iteration a repetition, and no lazy binding in the first loop.
  // A minimum time in the recipe's environment is for its timed runs (a bisection confirms in time
  // with it): counts take one iteration whatever it says.
  request.env.insert_or_assign("BENCHMARK_MIN_TIME", "0");
  request.env.try_emplace("LD_BIND_NOW", "1");
  // The paths in the environment that depend on where the cache is, at a length that does not
  // (see k_counted_path_length): the run's directory as a shell would export it (the shell keeps a
  // PWD that names its directory), and the cache as the ceiling of git's search for a repository.
  if (!request.cwd.empty())
    request.env.insert_or_assign("PWD", fixed_length_path(request.cwd));
  if (const auto ceiling = request.env.find("GIT_CEILING_DIRECTORIES");
      ceiling != request.env.end())
    ceiling->second = fixed_length_path(ceiling->second);
  return request;
}

std::optional<std::filesystem::path> counts_dir(const exec::ExecRequest& request) {
  const auto* argv = std::get_if<std::vector<std::string>>(&request.command);
  if (argv == nullptr)
    return std::nullopt;
  const auto size = valgrind_argv({}, {}).size();
  if (argv->size() <= size)
    return std::nullopt;
  const auto& out = (*argv)[size - 2];
  if (!out.starts_with(k_out_flag))
    return std::nullopt;
  return std::filesystem::path(out.substr(k_out_flag.size())).parent_path();
}

exec::ExecRequest unwrapped(const exec::ExecRequest& request) {
  // The instrument's own arguments, and how much it scaled the timeout.
  std::size_t wrapper = 0;
  double slowdown = 1;
  if (counts_dir(request)) {
    wrapper = valgrind_argv({}, {}).size();
    slowdown = k_valgrind_slowdown;
  } else if (perf_counts_file(request)) {
    wrapper = perf_argv({}, {}).size();
  } else if (ncu_counts_file(request)) {
    wrapper = ncu_argv({}, {}).size();
    slowdown = k_ncu_slowdown;
  } else {
    return request;
  }
  exec::ExecRequest original = request;
  auto argv = std::get<std::vector<std::string>>(request.command);
  argv.erase(argv.begin(), argv.begin() + static_cast<std::ptrdiff_t>(wrapper));
  if (argv.size() == 3 && argv[0] == "/bin/sh" && argv[1] == "-c")
    original.command = argv[2];
  else
    original.command = std::move(argv);
  original.timeout = exec::Seconds(request.timeout.count() / slowdown);
  return original;
}

namespace {

// Google Benchmark's timed loops, matched in order to the iteration rows: a value per repetition
// of each case, per iteration. None when they do not match one to one. A usage error when there
// were more loops than rows of one thread: Google Benchmark ran several batches a case (a
// --benchmark_min_time on the command line), and how many depends on the machine's speed, so
// neither the loops nor the whole program would count the same twice.
Result<std::optional<std::vector<parsers::CaseSamples>>>
gbench_samples(std::span<const parsers::ValgrindCounts> dumps,
               std::span<const parsers::IterationRow> rows) {
  std::vector<const parsers::ValgrindCounts*> loops;
  for (const auto& dump : dumps)
    if (dump.trigger.starts_with(k_loop_trigger))
      loops.push_back(&dump);
  const bool one_thread = std::ranges::all_of(rows, [](const parsers::IterationRow& row) {
    return row.threads == 1 && row.iterations >= 1;
  });
  if (one_thread && !rows.empty() && loops.size() > rows.size())
    return usage_error("Google Benchmark ran {} timed loops for {} repetitions under Valgrind: a "
                       "--benchmark_min_time in the run command makes it run batches until they "
                       "fill that time, so its counts follow the machine's speed; leave it out "
                       "under --instrument valgrind (culprit asks for one iteration a repetition "
                       "with BENCHMARK_MIN_TIME=0)",
                       loops.size(), rows.size());
  if (loops.empty() || loops.size() != rows.size() || !one_thread)
    return std::optional<std::vector<parsers::CaseSamples>>();
  std::vector<parsers::CaseSamples> samples;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::map<std::string, double> per_iteration;
    for (const auto& [metric, value] : loops[i]->counts)
      per_iteration[metric] = value / rows[i].iterations;
    for (auto& one : parsers::valgrind_samples(rows[i].case_name, per_iteration)) {
      const auto same = std::ranges::find_if(samples, [&](const parsers::CaseSamples& s) {
        return s.case_name == one.case_name && s.metric == one.metric;
      });
      if (same == samples.end())
        samples.push_back(std::move(one));
      else
        same->values.insert(same->values.end(), one.values.begin(), one.values.end());
    }
  }
  return std::optional(std::move(samples));
}

} // namespace

namespace {

// Every dump of every Callgrind profile in `dir`, in the order of the processes' pids.
Result<std::vector<parsers::ValgrindCounts>> profile_dumps(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> profiles;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto name = it->path().filename().string();
    // callgrind.out.<pid>, and its numbered dumps callgrind.out.<pid>.<n>, read with it. Callgrind
    // creates the file when the process starts and fills it when it ends: an empty one is a
    // process killed first (a daemon of the run, killed when the run ended), which counts nothing.
    std::error_code size_error;
    if (name.starts_with(k_profile_prefix) &&
        name.find('.', k_profile_prefix.size()) == std::string::npos &&
        it->file_size(size_error) != 0)
      profiles.push_back(it->path());
  }
  if (profiles.empty())
    return infra_error("the run left no Valgrind profile in {}: did the program start? (see "
                       "valgrind.log.* there)",
                       dir.string());
  std::ranges::sort(profiles);
  std::vector<parsers::ValgrindCounts> dumps;
  for (const auto& profile : profiles) {
    CULPRIT_TRY_ASSIGN(auto more, parsers::read_callgrind_dumps(profile));
    dumps.insert(dumps.end(), std::make_move_iterator(more.begin()),
                 std::make_move_iterator(more.end()));
  }
  return dumps;
}

} // namespace

std::optional<DiskRoom> disk_room(const std::filesystem::path& dir) {
  struct statvfs fs{};
  if (statvfs(dir.c_str(), &fs) != 0)
    return std::nullopt;
  // root may also write into the blocks kept back for it.
  const auto blocks = geteuid() == 0 ? fs.f_bfree : fs.f_bavail;
  DiskRoom room;
  room.bytes = static_cast<std::uint64_t>(blocks) * fs.f_frsize;
  if (fs.f_files != 0) // a filesystem without a limit on its files says 0
    room.files = static_cast<std::uint64_t>(fs.f_favail);
  return room;
}

Result<std::vector<parsers::CaseSamples>>
counted_samples(const std::filesystem::path& dir, std::string_view whole_case,
                std::span<const parsers::IterationRow> rows, DiskRoomProbe room) {
  auto read = profile_dumps(dir);
  if (!read) {
    // Callgrind says nothing when it cannot write its profile: a file cut short, or none, on a
    // disk with no room left is the disk's doing, not the program's.
    const auto left = room != nullptr ? room(dir) : std::nullopt;
    if (left && (left->bytes < k_full_disk_bytes || left->files == 0))
      return infra_error("the disk is full: Callgrind could not write the run's whole profile in "
                         "{} ({} left there; {}); free space on that disk, or give culprit a "
                         "--cache-dir on another",
                         dir.string(),
                         left->files == 0 ? std::string("no files")
                                          : format_bytes(static_cast<std::int64_t>(left->bytes)),
                         read.error().message);
    return std::unexpected(read.error());
  }
  const auto& dumps = *read;
  // A dump the program named with nothing would be a case without a name: refused, never
  // dropped or folded into another case.
  if (std::ranges::any_of(dumps, [](const auto& d) { return d.named && d.name.empty(); }))
    return usage_error("the program asked Callgrind for a dump with an empty name "
                       "(CALLGRIND_DUMP_STATS_AT(\"\")), which names no case: give each "
                       "CALLGRIND_DUMP_STATS_AT the name of its case");
  // A program that names its cases: only their dumps count (what ran outside them, the shell
  // that started it included, is set-up); any other: every dump of every process, as one case.
  const bool named = std::ranges::any_of(dumps, [](const auto& d) { return !d.name.empty(); });
  if (!named) {
    CULPRIT_TRY_ASSIGN(auto loops, gbench_samples(dumps, rows));
    if (loops)
      return std::move(*loops);
  }
  std::map<std::string, std::map<std::string, double>> by_case; // case -> metric -> total
  std::vector<std::string> order;
  for (const auto& dump : dumps) {
    if (named && dump.name.empty())
      continue;
    const std::string name = named ? dump.name : std::string(whole_case);
    if (!by_case.contains(name))
      order.push_back(name);
    auto& totals = by_case[name];
    for (const auto& [metric, value] : dump.counts)
      totals[metric] += value;
  }
  std::vector<parsers::CaseSamples> samples;
  for (const auto& name : order) {
    auto more = parsers::valgrind_samples(name, by_case[name]);
    samples.insert(samples.end(), std::make_move_iterator(more.begin()),
                   std::make_move_iterator(more.end()));
  }
  return samples;
}

std::optional<std::filesystem::path> instrument_dir(const exec::ExecRequest& request) {
  if (auto file = perf_counts_file(request))
    return file->parent_path();
  if (auto file = ncu_counts_file(request))
    return file->parent_path();
  return counts_dir(request);
}

Result<std::vector<parsers::CaseSamples>>
instrument_samples(const exec::ExecRequest& request, std::string_view whole_case,
                   std::span<const parsers::IterationRow> rows) {
  if (const auto file = ncu_counts_file(request))
    return parsers::parse_ncu_csv(read_file(*file).value_or(""));
  if (const auto file = perf_counts_file(request)) {
    CULPRIT_TRY_ASSIGN(const auto counts, parsers::parse_perf_stat(read_file(*file).value_or("")));
    return parsers::perf_samples(whole_case, counts);
  }
  if (const auto dir = counts_dir(request))
    return counted_samples(*dir, whole_case, rows);
  return std::vector<parsers::CaseSamples>{};
}

std::optional<double> timeout_scale(const exec::ExecRequest& request) {
  if (counts_dir(request))
    return k_valgrind_slowdown;
  if (ncu_counts_file(request))
    return k_ncu_slowdown;
  return std::nullopt;
}

std::string instrumented_outcome(const exec::ExecResult& ran, const exec::ExecRequest& request) {
  const char* tool = counts_dir(request)         ? "Valgrind"
                     : ncu_counts_file(request)  ? "ncu"
                     : perf_counts_file(request) ? "perf"
                                                 : nullptr;
  if (tool == nullptr)
    return exec::describe_outcome(ran, request);
  const auto original = unwrapped(request);
  const auto scale = timeout_scale(request);
  if (ran.timed_out && scale)
    return fmt::format("{} under {}, {:g} times the run timeout of {:g} s",
                       exec::describe_outcome(ran, request), tool, *scale,
                       original.timeout.count());
  return fmt::format("{} under {}", exec::describe_outcome(ran, original), tool);
}

namespace {

// What a Valgrind log says besides its banner, Callgrind's statistics at the end ("Events :",
// "Collected :", the refs, misses and branches that follow) and its notes ("For interactive
// control", the "--pid--" lines on the cache simulation): a fatal signal and the stack where it
// came, an error of Valgrind's own.
std::vector<std::string> valgrind_log_messages(const std::string& text) {
  constexpr std::array<std::string_view, 6> k_notes = {
      "Callgrind, a call-graph", "Copyright (C)", "Using Valgrind-", "Command: ", "Parent PID: ",
      "For interactive control"};
  std::vector<std::string> messages;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    auto line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? text.size() : end + 1;
    if (line.starts_with("--"))
      continue;
    // "==1234== message": the message.
    if (line.starts_with("==")) {
      const auto mark = line.find("==", 2);
      line = mark == std::string::npos ? std::string() : line.substr(mark + 2);
    }
    const auto first = line.find_first_not_of(' ');
    line = first == std::string::npos ? std::string() : line.substr(first);
    if (line.starts_with("Events    :") || line.starts_with("Events :"))
      break;
    if (line.empty() ||
        std::ranges::any_of(k_notes, [&](std::string_view note) { return line.starts_with(note); }))
      continue;
    messages.push_back(std::move(line));
  }
  return messages;
}

} // namespace

ValgrindFailure valgrind_failure(const exec::ExecResult& ran, const exec::ExecRequest& request) {
  constexpr std::size_t k_log_lines = 3;
  constexpr std::size_t k_stderr_tail = 300;
  std::vector<std::string> lines;
  bool unhandled = false;
  std::vector<std::filesystem::path> logs;
  if (const auto dir = counts_dir(request)) {
    std::error_code ec;
    for (std::filesystem::directory_iterator it(*dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().filename().string().starts_with("valgrind.log."))
        logs.push_back(it->path());
  }
  std::ranges::sort(logs);
  for (const auto& log : logs) {
    const auto text = read_file(log).value_or("");
    unhandled = unhandled || text.find("unhandled instruction") != std::string::npos;
    auto messages = valgrind_log_messages(text);
    lines.insert(lines.end(), std::make_move_iterator(messages.begin()),
                 std::make_move_iterator(messages.end()));
  }
  const auto program = exec::command_name(unwrapped(request));
  if (unhandled)
    return {.message = fmt::format("Valgrind cannot run {}: it uses an instruction that "
                                   "Valgrind's simulated CPU lacks (AVX-512 or a newer "
                                   "extension); build it for an older CPU (-march=x86-64-v3) or "
                                   "use --instrument time",
                                   program),
            .unsupported_instruction = true};
  if (lines.size() > k_log_lines)
    lines.resize(k_log_lines);
  // The program's own words (Valgrind writes to its log, not to the program's stderr).
  auto err = ran.err;
  while (!err.empty() && (err.back() == '\n' || err.back() == ' '))
    err.pop_back();
  if (err.size() > k_stderr_tail)
    err = err.substr(err.size() - k_stderr_tail);
  return {.message =
              fmt::format("the benchmark {} {}{}{}{}{}", program,
                          instrumented_outcome(ran, request), err.empty() ? "" : ": ", err,
                          lines.empty() ? "" : "; Valgrind's log: ", fmt::join(lines, " | ")),
          .unsupported_instruction = false};
}

std::string fixed_length_path(const std::filesystem::path& dir) {
  auto text = dir.string();
  if (text.size() < k_counted_path_length)
    text.append(k_counted_path_length - text.size(), '/');
  return text;
}

} // namespace culprit::measure
