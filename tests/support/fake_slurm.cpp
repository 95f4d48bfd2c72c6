#include "tests/support/fake_slurm.hpp"

#include <fstream>
#include <map>
#include <stdexcept>

namespace culprit::testing {
namespace {

constexpr const char* k_salloc = R"(#!/bin/sh
dir=$(dirname "$0")
echo "salloc $*" >> "$dir/calls"
if [ -f "$dir/refuse" ]; then
  if [ -s "$dir/refuse" ]; then cat "$dir/refuse" >&2; else
    echo "salloc: error: invalid partition specified: nosuch" >&2
    echo "salloc: error: Job submit/allocate failed: Invalid partition name specified" >&2
  fi
  exit 1
fi
if [ -f "$dir/queue" ]; then
  echo "salloc: Pending job allocation 99" >&2
  exec sleep 30
fi
# Allocations asked for at once each take their own number: the counter is read and bumped
# under a lock, as Slurm's controller hands out job ids one at a time.
exec 9>> "$dir/next.lock"
flock 9
n=$(cat "$dir/next" 2>/dev/null || echo 100)
echo $((n + 1)) > "$dir/next"
flock -u 9
echo "salloc: Granted job allocation $n" >&2
)";

constexpr const char* k_srun = R"(#!/bin/sh
dir=$(dirname "$0")
echo "srun $*" >> "$dir/calls"
job=""
while [ $# -gt 0 ]; do
  case "$1" in
    --jobid=*) job=${1#--jobid=}; shift ;;
    -*) shift ;;
    *) break ;;
  esac
done
for last in "$@"; do :; done
if [ -f "$dir/fail_steps" ]; then
  left=$(cat "$dir/fail_steps")
  if [ "$left" -gt 0 ]; then
    echo $((left - 1)) > "$dir/fail_steps"
    echo "srun: error: Node failure on fake01" >&2
    exit 1
  fi
fi
if [ -f "$dir/skip_worker" ]; then exit 0; fi
if [ -f "$dir/garbage" ] && grep -q '"requests":\[{' "$last/batch.json"; then
  printf 'not a result\n' > "$last/results.jsonl"
  exec sleep 20
fi
node=fake01
if [ -f "$dir/node_per_job" ]; then node=fake$job; fi
SLURM_JOB_ID=$job SLURMD_NODENAME=$node SLURM_STEP_ID=0 "$@"
status=$?
if [ -f "$dir/cut" ] && [ -f "$last/batch.json" ] && grep -q '"requests":\[{' "$last/batch.json"; then
  printf '{"started": 1, "exit_co' >> "$last/results.jsonl"
fi
exit $status
)";

constexpr const char* k_scancel = R"(#!/bin/sh
dir=$(dirname "$0")
echo "scancel $*" >> "$dir/calls"
)";

} // namespace

void install_fake_slurm(const std::filesystem::path& dir,
                        const std::vector<std::string>& programs) {
  static const std::map<std::string, const char*> k_scripts = {
      {"salloc", k_salloc}, {"srun", k_srun}, {"scancel", k_scancel}};
  std::filesystem::create_directories(dir);
  for (const auto& program : programs) {
    const auto file = dir / program;
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << k_scripts.at(program);
    out.close();
    if (!out)
      throw std::runtime_error("cannot write " + file.string());
    std::filesystem::permissions(file, std::filesystem::perms::owner_all);
  }
}

void link_basic_tools(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  for (const char* tool :
       {"sh",    "bash", "cat",  "cp",   "dirname", "echo", "grep", "sleep", "printf",
        "mkdir", "rm",   "mv",   "env",  "date",    "head", "tail", "sed",   "tr",
        "ln",    "awk",  "mawk", "gawk", "expr",    "seq",  "wc"}) {
    for (const char* prefix : {"/usr/bin/", "/bin/"}) {
      const std::filesystem::path target = std::string(prefix) + tool;
      std::error_code ignored;
      if (std::filesystem::exists(target)) {
        std::filesystem::create_symlink(target, dir / tool, ignored);
        break;
      }
    }
  }
}

} // namespace culprit::testing
